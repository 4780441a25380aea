// Which instruction sets this CPU (and its operating system) supports, read with cpuid.
#pragma once
#include "isa.h"

namespace troupe {

// The kernel tables this CPU can run, fastest first (always ends with the baseline).
// Fills `out` (room for 4) and returns how many.
int available_isas(const IsaKernels** out);

// Every kernel table compiled into the addon, whether or not this CPU can run it, in the
// order of available_isas (what `npm test` reports as not exercised on this CPU).
// Fills `out` (room for 4) and returns how many.
int built_isas(const IsaKernels** out);

// Whether the CPU has AVX512_BF16 (vdpbf16ps).
bool cpu_has_avx512_bf16();

}  // namespace troupe
