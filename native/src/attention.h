// The causal attention of one query sequence for all its heads in one call (attention.ts's
// per-head loops, moved here so a 0.6B layer makes 2 calls instead of ~1,000 and the heads
// run on the thread pool). Instruction-set neutral: the blocks go through gemm and the
// table's causal softmax, exactly the calls attention.ts makes one by one, so the results are
// bit-identical to that path for any thread count.
#pragma once

#include "gemm.h"
#include "isa.h"

namespace troupe {

struct AttentionDims {
  long seq_len;     // T: query rows of the sequence
  long prefix_len;  // lp: keys before them (a shared prompt); S = lp + T keys
  long heads, kv_heads, head_dim;
  long row_block;   // R: query rows per causal block
  float scale;      // 1 / sqrt(head_dim)
};

// Scores of the first `rows` query rows of one head, stored block after block (rb x (lp + r0 + rb)).
long attention_score_count(long rows, long prefix_len, long row_block);

// q, out: the sequence's rows [T, heads * head_dim]; kh, vh: head-major [kv_heads][S][head_dim];
// probs: [heads][attention_score_count(T)] (written: the softmax of every block).
void attention_forward(const IsaKernels& K, const AttentionDims& d, const float* q, const float* kh, const float* vh,
                       float* probs, float* out, int threads);

// Backward of attention_forward with d_out [T, heads * head_dim]: writes (or, with
// dq_accumulate, adds) dq in that layout when dq is not null, and writes dk, dv head-major
// [kv_heads][S][head_dim].
void attention_backward(const IsaKernels& K, const AttentionDims& d, const float* q, const float* kh, const float* vh,
                        const float* probs, const float* d_out, float* dq, bool dq_accumulate, float* dk, float* dv,
                        int threads);

}  // namespace troupe
