// stream_bt_bf16 (isa.h): a few rows of activations times a bf16 weight, y = x W^T, for
// decoding a batch (4 to ~64 live sequences a step). The packed path (gemm.cc, gemm_block)
// copies W into column strips first; for W = (n, k) row-major that copy reads 16 weight rows
// a few hundred bytes at a time and writes one float at a time, and at a handful of rows of
// x it cost 5-10x the arithmetic (the 0.6B head, 8 rows: ~340 ms of CPU a step, 0.9 GB/s of
// weights). Here each weight row is widened where it lies, 12 rows at a time into a buffer
// that stays in cache, and all rows of x (packed once, k-major, VW lanes a vector) are
// multiplied against it: every weight is read once a step for the whole batch.
//
// The sums are gemm_block's, bit for bit: for each k block of KC (the table's), an output
// starts at zero and adds its products in k order with the same multiply-add expression
// (tile_products), then the block's sum is added onto C (or stored, for the first block
// without accumulate). So switching paths never changes a sampled token.
#include "isa-vector.h"

#include <string.h>

#include "gemm.h"

namespace troupe {
namespace TROUPE_NS {
namespace {

constexpr int TW = 12;                  // weight rows widened together (an L1 buffer of TW x KC floats)
constexpr int GV = VW >= 16 ? 2 : 4;    // vectors of x rows per group: 32 rows on AVX-512, else 4 x VW
constexpr int GROUP = GV * VW;

inline float widen(uint16_t bits) {
  unsigned u = static_cast<unsigned>(bits) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// out[0:kc] = w[0:kc] as float32 (exact).
inline void widen_row(const uint16_t* w, long kc, float* out) {
  long p = 0;
  for (; p + VW <= kc; p += VW) {
    vi wide = __builtin_convertvector(*reinterpret_cast<const vh*>(w + p), vi) << 16;
    store(out + p, (vf)wide);
  }
  for (; p < kc; p++) out[p] = widen(w[p]);
}

// The rows of one group of x, (p, i) at packed[p * lanes + i] (zero past the group's rows).
void pack_group(const float* a, long k, long i0, long rows, long lanes, float* packed) {
  for (long p = 0; p < k; p++) {
    float* dst = packed + p * lanes;
    for (long i = 0; i < lanes; i++) dst[i] = i < rows ? a[(i0 + i) * k + p] : 0.0f;
  }
}

// The next weight tile, fetched into the cache a line at a time while this one is multiplied:
// without it the widening waited on memory and the products on nothing, one after the other.
struct Ahead {
  const char* next;
  long left;  // bytes of it not yet asked for
};

// C[i0 + i, j + r] for i < rows, r < tr from one k block, kept in `tile` at [r * m + i0 + i]:
// wide holds TW weight rows (ldw apart), xp the group's packed block (kc x V vectors). Tiles of
// R = 12 / V weight rows keep 12 accumulators in registers. The loop is tile_products'
// (isa-vector.h), the same expression in the same order, with a prefetch every other k step.
template <int V>
void group_block(const float* wide, long ldw, long kc, const float* xp, float* tile, long m, long i0, long rows,
                 int tr, bool add, Ahead& ahead) {
  constexpr int R = 12 / V;
  for (int r0 = 0; r0 < tr; r0 += R) {
    vf acc[R][V];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) acc[r][v] = vf{};
    const float* wr = wide + r0 * ldw;
    for (long p = 0; p < kc; p++) {
      if ((p & 1) == 0 && ahead.left > 0) {
        __builtin_prefetch(ahead.next, 0, 3);
        ahead.next += 64, ahead.left -= 64;
      }
      vf bv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) bv[v] = *reinterpret_cast<const vf*>(xp + p * V * VW + v * VW);
#pragma GCC unroll 12
      for (int r = 0; r < R; r++) {
        const float x = wr[r * ldw + p];
#pragma GCC unroll 4
        for (int v = 0; v < V; v++) acc[r][v] += x * bv[v];
      }
    }
    float lanes[V * VW];
    for (int r = 0; r < R && r0 + r < tr; r++) {
      for (int v = 0; v < V; v++) store(lanes + v * VW, acc[r][v]);
      float* out = tile + (r0 + r) * m + i0;
      for (long i = 0; i < rows; i++) out[i] = add ? out[i] + lanes[i] : lanes[i];
    }
  }
}

}  // namespace

void stream_bt_bf16(const float* a, const uint16_t* w, float* c, long m, long n, long k, long j0, long j1, bool add) {
  // x packed group by group (GROUP rows each, the last with as many lanes as it needs).
  const long groups = (m + GROUP - 1) / GROUP;
  float* packed = static_cast<float*>(thread_scratch(sizeof(float) * ((m + GROUP) * k + TW * (k + VW + 16) + TW * m)));
  for (long g = 0; g < groups; g++) {
    const long rows = min_l(GROUP, m - g * GROUP), lanes = (rows + VW - 1) / VW * VW;
    pack_group(a, k, g * GROUP, rows, lanes, packed + g * GROUP * k);
  }
  // TW weight rows widened whole (TW x k floats, L2): each row is read as one contiguous run,
  // which the hardware prefetcher streams; k blocks of it (kc x TW, L1) then meet every group.
  // Rows 64 bytes more than k apart: at k = 1024 rows 4 KB apart share an L1 set, and 12 of them
  // (8 ways) evicted each other on every k step (m = 4-8 ran slower than m = 16).
  const long ldw = (k + VW - 1) / VW * VW + 16;
  float* wide = packed + groups * GROUP * k;
  // A weight tile's outputs, TW x m, added up over the k blocks here and written to C once: C's
  // rows are n floats apart, and at n a multiple of 1024 (every projection of a Qwen3 or Llama
  // model) the m rows written after each k block all fell in one L1 set and evicted the packed
  // x and the widened weights: half the speed of the same product at n = 1040 (AVX2, 32 rows).
  // The tile starts as C's values when accumulating, so every sum is the one it was.
  float* tile = wide + TW * ldw;
  for (long j = j0; j < j1; j += TW) {
    const int tr = static_cast<int>(min_l(TW, j1 - j));
    // Rows past j1 repeat the last one (multiplied, never stored).
    for (int r = 0; r < TW; r++) widen_row(w + min_l(j + r, j1 - 1) * k, k, wide + r * ldw);
    Ahead ahead{reinterpret_cast<const char*>(w + (j + TW) * k), 2 * k * (min_l(j1, j + 2 * TW) - min_l(j1, j + TW))};
    if (add) {
      for (int r = 0; r < tr; r++)
        for (long i = 0; i < m; i++) tile[r * m + i] = c[i * n + j + r];
    }
    for (long pc = 0; pc < k; pc += KC) {
      const long kc = min_l(KC, k - pc);
      for (long g = 0; g < groups; g++) {
        const long rows = min_l(GROUP, m - g * GROUP), vectors = (rows + VW - 1) / VW;
        const float* xp = packed + g * GROUP * k + pc * vectors * VW;
        const bool block_add = add || pc > 0;
        if (vectors == 1) group_block<1>(wide + pc, ldw, kc, xp, tile, m, g * GROUP, rows, tr, block_add, ahead);
        else if (vectors == 2) group_block<2>(wide + pc, ldw, kc, xp, tile, m, g * GROUP, rows, tr, block_add, ahead);
        else if constexpr (GV > 2) {
          if (vectors == 3) group_block<3>(wide + pc, ldw, kc, xp, tile, m, g * GROUP, rows, tr, block_add, ahead);
          else group_block<4>(wide + pc, ldw, kc, xp, tile, m, g * GROUP, rows, tr, block_add, ahead);
        }
      }
    }
    for (long i = 0; i < m; i++)
      for (int r = 0; r < tr; r++) c[i * n + j + r] = tile[r * m + i];
  }
}

}  // namespace TROUPE_NS
}  // namespace troupe
