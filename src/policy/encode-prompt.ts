import type { Tokenizer } from '../engine/tokenizer/types.js';

/** Prompt ids as a model sees them: BOS (when the tokenizer has one) + the prompt text. */
export function encodePromptIds(tokenizer: Tokenizer, prompt: string): number[] {
  const bos = tokenizer.special.bos;
  const ids = tokenizer.encode(prompt);
  return bos === undefined ? ids : [bos, ...ids];
}
