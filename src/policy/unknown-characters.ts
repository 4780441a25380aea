/**
 * Prompts the model cannot read: characters its tokenizer maps to the unknown token all look
 * the same to the model (the built-in character tokenizer has no lower case, so `tool` and
 * `plan` would both read as <unk><unk><unk><unk>). A run reports them once per role, naming the
 * characters, instead of training on them silently.
 */
import type { Tokenizer } from '../engine/tokenizer/types.js';

/** The characters of `text` that `tokenizer` reads as its unknown token, each once, in order. */
export function unknownCharacters(tokenizer: Tokenizer, text: string, known: Map<string, boolean> = new Map()): string[] {
  const unk = tokenizer.special.unk;
  if (unk === undefined) return [];
  const found: string[] = [];
  for (const char of new Set(text)) {
    let ok = known.get(char);
    if (ok === undefined) {
      ok = !tokenizer.encode(char).includes(unk);
      known.set(char, ok);
    }
    if (!ok) found.push(char);
  }
  return found;
}

/** Checks every prompt a run samples; warns once per role, the first time it sees unknown characters. */
export class UnknownCharacterReport {
  private readonly known = new Map<string, boolean>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly warn: (line: string) => void,
  ) {}

  check(samples: ReadonlyArray<{ readonly role: string; readonly prompt: string }>): void {
    const byRole = new Map<string, Set<string>>();
    for (const { role, prompt } of samples) {
      if (this.reported.has(role)) continue;
      const chars = unknownCharacters(this.tokenizer, prompt, this.known);
      if (chars.length === 0) continue;
      const set = byRole.get(role) ?? new Set<string>();
      for (const c of chars) set.add(c);
      byRole.set(role, set);
    }
    for (const [role, chars] of byRole) {
      this.reported.add(role);
      const list = [...chars].map((c) => JSON.stringify(c)).join(' ');
      this.warn(
        `warning: role ${JSON.stringify(role)}'s prompts contain characters the model's tokenizer reads as <unk>: ${list}; the model cannot tell them apart. ` +
          'Write prompts in the tokenizer\'s characters (the standard one: digits, A-Z, space, newline and #.*=:,-+()[]@$/<>_?!;") or set model.tokenizer: ascii',
      );
    }
  }
}
