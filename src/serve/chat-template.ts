/**
 * Turns a chat conversation into prompt token ids.
 *
 * - A model folder whose tokenizer_config.json has a `chat_template` (every instruct model on
 *   the Hugging Face Hub does) is rendered with that Jinja template, exactly as
 *   transformers' `apply_chat_template` would: variables `messages`, `add_generation_prompt`,
 *   `bos_token`, `eos_token` (and `raise_exception`, which becomes a 400). The template writes BOS itself, so the
 *   text is encoded without adding one.
 * - Troupe's built-in small models have no template. They are trained on raw task prompts, so
 *   the built-in template is: BOS, then the messages' contents joined by "\n", no role
 *   markers (the standard 64-character vocabulary has no lower-case letters to spell them).
 *   A one-message chat therefore gives exactly the ids a completion of that text gets.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { readJsonFile, TOKENIZER_CONFIG_FILE } from '../engine/io/checkpoint.js';
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { TroupeError } from '../util/errors.js';
import { ApiError } from './api-error.js';
import type { ChatMessage } from './types.js';

export interface ChatTemplate {
  /** 'tokenizer_config' when the folder's template is used, else 'builtin'. */
  readonly source: 'tokenizer_config' | 'builtin';
  /** The conversation as the model reads it (special tokens as text). */
  render(messages: readonly ChatMessage[], addGenerationPrompt: boolean): string;
  /** The conversation's prompt ids. */
  encode(messages: readonly ChatMessage[], addGenerationPrompt: boolean): number[];
}

export function builtinChatTemplate(tokenizer: Tokenizer): ChatTemplate {
  const bos = tokenizer.special.bos;
  const join = (messages: readonly ChatMessage[]) => messages.map((m) => m.content).join('\n');
  return {
    source: 'builtin',
    render: (messages) => (bos === undefined ? '' : tokenizer.decode([bos])) + join(messages),
    encode: (messages) => {
      const ids = tokenizer.encode(join(messages));
      return bos === undefined ? ids : [bos, ...ids];
    },
  };
}

/** A template from Jinja source, with the special-token texts it may refer to. */
export function jinjaChatTemplate(source: string, tokenizer: Tokenizer, specials: { bos_token: string; eos_token: string }): ChatTemplate {
  let template: Template;
  try {
    template = new Template(source);
  } catch (error) {
    throw new TroupeError('checkpoint', `chat_template in ${TOKENIZER_CONFIG_FILE} does not parse: ${(error as Error).message}`);
  }
  const render = (messages: readonly ChatMessage[], addGenerationPrompt: boolean): string => {
    try {
      return template.render({
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        add_generation_prompt: addGenerationPrompt,
        ...specials,
      });
    } catch (error) {
      // Includes the template's own raise_exception('...') (built into the Jinja runtime).
      throw new ApiError(400, `the model's chat template failed on this conversation: ${(error as Error).message}`, { param: 'messages' });
    }
  };
  return { source: 'tokenizer_config', render, encode: (messages, add) => tokenizer.encode(render(messages, add)) };
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') return (value as { content: string }).content;
  return undefined;
}

/** The chat template of a model folder: its tokenizer_config.json's, or the built-in one. */
export function loadChatTemplate(dir: string, tokenizer: Tokenizer): ChatTemplate {
  const path = join(dir, TOKENIZER_CONFIG_FILE);
  if (!existsSync(path)) return builtinChatTemplate(tokenizer);
  const config = readJsonFile(path) as Record<string, unknown>;
  let source = config.chat_template;
  // Newer tokenizer configs may hold several named templates; 'default' is the chat one.
  if (Array.isArray(source)) source = (source.find((t) => t?.name === 'default') ?? source[0])?.template;
  if (typeof source !== 'string' || source.length === 0) return builtinChatTemplate(tokenizer);
  const name = (id: number | undefined) => (id === undefined ? '' : tokenizer.decode([id]));
  return jinjaChatTemplate(source, tokenizer, {
    bos_token: tokenText(config.bos_token) ?? name(tokenizer.special.bos),
    eos_token: tokenText(config.eos_token) ?? name(tokenizer.special.eos),
  });
}
