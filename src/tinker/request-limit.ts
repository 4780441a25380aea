/**
 * At most `max` sampling requests of one client in flight at once (submitted and not yet
 * answered); the rest wait their turn in call order. A rollout or an evaluation asks for one
 * `asample` per prompt, hundreds at once, and a service can refuse such a burst: SkyRL tx on
 * its default SQLite database runs out of database connections (15) and answers 500 from then
 * on (docs/distributed.md, "SkyRL tx").
 *
 *   const limit = new RequestLimit(8);
 *   const answers = await Promise.all(prompts.map((p) => limit.run(() => sampler.sample(p))));
 */
export class RequestLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) throw new RangeError(`RequestLimit: max must be an integer >= 1, got ${max}`);
  }

  /** Runs `request` once fewer than `max` others are running; settles as it does. */
  async run<T>(request: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await request();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
