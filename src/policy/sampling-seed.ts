/**
 * The seed a policy actually samples with. Rollouts derive request seeds as unsigned 32-bit
 * hashes, but a Tinker service may hold a seed in a narrower integer: SkyRL tx puts each
 * sample's seed, `seed + i` for completion i, into a signed 32-bit JAX array and refuses
 * anything above 2^31 - 1 ("Python integer ... out of bounds for int32"). Keeping seeds
 * below 2^30 leaves room for `seed + i` with up to 2^30 completions.
 *
 * Every policy that feeds a sampler (the embedded engine, a Tinker service) uses this one
 * rule, so a run through Troupe's own Tinker server still samples what the embedded run
 * samples for the same request.
 *
 * @example
 * samplingSeed(4106208882) // 884983410 (the low 30 bits)
 */
export const SAMPLING_SEED_LIMIT = 2 ** 30;

export function samplingSeed(seed: number): number {
  return (seed >>> 0) % SAMPLING_SEED_LIMIT;
}
