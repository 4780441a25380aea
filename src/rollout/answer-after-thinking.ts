/**
 * What a role reads from a reasoning model's reply. Qwen3 (and DeepSeek-R1-style models)
 * think first: `<think>\n...\n</think>\n\nU, R, R, D`. The thinking is scratch work that may
 * hold words, lists and code blocks of its own, so a role reads only what follows the last
 * `</think>` (as vLLM's reasoning parsers split `reasoning_content` from `content`). A reply
 * that opens `<think>` and never closes it ran out of tokens while thinking: that is a
 * recorded failure naming the fix, not an answer read out of the scratch work. Text without
 * the tags (every non-reasoning model, and Qwen3 with enable_thinking false, whose template
 * puts the empty think block in the prompt) is read as it is.
 *
 *   answerAfterThinking('<think>\nwall on the left\n</think>\n\nU, R');   // { ok: true, text: 'U, R' }
 */
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

export type AnswerText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

export function answerAfterThinking(text: string): AnswerText {
  const close = text.lastIndexOf(THINK_CLOSE);
  if (close >= 0) return { ok: true, text: text.slice(close + THINK_CLOSE.length).trim() };
  if (text.includes(THINK_OPEN)) {
    return { ok: false, reason: 'the reply ended inside <think> before any answer; raise rollout.max_tokens or set model.enable_thinking: false' };
  }
  return { ok: true, text };
}
