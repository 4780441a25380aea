// Every kernel of the native backend, written once with GCC vector extensions and compiled
// three times (binding.gyp): TROUPE_ISA=baseline (x86-64 SSE2, 4 lanes), avx2 (8 lanes,
// FMA) and avx512 (16 lanes, FMA). Each compilation lives in its own namespace so the three
// never share a symbol; no C++ library templates are used here for the same reason (the
// linker could pick an AVX-512 copy of a shared inline function for the baseline path).
#include <math.h>
#include <string.h>
#if defined(__AVX2__) && !defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "isa-vector.h"
#include "isa.h"

namespace troupe {
namespace TROUPE_NS {

// A right-hand-side element as float32: float as is, bf16 bits widened (exact).
inline float widen(float x) { return x; }
inline float widen(uint16_t bits) {
  unsigned u = static_cast<unsigned>(bits) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
inline vf load_b(const float* p) { return load(p); }
inline vf load_b(const uint16_t* p) {
  vi wide = __builtin_convertvector(*reinterpret_cast<const vh*>(p), vi) << 16;
  return (vf)wide;
}

inline float hsum(vf v) {
  float s = 0;
  for (int i = 0; i < VW; i++) s += v[i];
  return s;
}
inline float hmax(vf v) {
  float m = v[0];
  for (int i = 1; i < VW; i++) m = v[i] > m ? v[i] : m;
  return m;
}

// Loads n < VW floats, the rest `fill`.
inline vf load_tail(const float* p, long n, float fill) {
  float tmp[VW];
  for (int i = 0; i < VW; i++) tmp[i] = i < n ? p[i] : fill;
  return load(tmp);
}
inline void store_tail(float* p, vf v, long n) {
  for (long i = 0; i < n; i++) p[i] = v[i];
}

// e^x to about 2 ulp: x = n ln2 + r with |r| <= ln2/2, e^r by a degree-6 polynomial, 2^n
// built in the exponent bits. Below -87.3 it returns 0 (the masked softmax entries), above
// 88.7 infinity.
inline vf vexp(vf x) {
  const vf magic = splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  vf xc = x < -87.3f ? splat(-87.3f) : x;
  xc = xc > 88.7f ? splat(88.7f) : xc;
  vf t = xc * 1.44269504088896341f + magic;
  vf n = t - magic;
  vf r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723e-6f;
  vf p = splat(1.9875691e-4f);  // Cephes expf coefficients
  p = p * r + 1.3981999e-3f;
  p = p * r + 8.3334519e-3f;
  p = p * r + 4.1665795e-2f;
  p = p * r + 1.6666665e-1f;
  p = p * r + 5.0000001e-1f;
  p = p * (r * r) + r + 1.0f;
  vi bits = (vi)t - 0x4B400000;  // n as an integer (a vector cast keeps the bits)
  vi scale = (bits + 127) << 23;
  vf result = p * (vf)scale;
  result = x < -87.3f ? vf{} : result;
  return x > 88.7f ? splat(__builtin_inff()) : result;
}

// ---------------------------------------------------------------- matmul

void pack_a(const float* a, long rs, long cs, long i0, long mc, long rows, long p0, long kc, float* out) {
  for (long ir = 0; ir < mc; ir += MR) {
    float* strip = out + ir * kc;
    if (cs != 1 && ir + MR <= mc && i0 + ir + MR <= rows) {
      // A transposed (a weight gradient's dY^T, rs = 1): the strip's MR values of one step p lie
      // side by side in a, so step by step reads them together instead of one row at a time
      // (a stride of cs floats per read); the strip is the same.
      const float* src = a + (i0 + ir) * rs + p0 * cs;
      for (long p = 0; p < kc; p++)
#pragma GCC unroll 16
        for (int i = 0; i < MR; i++) strip[p * MR + i] = src[p * cs + i * rs];
      continue;
    }
    for (int i = 0; i < MR; i++) {
      long row = i0 + ir + i;
      if (ir + i >= mc || row >= rows) {
        for (long p = 0; p < kc; p++) strip[p * MR + i] = 0;
      } else if (cs == 1) {
        const float* src = a + row * rs + p0;
        for (long p = 0; p < kc; p++) strip[p * MR + i] = src[p];
      } else {
        const float* src = a + row * rs + p0 * cs;
        for (long p = 0; p < kc; p++) strip[p * MR + i] = src[p * cs];
      }
    }
  }
}

#if defined(__AVX2__) && !defined(__AVX512F__)
// In place: r[i][j] <-> r[j][i] over an 8 x 8 block.
inline void transpose8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; i++) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// A whole strip of op(B) = W^T (W row-major: column j of the strip is row j of W, `cs` apart):
// 8 x 8 blocks read along W's rows and written transposed, instead of one float at a time
// down a column (the x W^T products of a learner's forward, ~30% slower than x W without it).
// Pure data movement: the strip is the one the scalar loop writes.
template <class T>
void pack_strip_transposed(const T* src, long cs, long kc, float* strip) {
  long p = 0;
  for (; p + 8 <= kc; p += 8) {
    for (int half = 0; half < NR / 8; half++) {
      __m256 r[8];
      for (int j = 0; j < 8; j++) r[j] = (__m256)load_b(src + (half * 8 + j) * cs + p);  // vf is 8 floats here
      transpose8(r);
      for (int q = 0; q < 8; q++) _mm256_storeu_ps(strip + (p + q) * NR + half * 8, r[q]);
    }
  }
  for (; p < kc; p++)
    for (int j = 0; j < NR; j++) strip[p * NR + j] = widen(src[j * cs + p]);
}
#endif

template <class T>
void pack_b_t(const T* b, long rs, long cs, long p0, long kc, long j0, long nc, long cols, float* out) {
  for (long jr = 0; jr < nc; jr += NR) {
    float* strip = out + jr * kc;
    long valid = min_l(NR, min_l(nc - jr, cols - j0 - jr));
#if defined(__AVX2__) && !defined(__AVX512F__)
    if (rs == 1 && cs != 1 && valid == NR) {
      pack_strip_transposed(b + p0 + (j0 + jr) * cs, cs, kc, strip);
      continue;
    }
#endif
    if (cs == 1 && valid == NR) {
      const T* src = b + p0 * rs + j0 + jr;
      for (long p = 0; p < kc; p++) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) store(strip + p * NR + v * VW, load_b(src + p * rs + v * VW));
      }
    } else {
      for (int j = 0; j < NR; j++) {
        if (j >= valid) {
          for (long p = 0; p < kc; p++) strip[p * NR + j] = 0;
        } else {
          const T* src = b + p0 * rs + (j0 + jr + j) * cs;
          for (long p = 0; p < kc; p++) strip[p * NR + j] = widen(src[p * rs]);
        }
      }
    }
  }
}

