// The native backend's own worker threads. The calling (JavaScript) thread always takes part,
// so `threads` = N starts N - 1 helpers (at most 255, shared by every caller); the helpers spin briefly after a job (matmuls come in
// bursts) and then sleep on a condition variable, so an idle Troupe costs no CPU and never
// blocks Node's own threads.
#pragma once

namespace troupe {

using ChunkFn = void (*)(void* ctx, int chunk);

// Runs fn(ctx, c) for every c in [0, chunks) on the caller and up to threads - 1 helpers,
// each chunk exactly once, and returns when all are done. Chunks are claimed one at a time,
// so a helper that the OS schedules late simply takes fewer: results never depend on who
// ran which chunk.
void parallel_run(int threads, int chunks, ChunkFn fn, void* ctx);

}  // namespace troupe
