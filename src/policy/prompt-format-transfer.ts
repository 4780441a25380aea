/**
 * A prompt format (chat template, stop ids) as a plain message for another thread: the
 * template travels as its Jinja source and is compiled again there.
 */
import { jinjaChatTemplate, type ChatTemplateSource } from '../engine/tokenizer/chat-template.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { TroupeError } from '../util/errors.js';
import type { PromptFormat } from './encode-prompt.js';

export interface PromptFormatTransfer {
  readonly stopIds?: readonly number[];
  readonly chat?: { readonly source: Exclude<ChatTemplateSource, 'builtin'>; readonly text: string; readonly specials: { bos_token: string; eos_token: string }; readonly enableThinking?: boolean };
}

export function packPromptFormat(format: PromptFormat): PromptFormatTransfer {
  const chat = format.chat;
  if (chat !== undefined && (chat.template.text === undefined || chat.template.specials === undefined || chat.template.source === 'builtin')) {
    throw new TroupeError('invariant', 'internal invariant broken: a natural-format prompt needs a Jinja chat template to move to another thread');
  }
  return {
    ...(format.stopIds === undefined ? {} : { stopIds: format.stopIds }),
    ...(chat === undefined
      ? {}
      : { chat: { source: chat.template.source as Exclude<ChatTemplateSource, 'builtin'>, text: chat.template.text!, specials: chat.template.specials!, ...(chat.enableThinking === undefined ? {} : { enableThinking: chat.enableThinking }) } }),
  };
}

export function unpackPromptFormat(message: PromptFormatTransfer, tokenizer: Tokenizer): PromptFormat {
  const chat = message.chat;
  return {
    ...(message.stopIds === undefined ? {} : { stopIds: message.stopIds }),
    ...(chat === undefined
      ? {}
      : { chat: { template: jinjaChatTemplate(chat.text, tokenizer, { specials: chat.specials, source: chat.source }), ...(chat.enableThinking === undefined ? {} : { enableThinking: chat.enableThinking }) } }),
  };
}