// C tile (= or +=) acc: the first mv rows and nv columns.
inline void store_tile(vf (&acc)[MR][NV], float* c, long ldc, int mv, int nv, bool add) {
  if (mv == MR && nv == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
      for (int v = 0; v < NV; v++) {
        float* dst = c + i * ldc + v * VW;
        store(dst, add ? load(dst) + acc[i][v] : acc[i][v]);
      }
    return;
  }
  float tile[MR * NR];
  for (int i = 0; i < MR; i++)
    for (int v = 0; v < NV; v++) store(tile + i * NR + v * VW, acc[i][v]);
  for (int i = 0; i < mv; i++)
    for (int j = 0; j < nv; j++) c[i * ldc + j] = add ? c[i * ldc + j] + tile[i * NR + j] : tile[i * NR + j];
}

void micro(long kc, const float* __restrict a, const float* __restrict b, float* c, long ldc, int mv, int nv,
           bool add) {
  vf acc[MR][NV];
  tile_products(acc, kc, [a](int i, long p) { return a[p * MR + i]; }, b, NR);
  store_tile(acc, c, ldc, mv, nv, add);
}

// micro with A read where it lies, row r of the tile at a + r * rs (A not transposed): the same
// products summed in the same order as micro over a packed strip, so the same bits, without
// packing A. At the learning runs' width (k = 64, n = 64-192) packing A cost a third of the
// micro-kernel's time; each row is read n / NR times instead, from L1.
void micro_a(long kc, const float* a, long rs, const float* __restrict b, float* c, long ldc, int mv, int nv,
             bool add) {
  // Rows past mv repeat the last one (read, never stored), as packing would have put zeros there.
  const float* ar[MR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; r++) ar[r] = a + (r < mv ? r : mv - 1) * rs;
  vf acc[MR][NV];
  tile_products(acc, kc, [&ar](int i, long p) { return ar[i][p]; }, b, NR);
  store_tile(acc, c, ldc, mv, nv, add);
}

