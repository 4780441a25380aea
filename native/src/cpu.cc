#include "cpu.h"

#include <cpuid.h>

#include "gemm-bf16.h"

namespace troupe {

// The AVX-512 table plus the vdpbf16ps kernels of the 'fast' bf16 product.
static const IsaKernels& avx512_bf16_table() {
  static IsaKernels avx512_bf16 = [] {
    IsaKernels table = kIsaAvx512;
    table.name = "avx512-bf16";
    table.bf16dot_block = bf16dot_block;
    table.bf16dot_rows_bt = bf16dot_rows_bt;
    table.bf16dot_rows_b = bf16dot_rows_b;
    return table;
  }();
  return avx512_bf16;
}

// __builtin_cpu_supports reads cpuid once at startup and, for AVX and AVX-512, also checks
// that the OS saves the wider registers (XCR0), so a kernel it allows cannot fault.
int available_isas(const IsaKernels** out) {
  __builtin_cpu_init();
  int count = 0;
  if (cpu_has_avx512_bf16() && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma")) {
    out[count++] = &avx512_bf16_table();
  }
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma")) {
    out[count++] = &kIsaAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out[count++] = &kIsaAvx2;
  out[count++] = &kIsaBaseline;
  return count;
}

int built_isas(const IsaKernels** out) {
  out[0] = &avx512_bf16_table();
  out[1] = &kIsaAvx512;
  out[2] = &kIsaAvx2;
  out[3] = &kIsaBaseline;
  return 4;
}

bool cpu_has_avx512_bf16() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  __builtin_cpu_init();
  return (eax & (1u << 5)) != 0 && __builtin_cpu_supports("avx512f");
}

}  // namespace troupe
