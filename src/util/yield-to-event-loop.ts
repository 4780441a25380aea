/**
 * Lets the event loop run between two pieces of long synchronous work (a training step, an
 * evaluation batch), so a host program's servers, timers and abort handlers are served
 * meanwhile. Two turns: the first polls I/O (an HTTP request read and answered), the second
 * lets the writes and callbacks that started complete.
 *
 * @example
 * ```ts
 * for (const batch of batches) {
 *   run(batch);
 *   await yieldToEventLoop();
 * }
 * ```
 */
export async function yieldToEventLoop(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
