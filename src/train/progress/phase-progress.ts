/**
 * Lines during the long phases of a run on a big model (the base evaluation, a step's sampling, a
 * learner's update), where one phase can take minutes and the step-by-step progress line would
 * stay silent. The engine works synchronously, so a timer could not fire while it runs; instead
 * the phase's own work reports between its pieces (a policy's batch of completions, a learner
 * micro-batch) and a line is printed once `everyMs` has passed since the phase began or since the
 * last line. Runs whose phases are quick (the built-in small models) print nothing more.
 *
 *   const phases = new PhaseProgress({ log });   // a line at most every 30 s
 *   phases.begin('base evaluation');
 *   await evaluate({ ...input, policyFor: phases.watch(input.policyFor) });
 *   // base evaluation: 48 completions so far, 31 s
 */
import type { Policy } from '../../policy/types.js';
import type { PolicyMember, PolicySet } from '../policy-set.js';

export interface PhaseProgressOptions {
  /** Writes one line (the run's log, above the live progress line). */
  readonly log: (line: string) => void;
  /** Least time between two lines, and before the first. Default 30 s. */
  readonly everyMs?: number;
  /** Milliseconds, monotonic. Default `performance.now`. */
  readonly clock?: () => number;
}

export class PhaseProgress {
  private readonly log: (line: string) => void;
  private readonly everyMs: number;
  private readonly clock: () => number;
  private phase = 'run';
  private began: number;
  private lastLine: number;
  private completions = 0;
  private readonly watched = new Map<Policy, Policy>();

  constructor(options: PhaseProgressOptions) {
    this.log = options.log;
    this.everyMs = options.everyMs ?? 30_000;
    this.clock = options.clock ?? (() => performance.now());
    this.began = this.lastLine = this.clock();
  }

  /** A new phase: its name starts every line, its clock and completion count start at 0. */
  begin(phase: string): void {
    this.phase = phase;
    this.began = this.lastLine = this.clock();
    this.completions = 0;
  }

  /** Some of the phase's work is done; prints `detail` when a line is due. */
  tick(detail: string): void {
    const now = this.clock();
    if (now - this.lastLine < this.everyMs) return;
    this.lastLine = now;
    this.log(`${this.phase}: ${detail}, ${Math.round((now - this.began) / 1000)} s`);
  }

  /** `policyFor` whose policies count their completions into the phase's lines. */
  watch(policyFor: (role: string) => Policy): (role: string) => Policy {
    return (role) => {
      const inner = policyFor(role);
      let policy = this.watched.get(inner);
      if (policy === undefined) {
        // One wrapper per policy, so roles that share a policy still share its batches.
        policy = {
          id: inner.id,
          sample: async (requests) => {
            const out = await inner.sample(requests);
            for (const row of out) this.completions += row.length;
            this.tick(`${this.completions} completions so far`);
            return out;
          },
        };
        this.watched.set(inner, policy);
      }
      return policy;
    };
  }
}

/**
 * The same policy set, reporting into `phases`: its sampling policies count completions and its
 * members' updates report each learner micro-batch. Weights, learners and samplers are shared.
 */
export function watchPolicySet(set: PolicySet, phases: PhaseProgress): PolicySet {
  const members = new Map<string, PolicyMember>();
  for (const [id, member] of set.members) {
    members.set(id, { ...member, update: (sequences, lr) => member.update(sequences, lr, (done, total) => phases.tick(`update of '${id}', micro-batch ${done}/${total}`)) });
  }
  return { members, roleToPolicy: set.roleToPolicy, policyFor: phases.watch((role) => set.policyFor(role)), dispose: () => set.dispose() };
}
