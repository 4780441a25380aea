/**
 * Runs one stdin -> stdout program on many test cases in ONE sandbox run: a small trusted
 * driver (/box/main.py) starts the program once per case as a child process (fresh
 * interpreter per case, so cases cannot share state), with a per-case time limit, and
 * compares outputs like a judge (line endings unified, trailing spaces and blank lines
 * ignored). Setting up a sandbox costs far more than starting Python, so this is several
 * times faster than one sandbox per case (src/sandbox/run-stdio-tests.ts).
 *
 * The child does not inherit the result channel (fd 3), but it runs as the same uid as the
 * driver; like the assert harness, a hostile program could forge results (docs/sandbox.md).
 */
import type { StdioTestCase } from '../../sandbox/types.js';
import type { Sandbox } from '../../sandbox/sandbox.js';

/** Why one case failed or passed; `passed` needs reason ok and matching output. */
export type CaseReason = 'ok' | 'error' | 'timeout' | 'memory' | 'killed' | 'not-run';

export interface CaseResult {
  readonly passed: boolean;
  readonly reason: CaseReason;
  /** The start of the program's output (for feedback), at most 200 characters. */
  readonly actual: string;
  /** The end of stderr when the program failed, at most 300 characters. */
  readonly error: string;
}

const DRIVER = String.raw`
import json, os, subprocess, sys
BOOT = "import builtins, sys; builtins.exit = builtins.quit = sys.exit; sys.argv = ['program.py']; exec(compile(open('program.py', 'rb').read(), 'program.py', 'exec'), {'__name__': '__main__', '__builtins__': builtins})"
def clean(b):
    t = b.decode('utf-8', 'replace').replace('\r\n', '\n').replace('\r', '\n')
    return '\n'.join(l.rstrip() for l in t.split('\n')).rstrip('\n')
def main():
    chan = os.fdopen(3, 'w', buffering=1)
    with open('cases.json') as f:
        spec = json.load(f)
    for case in spec['cases']:
        reason = 'ok'
        try:
            with open('/tmp/out', 'wb') as out, open('/tmp/err', 'wb') as err:
                p = subprocess.run([sys.executable, '-S', '-B', '-c', BOOT], input=case['input'].encode(),
                                   stdout=out, stderr=err, timeout=spec['seconds'])
            if p.returncode > 0: reason = 'error'
            elif p.returncode < 0: reason = 'killed'
        except subprocess.TimeoutExpired:
            reason = 'timeout'
        with open('/tmp/out', 'rb') as f: out = f.read(4_000_000)
        with open('/tmp/err', 'rb') as f: err = f.read()[-2000:].decode('utf-8', 'replace')
        if reason == 'error' and 'MemoryError' in err: reason = 'memory'
        passed = reason == 'ok' and clean(out) == clean(case['output'].encode())
        chan.write(json.dumps({'passed': passed, 'reason': reason, 'actual': out[:200].decode('utf-8', 'replace'),
                               'error': err[-300:] if reason != 'ok' else ''}) + '\n')
main()
`;

export interface StdioBatchRequest {
  readonly code: string;
  readonly cases: readonly StdioTestCase[];
  /** Time limit of each case, in ms. */
  readonly caseMs?: number;
}

export async function runStdioBatch(sandbox: Sandbox, request: StdioBatchRequest): Promise<CaseResult[]> {
  if (request.cases.length === 0) return [];
  const caseMs = request.caseMs ?? 2000;
  const wallMs = Math.min(120_000, request.cases.length * (caseMs + 300) + 3000);
  const run = await sandbox.run({
    language: 'python',
    code: DRIVER,
    files: { 'program.py': request.code, 'cases.json': JSON.stringify({ cases: request.cases, seconds: caseMs / 1000 }) },
    channel: true,
    limits: { wallMs, cpuMs: wallMs, outputBytes: 256 * 1024 },
  });
  const lines = run.channel.split('\n').filter((l) => l.startsWith('{'));
  return request.cases.map((_, i): CaseResult => {
    try {
      const r = JSON.parse(lines[i]!) as CaseResult;
      return { passed: r.passed === true, reason: r.reason, actual: String(r.actual), error: String(r.error) };
    } catch {
      // The driver stopped before this case (the whole run hit a limit): the case did not run.
      return { passed: false, reason: 'not-run', actual: '', error: `the test run stopped early (${run.reason})` };
    }
  });
}
