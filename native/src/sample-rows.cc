// See sample-rows.h. Compiled with -ffp-contract=off (binding.gyp): a fused multiply-add would
// round once where fdlibm rounds twice and change the exponentials' last bits.
#include "sample-rows.h"

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "thread-pool.h"

namespace troupe {
namespace {

// fdlibm's constants (facts of the algorithm: ln 2 split in a high part with trailing zero bits
// and the rest, and the minimax coefficients of its rational approximation on [-ln2/2, ln2/2]).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kP1 = 1.66666666666666019037e-01;
constexpr double kP2 = -2.77777777770155933842e-03;
constexpr double kP3 = 6.61375632143793436117e-05;
constexpr double kP4 = -1.65339022054652515390e-06;
constexpr double kP5 = 4.13813679705723846039e-08;
constexpr double kOverflow = 7.09782712893383973096e+02;
constexpr double kUnderflow = -7.45133219101941108420e+02;
constexpr double kTwoM1000 = 9.33263618503218878990e-302;  // 2^-1000

uint32_t high_word(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return static_cast<uint32_t>(bits >> 32);
}

double from_high_word(uint32_t high) {
  const uint64_t bits = static_cast<uint64_t>(high) << 32;
  double x;
  std::memcpy(&x, &bits, 8);
  return x;
}

// exp(r) * 2^k from the reduced argument r = hi - lo: fdlibm's final steps, shared by both paths.
inline double scale_by_power_of_two(double y, int k) {
  if (k >= -1021) {
    if (k == 1024) return y * 2.0 * 8.98846567431158e307;  // 2^1023
    return y * from_high_word(0x3ff00000u + (static_cast<uint32_t>(k) << 20));
  }
  return y * from_high_word(0x3ff00000u + (static_cast<uint32_t>(k + 1000) << 20)) * kTwoM1000;
}

}  // namespace

double exp_like_v8(double x) {
  if (x == 1.0) return 2.718281828459045;  // V8 returns Math.E itself here
  uint32_t hx = high_word(x);
  const int negative = (hx >> 31) & 1;
  hx &= 0x7fffffffu;
  if (hx >= 0x40862E42u) {  // |x| >= 709.78, NaN, infinities
    if (hx >= 0x7ff00000u) {
      if (x != x) return x + x;
      return negative ? 0.0 : x;
    }
    if (x > kOverflow) return HUGE_VAL;
    if (x < kUnderflow) return 0.0;
  }
  double hi = 0, lo = 0;
  int k = 0;
  if (hx > 0x3fd62e42u) {  // |x| > ln2 / 2: x = k ln2 + r
    if (hx < 0x3FF0A2B2u) {  // and < 1.5 ln2: k = +-1
      hi = negative ? x + kLn2Hi : x - kLn2Hi;
      lo = negative ? -kLn2Lo : kLn2Lo;
      k = negative ? -1 : 1;
    } else {
      k = static_cast<int>(kInvLn2 * x + (negative ? -0.5 : 0.5));
      const double t = k;
      hi = x - t * kLn2Hi;  // exact: kLn2Hi has trailing zero bits
      lo = t * kLn2Lo;
    }
    x = hi - lo;
  } else if (hx < 0x3e300000u) {  // |x| < 2^-28
    return 1.0 + x;
  }
  const double t = x * x;
  const double c = x - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
  if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
  return scale_by_power_of_two(1.0 - ((lo - (x * c) / (2.0 - c)) - hi), k);
}

namespace {

// Four exponentials at once, the same operations lane by lane. The branches of the scalar code
// become selects: |x| <= ln2/2 is the general formula with k = 0 (hi = x, lo = 0 give the k == 0
// expression's bits, and 2^0 = 1), ln2/2 < |x| < 1.5 ln2 is k = +-1 (the same hi and lo).
// Lanes the selects do not cover (|x| >= 709.78, NaN, k < -1021, x == 1) take the scalar code.
__attribute__((target("avx2"))) __m256d exp4(__m256d x) {
  const __m256d ax = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
  const __m256d special = _mm256_or_pd(_mm256_cmp_pd(ax, _mm256_set1_pd(from_high_word(0x40862E42u)), _CMP_NLT_UQ),
                                       _mm256_cmp_pd(x, _mm256_set1_pd(1.0), _CMP_EQ_OQ));
  const __m256d negative = _mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ);
  const __m256d half = _mm256_blendv_pd(_mm256_set1_pd(0.5), _mm256_set1_pd(-0.5), negative);
  __m256d t = _mm256_cvtepi32_pd(_mm256_cvttpd_epi32(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(kInvLn2), x), half)));
  const __m256d general = _mm256_cmp_pd(ax, _mm256_set1_pd(from_high_word(0x3FF0A2B2u)), _CMP_GE_OQ);
  const __m256d reduced = _mm256_cmp_pd(ax, _mm256_set1_pd(from_high_word(0x3fd62e43u)), _CMP_GE_OQ);
  const __m256d one_step = _mm256_blendv_pd(_mm256_set1_pd(1.0), _mm256_set1_pd(-1.0), negative);
  t = _mm256_blendv_pd(one_step, t, general);
  t = _mm256_and_pd(t, reduced);  // k = 0 below ln2 / 2
  const __m256d too_small = _mm256_cmp_pd(t, _mm256_set1_pd(-1021.0), _CMP_LT_OQ);
  if (_mm256_movemask_pd(_mm256_or_pd(special, too_small)) != 0) {
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, x);
    for (double& lane : lanes) lane = exp_like_v8(lane);
    return _mm256_load_pd(lanes);
  }
  const __m256d hi = _mm256_sub_pd(x, _mm256_mul_pd(t, _mm256_set1_pd(kLn2Hi)));
  const __m256d lo = _mm256_mul_pd(t, _mm256_set1_pd(kLn2Lo));
  const __m256d r = _mm256_sub_pd(hi, lo);
  const __m256d rr = _mm256_mul_pd(r, r);
  __m256d poly = _mm256_add_pd(_mm256_set1_pd(kP4), _mm256_mul_pd(rr, _mm256_set1_pd(kP5)));
  poly = _mm256_add_pd(_mm256_set1_pd(kP3), _mm256_mul_pd(rr, poly));
  poly = _mm256_add_pd(_mm256_set1_pd(kP2), _mm256_mul_pd(rr, poly));
  poly = _mm256_add_pd(_mm256_set1_pd(kP1), _mm256_mul_pd(rr, poly));
  const __m256d c = _mm256_sub_pd(r, _mm256_mul_pd(rr, poly));
  const __m256d quotient = _mm256_div_pd(_mm256_mul_pd(r, c), _mm256_sub_pd(_mm256_set1_pd(2.0), c));
  const __m256d y = _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_sub_pd(_mm256_sub_pd(lo, quotient), hi));
  const __m256i k = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(t));
  const __m256d two_to_k = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k, _mm256_set1_epi64x(1023)), 52));
  const __m256d result = _mm256_mul_pd(y, two_to_k);
  const __m256d tiny = _mm256_cmp_pd(ax, _mm256_set1_pd(from_high_word(0x3e300000u)), _CMP_LT_OQ);
  return _mm256_blendv_pd(result, _mm256_add_pd(_mm256_set1_pd(1.0), x), tiny);
}

