/**
 * How an embedded policy talks to a model loaded from a folder: natural-format prompts go
 * through the folder's chat template when it has one (an instruct checkpoint), compact ones
 * and template-less models read the raw text; completions stop at the folder's stop tokens.
 *
 *   const prompting = promptFormatOf('models/qwen3', tokenizer, { format: 'natural', enableThinking: false });
 *   new EmbeddedPolicy({ id, model, tokenizer, prompting });
 */
import { loadChatTemplate } from '../engine/tokenizer/chat-template.js';
import { loadStopTokenIds } from '../engine/tokenizer/stop-tokens.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import type { PromptFormat } from './embedded-policy.js';

export function promptFormatOf(dir: string, tokenizer: Tokenizer, options: { format: 'natural' | 'compact'; enableThinking?: boolean }): PromptFormat {
  const stopIds = loadStopTokenIds(dir, tokenizer);
  const template = loadChatTemplate(dir, tokenizer);
  if (options.format !== 'natural' || template.source === 'builtin') return { stopIds };
  return { stopIds, chat: { template, ...(options.enableThinking !== undefined ? { enableThinking: options.enableThinking } : {}) } };
}
