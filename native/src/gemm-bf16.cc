// The 'fast' bf16 product (MatmulBf16 with round_a) on AVX512_BF16: the activations are
// rounded to bf16 (round to nearest even, subnormals to zero: what vcvtneps2bf16 does) and
// multiplied with the bf16 weight by vdpbf16ps, which adds the two exact products of a k pair
// to a float32 accumulator. Compiled with -mavx512bf16 and reached only through the
// avx512-bf16 kernel table, which cpu.cc offers only when cpuid reports AVX512_BF16.
//
// Packed like the float32 path (gemm.cc), but in k pairs: an A strip holds, per pair, MR
// 32-bit words (the two bf16 of a row); a B strip, per pair, NR words (the two bf16 of a
// column) = two zmm registers. Tile 12 x 32: 24 accumulators, 2 B registers, 1 broadcast.
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "gemm-bf16.h"

namespace troupe {
namespace {

constexpr int MR = 12, NR = 32;
constexpr long KC = 256, MC = 192, NC = 1024;  // KC even: blocks start on a pair
static_assert(KC % 32 == 0, "the B packing moves 16 pairs at a time");

long ceil_to(long x, long step) { return (x + step - 1) / step * step; }

inline uint32_t pair(uint16_t lo, uint16_t hi) { return lo | (static_cast<uint32_t>(hi) << 16); }

uint32_t* scratch(long words) { return static_cast<uint32_t*>(thread_scratch(words * 4)); }

// src[0:kc] rounded, pair p (src[2p] low, src[2p + 1] high, zero past kc) to out[p * stride].
void round_pairs(const float* src, long kc, uint32_t* out, long stride) {
  alignas(64) uint32_t tmp[16];
  long p = 0;
  for (; 2 * p + 32 <= kc; p += 16) {
    __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + 2 * p + 16), _mm512_loadu_ps(src + 2 * p));
    if (stride == 1) {
      _mm512_storeu_si512(out + p, (__m512i)v);
      continue;
    }
    _mm512_store_si512(tmp, (__m512i)v);
    for (int q = 0; q < 16; q++) out[(p + q) * stride] = tmp[q];
  }
  for (; 2 * p < kc; p++) {
    uint16_t hi = 2 * p + 1 < kc ? round_bf16_bits(src[2 * p + 1]) : 0;
    out[p * stride] = pair(round_bf16_bits(src[2 * p]), hi);
  }
}

// A[i0:i0+mc, p0:p0+kc] (row-major, k columns) rounded, as MR-row strips of pairs; strip
// rows past mc or past the matrix are zero.
void pack_a(const float* a, long k, long i0, long mc, long rows, long p0, long kc, uint32_t* out) {
  const long kp = (kc + 1) / 2;
  for (long ir = 0; ir < mc; ir += MR) {
    uint32_t* strip = out + ir * kp;
    const long last = mc < rows - i0 ? mc : rows - i0;  // rows of this block inside the matrix
    const long valid = last - ir < 0 ? 0 : last - ir < MR ? last - ir : MR;
    for (long i = 0; i < valid; i++) round_pairs(a + (i0 + ir + i) * k + p0, kc, strip + i, MR);
    for (long p = 0; valid < MR && p < kp; p++) memset(strip + p * MR + valid, 0, (MR - valid) * 4);
  }
}

// op(B)(p, j) = b[p * rs + j * cs]; one element of a pair, zero past the matrix.
inline uint16_t b_at(const uint16_t* b, long rs, long cs, long p, long kend, long j, long cols) {
  return p < kend && j < cols ? b[p * rs + j * cs] : 0;
}

