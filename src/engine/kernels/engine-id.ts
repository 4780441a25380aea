/**
 * The id a checkpoint saves of the kernels that computed it, naming everything that changes
 * the bits of a result, so `--resume` can refuse to continue on other ones:
 *
 *   native-avx2, bf16 fast, fp-contract fast, build 3f9c0e1a2b4d
 *   wasm-relaxed, bf16 exact, relaxed madd fused, build 81aa07c3d2e9
 *
 * - the backend and instruction set (the vector width changes the order of sums);
 * - the bf16 matmul mode (TROUPE_BF16_MATMUL);
 * - how multiply-adds are rounded: the addon is compiled with -ffp-contract=fast (the compiler
 *   fuses a*b+c where the ISA has FMA, which the ISA name already implies); WebAssembly's
 *   relaxed madd is fused or not by the engine depending on the CPU's FMA instructions;
 * - the engine build: a digest of the addon binary or of the WebAssembly module, so another
 *   compiler or source version is another engine.
 *
 * Not the thread count: results are bit-identical for every count.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { addonPath } from './native-binding.js';
import { WASM_PLAIN_BASE64, WASM_RELAXED_BASE64 } from './wasm-binary.generated.js';

/** The fields of a kernels object the id reads. */
export interface EngineIdSource {
  readonly name: string;
  readonly bf16Matmul: string;
}

const digests = new Map<string, string>();

function digest(key: string, bytes: () => Uint8Array | string): string {
  let value = digests.get(key);
  if (value === undefined) {
    try {
      value = createHash('sha256').update(bytes()).digest('hex').slice(0, 12);
    } catch {
      value = 'unknown'; // e.g. kernels made in a test without a built addon file
    }
    digests.set(key, value);
  }
  return value;
}

/** Whether this CPU has fused multiply-add instructions that V8 uses for relaxed madd. */
function cpuHasFma(): boolean {
  if (arch() === 'arm64') return true; // every arm64 CPU has fused multiply-add
  try {
    return /^flags\s*:.*\bfma\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

export function engineId(kernels: EngineIdSource): string {
  const parts = [kernels.name, `bf16 ${kernels.bf16Matmul}`];
  if (kernels.name.startsWith('native-')) {
    parts.push('fp-contract fast', `build ${digest('native', () => readFileSync(addonPath()))}`);
  } else if (kernels.name === 'wasm-relaxed') {
    parts.push(`relaxed madd ${cpuHasFma() ? 'fused' : 'unfused'}`, `build ${digest('relaxed', () => WASM_RELAXED_BASE64)}`);
  } else if (kernels.name.startsWith('wasm-')) {
    parts.push('no fused madd', `build ${digest('plain', () => WASM_PLAIN_BASE64)}`);
  }
  return parts.join(', ');
}
