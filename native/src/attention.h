// The causal attention of one query sequence for all its heads in one call (attention.ts's
// per-head loops, moved here so a 0.6B layer makes 2 calls instead of ~1,000 and the heads
// run on the thread pool). Instruction-set neutral: the blocks go through gemm and the
// table's causal softmax, exactly the calls attention.ts makes one by one, so the results are
// bit-identical to that path for any thread count.
#pragma once

#include <cstdint>

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

// A batch of B query sequences of T rows, each continuing one of a set of shared prefixes
// (attention.ts's loop over sequences, moved here so a GRPO batch of B short answers makes one
// call instead of B, with the gathers done by memcpy). Token-major inputs: q [B*T, heads*hd],
// k and v [B*T, kv_heads*hd], prefix_k and prefix_v [prefix_count * prefix_seq_len, kv_heads*hd].
// Sequence b sees prefix_len[b] rows of prefix sequence prefix_index[b]. probs receives each
// sequence's scores back to back (heads * attention_score_count(T, prefix_len[b], R)): the
// backward reads them, and the same token-major keys and values again. Per sequence the work is
// attention_forward / attention_backward on its head-major keys, so the bits are the same as
// calling those one sequence at a time.
struct AttentionBatch {
  long batch;
  long prefix_seq_len;
  const int32_t* prefix_len;    // [batch]
  const int32_t* prefix_index;  // [batch]
};

void attention_batch_forward(const IsaKernels& K, const AttentionDims& d, const AttentionBatch& b, const float* q,
                             const float* k, const float* v, const float* prefix_k, const float* prefix_v, float* probs,
                             float* out, int threads);

// Gradients: dq [B*T, heads*hd] and dk, dv [B*T, kv_heads*hd] are written, or added to with
// their *_accumulate flag, and skipped when null; d_prefix_k / d_prefix_v (token-major like
// prefix_k) are added to, sequence after sequence, when not null.
void attention_batch_backward(const IsaKernels& K, const AttentionDims& d, const AttentionBatch& b, const float* q,
                              const float* k, const float* v, const float* prefix_k, const float* prefix_v,
                              const float* probs, const float* d_out, float* dq,
                              bool dq_accumulate, float* dk, bool dk_accumulate, float* dv, bool dv_accumulate,
                              float* d_prefix_k, float* d_prefix_v, int threads);

}  // namespace troupe
