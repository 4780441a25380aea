// thin (isa-vector.h): products with one side a LoRA rank, C (m x 16) = A (m x k) B (k x 16).
// The packed path (gemm.cc) copies the big operand into panels to reuse it across many
// columns; here it is used for 16 only, so that copy cost more than the product (0.6B LoRA:
// 42-58 GFLOP/s). This kernel reads A where it lies: per k step one vector row of B (packed
// once, k x 16) times TR broadcast elements of A, TR x 16 accumulators in registers, and each
// element of C summed over p in order (so any split of the rows gives the same bits).
#include "isa-vector.h"

namespace troupe {
namespace TROUPE_NS {
namespace {

constexpr int W = 16;       // columns of the packed B
constexpr int WV = W / VW;  // vectors per row of it
constexpr int TR = 12 / WV;  // rows per tile: 12 accumulators (avx512 12 x 1, avx2 6 x 2, sse 3 x 4)

}  // namespace

void thin(const float* a, long ars, long acs, const float* bp, float* c, long crs, long ccs, long i0, long i1, long n,
          long k, bool add) {
  for (long i = i0; i < i1; i += TR) {
    const long rows = min_l(TR, i1 - i);
    // Rows past i1 repeat the last one (read, never stored): the tile stays in registers.
    const float* ar[TR];
#pragma GCC unroll 12
    for (int r = 0; r < TR; r++) ar[r] = a + min_l(i + r, i1 - 1) * ars;
    vf acc[TR][WV];
    tile_products(acc, k, [&ar, acs](int r, long p) { return ar[r][p * acs]; }, bp, W);
    for (long r = 0; r < rows; r++) {
      float* out = c + (i + r) * crs;
      if (ccs == 1 && n == W) {
        for (int v = 0; v < WV; v++) store(out + v * VW, add ? load(out + v * VW) + acc[r][v] : acc[r][v]);
        continue;
      }
      float row[W];
      for (int v = 0; v < WV; v++) store(row + v * VW, acc[r][v]);
      for (long j = 0; j < n; j++) out[j * ccs] = add ? out[j * ccs] + row[j] : row[j];
    }
  }
}

}  // namespace TROUPE_NS
}  // namespace troupe
