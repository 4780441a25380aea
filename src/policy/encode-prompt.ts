import type { ChatTemplate } from '../engine/tokenizer/chat-template.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';

/**
 * A chat model reads prompts through its chat template: each prompt becomes one user message
 * followed by the assistant header (natural-format tasks on an instruct checkpoint), and a
 * completion ends at any of the model's stop tokens (generation_config.json's eos ids).
 * Every policy backend that tokenises prompts itself (embedded, tinker) uses it, so the same
 * prompt is the same ids whichever backend samples it.
 */
export interface PromptFormat {
  readonly chat?: { readonly template: ChatTemplate; readonly enableThinking?: boolean };
  readonly stopIds?: readonly number[];
}

/** Prompt ids as a model sees them: BOS (when the tokenizer has one) + the prompt text. */
export function encodePromptIds(tokenizer: Tokenizer, prompt: string): number[] {
  const bos = tokenizer.special.bos;
  const ids = tokenizer.encode(prompt);
  return bos === undefined ? ids : [bos, ...ids];
}

/** Prompt ids under a prompt format: through the chat template when it has one, else encodePromptIds. */
export function encodeFormattedPrompt(tokenizer: Tokenizer, prompting: PromptFormat, prompt: string): number[] {
  const chat = prompting.chat;
  if (chat !== undefined) return chat.template.encode([{ role: 'user', content: prompt }], { addGenerationPrompt: true, enableThinking: chat.enableThinking });
  return encodePromptIds(tokenizer, prompt);
}
