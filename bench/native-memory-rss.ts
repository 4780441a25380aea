// What the native backend's own pages and page cache do to the process's resident memory: the
// RSS growth over 10 training-step allocation patterns that each free all they take, and over
// 40 distinct-size 4-8 MB blocks through a 16 MB page cache. The unit tests check the addon's
// counts; these numbers depend on the C library's allocator, so they are printed, not asserted.
// (Measured on glibc: under 64 MB and under 32 MB; with blocks under 1 MB from glibc the first
// grew ~30 MB a step.)
//
//   npx tsc -p tsconfig.json
//   node dist/bench/native-memory-rss.js
import { loadNativeBinding } from '../src/engine/kernels/native-binding.js';
import { trainingStepPattern } from '../src/engine/kernels/training-step-pattern.js';

const MB = 2 ** 20;
const load = loadNativeBinding();
if (!load.binding) {
  console.log(JSON.stringify({ error: `no native addon: ${load.reason}` }));
} else {
  const native = load.binding;
  for (let step = 0; step < 2; step++) trainingStepPattern(native);
  let before = process.memoryUsage.rss();
  for (let step = 0; step < 10; step++) trainingStepPattern(native);
  const stepsGrowthMb = (process.memoryUsage.rss() - before) / MB;

  const previous = native.setPageCacheLimit(16 * MB);
  before = process.memoryUsage.rss();
  for (let i = 0; i < 40; i++) {
    const a = native.alloc(MB + i * 26_000);
    a.fill(1);
    native.free(a);
  }
  const cacheGrowthMb = (process.memoryUsage.rss() - before) / MB;
  native.setPageCacheLimit(previous);
  console.log(JSON.stringify({ rss_growth_10_steps_mb: +stepsGrowthMb.toFixed(1), rss_growth_16mb_cache_over_240mb_mb: +cacheGrowthMb.toFixed(1) }));
}
