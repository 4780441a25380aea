#include "gemm.h"

#include <cstdlib>
#include <cstring>

#include "thread-pool.h"

namespace troupe {
namespace {

long ceil_to(long x, long step) { return (x + step - 1) / step * step; }

// Columns per register group of the 1-3 row kernels (rows_b: 4 vectors of up to 16 floats;
// rows_bt: 4 weight rows; bf16dot_rows_b: 32): a split of the columns falls on multiples of it.
constexpr long kRowsGroup = 64;

float* scratch(long floats) { return static_cast<float*>(thread_scratch(floats * sizeof(float))); }

// The packed Goto/BLIS loop over C[i0:i1, j0:j1]: B blocks of kc x nc (shared by the row
// blocks), A blocks of mc x kc, micro-kernel tiles mr x nr. The k blocks run in order and
// each adds onto C, so the summation order of an element does not depend on i0..j1.
void gemm_block(const IsaKernels& K, const GemmArgs& g, long i0, long i1, long j0, long j1) {
  if (g.round_a) return K.bf16dot_block(g, i0, i1, j0, j1);
  const long rs_a = g.trans_a ? 1 : g.k, cs_a = g.trans_a ? g.m : 1;
  const long rs_b = g.trans_b ? 1 : g.n, cs_b = g.trans_b ? g.k : 1;
  // A row-major: the micro-kernel reads its rows where they lie (same sums; no packing).
  const bool direct_a = K.micro_a != nullptr && !g.trans_a;
  const long a_floats = ceil_to(K.mc, K.mr) * K.kc;
  float* packed_a = scratch(a_floats + ceil_to(K.nc, K.nr) * K.kc);
  float* packed_b = packed_a + a_floats;
  for (long jc = j0; jc < j1; jc += K.nc) {
    long nc = j1 - jc < K.nc ? j1 - jc : K.nc;
    for (long pc = 0; pc < g.k; pc += K.kc) {
      long kc = g.k - pc < K.kc ? g.k - pc : K.kc;
      bool add = g.accumulate || pc > 0;
      if (g.b16) K.pack_b_bf16(g.b16, rs_b, cs_b, pc, kc, jc, nc, g.n, packed_b);
      else K.pack_b(g.b, rs_b, cs_b, pc, kc, jc, nc, g.n, packed_b);
      for (long ic = i0; ic < i1; ic += K.mc) {
        long mc = i1 - ic < K.mc ? i1 - ic : K.mc;
        if (!direct_a) K.pack_a(g.a, rs_a, cs_a, ic, mc, i1, pc, kc, packed_a);
        for (long jr = 0; jr < nc; jr += K.nr) {
          int nv = static_cast<int>(nc - jr < K.nr ? nc - jr : K.nr);
          for (long ir = 0; ir < mc; ir += K.mr) {
            int mv = static_cast<int>(mc - ir < K.mr ? mc - ir : K.mr);
            float* c = g.c + (ic + ir) * g.n + jc + jr;
            if (direct_a) K.micro_a(kc, g.a + (ic + ir) * rs_a + pc, rs_a, packed_b + jr * kc, c, g.n, mv, nv, add);
            else K.micro(kc, packed_a + ir * kc, packed_b + jr * kc, c, g.n, mv, nv, add);
          }
        }
      }
    }
  }
}

struct Split {
  const IsaKernels* isa;
  const GemmArgs* args;
  bool by_rows;
  long chunk;  // rows or columns per chunk, a multiple of the tile
};

void run_block_chunk(void* ctx, int c) {
  const Split& s = *static_cast<Split*>(ctx);
  const GemmArgs& g = *s.args;
  long start = c * s.chunk;
  if (s.by_rows) {
    gemm_block(*s.isa, g, start, start + s.chunk < g.m ? start + s.chunk : g.m, 0, g.n);
  } else {
    gemm_block(*s.isa, g, 0, g.m, start, start + s.chunk < g.n ? start + s.chunk : g.n);
  }
}

void run_stream_chunk(void* ctx, int c) {
  const Split& s = *static_cast<Split*>(ctx);
  const GemmArgs& g = *s.args;
  long j0 = c * s.chunk, j1 = j0 + s.chunk < g.n ? j0 + s.chunk : g.n;
  s.isa->stream_bt_bf16(g.a, g.b16, g.c, g.m, g.n, g.k, j0, j1, g.accumulate);
}

void run_rows_chunk(void* ctx, int c) {
  const Split& s = *static_cast<Split*>(ctx);
  const GemmArgs& g = *s.args;
  long j0 = c * s.chunk, j1 = j0 + s.chunk < g.n ? j0 + s.chunk : g.n;
  if (g.round_a) (g.trans_b ? s.isa->bf16dot_rows_bt : s.isa->bf16dot_rows_b)(g.a, g.b16, g.c, g.m, g.n, g.k, j0, j1, g.accumulate);
  else if (g.b16) (g.trans_b ? s.isa->rows_bt_bf16 : s.isa->rows_b_bf16)(g.a, g.b16, g.c, g.m, g.n, g.k, j0, j1, g.accumulate);
  else (g.trans_b ? s.isa->rows_bt : s.isa->rows_b)(g.a, g.b, g.c, g.m, g.n, g.k, j0, j1, g.accumulate);
}

// Cuts `extent` into about `wanted` chunks of whole tiles.
long chunk_size(long extent, long tile, long wanted) {
  long tiles = (extent + tile - 1) / tile;
  if (wanted > tiles) wanted = tiles;
  return (tiles + wanted - 1) / wanted * tile;
}

}  // namespace

void* thread_scratch(long bytes) {
  thread_local void* buffer = nullptr;
  thread_local long capacity = 0;
  if (bytes > capacity) {
    free(buffer);
    capacity = ceil_to(bytes, 64);
    buffer = aligned_alloc(64, capacity);
  }
  return buffer;
}

// round_a on a table without vdpbf16ps kernels: the widening kernels on a rounded copy of
// A compute the same bf16 x bf16 products (only the summation order differs).
static void gemm_rounded_copy(const IsaKernels& K, const GemmArgs& g, const GemmSplit& split) {
  const long count = g.m * g.k;
  float* rounded = static_cast<float*>(malloc(sizeof(float) * count));
  for (long i = 0; i < count; i++) {
    uint32_t bits = static_cast<uint32_t>(round_bf16_bits(g.a[i])) << 16;
    memcpy(rounded + i, &bits, 4);
  }
  GemmArgs copy = g;
  copy.a = rounded;
  copy.round_a = false;
  gemm(K, copy, split);
  free(rounded);
}

// A product only a few columns wide (a LoRA rank: n = 16) fills half a register tile or
// less, and its partial tiles go through a scalar copy. Computed as C^T = op(B)^T op(A)^T,
// the narrow side becomes the rows and the tiles are full; C^T is then added or copied in.
static bool narrow(const IsaKernels& K, const GemmArgs& g) {
  return !g.b16 && g.n < K.nr && g.m >= 4 * K.nr;
}

static void gemm_transposed(const IsaKernels& K, const GemmArgs& g, const GemmSplit& split) {
  float* t = static_cast<float*>(malloc(sizeof(float) * g.m * g.n));
  GemmArgs swapped{g.b, g.a, nullptr, t, g.n, g.m, g.k, !g.trans_b, !g.trans_a, false, false};
  gemm(K, swapped, split);
  for (long i = 0; i < g.m; i++) {
    float* row = g.c + i * g.n;
    for (long j = 0; j < g.n; j++) row[j] = g.accumulate ? row[j] + t[j * g.m + i] : t[j * g.m + i];
  }
  free(t);
}

namespace {

// One side of C at most kThin wide (a LoRA rank) and the other long: the thin kernel
// (isa-thin.cc) reads the long operand where it lies and packs the short one, k x 16. As rows
// of C when n is the short side; as rows of C^T = op(B)^T op(A)^T when m is (4 and up: one to
// three rows are decoding, which streams a weight matrix instead).
constexpr long kThin = 16;

struct ThinJob {
  const IsaKernels* K;
  const float* a;  // the long operand: row i, step p at a[i * ars + p * acs]
  long ars, acs;
  const float* packed;  // the short one, k x kThin
  float* c;
  long crs, ccs, rows, n, k;
  bool add;
  long chunk;
};

void run_thin_chunk(void* ctx, int chunk) {
  const ThinJob& t = *static_cast<ThinJob*>(ctx);
  long i0 = chunk * t.chunk, i1 = i0 + t.chunk < t.rows ? i0 + t.chunk : t.rows;
  t.K->thin(t.a, t.ars, t.acs, t.packed, t.c, t.crs, t.ccs, i0, i1, t.n, t.k, t.add);
}

bool gemm_thin(const IsaKernels& K, const GemmArgs& g, const GemmSplit& split) {
  if (g.b16 || g.round_a) return false;
  const long ra = g.trans_a ? 1 : g.k, ca = g.trans_a ? g.m : 1;  // op(A)(i, p) = a[i * ra + p * ca]
  const long rb = g.trans_b ? 1 : g.n, cb = g.trans_b ? g.k : 1;  // op(B)(p, j) = b[p * rb + j * cb]
  ThinJob t{&K, nullptr, 0, 0, nullptr, g.c, 0, 0, 0, 0, g.k, g.accumulate, 0};
  const float* short_side;
  long short_row, short_col;  // short operand (p, s) at short_side[p * short_row + s * short_col]
  if (g.n <= kThin && g.m > kThin) {
    t.a = g.a, t.ars = ra, t.acs = ca, t.crs = g.n, t.ccs = 1, t.rows = g.m, t.n = g.n;
    short_side = g.b, short_row = rb, short_col = cb;
  } else if (g.m <= kThin && g.m >= 4 && g.n > kThin) {
    t.a = g.b, t.ars = cb, t.acs = rb, t.crs = 1, t.ccs = g.n, t.rows = g.n, t.n = g.m;
    short_side = g.a, short_row = ca, short_col = ra;
  } else {
    return false;
  }
  float* packed = static_cast<float*>(thread_scratch(sizeof(float) * g.k * kThin));
  for (long p = 0; p < g.k; p++) {
    for (long s = 0; s < kThin; s++) packed[p * kThin + s] = s < t.n ? short_side[p * short_row + s * short_col] : 0.0f;
  }
  t.packed = packed;
  t.chunk = t.rows;
  int chunks = 1;
  if (split.threads > 1 && g.m * g.n * g.k >= split.parallel_from) {
    t.chunk = chunk_size(t.rows, 12, split.threads * 2);
    chunks = static_cast<int>((t.rows + t.chunk - 1) / t.chunk);
  }
  parallel_run(split.threads, chunks, run_thin_chunk, &t);
  return true;
}

}  // namespace

// A product that streams B (few rows of A) by columns of C across the threads, in whole groups
// of kRowsGroup columns: the row kernels sum a group's columns in vector lanes and a chunk's
// leftover columns one at a time, and group starts never depend on the thread count.
static void split_columns(const IsaKernels& K, const GemmArgs& g, const GemmSplit& split, void (*run)(void*, int)) {
  Split s{&K, &g, false, g.n};
  int chunks = 1;
  if (split.threads > 1 && g.n * g.k >= split.rows_parallel_from) {
    s.chunk = chunk_size(g.n, kRowsGroup, split.threads * 2);
    chunks = static_cast<int>((g.n + s.chunk - 1) / s.chunk);
  }
  parallel_run(split.threads, chunks, run, &s);
}

void gemm(const IsaKernels& K, const GemmArgs& g, const GemmSplit& split) {
  const int threads = split.threads;
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    if (!g.accumulate) memset(g.c, 0, sizeof(float) * g.m * g.n);
    return;
  }
  if (gemm_thin(K, g, split)) return;
  if (narrow(K, g)) return gemm_transposed(K, g, split);
  const bool few_rows = g.m < 4 && (!g.trans_a || g.m == 1);
  if (g.round_a && !K.bf16dot_block) return gemm_rounded_copy(K, g, split);
  // One to three rows of A (decoding): stream B once without packing. With m = 1, op(A) is
  // the same vector whether or not A is transposed.
  if (few_rows) return split_columns(K, g, split, run_rows_chunk);
  // A few rows times a bf16 W^T (decoding a batch): W streamed once, not packed; the same sums
  // as gemm_block (isa-stream.cc).
  if (g.b16 && !g.round_a && g.trans_b && g.m <= split.stream_rows_upto && K.stream_bt_bf16) {
    return split_columns(K, g, split, run_stream_chunk);
  }
  if (threads <= 1 || g.m * g.n * g.k < split.parallel_from) {
    gemm_block(K, g, 0, g.m, 0, g.n);
    return;
  }
  // Tall C splits by rows, wide C by columns; two chunks a thread so a late helper does not
  // hold up the caller for a whole half.
  Split s{&K, &g, g.m > g.n, 0};
  long extent = s.by_rows ? g.m : g.n;
  s.chunk = chunk_size(extent, s.by_rows ? K.mr : K.nr, threads * 2);
  int chunks = static_cast<int>((extent + s.chunk - 1) / s.chunk);
  parallel_run(threads, chunks, run_block_chunk, &s);
}

}  // namespace troupe