// Transposes 16 rows of 16 words (r) into 16 columns, in place.
inline void transpose16(__m512i r[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; i++) {
    u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  // u[4i + q], 128-bit lane L, holds column 4L + q of rows 4i..4i+3.
  for (int q = 0; q < 4; q++) {
    __m512i v0 = _mm512_shuffle_i32x4(u[q], u[4 + q], 0x88), w0 = _mm512_shuffle_i32x4(u[q], u[4 + q], 0xDD);
    __m512i v1 = _mm512_shuffle_i32x4(u[8 + q], u[12 + q], 0x88), w1 = _mm512_shuffle_i32x4(u[8 + q], u[12 + q], 0xDD);
    r[q] = _mm512_shuffle_i32x4(v0, v1, 0x88);
    r[8 + q] = _mm512_shuffle_i32x4(v0, v1, 0xDD);
    r[4 + q] = _mm512_shuffle_i32x4(w0, w1, 0x88);
    r[12 + q] = _mm512_shuffle_i32x4(w0, w1, 0xDD);
  }
}

// op(B)[p0:p0+kc, j0:j0+nc] as NR-column strips of pairs. trans_b (B = W, n x k: y = x W^T):
// a column's pair is two neighbours of a weight row, so 16 x 16 words are transposed at a
// time; otherwise (B = W, k x n: dx = dy W) two weight rows are interleaved.
void pack_b(const uint16_t* b, bool trans_b, long k, long n, long p0, long kc, long j0, long nc, uint32_t* out) {
  const long kp = (kc + 1) / 2;
  const long rs = trans_b ? 1 : n, cs = trans_b ? k : 1;
  const __m512i lo_idx = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i hi_idx = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  for (long jr = 0; jr < nc; jr += NR) {
    uint32_t* strip = out + jr * kp;
    const long j = j0 + jr;
    const bool full = jr + NR <= nc && j + NR <= n;
    long p = 0;
    if (full && trans_b) {
      for (; 2 * p + 32 <= kc; p += 16) {
        for (int half = 0; half < 2; half++) {
          __m512i r[16];
          for (int q = 0; q < 16; q++) r[q] = _mm512_loadu_si512(b + (j + half * 16 + q) * k + p0 + 2 * p);
          transpose16(r);
          for (int q = 0; q < 16; q++) _mm512_store_si512(strip + (p + q) * NR + half * 16, r[q]);
        }
      }
    } else if (full) {
      for (; 2 * p + 2 <= kc; p++) {
        const uint16_t* row = b + (p0 + 2 * p) * n + j;
        __m512i x = _mm512_loadu_si512(row), y = _mm512_loadu_si512(row + n);
        __m512i lo = _mm512_unpacklo_epi16(x, y), hi = _mm512_unpackhi_epi16(x, y);
        _mm512_store_si512(strip + p * NR, _mm512_permutex2var_epi64(lo, lo_idx, hi));
        _mm512_store_si512(strip + p * NR + 16, _mm512_permutex2var_epi64(lo, hi_idx, hi));
      }
    }
    const long kend = p0 + kc;
    for (; p < kp; p++) {
      for (int c = 0; c < NR; c++) {
        long jc = jr + c < nc ? j + c : n;  // columns past this block are zero too
        strip[p * NR + c] = pair(b_at(b, rs, cs, p0 + 2 * p, kend, jc, n), b_at(b, rs, cs, p0 + 2 * p + 1, kend, jc, n));
      }
    }
  }
}

void micro(long kp, const uint32_t* __restrict a, const uint32_t* __restrict b, float* c, long ldc, int mv, int nv,
           bool add) {
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int i = 0; i < MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (long p = 0; p < kp; p++) {
    __m512bh b0 = (__m512bh)_mm512_load_si512(b + p * NR), b1 = (__m512bh)_mm512_load_si512(b + p * NR + 16);
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++) {
      __m512bh av = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[p * MR + i]));
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], av, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], av, b1);
    }
  }
  if (mv == MR && nv == NR) {
#pragma GCC unroll 12
    for (int i = 0; i < MR; i++) {
      float* dst = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(dst));
        acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(dst + 16));
      }
      _mm512_storeu_ps(dst, acc[i][0]);
      _mm512_storeu_ps(dst + 16, acc[i][1]);
    }
    return;
  }
  alignas(64) float tile[MR * NR];
  for (int i = 0; i < MR; i++) {
    _mm512_store_ps(tile + i * NR, acc[i][0]);
    _mm512_store_ps(tile + i * NR + 16, acc[i][1]);
  }
  for (int i = 0; i < mv; i++)
    for (int j = 0; j < nv; j++) c[i * ldc + j] = add ? c[i * ldc + j] + tile[i * NR + j] : tile[i * NR + j];
}

}  // namespace