// dot(a, b) over k: four vector accumulators, then the scalar tail, always in that order.
template <class T>
inline float dot(const float* a, const T* b, long k) {
  vf s0{}, s1{}, s2{}, s3{};
  long p = 0;
  for (; p + 4 * VW <= k; p += 4 * VW) {
    s0 += load(a + p) * load_b(b + p);
    s1 += load(a + p + VW) * load_b(b + p + VW);
    s2 += load(a + p + 2 * VW) * load_b(b + p + 2 * VW);
    s3 += load(a + p + 3 * VW) * load_b(b + p + 3 * VW);
  }
  for (; p + VW <= k; p += VW) s0 += load(a + p) * load_b(b + p);
  float s = hsum((s0 + s1) + (s2 + s3));
  for (; p < k; p++) s += a[p] * widen(b[p]);
  return s;
}

template <class T>
void rows_bt_t(const float* a, const T* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  // Four rows of W at a time share each load of the activations.
  long j = j0;
  for (; j + 4 <= j1; j += 4) {
    const T* b0 = b + j * k;
    for (long i = 0; i < m; i++) {
      const float* x = a + i * k;
      vf s0{}, s1{}, s2{}, s3{};
      long p = 0;
      for (; p + VW <= k; p += VW) {
        vf xv = load(x + p);
        s0 += xv * load_b(b0 + p);
        s1 += xv * load_b(b0 + k + p);
        s2 += xv * load_b(b0 + 2 * k + p);
        s3 += xv * load_b(b0 + 3 * k + p);
      }
      float r[4] = {hsum(s0), hsum(s1), hsum(s2), hsum(s3)};
      for (; p < k; p++) {
        for (int q = 0; q < 4; q++) r[q] += x[p] * widen(b0[q * k + p]);
      }
      for (int q = 0; q < 4; q++) c[i * n + j + q] = add ? c[i * n + j + q] + r[q] : r[q];
    }
  }
  for (; j < j1; j++) {
    for (long i = 0; i < m; i++) {
      float s = dot(a + i * k, b + j * k, k);
      c[i * n + j] = add ? c[i * n + j] + s : s;
    }
  }
}

void rows_bt(const float* a, const float* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  rows_bt_t(a, b, c, m, n, k, j0, j1, add);
}
void rows_bt_bf16(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  rows_bt_t(a, b, c, m, n, k, j0, j1, add);
}
void pack_b(const float* b, long rs, long cs, long p0, long kc, long j0, long nc, long cols, float* out) {
  pack_b_t(b, rs, cs, p0, kc, j0, nc, cols, out);
}
void pack_b_bf16(const uint16_t* b, long rs, long cs, long p0, long kc, long j0, long nc, long cols, float* out) {
  pack_b_t(b, rs, cs, p0, kc, j0, nc, cols, out);
}

template <class T>
void rows_b_t(const float* a, const T* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  // Column chunks of 4 vectors held in registers while the rows of B stream past.
  for (long i = 0; i < m; i++) {
    const float* x = a + i * k;
    float* out = c + i * n;
    long j = j0;
    for (; j + 4 * VW <= j1; j += 4 * VW) {
      vf s0{}, s1{}, s2{}, s3{};
      for (long p = 0; p < k; p++) {
        const T* row = b + p * n + j;
        float xp = x[p];
        s0 += xp * load_b(row);
        s1 += xp * load_b(row + VW);
        s2 += xp * load_b(row + 2 * VW);
        s3 += xp * load_b(row + 3 * VW);
      }
      if (add) {
        s0 += load(out + j), s1 += load(out + j + VW), s2 += load(out + j + 2 * VW), s3 += load(out + j + 3 * VW);
      }
      store(out + j, s0), store(out + j + VW, s1), store(out + j + 2 * VW, s2), store(out + j + 3 * VW, s3);
    }
    for (; j < j1; j++) {
      float s = 0;
      for (long p = 0; p < k; p++) s += x[p] * widen(b[p * n + j]);
      out[j] = add ? out[j] + s : s;
    }
  }
}

