/**
 * Turns a chat conversation into prompt token ids, from the model folder like the tokenizer.
 *
 * Where the template comes from (first found):
 *   1. `chat_template.jinja` in the folder (how transformers 4.43+ saves it);
 *   2. the `chat_template` field of tokenizer_config.json: a string, or a list of
 *      `{ name, template }` where `default` is the chat one;
 *   3. the built-in template of Troupe's small models: BOS, then the messages' contents
 *      joined by "\n", no role markers (the 64-character vocabulary cannot spell them), so a
 *      one-message chat gives exactly the ids a completion of that text gets.
 *
 * A Jinja template is rendered as transformers' `apply_chat_template` does: variables
 * `messages`, `add_generation_prompt`, `bos_token`, `eos_token`, any extra keyword arguments
 * (vLLM's `chat_template_kwargs`), and `enable_thinking` when given (Qwen3's switch; left
 * undefined otherwise so the template's own default applies). The template writes BOS
 * itself, so its text is encoded without adding one.
 *
 *   const chat = loadChatTemplate('models/qwen3', tokenizer);
 *   chat.encode([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true, enableThinking: false });
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { TroupeError } from '../../util/errors.js';
import { readJsonFile } from '../io/checkpoint.js';
import { CHAT_TEMPLATE_FILE_NAME, TOKENIZER_CONFIG_NAME } from './load-tokenizer.js';
import type { Tokenizer } from './types.js';

export const CHAT_TEMPLATE_FILE = CHAT_TEMPLATE_FILE_NAME;

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
  /**
   * An assistant turn's calls, OpenAI-shaped (`{ type: 'function', function: { name, arguments } }`),
   * which templates such as Qwen3's render as `<tool_call>` blocks.
   */
  readonly tool_calls?: readonly unknown[];
  /** An assistant turn's reasoning (Qwen3's template writes it inside `<think>`). */
  readonly reasoning_content?: string;
}

export interface ChatRenderOptions {
  /** Append the header that starts the assistant's reply. */
  readonly addGenerationPrompt: boolean;
  /** Qwen3-style thinking switch; undefined leaves the template's default. */
  readonly enableThinking?: boolean;
  /** More template variables (a serve request's `chat_template_kwargs`). */
  readonly kwargs?: Readonly<Record<string, unknown>>;
}

export type ChatTemplateSource = typeof CHAT_TEMPLATE_FILE | 'tokenizer_config' | 'builtin';

export interface ChatTemplate {
  readonly source: ChatTemplateSource;
  /** The Jinja source (what a server publishes as `chat_template`); undefined for the builtin join. */
  readonly text?: string;
  /** The bos_token and eos_token texts a Jinja template renders with (to rebuild it elsewhere, e.g. in a worker thread). */
  readonly specials?: { readonly bos_token: string; readonly eos_token: string };
  /** The conversation as the model reads it (special tokens as text). */
  render(messages: readonly ChatMessage[], options: ChatRenderOptions): string;
  /** The conversation's prompt ids. */
  encode(messages: readonly ChatMessage[], options: ChatRenderOptions): number[];
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

/** A template from Jinja source; `specials` are the texts of its bos_token and eos_token. */
export function jinjaChatTemplate(
  text: string,
  tokenizer: Tokenizer,
  options: { specials: { bos_token: string; eos_token: string }; source?: Exclude<ChatTemplateSource, 'builtin'> },
): ChatTemplate {
  const source = options.source ?? 'tokenizer_config';
  let template: Template;
  try {
    template = new Template(text);
  } catch (error) {
    const where = source === 'tokenizer_config' ? `chat_template in ${TOKENIZER_CONFIG_NAME}` : CHAT_TEMPLATE_FILE;
    throw new TroupeError('checkpoint', `${where} does not parse as Jinja: ${(error as Error).message}`);
  }
  const render = (messages: readonly ChatMessage[], o: ChatRenderOptions): string => {
    try {
      return template.render({
        ...o.kwargs,
        messages: messages.map((m) => ({
          role: m.role,
          content: m.content,
          ...(m.tool_calls !== undefined ? { tool_calls: m.tool_calls } : {}),
          ...(m.reasoning_content !== undefined ? { reasoning_content: m.reasoning_content } : {}),
        })),
        add_generation_prompt: o.addGenerationPrompt,
        ...options.specials,
        ...(o.enableThinking !== undefined ? { enable_thinking: o.enableThinking } : {}),
      });
    } catch (error) {
      // Includes the template's own raise_exception('...') (built into the Jinja runtime).
      throw new TroupeError('input', `messages: the model's chat template failed on this conversation: ${(error as Error).message}`);
    }
  };
  return { source, text, specials: options.specials, render, encode: (messages, o) => tokenizer.encode(render(messages, o)) };
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string') return (value as { content: string }).content;
  return undefined;
}

function readJsonObject(path: string): Record<string, unknown> {
  const parsed = readJsonFile(path);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  throw new TroupeError('checkpoint', `${path} is not a JSON object`);
}

/** The tokenizer_config.json `chat_template` field as one template text, if it has one. */
function configTemplate(config: Record<string, unknown>, path: string): string | undefined {
  const field = config.chat_template;
  if (field === undefined || field === null) return undefined;
  if (typeof field === 'string') return field.length > 0 ? field : undefined;
  if (Array.isArray(field)) {
    const named = field as Array<{ name?: unknown; template?: unknown }>;
    const chosen = named.find((t) => t?.name === 'default') ?? named[0];
    if (typeof chosen?.template === 'string') return chosen.template;
  }
  throw new TroupeError('checkpoint', `${path}: chat_template must be a string or a list of {"name", "template"} objects, got ${JSON.stringify(field).slice(0, 80)}`);
}

/** The chat template of a model folder (see the top of this file for the order). */
export function loadChatTemplate(dir: string, tokenizer: Tokenizer): ChatTemplate {
  const configPath = join(dir, TOKENIZER_CONFIG_NAME);
  const config = existsSync(configPath) ? readJsonObject(configPath) : {};
  const filePath = join(dir, CHAT_TEMPLATE_FILE);
  const fromFile = existsSync(filePath) ? readFileSync(filePath, 'utf8') : undefined;
  const text = fromFile ?? configTemplate(config, configPath);
  if (text === undefined) return builtinChatTemplate(tokenizer);
  const name = (id: number | undefined) => (id === undefined ? '' : tokenizer.decode([id]));
  const specials = { bos_token: tokenText(config.bos_token) ?? name(tokenizer.special.bos), eos_token: tokenText(config.eos_token) ?? name(tokenizer.special.eos) };
  return jinjaChatTemplate(text, tokenizer, { specials, source: fromFile === undefined ? 'tokenizer_config' : CHAT_TEMPLATE_FILE });
}
