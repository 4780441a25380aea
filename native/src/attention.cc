#include "attention.h"

#include <cstring>
#include <vector>

#include "thread-pool.h"

namespace troupe {
namespace {

// Per-thread temporaries of one head's work (gemm keeps its own packing scratch).
float* head_scratch(long floats) {
  thread_local std::vector<float> buffer;
  if (static_cast<long>(buffer.size()) < floats) buffer.resize(floats);
  return buffer.data();
}

// One product on the calling thread only: the heads are what runs in parallel.
void product(const IsaKernels& K, const float* a, const float* b, float* c, long m, long n, long k, bool trans_a,
             bool trans_b, bool accumulate) {
  GemmArgs g{a, b, nullptr, c, m, n, k, trans_a, trans_b, accumulate, false};
  gemm(K, g, GemmSplit{1, kDefaultParallelFrom, kDefaultRowsParallelFrom, kDefaultStreamRowsUpTo});
}

// rows x width floats between strided layouts: dst[r * dst_stride + i] (+)= src[r * src_stride + i].
void copy_rows(const float* src, long src_stride, float* dst, long dst_stride, long rows, long width, bool add) {
  for (long r = 0; r < rows; r++) {
    const float* s = src + r * src_stride;
    float* o = dst + r * dst_stride;
    if (add) {
      for (long i = 0; i < width; i++) o[i] += s[i];
    } else {
      memcpy(o, s, sizeof(float) * width);
    }
  }
}

// dst[i] += src[i]: one contiguous block (the compiler vectorises it; each element is one add).
void add_block(const float* src, float* dst, long n) {
  for (long i = 0; i < n; i++) dst[i] += src[i];
}

struct Job {
  const IsaKernels* K;
  const AttentionDims* d;
  const float *q, *kh, *vh, *d_out;
  float *probs, *out, *dq, *dk, *dv;
  const float* probs_in;
  bool dq_accumulate;
};

void forward_head(void* ctx, int h) {
  const Job& j = *static_cast<Job*>(ctx);
  const AttentionDims& d = *j.d;
  const long T = d.seq_len, lp = d.prefix_len, hd = d.head_dim, S = lp + T, qw = d.heads * hd, R = d.row_block;
  const long g = h / (d.heads / d.kv_heads);
  float* qh = head_scratch(2 * T * hd);
  float* oh = qh + T * hd;
  copy_rows(j.q + h * hd, qw, qh, hd, T, hd, false);
  const float* kg = j.kh + g * S * hd;
  const float* vg = j.vh + g * S * hd;
  float* p = j.probs + h * attention_score_count(T, lp, R);
  for (long r0 = 0; r0 < T; r0 += R) {
    const long rb = T - r0 < R ? T - r0 : R, sb = lp + r0 + rb;
    product(*j.K, qh + r0 * hd, kg, p, rb, sb, hd, false, true, false);
    j.K->causal_softmax(p, rb, sb, lp + r0, d.scale);
    product(*j.K, p, vg, oh + r0 * hd, rb, hd, sb, false, false, false);
    p += rb * sb;
  }
  copy_rows(oh, hd, j.out + h * hd, qw, T, hd, false);
}

// The heads of kv group g one after another (they add into the group's dk and dv).
void backward_group(void* ctx, int g) {
  const Job& j = *static_cast<Job*>(ctx);
  const AttentionDims& d = *j.d;
  const long T = d.seq_len, lp = d.prefix_len, hd = d.head_dim, S = lp + T, qw = d.heads * hd, R = d.row_block;
  const long rep = d.heads / d.kv_heads, blocks = (T + R - 1) / R, per_head = attention_score_count(T, lp, R);
  const long rmax = T < R ? T : R;
  float* qh = head_scratch(3 * T * hd + rmax * S);
  float* d_o = qh + T * hd;
  float* d_q = d_o + T * hd;
  float* d_p = d_q + T * hd;
  const float* kg = j.kh + g * S * hd;
  const float* vg = j.vh + g * S * hd;
  float* dkg = j.dk + g * S * hd;
  float* dvg = j.dv + g * S * hd;
  for (long h = g * rep; h < (g + 1) * rep; h++) {
    copy_rows(j.q + h * hd, qw, qh, hd, T, hd, false);
    copy_rows(j.d_out + h * hd, qw, d_o, hd, T, hd, false);
    const float* head_p = j.probs_in + h * per_head;
    // Last block first: it sees all S keys, so the group's first head writes dk and dv there
    // (no zero-fill) and every later product adds.
    for (long i = blocks - 1; i >= 0; i--) {
      const long r0 = i * R, rb = T - r0 < R ? T - r0 : R, sb = lp + r0 + rb;
      const float* p = head_p + attention_score_count(r0, lp, R);
      const float* d_ob = d_o + r0 * hd;
      const bool acc = h % rep != 0 || i != blocks - 1;
      product(*j.K, p, d_ob, dvg, sb, hd, rb, true, false, acc);               // P^T dO
      product(*j.K, d_ob, vg, d_p, rb, sb, hd, false, true, false);            // dO V^T
      j.K->causal_softmax_backward(p, d_p, rb, sb, d.scale);                   // -> d scores
      product(*j.K, d_p, kg, d_q + r0 * hd, rb, hd, sb, false, false, false);  // dS K
      product(*j.K, d_p, qh + r0 * hd, dkg, sb, hd, rb, true, false, acc);     // dS^T Q
    }
    if (j.dq) copy_rows(d_q, hd, j.dq + h * hd, qw, T, hd, j.dq_accumulate);
  }
}

// Keys and values of sequence s of a batch head-major, as attention_forward and
// attention_backward read them ([kv head][lp + T rows][hd]): its prefix's rows, then its own. The
// K sequences of a GRPO group continue one prefix: its rows are copied in once for all of them,
// and each sequence then writes only its own T rows. The forward keeps nothing of it; the
// backward builds it again (a copy of the prompt's keys and values per sequence and layer, kept
// for the backward, was most of a short answer's memory and much of its forward's time).
struct SequenceKeys {
  std::vector<float> k, v;
  long row = -1, rows = -1;  // the prefix in place: its first row in prefix_k and its length