#if !defined(__AVX512F__)
// Columns left over after rows_b_t's groups of 4 vectors (attention's P V and dS K have
// n = head_dim, e.g. 16: all of it) went through its scalar loop, one column at a time: a
// dependent chain of k multiply-adds each, most of the response pass of a short answer. Here
// VW columns share each chain, and each lane computes exactly what that loop computes, so the
// bits do not change. How GCC compiles that loop (checked on the AVX2 build's code, and by
// native-rows-b.test.ts against the scalar loop): with FMA, k > 3 sums the first 4 * (k / 4)
// products rounded on their own (a 4-wide in-order reduction: vmulps, then vaddss one by one)
// and the rest with fused multiply-adds; k <= 3 fuses them all. Without FMA (the baseline
// build) every product is rounded, then added. The empty asm keeps GCC from fusing a product
// that must be rounded (-ffp-contract=fast would). The AVX-512 build is left as it was: its
// reduction was not checked on a CPU that runs it.
static void rows_b_lanes(const float* a, const float* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
#if defined(__FMA__)
  const long rounded = k > 3 ? k / 4 * 4 : 0;
#else
  const long rounded = k;
#endif
  for (long i = 0; i < m; i++) {
    const float* x = a + i * k;
    float* out = c + i * n;
    for (long j = j0; j + VW <= j1; j += VW) {
      vf s{};
      long p = 0;
      for (; p < rounded; p++) {
        vf prod = x[p] * load(b + p * n + j);
        __asm__("" : "+x"(prod));
        s = s + prod;
      }
      for (; p < k; p++) s += x[p] * load(b + p * n + j);
      if (add) s = s + load(out + j);
      store(out + j, s);
    }
  }
}
#endif

void rows_b(const float* a, const float* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
#if defined(__AVX512F__)
  rows_b_t(a, b, c, m, n, k, j0, j1, add);
#else
  const long groups = j0 + (j1 - j0) / (4 * VW) * (4 * VW);
  const long lanes = groups + (j1 - groups) / VW * VW;
  rows_b_t(a, b, c, m, n, k, j0, groups, add);
  rows_b_lanes(a, b, c, m, n, k, groups, lanes, add);
  rows_b_t(a, b, c, m, n, k, lanes, j1, add);
#endif
}
void rows_b_bf16(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add) {
  rows_b_t(a, b, c, m, n, k, j0, j1, add);
}

// ---------------------------------------------------------------- element-wise

void add(const float* a, const float* b, float* out, long n) {
  for (long i = 0; i < n; i++) out[i] = a[i] + b[i];
}
void mul(const float* a, const float* b, float* out, long n) {
  for (long i = 0; i < n; i++) out[i] = a[i] * b[i];
}
void axpy(float alpha, const float* x, float* y, long n) {
  for (long i = 0; i < n; i++) y[i] += alpha * x[i];
}

double sum_squares(const float* x, long n) {
  // float64 lanes: gradient norms of millions of values stay exact to ~1e-12.
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long i = 0;
  for (; i + 8 <= n; i += 8)
    for (int q = 0; q < 8; q++) s[q] += static_cast<double>(x[i + q]) * x[i + q];
  double total = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  for (; i < n; i++) total += static_cast<double>(x[i]) * x[i];
  return total;
}

// sum_i a[i] * b[i] * c[i] (c may be null: then sum a[i] * b[i]), in vector lanes.
inline float sum_products(const float* a, const float* b, const float* c, long n) {
  vf s{};
  long i = 0;
  for (; i + VW <= n; i += VW) s += load(a + i) * load(b + i) * (c ? load(c + i) : splat(1.0f));
  float total = hsum(s);
  for (; i < n; i++) total += a[i] * b[i] * (c ? c[i] : 1.0f);
  return total;
}

void rms_norm(const float* x, const float* w, float* out, float* inv_rms, long rows, long d, float eps) {
  for (long r = 0; r < rows; r++) {
    const float* xr = x + r * d;
    float* o = out + r * d;
    double ss = sum_products(xr, xr, nullptr, d);
    float inv = static_cast<float>(1.0 / sqrt(ss / d + eps));
    inv_rms[r] = inv;
    for (long i = 0; i < d; i++) o[i] = xr[i] * inv * w[i];
  }
}

void rms_norm_backward(const float* x, const float* w, const float* inv_rms, const float* d_out, float* dx, float* d_w,
                       long rows, long d) {
  for (long r = 0; r < rows; r++) {
    const float* xr = x + r * d;
    const float* g = d_out + r * d;
    float* dxr = dx + r * d;
    float inv = inv_rms[r];
    float dotv = sum_products(w, g, xr, d);
    float coef = inv * inv * inv * dotv / static_cast<float>(d);
    for (long i = 0; i < d; i++) {
      dxr[i] = inv * w[i] * g[i] - xr[i] * coef;
      d_w[i] += g[i] * xr[i] * inv;
    }
  }
}

