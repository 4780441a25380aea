import type { Kernels } from '../kernels/types.js';
import type { Tensor } from '../tensor.js';

/**
 * Global gradient-norm clipping (PyTorch's clip_grad_norm_): if the L2 norm over all
 * gradients exceeds maxNorm, scales every gradient by maxNorm / norm. Returns the norm
 * before clipping (a useful metric; NaN/Infinity reveals a diverged step).
 */
export function clipGradNorm(kernels: Kernels, parameters: Iterable<Tensor>, maxNorm: number): number {
  const list = [...parameters].filter((t) => t.grad);
  let sumSq = 0;
  for (const t of list) sumSq += kernels.sumSquares(t.grad!);
  const norm = Math.sqrt(sumSq);
  if (norm > maxNorm && Number.isFinite(norm)) {
    const factor = maxNorm / (norm + 1e-6);
    for (const t of list) {
      const g = t.grad!;
      for (let i = 0; i < g.length; i++) g[i] = g[i]! * factor;
    }
  }
  return norm;
}
