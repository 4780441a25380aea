import { detectSimdFlavor } from './feature-detect.js';
import { loadNativeBinding } from './native-binding.js';

/**
 * The kernel paths Troupe ships, as the `name` of the Kernels object that runs each one
 * ('native-avx2', 'wasm-relaxed'), split by whether this machine can run them. `npm test`
 * compares them with the paths whose conformance suite ran, so a path that no test exercised
 * on this CPU is named instead of passing silently.
 */
export interface KernelPaths {
  /** Paths this CPU and JavaScript engine can run. */
  readonly runnable: readonly string[];
  /** Shipped paths this machine cannot run (an instruction set it lacks), each with why. */
  readonly unavailable: readonly { readonly path: string; readonly why: string }[];
}

/** Which shipped kernel paths this machine can run; the native addon's list comes from the addon itself. */
export function kernelPaths(): KernelPaths {
  const runnable: string[] = [];
  const unavailable: { path: string; why: string }[] = [];
  const load = loadNativeBinding();
  if (load.binding) {
    for (const isa of load.binding.builtIsas) {
      if (load.binding.isas.includes(isa)) runnable.push(`native-${isa}`);
      else unavailable.push({ path: `native-${isa}`, why: 'not on this CPU' });
    }
  } else {
    unavailable.push({ path: 'native-*', why: `no native addon (${load.reason})` });
  }
  runnable.push('wasm-plain');
  if (detectSimdFlavor() === 'relaxed') runnable.push('wasm-relaxed');
  else unavailable.push({ path: 'wasm-relaxed', why: 'no relaxed SIMD in this JavaScript engine' });
  return { runnable, unavailable };
}

/**
 * One line for the end of `npm test`: the paths whose conformance suite ran, the runnable
 * ones it did not reach (a filtered run), and the ones this machine cannot run, grouped by why.
 *
 * @example
 * kernelPathSummary(new Set(['native-avx2']), { runnable: ['native-avx2'], unavailable: [{ path: 'native-avx512', why: 'not on this CPU' }] })
 * // 'kernel paths exercised: native-avx2; not on this CPU: native-avx512'
 */
export function kernelPathSummary(exercised: ReadonlySet<string>, paths: KernelPaths): string {
  const ran = paths.runnable.filter((p) => exercised.has(p));
  const missed = paths.runnable.filter((p) => !exercised.has(p));
  const parts = [`kernel paths exercised: ${ran.length > 0 ? ran.join(', ') : 'none'}`];
  if (missed.length > 0) parts.push(`runnable here but not exercised by this run: ${missed.join(', ')}`);
  const byWhy = new Map<string, string[]>();
  for (const { path, why } of paths.unavailable) byWhy.set(why, [...(byWhy.get(why) ?? []), path]);
  for (const [why, list] of byWhy) parts.push(`${why}: ${list.join(', ')}`);
  return parts.join('; ');
}