// Softmax of row[0:len] * scale in place: max, exponentials, one division.
inline void softmax_row(float* row, long len, float scale) {
  vf mv = splat(-__builtin_inff());
  long j = 0;
  for (; j + VW <= len; j += VW) {
    vf v = load(row + j) * scale;
    mv = v > mv ? v : mv;
  }
  float mx = hmax(mv);
  for (; j < len; j++) mx = row[j] * scale > mx ? row[j] * scale : mx;
  vf sv{};
  for (j = 0; j + VW <= len; j += VW) {
    vf e = vexp(load(row + j) * scale - mx);
    store(row + j, e);
    sv += e;
  }
  if (j < len) {
    vf e = vexp(load_tail(row + j, len - j, 0) * scale - mx);
    e = load_tail(reinterpret_cast<float*>(&e), len - j, 0);
    store_tail(row + j, e, len - j);
    sv += e;
  }
  float inv = 1.0f / hsum(sv);
  for (j = 0; j < len; j++) row[j] *= inv;
}

void causal_softmax(float* s, long rows, long cols, long offset, float scale) {
  for (long r = 0; r < rows; r++) {
    float* row = s + r * cols;
    long len = min_l(cols, r + offset + 1);  // columns 0..r+offset are visible
    if (len < 0) len = 0;
    if (len > 0) softmax_row(row, len, scale);
    for (long j = len; j < cols; j++) row[j] = 0;
  }
}

void causal_softmax_backward(const float* p, float* dp, long rows, long cols, float scale) {
  for (long r = 0; r < rows; r++) {
    const float* pr = p + r * cols;
    float* dr = dp + r * cols;
    float dotv = sum_products(dr, pr, nullptr, cols);
    for (long j = 0; j < cols; j++) dr[j] = scale * pr[j] * (dr[j] - dotv);
  }
}

void swiglu(const float* gate, const float* up, float* out, long n) {
  long i = 0;
  for (; i + VW <= n; i += VW) {
    vf g = load(gate + i);
    store(out + i, g / (1.0f + vexp(-g)) * load(up + i));
  }
  if (i < n) {
    long t = n - i;
    vf g = load_tail(gate + i, t, 0);
    store_tail(out + i, g / (1.0f + vexp(-g)) * load_tail(up + i, t, 0), t);
  }
}

void swiglu_backward(const float* gate, const float* up, const float* d_out, float* d_gate, float* d_up, long n) {
  for (long i = 0; i < n; i += VW) {
    long t = min_l(VW, n - i);
    vf g = t == VW ? load(gate + i) : load_tail(gate + i, t, 0);
    vf u = t == VW ? load(up + i) : load_tail(up + i, t, 0);
    vf d = t == VW ? load(d_out + i) : load_tail(d_out + i, t, 0);
    vf sig = 1.0f / (1.0f + vexp(-g));
    vf du = d * g * sig;
    vf dg = d * u * sig * (1.0f + g * (1.0f - sig));  // d silu(g)/dg = sig (1 + g (1 - sig))
    if (t == VW) {
      store(d_up + i, du), store(d_gate + i, dg);
    } else {
      store_tail(d_up + i, du, t), store_tail(d_gate + i, dg, t);
    }
  }
}

void rope(float* x, const int32_t* positions, const float* cos_t, const float* sin_t, long tokens, long heads,
          long head_dim, float sign) {
  long half = head_dim / 2;
  for (long t = 0; t < tokens; t++) {
    const float* c = cos_t + positions[t] * half;
    const float* s = sin_t + positions[t] * half;
    for (long h = 0; h < heads; h++) {
      float* x0 = x + (t * heads + h) * head_dim;
      float* x1 = x0 + half;
      for (long i = 0; i < half; i++) {
        float a = x0[i], b = x1[i], si = sign * s[i];
        x0[i] = a * c[i] - b * si;
        x1[i] = b * c[i] + a * si;
      }
    }
  }
}

