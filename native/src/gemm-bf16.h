// vdpbf16ps kernels of the 'fast' bf16 product (gemm-bf16.cc, built with -mavx512bf16):
// only the avx512-bf16 kernel table points at them, and cpu.cc offers that table only when
// cpuid reports AVX512_BF16.
#pragma once
#include <cstdint>

#include "gemm.h"

namespace troupe {

// The packed product C[i0:i1, j0:j1] (= or +=) round_bf16(A) op(B16), B16 bf16, A not transposed.
void bf16dot_block(const GemmArgs& g, long i0, long i1, long j0, long j1);
// One to three rows: c[i, j] (= or +=) dot(round_bf16(a[i, :]), b[j, :]) for j in [j0, j1).
void bf16dot_rows_bt(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add);
// One to three rows times a k x n b: c[i, j] (= or +=) sum_p round_bf16(a[i, p]) b[p, j].
void bf16dot_rows_b(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add);

}  // namespace troupe
