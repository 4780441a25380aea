/**
 * The inverse-frequency table of rotary embeddings: pair i of a head (dimensions i and
 * i + headDim/2) turns by position * invFreq[i]. Plain RoPE uses theta^(-2i/headDim); Llama 3
 * rescales the low frequencies so a model trained on a short context reads a longer one
 * (transformers' `_compute_llama3_parameters`, the numbers of Meta's reference code). The
 * kernels take the table itself, so a new scaling kind only changes this file.
 */

/** Llama 3's `rope_scaling` as config.json writes it (transformers 4 field names). */
export interface Llama3RopeScaling {
  readonly rope_type: 'llama3';
  /** Divides the low frequencies (8 in Llama 3.1). */
  readonly factor: number;
  /** Wavelengths above original / low_freq_factor are fully scaled (1 in Llama 3.1). */
  readonly low_freq_factor: number;
  /** Wavelengths below original / high_freq_factor are untouched (4 in Llama 3.1). */
  readonly high_freq_factor: number;
  /** The context the model was first trained on (8192 in Llama 3.1). */
  readonly original_max_position_embeddings: number;
}

/** What the table depends on: the head size, the base and an optional scaling. */
export interface RopeSpec {
  readonly headDim: number;
  readonly theta: number;
  readonly scaling?: Llama3RopeScaling;
}

/** invFreq[i] for i < headDim/2, computed in float64 and rounded once to float32. */
export function ropeInverseFrequencies(spec: RopeSpec): Float32Array {
  const half = spec.headDim >> 1;
  const plain = Array.from({ length: half }, (_, i) => Math.pow(spec.theta, (-2 * i) / spec.headDim));
  const scaled = spec.scaling ? plain.map((f) => llama3Frequency(f, spec.scaling!)) : plain;
  return Float32Array.from(scaled);
}

/**
 * Llama 3: long wavelengths (beyond original / low_freq_factor) are divided by `factor`,
 * short ones (below original / high_freq_factor) kept, and the band between interpolates
 * linearly in original / wavelength.
 */
function llama3Frequency(frequency: number, s: Llama3RopeScaling): number {
  const wavelength = (2 * Math.PI) / frequency;
  const lowFreqWavelength = s.original_max_position_embeddings / s.low_freq_factor;
  const highFreqWavelength = s.original_max_position_embeddings / s.high_freq_factor;
  if (wavelength > lowFreqWavelength) return frequency / s.factor;
  if (wavelength < highFreqWavelength) return frequency;
  const smooth = (s.original_max_position_embeddings / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return (1 - smooth) * (frequency / s.factor) + smooth * frequency;
}