// w[i] = exp(logit_i / T - max) for the whole row; returns their sum, added in token order.
double weigh_scalar(const float* x, long n, double T, double max, double* w) {
  double total = 0;
  for (long i = 0; i < n; i++) {
    w[i] = exp_like_v8(static_cast<double>(x[i]) / T - max);
    total += w[i];
  }
  return total;
}

__attribute__((target("avx2"))) double weigh_avx2(const float* x, long n, double T, double max, double* w) {
  const __m256d vmax = _mm256_set1_pd(max), vt = _mm256_set1_pd(T);
  const bool divide = T != 1.0;  // x / 1 is x
  double total = 0;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + i));
    if (divide) v = _mm256_div_pd(v, vt);
    _mm256_storeu_pd(w + i, exp4(_mm256_sub_pd(v, vmax)));
    total += w[i];
    total += w[i + 1];
    total += w[i + 2];
    total += w[i + 3];
  }
  for (; i < n; i++) {
    w[i] = exp_like_v8(static_cast<double>(x[i]) / T - max);
    total += w[i];
  }
  return total;
}

// The row's largest logit; false when one is NaN.
bool row_max_scalar(const float* x, long n, float* max) {
  float top = -HUGE_VALF;
  bool nan = false;
  for (long i = 0; i < n; i++) {
    nan |= x[i] != x[i];
    top = x[i] > top ? x[i] : top;
  }
  *max = top;
  return !nan;
}

__attribute__((target("avx2"))) bool row_max_avx2(const float* x, long n, float* max) {
  __m256 top = _mm256_set1_ps(-HUGE_VALF), nan = _mm256_setzero_ps();
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    top = _mm256_max_ps(top, v);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, top);
  float rest = -HUGE_VALF;
  const bool ok = row_max_scalar(x + i, n - i, &rest) && _mm256_movemask_ps(nan) == 0;
  for (float lane : lanes) rest = lane > rest ? lane : rest;
  *max = rest;
  return ok;
}

struct Rows {
  const float* logits;
  long vocab;
  const double* temperature;
  const double* uniform;
  double* out;
  bool vector;
};

void sample_row(void* ctx, int row) {
  const Rows& s = *static_cast<const Rows*>(ctx);
  const float* x = s.logits + row * s.vocab;
  double* out = s.out + 4 * row;
  const double T = s.temperature[row];
  float top = 0;
  const bool finite = s.vector ? row_max_avx2(x, s.vocab, &top) : row_max_scalar(x, s.vocab, &top);
  if (!finite || top == HUGE_VALF || top == -HUGE_VALF) {
    out[0] = -1;
    return;
  }
  // max_i fl(x_i / T) = fl(max_i x_i / T): division by T > 0 keeps the order.
  const double max = static_cast<double>(top) / T;
  thread_local std::vector<double> weights;
  if (static_cast<long>(weights.size()) < s.vocab) weights.resize(s.vocab);
  double* w = weights.data();
  const double total = s.vector ? weigh_avx2(x, s.vocab, T, max, w) : weigh_scalar(x, s.vocab, T, max, w);
  double u = s.uniform[row] * total;
  long pick = s.vocab - 1;
  while (pick > 0 && w[pick] == 0) pick--;
  for (long j = 0; j < s.vocab; j++) {
    u -= w[j];
    if (u < 0) {
      pick = j;
      break;
    }
  }
  out[0] = static_cast<double>(pick);
  out[1] = w[pick];
  out[2] = total;
  out[3] = max;
}

}  // namespace

void sample_rows(const float* logits, long rows, long vocab, const double* temperature, const double* uniform,
                 double* out, int threads, bool vector) {
  Rows s{logits, vocab, temperature, uniform, out, vector};
  parallel_run(threads, static_cast<int>(rows), sample_row, &s);
}

}  // namespace troupe