  void load(const AttentionDims& d, const AttentionBatch& b, long s, const float* k_rows, const float* v_rows,
            const float* prefix_k, const float* prefix_v) {
    const long T = d.seq_len, hd = d.head_dim, nkv = d.kv_heads, kw = nkv * hd;
    // A sequence without a prefix may carry any index (the addon checks only the ones read).
    const long lp = b.prefix_len[s], S = lp + T, prefix_row = lp > 0 ? b.prefix_index[s] * b.prefix_seq_len : 0;
    if (lp != rows || prefix_row != row) {
      k.resize(nkv * S * hd);
      v.resize(nkv * S * hd);
      for (long g = 0; g < nkv; g++) {
        copy_rows(prefix_k + prefix_row * kw + g * hd, kw, k.data() + g * S * hd, hd, lp, hd, false);
        copy_rows(prefix_v + prefix_row * kw + g * hd, kw, v.data() + g * S * hd, hd, lp, hd, false);
      }
      row = prefix_row, rows = lp;
    }
    for (long g = 0; g < nkv; g++) {
      copy_rows(k_rows + s * T * kw + g * hd, kw, k.data() + (g * S + lp) * hd, hd, T, hd, false);
      copy_rows(v_rows + s * T * kw + g * hd, kw, v.data() + (g * S + lp) * hd, hd, T, hd, false);
    }
  }
};

}  // namespace

long attention_score_count(long rows, long prefix_len, long row_block) {
  long n = 0;
  for (long r0 = 0; r0 < rows; r0 += row_block) {
    const long rb = rows - r0 < row_block ? rows - r0 : row_block;
    n += rb * (prefix_len + r0 + rb);
  }
  return n;
}

void attention_forward(const IsaKernels& K, const AttentionDims& d, const float* q, const float* kh, const float* vh,
                       float* probs, float* out, int threads) {
  if (d.seq_len == 0 || d.heads == 0) return;
  Job j{&K, &d, q, kh, vh, nullptr, probs, out, nullptr, nullptr, nullptr, nullptr, false};
  parallel_run(threads, static_cast<int>(d.heads), forward_head, &j);
}

void attention_backward(const IsaKernels& K, const AttentionDims& d, const float* q, const float* kh, const float* vh,
                        const float* probs, const float* d_out, float* dq, bool dq_accumulate, float* dk, float* dv,
                        int threads) {
  if (d.seq_len == 0 || d.heads == 0) return;
  Job j{&K, &d, q, kh, vh, d_out, nullptr, nullptr, dq, dk, dv, probs, dq_accumulate};
  parallel_run(threads, static_cast<int>(d.kv_heads), backward_group, &j);
}

void attention_batch_forward(const IsaKernels& K, const AttentionDims& d, const AttentionBatch& b, const float* q,
                             const float* k, const float* v, const float* prefix_k, const float* prefix_v, float* probs,
                             float* out, int threads) {
  const long T = d.seq_len, qw = d.heads * d.head_dim;
  SequenceKeys keys;
  long p_at = 0;
  for (long s = 0; s < b.batch; s++) {
    keys.load(d, b, s, k, v, prefix_k, prefix_v);
    AttentionDims ds = d;
    ds.prefix_len = b.prefix_len[s];
    attention_forward(K, ds, q + s * T * qw, keys.k.data(), keys.v.data(), probs + p_at, out + s * T * qw, threads);
    p_at += d.heads * attention_score_count(T, ds.prefix_len, d.row_block);
  }
}

void attention_batch_backward(const IsaKernels& K, const AttentionDims& d, const AttentionBatch& b, const float* q,
                              const float* k, const float* v, const float* prefix_k, const float* prefix_v,
                              const float* probs, const float* d_out, float* dq,
                              bool dq_accumulate, float* dk, bool dk_accumulate, float* dv, bool dv_accumulate,
                              float* d_prefix_k, float* d_prefix_v, int threads) {
  const long T = d.seq_len, hd = d.head_dim, nkv = d.kv_heads, kw = nkv * hd, qw = d.heads * hd;
  long max_s = 0;
  for (long s = 0; s < b.batch; s++) max_s = b.prefix_len[s] + T > max_s ? b.prefix_len[s] + T : max_s;
  std::vector<float> dk_seq(nkv * max_s * hd), dv_seq(nkv * max_s * hd);
  // rows x hd floats from a head-major block into token-major rows (stride kw).
  auto scatter = [&](const float* src, float* dst, long rows, bool add) { copy_rows(src, hd, dst, kw, rows, hd, add); };
  // The current prefix's gradients head-major: loaded from the token-major rows when the
  // prefix changes, added to by each sequence that continues it (a GRPO group's K in a row),
  // and written back when it changes again. Each element receives the same additions in the
  // same order as when every sequence added into the rows directly, so the same bits, in
  // one block per kv head and sequence instead of lp rows of hd floats.
  struct PrefixSums {
    float *dpk, *dpv;
    long hd, nkv, kw, row = -1, rows = 0;
    std::vector<float> k, v;
    void move(float* rows_at, std::vector<float>& heads, bool in) {
      for (long g = 0; g < nkv; g++) {
        if (in) copy_rows(rows_at + g * hd, kw, heads.data() + g * this->rows * hd, hd, this->rows, hd, false);
        else copy_rows(heads.data() + g * this->rows * hd, hd, rows_at + g * hd, kw, this->rows, hd, false);
      }
    }
    void load(long at, long lp) {
      row = at, rows = lp;
      k.resize(nkv * lp * hd), v.resize(nkv * lp * hd);
      if (dpk) move(dpk + at * kw, k, true);
      if (dpv) move(dpv + at * kw, v, true);
    }
    void flush() {
      if (row < 0) return;
      if (dpk) move(dpk + row * kw, k, false);
      if (dpv) move(dpv + row * kw, v, false);
      row = -1;
    }
  } sums{d_prefix_k, d_prefix_v, hd, nkv, kw, -1, 0, {}, {}};
  SequenceKeys keys;
  long p_at = 0;
  for (long s = 0; s < b.batch; s++) {
    const long lp = b.prefix_len[s], S = lp + T;
    AttentionDims ds = d;
    ds.prefix_len = lp;
    keys.load(d, b, s, k, v, prefix_k, prefix_v);
    attention_backward(K, ds, q + s * T * qw, keys.k.data(), keys.v.data(), probs + p_at, d_out + s * T * qw,
                       dq ? dq + s * T * qw : nullptr, dq_accumulate, dk_seq.data(), dv_seq.data(), threads);
    const long prefix_row = lp > 0 ? b.prefix_index[s] * b.prefix_seq_len : 0;
    if (lp > 0 && (prefix_row != sums.row || lp != sums.rows)) {
      sums.flush();
      sums.load(prefix_row, lp);
    }
    for (long g = 0; g < nkv; g++) {
      const float* dkg = dk_seq.data() + g * S * hd;
      const float* dvg = dv_seq.data() + g * S * hd;
      if (lp > 0 && d_prefix_k) add_block(dkg, sums.k.data() + g * lp * hd, lp * hd);
      if (lp > 0 && d_prefix_v) add_block(dvg, sums.v.data() + g * lp * hd, lp * hd);
      if (dk) scatter(dkg + lp * hd, dk + s * T * kw + g * hd, T, dk_accumulate);
      if (dv) scatter(dvg + lp * hd, dv + s * T * kw + g * hd, T, dv_accumulate);
    }
    p_at += d.heads * attention_score_count(T, lp, d.row_block);
  }
  sums.flush();
}

}  // namespace troupe
