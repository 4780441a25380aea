/**
 * Ctrl-C for a long CLI command: the first SIGINT aborts the returned signal (the library then
 * finishes its current step, saves and returns) and says how to stop at once; a second one
 * ends the process with exit code 130 after `onForcedExit` (e.g. removing a half-made folder).
 * Only the CLI touches the process this way; the library takes an AbortSignal.
 *
 * @example
 * ```ts
 * const ctrlC = interruptSignal(process.stderr);
 * try { await runTraining({ config, signal: ctrlC.signal }); } finally { ctrlC.dispose(); }
 * ```
 */
export interface InterruptSignal {
  readonly signal: AbortSignal;
  /** Run before a second Ctrl-C exits (replaces the previous one). */
  onForcedExit(cleanup: (() => void) | undefined): void;
  /** Removes the SIGINT handler. */
  dispose(): void;
}

export function interruptSignal(stream: { write(text: string): unknown }): InterruptSignal {
  const controller = new AbortController();
  let cleanup: (() => void) | undefined;
  const onSigint = (): void => {
    if (controller.signal.aborted) {
      cleanup?.();
      process.exit(130);
    }
    controller.abort('Ctrl-C');
    stream.write('press Ctrl-C again to stop at once\n');
  };
  process.on('SIGINT', onSigint);
  return {
    signal: controller.signal,
    onForcedExit: (fn) => {
      cleanup = fn;
    },
    dispose: () => {
      process.off('SIGINT', onSigint);
    },
  };
}