void log_softmax(float* x, long rows, long vocab) {
  for (long r = 0; r < rows; r++) {
    float* row = x + r * vocab;
    vf mv = splat(-__builtin_inff());
    long j = 0;
    for (; j + VW <= vocab; j += VW) mv = load(row + j) > mv ? load(row + j) : mv;
    float mx = hmax(mv);
    for (; j < vocab; j++) mx = row[j] > mx ? row[j] : mx;
    vf sv{};
    for (j = 0; j + VW <= vocab; j += VW) sv += vexp(load(row + j) - mx);
    double sum = hsum(sv);
    if (j < vocab) sum += hsum(vexp(load_tail(row + j, vocab - j, -__builtin_inff()) - mx));
    // (x - max) - log(sum): subtracting max first keeps the digits of large logits.
    float log_sum = static_cast<float>(log(sum));
    for (j = 0; j < vocab; j++) row[j] = (row[j] - mx) - log_sum;
  }
}

void row_entropy(const float* x, long rows, long vocab, float* out) {
  for (long r = 0; r < rows; r++) {
    const float* row = x + r * vocab;
    vf sv{};
    long j = 0;
    for (; j + VW <= vocab; j += VW) sv += vexp(load(row + j)) * load(row + j);
    if (j < vocab) {
      vf tail = load_tail(row + j, vocab - j, 0.0f);  // padding: exp(0) * 0 adds nothing
      sv += vexp(tail) * tail;
    }
    out[r] = -hsum(sv);
  }
}

void log_softmax_gather_backward(float* x, long rows, long vocab, const int32_t* targets, const float* g) {
  for (long r = 0; r < rows; r++) {
    float* row = x + r * vocab;
    vf neg = splat(-g[r]);
    long j = 0;
    for (; j + VW <= vocab; j += VW) store(row + j, neg * vexp(load(row + j)));
    if (j < vocab) store_tail(row + j, neg * vexp(load_tail(row + j, vocab - j, 0)), vocab - j);
    row[targets[r]] += g[r];
  }
}

// The four arrays never overlap (one parameter's own buffers): __restrict lets the compiler
// vectorise without run-time overlap checks (it kept this loop scalar, 4 GB/s, without).
void adamw(float* __restrict p, const float* __restrict g, float* __restrict m, float* __restrict v, long n,
           float lr, float beta1, float beta2, float eps, float decay, float c1, float c2) {
  for (long i = 0; i < n; i++) {
    float gi = g[i];
    float mi = beta1 * m[i] + (1 - beta1) * gi;
    float vi = beta2 * v[i] + (1 - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - lr * (mi * c1) / (sqrtf(vi * c2) + eps);
  }
}

}  // namespace TROUPE_NS

extern const IsaKernels TROUPE_CAT(kIsa, TROUPE_ISA_NAME) = {
    TROUPE_STR(TROUPE_ISA), TROUPE_NS::MR, TROUPE_NS::NR, TROUPE_NS::KC, TROUPE_NS::MC, TROUPE_NS::NC,
    TROUPE_NS::pack_a, TROUPE_NS::pack_b, TROUPE_NS::micro,
#if defined(__AVX512F__)
    nullptr,  // micro_a: not yet run on an AVX-512 CPU (its bits against micro unchecked); A is packed there
#else
    TROUPE_NS::micro_a,
#endif
    TROUPE_NS::pack_b_bf16, TROUPE_NS::rows_bt_bf16,
    TROUPE_NS::rows_b_bf16, TROUPE_NS::rows_bt, TROUPE_NS::rows_b,
    TROUPE_NS::add, TROUPE_NS::mul, TROUPE_NS::axpy, TROUPE_NS::sum_squares, TROUPE_NS::rms_norm,
    TROUPE_NS::rms_norm_backward, TROUPE_NS::causal_softmax, TROUPE_NS::causal_softmax_backward,
    TROUPE_NS::swiglu, TROUPE_NS::swiglu_backward, TROUPE_NS::rope, TROUPE_NS::log_softmax,
    TROUPE_NS::log_softmax_gather_backward, TROUPE_NS::row_entropy, TROUPE_NS::adamw, TROUPE_NS::thin,
#if defined(__AVX512F__)
    nullptr,  // stream_bt_bf16: not yet run on an AVX-512 CPU (issue 33, item 5); the packed path stays
#else
    TROUPE_NS::stream_bt_bf16,
#endif
    nullptr, nullptr, nullptr,  // bf16dot_*: only the avx512-bf16 table (cpu.cc)
};

}  // namespace troupe
