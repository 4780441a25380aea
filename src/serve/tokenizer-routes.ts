/**
 * vLLM's tokenizer routes, which evaluation harnesses call instead of loading a tokenizer of
 * their own (lm-eval's `local-completions` switches to them when GET /tokenizer_info answers
 * with an `eos_token` and POST /tokenize answers with `tokens`):
 *
 *   POST /tokenize        {"prompt": "Hi", "add_special_tokens": false} -> {"count", "max_model_len", "tokens", "token_strs"}
 *                         {"messages": [...], "add_generation_prompt": true} -> the chat template's ids
 *   POST /detokenize      {"tokens": [5, 9]} -> {"prompt": "..."}
 *   GET  /tokenizer_info  the model's tokenizer_config.json fields (special tokens as text,
 *                         chat_template as Jinja source, model_max_length)
 *
 * `model` is optional in the POST bodies (as in vLLM); without it the first served model answers.
 */
import type { Tokenizer } from '../engine/tokenizer/types.js';
import { badParam } from './api-error.js';
import type { DetokenizeRequest, ServedModel, TokenizeRequest } from './types.js';

export type Json = Record<string, unknown>;

export function tokenizerInfo(served: ServedModel): Json {
  const { tokenizer } = served;
  // added_tokens_decoder is the tokenizer's own table (large for real models); clients read the fields below.
  const { added_tokens_decoder: _table, ...config } = tokenizer.tokenizerConfig?.() ?? {};
  // The ids' own text, whatever form tokenizer_config.json used ("<s>" or {"content": "<s>", ...}).
  const special = (id: number | undefined) => (id === undefined ? null : tokenizer.decode([id]));
  return {
    ...config,
    tokenizer_class: typeof config.tokenizer_class === 'string' ? config.tokenizer_class : 'PreTrainedTokenizerFast',
    bos_token: special(tokenizer.special.bos),
    eos_token: special(tokenizer.special.eos),
    pad_token: special(tokenizer.special.pad),
    unk_token: special(tokenizer.special.unk),
    chat_template: served.chatTemplate.text ?? null,
    model_max_length: served.model.config.max_position_embeddings,
    vocab_size: tokenizer.vocabSize,
  };
}

/** A text prompt's ids: the tokenizer's BOS first when `addSpecialTokens` (vLLM's default) and the tokenizer has one. */
export function encodePromptText(tokenizer: Tokenizer, text: string, addSpecialTokens: boolean): number[] {
  const ids = tokenizer.encode(text);
  return addSpecialTokens && tokenizer.special.bos !== undefined ? [tokenizer.special.bos, ...ids] : ids;
}

export function tokenize(served: ServedModel, request: TokenizeRequest): Json {
  const { tokenizer } = served;
  const ids =
    'text' in request
      ? encodePromptText(tokenizer, request.text, request.addSpecialTokens)
      : served.chatTemplate.encode(request.messages, { addGenerationPrompt: request.addGenerationPrompt, kwargs: request.chatTemplateKwargs });
  return {
    count: ids.length,
    max_model_len: served.model.config.max_position_embeddings,
    tokens: ids,
    token_strs: request.returnTokenStrs ? ids.map((id) => tokenizer.decode([id])) : null,
  };
}

export function detokenize(served: ServedModel, request: DetokenizeRequest): Json {
  const V = served.model.config.vocab_size;
  const bad = request.ids.findIndex((id) => id < 0 || id >= V);
  if (bad >= 0) throw badParam('tokens', `token id ${request.ids[bad]} (at ${bad}) is outside the vocabulary 0..${V - 1}`);
  return { prompt: served.tokenizer.decode(request.ids) };
}
