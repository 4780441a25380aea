// The vector types and register-tile sizes of isa.cc and isa-thin.cc, for the instruction set
// of the compilation (TROUPE_ISA: baseline, avx2 or avx512; see isa.cc). Each compilation
// keeps its own copy in its own namespace.
#pragma once
#include <stdint.h>

#define TROUPE_CAT2(a, b) a##b
#define TROUPE_CAT(a, b) TROUPE_CAT2(a, b)
#define TROUPE_NS TROUPE_CAT(isa_, TROUPE_ISA)
#define TROUPE_STR2(x) #x
#define TROUPE_STR(x) TROUPE_STR2(x)

namespace troupe {
namespace TROUPE_NS {

#if defined(__AVX512F__)
constexpr int VW = 16;  // floats per vector
constexpr int MR = 12;  // 12 x 32 tile: 24 accumulators of the 32 zmm registers
constexpr int NR = 32;
constexpr int KC = 256, MC = 192, NC = 1024;
#elif defined(__AVX2__)
constexpr int VW = 8;
constexpr int MR = 6;  // 6 x 16 tile: 12 accumulators of the 16 ymm registers
constexpr int NR = 16;
constexpr int KC = 256, MC = 120, NC = 1024;
#else
constexpr int VW = 4;
constexpr int MR = 4;  // 4 x 8 tile: 8 accumulators of the 16 xmm registers
constexpr int NR = 8;
constexpr int KC = 256, MC = 96, NC = 512;
#endif
constexpr int NV = NR / VW;

typedef float vf __attribute__((vector_size(VW * 4)));
typedef float vfu __attribute__((vector_size(VW * 4), aligned(4)));  // unaligned access
typedef int vi __attribute__((vector_size(VW * 4)));
typedef unsigned short vh __attribute__((vector_size(VW * 2), aligned(2)));  // VW bf16 values

inline vf load(const float* p) { return *reinterpret_cast<const vfu*>(p); }
inline void store(float* p, vf v) { *reinterpret_cast<vfu*>(p) = v; }
inline vf splat(float x) { return vf{} + x; }
inline long min_l(long a, long b) { return a < b ? a : b; }

// The register tile of micro (isa.cc) and thin (isa-thin.cc): acc[r][v] = sum over p < k of
// A(r, p) times B's row p, vector v (rows `stride` floats apart, vector-aligned), p in order.
template <int R, int V, class AAt>
inline void tile_products(vf (&acc)[R][V], long k, AAt a_at, const float* b, long stride) {
#pragma GCC unroll 16
  for (int r = 0; r < R; r++)
#pragma GCC unroll 4
    for (int v = 0; v < V; v++) acc[r][v] = vf{};
  for (long p = 0; p < k; p++) {
    vf bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; v++) bv[v] = *reinterpret_cast<const vf*>(b + p * stride + v * VW);
#pragma GCC unroll 16
    for (int r = 0; r < R; r++) {
      const float x = a_at(r, p);
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) acc[r][v] += x * bv[v];
    }
  }
}

// C(i, j) (= or +=) sum_p A(i, p) B(p, j) for rows i in [i0, i1), j < n <= 16: A(i, p) =
// a[i * ars + p * acs], B packed k x 16 (zero past n), C(i, j) at c[i * crs + j * ccs].
// Products one side of which is a LoRA rank (isa-thin.cc).
void thin(const float* a, long ars, long acs, const float* bp, float* c, long crs, long ccs, long i0, long i1, long n,
          long k, bool add);

// x W^T for a few rows of x and a bf16 W, W read where it lies (isa-stream.cc).
void stream_bt_bf16(const float* a, const uint16_t* w, float* c, long m, long n, long k, long j0, long j1, bool add);

}  // namespace TROUPE_NS
}  // namespace troupe
