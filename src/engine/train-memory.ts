import type { Kernels } from './kernels/types.js';

/**
 * Wraps kernels to count the bytes live in kernel memory and their peak (parameters,
 * gradients, optimizer moments, and a step's intermediates). Used to check the memory
 * budget of a training configuration:
 *
 *   const counted = countingKernels(kernels);
 *   timeTrainStep({ kernels: counted, config, batch: 16, context: 256, steps: 1, warmup: 0 });
 *   counted.peakBytes();   // compare with the 4 GiB budget
 */
export function countingKernels(kernels: Kernels): Kernels & { liveBytes(): number; peakBytes(): number; resetPeak(): void } {
  let live = 0;
  let peak = 0;
  return {
    ...kernels,
    name: `${kernels.name}+counting`,
    matmul: (args) => kernels.matmul(args),
    alloc(length, zero, managed) {
      live += length * 4;
      peak = Math.max(peak, live);
      return kernels.alloc(length, zero, managed);
    },
    free(array) {
      live -= array.length * 4;
      kernels.free(array);
    },
    liveBytes: () => live,
    peakBytes: () => peak,
    /** Starts the peak again from what is live now (to measure one phase). */
    resetPeak: () => {
      peak = live;
    },
  };
}
