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
};

// When the work is split across threads: m * n * k of a packed product, n * k of a
// one-to-three-row product (decoding).
struct GemmSplit {
  int threads;
  long parallel_from;
  long rows_parallel_from;
};

// m * n * k from which a product is split (~8 us of work on one core: a helper's wake-up
// costs a few microseconds when it is spinning, tens when asleep).
constexpr long kDefaultParallelFrom = 1L << 19;
// n * k from which a few-row product is split by columns.
constexpr long kDefaultRowsParallelFrom = 1L << 17;

// Every output element is summed in the same order however the work is split, so the
// result is bit-identical for every thread count.
void gemm(const IsaKernels& isa, const GemmArgs& args, const GemmSplit& split);

}  // namespace troupe
