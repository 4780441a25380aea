/**
 * One Sandbox for every code task of the process (its concurrency limit is then a real limit
 * on the machine), created on first use so that merely loading a task never probes the host.
 * Also a memo for sandbox results: `Role.prepare` stores results under a key of everything
 * the run depended on, and `Role.step` reads them back synchronously. Clones of an env and
 * replays of the same actions find the same entries, so a program runs once however often
 * a tree re-applies it.
 */
import { Sandbox } from '../../sandbox/sandbox.js';
import { invariant } from '../../util/errors.js';

let shared: Sandbox | undefined;

export function sharedSandbox(): Sandbox {
  shared ??= new Sandbox(); // as many programs at once as TROUPE_THREADS, else the cores
  return shared;
}

/** Entries kept before the oldest are dropped (a training run evaluates many programs). */
const DEFAULT_CAPACITY = 20_000;

export class SandboxMemo<T> {
  private readonly done = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** Computes the value for `key` once (concurrent callers share the run). */
  async ensure(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.done.get(key);
    if (hit !== undefined) return hit;
    let running = this.pending.get(key);
    if (!running) {
      running = compute().then((value) => {
        this.pending.delete(key);
        this.done.set(key, value);
        if (this.done.size > this.capacity) this.done.delete(this.done.keys().next().value as string);
        return value;
      });
      running.catch(() => this.pending.delete(key));
      this.pending.set(key, running);
    }
    return running;
  }

  /** The stored value; an invariant error when `prepare` did not run first. */
  get(key: string, what: string): T {
    const value = this.done.get(key);
    invariant(value !== undefined, `${what}: step() was called before prepare() ran its sandbox work (rollouts await Role.prepare before Role.step)`);
    return value;
  }
}
