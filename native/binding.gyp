# The native CPU backend (issue 13). Built by scripts/build-native.mjs with node-gyp.
# isa.cc is compiled three times with different instruction sets (baseline x86-64 SSE2,
# AVX2+FMA, AVX-512); cpu.cc picks one at load time with cpuid, so the binary runs on any
# x86-64 and never needs -march=native.
{
  "target_defaults": {
    "cflags_cc": ["-O3", "-std=c++17", "-fno-math-errno", "-ffp-contract=fast", "-fno-exceptions", "-Wall", "-Wno-unused-function"],
    "cflags_cc!": ["-fno-rtti", "-O2"],
  },
  "targets": [
    {
      "target_name": "isa_baseline",
      "type": "static_library",
      "sources": ["src/isa.cc", "src/isa-thin.cc", "src/isa-stream.cc"],
      "defines": ["TROUPE_ISA=baseline", "TROUPE_ISA_NAME=Baseline"],
      "cflags_cc": ["-fPIC"],
    },
    {
      "target_name": "isa_avx2",
      "type": "static_library",
      "sources": ["src/isa.cc", "src/isa-thin.cc", "src/isa-stream.cc"],
      "defines": ["TROUPE_ISA=avx2", "TROUPE_ISA_NAME=Avx2"],
      "cflags_cc": ["-fPIC", "-mavx2", "-mfma", "-mf16c"],
    },
    {
      "target_name": "isa_avx512",
      "type": "static_library",
      "sources": ["src/isa.cc", "src/isa-thin.cc", "src/isa-stream.cc"],
      "defines": ["TROUPE_ISA=avx512", "TROUPE_ISA_NAME=Avx512"],
      "cflags_cc": ["-fPIC", "-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mprefer-vector-width=512"],
    },
    {
      "target_name": "gemm_bf16",
      "type": "static_library",
      "sources": ["src/gemm-bf16.cc"],
      "cflags_cc": ["-fPIC", "-mavx2", "-mfma", "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512bf16"],
    },
    {
      # Sampling matches JavaScript's Math.exp bit for bit: no fused multiply-adds.
      "target_name": "sampling",
      "type": "static_library",
      "sources": ["src/sample-rows.cc"],
      "cflags_cc": ["-fPIC", "-ffp-contract=off"],
    },
    {
      "target_name": "troupe_native",
      "sources": ["src/addon.cc", "src/cpu.cc", "src/thread-pool.cc", "src/gemm.cc", "src/page-cache.cc", "src/attention.cc"],
      "dependencies": ["isa_baseline", "isa_avx2", "isa_avx512", "gemm_bf16", "sampling"],
      "libraries": ["-lpthread"],
    },
  ],
}
