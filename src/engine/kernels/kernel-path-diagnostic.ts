// The note a kernel conformance suite leaves in the test stream when it has run, and its
// reader: scripts/kernel-path-reporter.mjs imports this compiled file, so the two cannot drift.
// No imports, so the reporter loads nothing else (no addon) in the test runner's process.

const PREFIX = 'kernel path exercised: ';

/** The diagnostic message a conformance suite of the kernels named `path` emits. */
export function kernelPathDiagnostic(path: string): string {
  return `${PREFIX}${path}`;
}

/** The path named by such a message, or undefined for any other diagnostic. */
export function parseKernelPathDiagnostic(message: string): string | undefined {
  return message.startsWith(PREFIX) ? message.slice(PREFIX.length) : undefined;
}
