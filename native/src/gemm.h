// C = op(A) op(B) (or C +=) on row-major float32 matrices, for any kernel table.
#pragma once
#include <cstdint>

#include "isa.h"

namespace troupe {

struct GemmArgs {
  const float* a;  // m x k, or k x m when trans_a
  const float* b;  // k x n, or n x k when trans_b (null when b16 is set)
  const uint16_t* b16;  // a bf16 right-hand side instead of b (never with trans_a)
  float* c;        // m x n
  long m, n, k;
  bool trans_a, trans_b, accumulate;
  // With b16: round A to bf16 first (round_bf16_bits), so every product is bf16 x bf16 (exact
  // in float32) and the sums are float32: what vdpbf16ps computes (MatmulBf16 'fast').
  bool round_a;
};

// float32 -> bf16 bits as vcvtneps2bf16 rounds: to nearest even, subnormals to signed zero,
// NaN stays a (quiet) NaN. static: every file that includes it, whatever its instruction
// set, keeps its own copy (the linker must not pick an AVX-512 one for the baseline path).
static inline uint16_t round_bf16_bits(float x) {
  uint32_t u;
  __builtin_memcpy(&u, &x, 4);
  if ((u & 0x7f800000u) == 0) return static_cast<uint16_t>((u >> 16) & 0x8000u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// When the work is split across threads: m * n * k of a packed product, n * k of a
// one-to-three-row product (decoding).
struct GemmSplit {
  int threads;
  long parallel_from;
  long rows_parallel_from;
  // Most rows of a bf16 x W^T that go to stream_bt_bf16 (0: never; tests compare both paths).
  long stream_rows_upto;
};

// m * n * k from which a product is split (~8 us of work on one core: a helper's wake-up
// costs a few microseconds when it is spinning, tens when asleep).
constexpr long kDefaultParallelFrom = 1L << 19;
// n * k from which a few-row product is split by columns.
constexpr long kDefaultRowsParallelFrom = 1L << 17;
// Rows of x up to which a bf16 x W^T streams W instead of packing it (decoding K x prompts).
// Packing W costs about as much as 50-60 rows of products on AVX2 (docs/performance.md).
constexpr long kDefaultStreamRowsUpTo = 64;

// Packing buffers of the calling thread: 64-byte aligned, kept for the thread's life, reused
// by every product it runs (gemm.cc and gemm-bf16.cc; their uses never nest).
void* thread_scratch(long bytes);

// Every output element is summed in the same order however the work is split, so the
// result is bit-identical for every thread count.
void gemm(const IsaKernels& isa, const GemmArgs& args, const GemmSplit& split);

}  // namespace troupe