void bf16dot_block(const GemmArgs& g, long i0, long i1, long j0, long j1) {
  // Wider than one column block (the tied head: 151936), A would be rounded and packed again
  // for every block of B; then all of it is packed once (while that fits in 16 MB), a kc
  // block after another.
  const long rows_pad = ceil_to(i1 - i0, MR), blocks = (g.k + KC - 1) / KC, block_words = rows_pad * (KC / 2);
  const bool prepack = j1 - j0 > NC && block_words * blocks <= (1L << 22);
  const long a_words = prepack ? block_words * blocks : ceil_to(MC, MR) * (KC / 2);
  uint32_t* packed_a = scratch(a_words + ceil_to(NC, NR) * (KC / 2));
  uint32_t* packed_b = packed_a + a_words;
  for (long pc = 0; prepack && pc < g.k; pc += KC) {
    pack_a(g.a, g.k, i0, i1 - i0, i1, pc, g.k - pc < KC ? g.k - pc : KC, packed_a + pc / KC * block_words);
  }
  for (long jc = j0; jc < j1; jc += NC) {
    long nc = j1 - jc < NC ? j1 - jc : NC;
    for (long pc = 0; pc < g.k; pc += KC) {
      long kc = g.k - pc < KC ? g.k - pc : KC, kp = (kc + 1) / 2;
      bool add = g.accumulate || pc > 0;
      pack_b(g.b16, g.trans_b, g.k, g.n, pc, kc, jc, nc, packed_b);
      for (long ic = i0; ic < i1; ic += MC) {
        long mc = i1 - ic < MC ? i1 - ic : MC;
        const uint32_t* a_block = packed_a;
        if (prepack) a_block += pc / KC * block_words + (ic - i0) * kp;
        else pack_a(g.a, g.k, ic, mc, i1, pc, kc, packed_a);
        for (long jr = 0; jr < nc; jr += NR) {
          int nv = static_cast<int>(nc - jr < NR ? nc - jr : NR);
          for (long ir = 0; ir < mc; ir += MR) {
            int mv = static_cast<int>(mc - ir < MR ? mc - ir : MR);
            micro(kp, a_block + ir * kp, packed_b + jr * kp, g.c + (ic + ir) * g.n + jc + jr, g.n, mv, nv, add);
          }
        }
      }
    }
  }
}

// R weight rows (k apart) against one rounded activation row xi (zero-padded to whole
// vectors): R streams at once, and each load of xi serves all of them.
template <int R>
inline void dot_rows(const uint32_t* xi, const uint16_t* w, long k, float* out) {
  __m512 s[R];
  for (int q = 0; q < R; q++) s[q] = _mm512_setzero_ps();
  const long full = k / 32 * 32;
  long p = 0;
  for (; p < full; p += 32) {
    __m512bh xv = (__m512bh)_mm512_load_si512(xi + p / 2);
    for (int q = 0; q < R; q++) s[q] = _mm512_dpbf16_ps(s[q], xv, (__m512bh)_mm512_loadu_si512(w + q * k + p));
  }
  if (p < k) {
    __mmask32 mask = static_cast<__mmask32>((1ull << (k - p)) - 1);
    __m512bh xv = (__m512bh)_mm512_load_si512(xi + p / 2);
    for (int q = 0; q < R; q++) s[q] = _mm512_dpbf16_ps(s[q], xv, (__m512bh)_mm512_maskz_loadu_epi16(mask, w + q * k + p));
  }
  for (int q = 0; q < R; q++) out[q] = _mm512_reduce_add_ps(s[q]);
}

void bf16dot_rows_bt(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  // The rounded rows of A once, then four weight rows at a time share each load of them.
  const long kw = ceil_to(k, 32) / 2;  // words per rounded row, zero-padded to whole vectors
  uint32_t* x = scratch(m * kw);
  for (long i = 0; i < m; i++) {
    round_pairs(a + i * k, k, x + i * kw, 1);
    for (long p = (k + 1) / 2; p < kw; p++) x[i * kw + p] = 0;
  }
  float r[4];
  for (long j = j0; j < j1;) {
    const int rows = j + 4 <= j1 ? 4 : 1;
    for (long i = 0; i < m; i++) {
      if (rows == 4) dot_rows<4>(x + i * kw, b + j * k, k, r);
      else dot_rows<1>(x + i * kw, b + j * k, k, r);
      for (int q = 0; q < rows; q++) c[i * n + j + q] = add ? c[i * n + j + q] + r[q] : r[q];
    }
    j += rows;
  }
}

