/**
 * `model:` the embedded base model (policy.kind: embedded). Either a folder to load
 * (`path`, Hugging Face layout) or sizes for a fresh model that the warm start then teaches.
 * Defaults are a small Llama (about 0.4M parameters) that fits the compact task formats and
 * trains on 2 CPU cores in minutes. Per-policy size overrides (heterogeneous teams) live in
 * `policy.models`.
 */
import { z } from 'zod';
import { LINEAR_MODULES } from '../engine/model/llama-params.js';

export const modelSizes = {
  /** Width of the residual stream. */
  hidden: z.number().int().min(8).max(65_536).default(64),
  layers: z.number().int().min(1).max(1024).default(4),
  heads: z.number().int().min(1).max(1024).default(4),
  /** Grouped-query attention: key/value heads (defaults to heads). */
  kv_heads: z.number().int().min(1).max(1024).optional(),
  intermediate: z.number().int().min(8).max(262_144).default(192),
  /** Longest prompt + response in tokens (compact prompts are ~200 characters). */
  context: z.number().int().min(16).max(1_048_576).default(320),
  tied: z.boolean().default(false),
};

/**
 * `model.lora`: rank 16, alpha 32 (scale 2). On the default Plan-Path recipe rank 8 (same
 * scale) fell 20 points short of full fine-tuning on one seed of three; rank 16 came within
 * 4 points on every seed measured (docs/results.md, "LoRA against full fine-tuning").
 */
export const loraSection = z
  .strictObject({
    r: z.number().int().min(1).max(4096).default(16),
    alpha: z.number().positive().default(32),
    target_modules: z.array(z.enum(LINEAR_MODULES)).min(1).default(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']),
    /**
     * Also a LoRA pair on the output head (Tinker's `train_unembed`, PEFT's target `lm_head`),
     * embedded and through a Tinker service alike. On by default, as in Tinker's SDK: without it
     * the small models here learned about half as far as full fine-tuning (docs/results.md, "LoRA").
     */
    train_unembed: z.boolean().default(true),
  })
  .prefault({});

export const modelSection = z
  .strictObject({
    /**
     * Load this model instead of initialising one (its sizes and tokenizer come with it; no
     * warm start): a folder, or a hub id `Org/Name[@revision]` found in the Hugging Face cache
     * or downloaded into it (docs/real-llms.md).
     */
    path: z.string().min(1).optional(),
    ...modelSizes,
    /**
     * Character tokenizer of a new model: `standard` (64 tokens: upper case, digits, grid and
     * punctuation characters; the compact task formats) or `ascii` (101 tokens: all printable
     * ASCII, for code and prose). A loaded model (`path`) brings its own tokenizer.
     */
    tokenizer: z.enum(['standard', 'ascii']).default('standard'),
    /** Seed of the initial weights (defaults to the run seed). */
    seed: z.number().int().min(0).optional(),
    /**
     * Qwen3's thinking switch, passed as `enable_thinking` to the chat template of a loaded
     * chat model (model.path) for natural-format prompts; unset leaves the template's default.
     */
    enable_thinking: z.boolean().optional(),
    /**
     * Never sample an id the tokenizer has no token for: the padded embedding rows most real
     * checkpoints have (Qwen3-0.6B: 151,936 rows, 151,669 ids), which a young or random model
     * samples often. The learner leaves the same ids out of its softmax, so sampled and
     * recomputed log-probs stay equal. A no-op for models whose rows all have tokens (the
     * character-tokenizer models). Off: such ids are sampled, kept as ids and decode to no text.
     */
    mask_tokenless_ids: z.boolean().default(true),
    /** Adapter shape for policy.map: lora. */
    lora: loraSection,
  })
  .prefault({});

/** Size overrides for one policy of a heterogeneous team (policy.models.<id>). */
export const modelOverride = z.strictObject({
  hidden: modelSizes.hidden.optional(),
  layers: modelSizes.layers.optional(),
  heads: modelSizes.heads.optional(),
  kv_heads: modelSizes.kv_heads,
  intermediate: modelSizes.intermediate.optional(),
});
