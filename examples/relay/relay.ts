// A two-role task written only against troupe's public API (docs/new-task.md explains it).
// SEE reads a hidden digit and sends a message; GO sees only the message and names the digit.
import { defineTask, Rng, type Env, type ParseResult, type Role } from 'troupe';

class RelayEnv implements Env {
  message = '';
  answer = -1;
  constructor(readonly taskId: string, readonly secret: number) {}
  get done(): boolean {
    return this.answer >= 0;
  }
  get success(): boolean {
    return this.answer === this.secret;
  }
  clone(): this {
    const copy = new RelayEnv(this.taskId, this.secret);
    Object.assign(copy, { message: this.message, answer: this.answer });
    return copy as this;
  }
}

// Prompts use digits and upper case only: the built-in character tokenizer reads exactly those.
const digit = (text: string): ParseResult<number> =>
  /^\d/.test(text) ? { ok: true, action: Number(text[0]) } : { ok: false, reason: `expected a digit, got ${JSON.stringify(text.slice(0, 10))}` };

const see: Role<RelayEnv, number> = {
  name: 'SEE',
  prompt: (env) => `S${env.secret}\nSEE A:`,
  parse: digit,
  step: (env, action) => ((env.message = action.ok ? String(action.action) : '?'), { local: action.ok ? 0 : -0.1 }),
};

const go: Role<RelayEnv, number> = {
  name: 'GO',
  prompt: (env) => `M${env.message}\nGO A:`,
  parse: digit,
  step: (env, action) => ((env.answer = action.ok ? action.action : 10), { local: action.ok ? 0 : -0.1 }),
};

export default defineTask({
  name: 'relay',
  description: 'SEE passes a hidden digit to GO, who must name it.',
  options: { digits: 10 },
  maxTurns: 1,
  source: (options, seed) => ({
    make: (index, split) => new RelayEnv(`relay/${split}/${index}`, Rng.derive(seed, 'relay', split, index).int(options.digits)),
  }),
  // Half the team reward once the message carries the digit: SEE's branches are scored before GO acts.
  team: () => ({ roles: [see, go], globalReward: (env) => (env.success ? 1 : env.message === String(env.secret) ? 0.5 : 0) }),
  // The warm start imitates this player: right with probability `skill`, a random digit otherwise.
  scripted: ({ prompt, skill, rng }) => String(rng.next() < skill ? Number(/^[SM](\d)/.exec(prompt)?.[1] ?? 0) : rng.int(10)),
});
