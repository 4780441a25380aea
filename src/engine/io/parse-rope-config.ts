/**
 * The RoPE part of a Hugging Face `config.json`, in both shapes found in the wild:
 *   transformers 4 (how hub checkpoints ship): "rope_theta": 500000, "rope_scaling": {"rope_type":
 *     "llama3", "factor": 8, ...} (older files say "type" instead of "rope_type")
 *   transformers 5: "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000, "factor": 8, ...}
 * Plain RoPE and Llama 3's scaling are supported; every other kind (linear, dynamic, yarn,
 * longrope, ...) and partial rotary factors are refused by name rather than approximated.
 */
import { TroupeError } from '../../util/errors.js';
import type { Llama3RopeScaling } from '../model/rope-frequencies.js';

export interface ParsedRope {
  readonly theta: number;
  readonly scaling?: Llama3RopeScaling;
}

const LLAMA3_KEYS = ['factor', 'low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseRopeConfig(raw: Record<string, unknown>, source: string): ParsedRope {
  const bad = (problem: string) => new TroupeError('checkpoint', `${source}: ${problem}`);
  const params = raw.rope_parameters ?? undefined;
  const scaling = raw.rope_scaling ?? undefined;
  if (params !== undefined && !isObject(params)) throw bad(`rope_parameters must be an object, got ${JSON.stringify(params)}`);
  if (scaling !== undefined && !isObject(scaling)) throw bad(`rope_scaling must be an object or null, got ${JSON.stringify(scaling)}`);
  // transformers 5 files carry everything in rope_parameters; transformers 4 files split it.
  const key = params !== undefined ? 'rope_parameters' : 'rope_scaling';
  const fields: Record<string, unknown> = { ...(scaling ?? {}), ...(params ?? {}) };
  if (params !== undefined && fields.rope_type === undefined && Object.values(params).some(isObject)) {
    throw bad('rope_parameters per layer type are not supported; Troupe runs one RoPE for every layer');
  }

  const thetaValue = fields.rope_theta ?? raw.rope_theta ?? 10000;
  if (typeof thetaValue !== 'number' || !(thetaValue > 0) || !Number.isFinite(thetaValue)) {
    throw bad(`${fields.rope_theta !== undefined ? `${key}.rope_theta` : 'rope_theta'} must be a positive number, got ${JSON.stringify(thetaValue)}`);
  }
  const partial = fields.partial_rotary_factor ?? raw.partial_rotary_factor ?? 1;
  if (partial !== 1) throw bad(`partial_rotary_factor ${JSON.stringify(partial)} is not supported; Troupe rotates the whole head (1.0)`);

  const kind = fields.rope_type ?? fields.type ?? 'default';
  if (kind === 'default') return { theta: thetaValue };
  if (kind !== 'llama3') {
    throw bad(`${key}.rope_type ${JSON.stringify(kind)} is not supported; Troupe runs "default" and "llama3" RoPE (remove the scaling only if the model was trained without it)`);
  }
  const numbers: Record<string, number> = {};
  for (const name of LLAMA3_KEYS) {
    const value = fields[name];
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
      throw bad(`${key}.${name} must be a positive number for rope_type "llama3", got ${JSON.stringify(value)}`);
    }
    numbers[name] = value;
  }
  if (!(numbers.high_freq_factor! > numbers.low_freq_factor!)) {
    throw bad(`${key}.high_freq_factor (${numbers.high_freq_factor}) must be larger than low_freq_factor (${numbers.low_freq_factor})`);
  }
  return {
    theta: thetaValue,
    scaling: {
      rope_type: 'llama3',
      factor: numbers.factor!,
      low_freq_factor: numbers.low_freq_factor!,
      high_freq_factor: numbers.high_freq_factor!,
      original_max_position_embeddings: numbers.original_max_position_embeddings!,
    },
  };
}