// One to three rows times a k x n weight (dx = dy W while scoring a one-token prompt). The
// weight is read row by row, as it lies in memory: four k pairs (eight rows) at a time are
// interleaved per 32 columns, as pack_b does, and added by vdpbf16ps onto the output rows,
// which stay in the cache. The accumulators hold the columns in unpack order (lo: 0-3, 8-11,
// ...; hi: 4-7, 12-15, ...); c is kept in that order until the end, then put back in place.
void bf16dot_rows_b(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  const long kp = (k + 1) / 2, width = j1 - j0, chunks = (width + 31) / 32;
  const long x_words = ceil_to(m * kp, 16);  // acc starts on a 64-byte boundary
  uint32_t* x = scratch(x_words + m * chunks * 32);
  float* acc = reinterpret_cast<float*>(x + x_words);  // m x chunks x 32, in unpack order
  for (long i = 0; i < m; i++) round_pairs(a + i * k, k, x + i * kp, 1);
  memset(acc, 0, sizeof(float) * m * chunks * 32);
  for (long p0 = 0; p0 < kp; p0 += 4) {
    const long pairs = kp - p0 < 4 ? kp - p0 : 4;
    for (long ch = 0; ch < chunks; ch++) {
      const long j = j0 + ch * 32, cols = j1 - j < 32 ? j1 - j : 32;
      const __mmask32 mask = static_cast<__mmask32>(cols == 32 ? ~0ull : (1ull << cols) - 1);
      __m512 lo[3], hi[3];
      for (long i = 0; i < m; i++) {
        lo[i] = _mm512_load_ps(acc + (i * chunks + ch) * 32);
        hi[i] = _mm512_load_ps(acc + (i * chunks + ch) * 32 + 16);
      }
      for (long q = 0; q < pairs; q++) {
        const long p = p0 + q;
        __m512i r0 = _mm512_maskz_loadu_epi16(mask, b + 2 * p * n + j);
        __m512i r1 = 2 * p + 1 < k ? _mm512_maskz_loadu_epi16(mask, b + (2 * p + 1) * n + j) : _mm512_setzero_si512();
        __m512bh pl = (__m512bh)_mm512_unpacklo_epi16(r0, r1), ph = (__m512bh)_mm512_unpackhi_epi16(r0, r1);
        for (long i = 0; i < m; i++) {
          __m512bh xi = (__m512bh)_mm512_set1_epi32(static_cast<int>(x[i * kp + p]));
          lo[i] = _mm512_dpbf16_ps(lo[i], xi, pl);
          hi[i] = _mm512_dpbf16_ps(hi[i], xi, ph);
        }
      }
      for (long i = 0; i < m; i++) {
        _mm512_store_ps(acc + (i * chunks + ch) * 32, lo[i]);
        _mm512_store_ps(acc + (i * chunks + ch) * 32 + 16, hi[i]);
      }
    }
  }
  const __m512i lo_idx = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
  const __m512i hi_idx = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  for (long i = 0; i < m; i++) {
    for (long ch = 0; ch < chunks; ch++) {
      const long j = j0 + ch * 32, cols = j1 - j < 32 ? j1 - j : 32;
      const __mmask32 mask = static_cast<__mmask32>(cols == 32 ? ~0ull : (1ull << cols) - 1);
      const __mmask16 m0 = static_cast<__mmask16>(mask), m1 = static_cast<__mmask16>(mask >> 16);
      __m512i l = _mm512_load_si512(acc + (i * chunks + ch) * 32), h = _mm512_load_si512(acc + (i * chunks + ch) * 32 + 16);
      __m512 first = _mm512_castsi512_ps(_mm512_permutex2var_epi64(l, lo_idx, h));
      __m512 second = _mm512_castsi512_ps(_mm512_permutex2var_epi64(l, hi_idx, h));
      float* out = c + i * n + j;
      if (add) {
        first = _mm512_add_ps(first, _mm512_maskz_loadu_ps(m0, out));
        second = _mm512_add_ps(second, _mm512_maskz_loadu_ps(m1, out + 16));
      }
      _mm512_mask_storeu_ps(out, m0, first);
      _mm512_mask_storeu_ps(out + 16, m1, second);
    }
  }
}

}  // namespace troupe
