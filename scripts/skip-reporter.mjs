// A node:test reporter that writes one JSON line per skipped test ({ file, name, reason }) to
// its destination; run-tests.mjs reads them back to print one summary line of what was
// skipped and why, so a skip on a host without a capability is never silent.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, name, file } = event.data;
    if (skip === undefined || skip === false) continue;
    yield `${JSON.stringify({ file, name, reason: typeof skip === 'string' ? skip : '(no reason given)' })}\n`;
  }
}
