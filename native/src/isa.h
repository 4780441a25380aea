// The kernels that isa.cc implements once per instruction set. cpu.cc chooses one table at
// load time; everything above this header (gemm.cc, addon.cc) is instruction-set neutral.
#pragma once
#include <cstdint>

namespace troupe {

struct GemmArgs;

struct IsaKernels {
  const char* name;
  // Register tile of the matmul micro-kernel (rows x columns) and the cache blocks the
  // driver cuts the operands into: kc deep, mc rows of A (L2), nc columns of B (L2/L3).
  int mr, nr, kc, mc, nc;

  // Packs op(A)[i0:i0+mc, p0:p0+kc] into mr-row strips, each k-major (mr values per k);
  // rows past the matrix are zero. op(A)(i, p) = a[i * rs + p * cs].
  void (*pack_a)(const float* a, long rs, long cs, long i0, long mc, long rows, long p0, long kc, float* out);
  // Packs op(B)[p0:p0+kc, j0:j0+nc] into nr-column strips, each k-major (nr values per k);
  // columns past the matrix are zero. op(B)(p, j) = b[p * rs + j * cs].
  void (*pack_b)(const float* b, long rs, long cs, long p0, long kc, long j0, long nc, long cols, float* out);
  // C[0:mv, 0:nv] (= or +=) packed A strip x packed B strip, summed over kc in order.
  void (*micro)(long kc, const float* a, const float* b, float* c, long ldc, int mv, int nv, bool add);
  // micro reading A (not transposed) where it lies: tile row r at a + r * rs, step p at [p].
  // The same sums in the same order as micro over pack_a's strip. Null: pack A (gemm.cc).
  void (*micro_a)(long kc, const float* a, long rs, const float* b, float* c, long ldc, int mv, int nv, bool add);

  // pack_b, rows_bt and rows_b for a bf16 right-hand side (bit patterns), widened to float32
  // as they are read: exact, so the products equal the float32 ones.
  void (*pack_b_bf16)(const uint16_t* b, long rs, long cs, long p0, long kc, long j0, long nc, long cols, float* out);
  void (*rows_bt_bf16)(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add);
  void (*rows_b_bf16)(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1, bool add);

  // Few-row products that stream the right-hand side once (decoding):
  // c[i, j] (= or +=) dot(a[i, :], b[j, :]) for i < m, j in [j0, j1)   (x W^T)
  void (*rows_bt)(const float* a, const float* b, float* c, long m, long n, long k, long j0, long j1, bool add);
  // c[i, j] (= or +=) sum_p a[i, p] b[p, j] for i < m, j in [j0, j1)   (x W)
  void (*rows_b)(const float* a, const float* b, float* c, long m, long n, long k, long j0, long j1, bool add);

  void (*add)(const float* a, const float* b, float* out, long n);
  void (*mul)(const float* a, const float* b, float* out, long n);
  void (*axpy)(float alpha, const float* x, float* y, long n);
  double (*sum_squares)(const float* x, long n);
  void (*rms_norm)(const float* x, const float* w, float* out, float* inv_rms, long rows, long d, float eps);
  void (*rms_norm_backward)(const float* x, const float* w, const float* inv_rms, const float* d_out, float* dx,
                            float* d_w, long rows, long d);
  void (*causal_softmax)(float* s, long rows, long cols, long offset, float scale);
  void (*causal_softmax_backward)(const float* p, float* dp, long rows, long cols, float scale);
  void (*swiglu)(const float* gate, const float* up, float* out, long n);
  void (*swiglu_backward)(const float* gate, const float* up, const float* d_out, float* d_gate, float* d_up, long n);
  // cos/sin tables: [position][headDim / 2]; sign -1 rotates backwards.
  void (*rope)(float* x, const int32_t* positions, const float* cos, const float* sin, long tokens, long heads,
               long head_dim, float sign);
  void (*log_softmax)(float* x, long rows, long vocab);
  // x (log-probs) becomes g[r] * (onehot(targets[r]) - exp(x)) row by row, in place.
  void (*log_softmax_gather_backward)(float* x, long rows, long vocab, const int32_t* targets, const float* g);
  // out[r] = -sum_j exp(x[r, j]) x[r, j] over log-probabilities: each row's entropy.
  void (*row_entropy)(const float* x, long rows, long vocab, float* out);
  void (*adamw)(float* p, const float* g, float* m, float* v, long n, float lr, float beta1, float beta2, float eps,
                float decay, float c1, float c2);

  // C(i, j) (= or +=) sum_p A(i, p) B(p, j), i in [i0, i1), j < n <= 16, B packed k x 16:
  // products with one side a LoRA rank (isa-thin.cc, gemm.cc).
  void (*thin)(const float* a, long ars, long acs, const float* bp, float* c, long crs, long ccs, long i0, long i1,
               long n, long k, bool add);

  // c[i, j] (= or +=) sum_p a[i, p] w[j, p] for i < m, j in [j0, j1), w bf16 (n x k): a few rows
  // times a weight read where it lies, with gemm_block's sums bit for bit (isa-stream.cc).
  // Decoding a batch. Null where it has not been checked on a CPU that runs the table.
  void (*stream_bt_bf16)(const float* a, const uint16_t* w, float* c, long m, long n, long k, long j0, long j1,
                         bool add);

  // The 'fast' bf16 product (GemmArgs::round_a: activations rounded to bf16) with vdpbf16ps
  // (gemm-bf16.h). Set only in the avx512-bf16 table; elsewhere they are null and gemm.cc
  // rounds a copy of the activations for the widening kernels above (the same products).
  void (*bf16dot_block)(const GemmArgs& g, long i0, long i1, long j0, long j1);
  void (*bf16dot_rows_bt)(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1,
                          bool add);
  void (*bf16dot_rows_b)(const float* a, const uint16_t* b, float* c, long m, long n, long k, long j0, long j1,
                         bool add);
};

extern const IsaKernels kIsaBaseline;
extern const IsaKernels kIsaAvx2;
extern const IsaKernels kIsaAvx512;

}  // namespace troupe
