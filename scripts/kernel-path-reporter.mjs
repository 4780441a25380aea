// A node:test reporter that writes the name of every kernel path whose conformance suite ran
// (one per line) to its destination; run-tests.mjs reads them back for the line that names the
// paths exercised on this CPU and the ones it could not run.
import { parseKernelPathDiagnostic } from '../dist/src/engine/kernels/kernel-path-diagnostic.js';

export default async function* kernelPathReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:diagnostic') continue;
    const path = parseKernelPathDiagnostic(event.data.message);
    if (path !== undefined) yield `${path}\n`;
  }
}
