// Node-API surface of the native backend. JavaScript (src/engine/kernels/native-kernels.ts)
// checks shapes and builds the rope tables; this file only unwraps typed arrays (no copies:
// N-API hands out the data pointer), re-checks every length so a wrong call can never read
// or write out of bounds, and calls the kernel table chosen for the CPU.
//
//   binding.isas            kernel tables this CPU can run, fastest first ('avx512', ...)
//   binding.builtIsas       every kernel table compiled in, in the same order
//   binding.bf16            whether the CPU has AVX512_BF16
//   binding.create(isa, threads[, parallelFrom, rowsParallelFrom, streamRowsUpTo]) -> { matmul, ..., adamw }
//   binding.alloc(length[, zero, managed]) / binding.free(array) / binding.liveBytes() / binding.untrackedBytes() / binding.v8ExternalMemory()
//   binding.cachedBytes() / binding.setPageCacheLimit(bytes)   (page-cache.h)
#include <node_api.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "attention.h"
#include "cpu.h"
#include "gemm.h"
#include "page-cache.h"
#include "sample-rows.h"
#include "thread-pool.h"

namespace troupe {
namespace {

struct Instance {
  const IsaKernels* isa;
  GemmSplit split;
};

constexpr size_t kMaxArgs = 16;

// The arguments of one call, with helpers that throw a JavaScript error and return false.
struct Call {
  napi_env env;
  napi_value argv[kMaxArgs];
  size_t argc = kMaxArgs;
  Instance* instance = nullptr;
  const char* op;
  bool ok = true;

  Call(napi_env e, napi_callback_info info, const char* name) : env(e), op(name) {
    void* data = nullptr;
    napi_get_cb_info(env, info, &argc, argv, nullptr, &data);
    instance = static_cast<Instance*>(data);
  }

  void fail(const std::string& message) {
    if (ok) napi_throw_range_error(env, nullptr, (std::string(op) + ": " + message).c_str());
    ok = false;
  }

  void* typed(size_t i, napi_typedarray_type want, size_t* length, const char* name) {
    if (!ok) return nullptr;
    napi_typedarray_type type;
    void* data = nullptr;
    bool is_typed = false;
    if (i >= argc || napi_is_typedarray(env, argv[i], &is_typed) != napi_ok || !is_typed ||
        napi_get_typedarray_info(env, argv[i], &type, length, &data, nullptr, nullptr) != napi_ok || type != want) {
      const char* kind = want == napi_float32_array   ? "Float32Array"
                         : want == napi_float64_array ? "Float64Array"
                         : want == napi_int32_array   ? "Int32Array"
                                                      : "Uint16Array";
      fail(std::string("'") + name + "' must be a " + kind);
      return nullptr;
    }
    return data;
  }

  // A Float32Array argument with at least `need` elements.
  float* f32(size_t i, const char* name, long need) {
    size_t length = 0;
    auto* data = static_cast<float*>(typed(i, napi_float32_array, &length, name));
    if (ok && static_cast<long>(length) < need) {
      fail(std::string("'") + name + "' has " + std::to_string(length) + " elements, needs " + std::to_string(need));
    }
    return data;
  }

  // The length of a Float32Array argument.
  long length(size_t i, const char* name) {
    size_t n = 0;
    typed(i, napi_float32_array, &n, name);
    return static_cast<long>(n);
  }

  double number(size_t i, const char* name) {
    double value = 0;
    if (ok && (i >= argc || napi_get_value_double(env, argv[i], &value) != napi_ok)) {
      fail(std::string("'") + name + "' must be a number");
    }
    return value;
  }

  long dim(size_t i, const char* name) {
    double value = number(i, name);
    if (ok && (value < 0 || value != static_cast<double>(static_cast<long>(value)) || value > 1e15)) {
      fail(std::string("'") + name + "' must be a non-negative integer");
    }
    return static_cast<long>(value);
  }

  napi_value undefined() {
    napi_value u;
    napi_get_undefined(env, &u);
    return u;
  }
};

napi_value Matmul(napi_env env, napi_callback_info info) {
  Call c(env, info, "matmul");
  long m = c.dim(3, "m"), n = c.dim(4, "n"), k = c.dim(5, "k");
  long flags = c.dim(6, "flags");
  GemmArgs g{c.f32(0, "a", m * k), c.f32(1, "b", k * n), nullptr, c.f32(2, "c", m * n), m, n, k,
             (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, false};
  if (c.ok) gemm(*c.instance->isa, g, c.instance->split);
  return c.undefined();
}

// matmulBf16(a, b: Uint16Array of bf16 bits, c, m, n, k, flags): flags as matmul, no trans_a;
// 8 = round a to bf16 first (the 'fast' product).
napi_value MatmulBf16(napi_env env, napi_callback_info info) {
  Call c(env, info, "matmulBf16");
  long m = c.dim(3, "m"), n = c.dim(4, "n"), k = c.dim(5, "k");
  long flags = c.dim(6, "flags");
  size_t b_length = 0;
  auto* b = static_cast<const uint16_t*>(c.typed(1, napi_uint16_array, &b_length, "b"));
  if (c.ok && static_cast<long>(b_length) < k * n) c.fail("'b' is shorter than k * n");
  if (c.ok && (flags & 1) != 0) c.fail("a bf16 product has no transposed a");
  GemmArgs g{c.f32(0, "a", m * k), nullptr, b, c.f32(2, "c", m * n), m, n, k, false, (flags & 2) != 0, (flags & 4) != 0,
             (flags & 8) != 0};
  if (c.ok) gemm(*c.instance->isa, g, c.instance->split);
  return c.undefined();
}

// add / mul / swiglu: (a, b, out) element-wise, n = out.length.
using BinaryKernel = void (*IsaKernels::*)(const float*, const float*, float*, long);
template <BinaryKernel Kernel>
napi_value Binary(napi_env env, napi_callback_info info) {
  Call c(env, info, Kernel == &IsaKernels::add ? "add" : Kernel == &IsaKernels::mul ? "mul" : "swiglu");
  long n = c.length(2, "out");
  const float* a = c.f32(0, "a", n);
  const float* b = c.f32(1, "b", n);
  float* out = c.f32(2, "out", n);
  if (c.ok) (c.instance->isa->*Kernel)(a, b, out, n);
  return c.undefined();
}

napi_value Axpy(napi_env env, napi_callback_info info) {
  Call c(env, info, "axpy");
  float alpha = static_cast<float>(c.number(0, "alpha"));
  long n = c.length(2, "y");
  const float* x = c.f32(1, "x", n);
  float* y = c.f32(2, "y", n);
  if (c.ok) c.instance->isa->axpy(alpha, x, y, n);
  return c.undefined();
}

napi_value SumSquares(napi_env env, napi_callback_info info) {
  Call c(env, info, "sumSquares");
  long n = c.length(0, "x");
  const float* x = c.f32(0, "x", n);
  double sum = c.ok ? c.instance->isa->sum_squares(x, n) : 0;
  napi_value result;
  napi_create_double(env, sum, &result);
  return result;
}

napi_value RmsNorm(napi_env env, napi_callback_info info) {
  Call c(env, info, "rmsNorm");
  long rows = c.dim(4, "rows"), d = c.dim(5, "d");
  float eps = static_cast<float>(c.number(6, "eps"));
  const float* x = c.f32(0, "x", rows * d);
  const float* w = c.f32(1, "weight", d);
  float* out = c.f32(2, "out", rows * d);
  float* inv = c.f32(3, "invRms", rows);
  if (c.ok) c.instance->isa->rms_norm(x, w, out, inv, rows, d, eps);
  return c.undefined();
}

napi_value RmsNormBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "rmsNormBackward");
  long rows = c.dim(6, "rows"), d = c.dim(7, "d");
  const float* x = c.f32(0, "x", rows * d);
  const float* w = c.f32(1, "weight", d);
  const float* inv = c.f32(2, "invRms", rows);
  const float* d_out = c.f32(3, "dOut", rows * d);
  float* dx = c.f32(4, "dx", rows * d);
  float* d_w = c.f32(5, "dWeight", d);
  if (c.ok) c.instance->isa->rms_norm_backward(x, w, inv, d_out, dx, d_w, rows, d);
  return c.undefined();
}

napi_value CausalSoftmax(napi_env env, napi_callback_info info) {
  Call c(env, info, "causalSoftmax");
  long rows = c.dim(1, "rows"), cols = c.dim(2, "cols");
  double offset = c.number(3, "offset");
  float scale = static_cast<float>(c.number(4, "scale"));
  float* s = c.f32(0, "scores", rows * cols);
  // Clamped so r + offset + 1 stays a small integer; beyond the range the mask is all or nothing.
  if (offset < -rows - 1.0) offset = -rows - 1.0;
  if (offset > cols) offset = static_cast<double>(cols);
  if (c.ok) c.instance->isa->causal_softmax(s, rows, cols, static_cast<long>(offset), scale);
  return c.undefined();
}

napi_value CausalSoftmaxBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "causalSoftmaxBackward");
  long rows = c.dim(2, "rows"), cols = c.dim(3, "cols");
  float scale = static_cast<float>(c.number(4, "scale"));
  const float* p = c.f32(0, "p", rows * cols);
  float* dp = c.f32(1, "dP", rows * cols);
  if (c.ok) c.instance->isa->causal_softmax_backward(p, dp, rows, cols, scale);
  return c.undefined();
}

napi_value SwigluBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "swigluBackward");
  long n = c.length(0, "gate");
  const float* gate = c.f32(0, "gate", n);
  const float* up = c.f32(1, "up", n);
  const float* d_out = c.f32(2, "dOut", n);
  float* d_gate = c.f32(3, "dGate", n);
  float* d_up = c.f32(4, "dUp", n);
  if (c.ok) c.instance->isa->swiglu_backward(gate, up, d_out, d_gate, d_up, n);
  return c.undefined();
}

// rope(x, positions, cos, sin, tokens, heads, headDim, sign); cos/sin are [position][headDim/2].
napi_value Rope(napi_env env, napi_callback_info info) {
  Call c(env, info, "rope");
  long tokens = c.dim(4, "tokens"), heads = c.dim(5, "heads"), head_dim = c.dim(6, "headDim");
  float sign = static_cast<float>(c.number(7, "sign"));
  float* x = c.f32(0, "x", tokens * heads * head_dim);
  size_t npos = 0;
  auto* positions = static_cast<const int32_t*>(c.typed(1, napi_int32_array, &npos, "positions"));
  long table = c.length(2, "cos");
  const float* cos_t = c.f32(2, "cos", table);
  const float* sin_t = c.f32(3, "sin", table);
  long half = head_dim / 2;
  if (c.ok && static_cast<long>(npos) < tokens) c.fail("'positions' is shorter than tokens");
  for (long t = 0; c.ok && half > 0 && t < tokens; t++) {
    if (positions[t] < 0 || (positions[t] + 1) * half > table) c.fail("a position lies outside the cos/sin table");
  }
  if (c.ok && half > 0) c.instance->isa->rope(x, positions, cos_t, sin_t, tokens, heads, head_dim, sign);
  return c.undefined();
}

// The log-softmax of a training row's logits (255 x 151936: 155 MB) is a pass bound by memory
// bandwidth: rows are independent, so they are cut into chunks for the thread pool (the same
// result whoever runs a row).
struct VocabRows {
  const IsaKernels* isa;
  float* x;
  long rows, vocab, chunk;
  const int32_t* targets;  // null: log-softmax; else the gather backward with g
  const float* g;
  float* entropy;  // with the log-softmax: each row's entropy too, when not null
};

void RunVocabRows(void* ctx, int chunk) {
  const VocabRows& v = *static_cast<VocabRows*>(ctx);
  const long r0 = chunk * v.chunk, r1 = r0 + v.chunk < v.rows ? r0 + v.chunk : v.rows;
  float* x = v.x + r0 * v.vocab;
  if (v.targets) v.isa->log_softmax_gather_backward(x, r1 - r0, v.vocab, v.targets + r0, v.g + r0);
  else v.isa->log_softmax(x, r1 - r0, v.vocab);
  if (!v.targets && v.entropy) v.isa->row_entropy(x, r1 - r0, v.vocab, v.entropy + r0);
}

void ForVocabRows(const Instance& instance, VocabRows v) {
  const int threads = instance.split.threads;
  // From the matmuls' split threshold on (in elements here; the tests set it to 0).
  const bool split = threads > 1 && v.rows > 1 && v.rows * v.vocab >= instance.split.parallel_from;
  v.chunk = split ? (v.rows + 2 * threads - 1) / (2 * threads) : v.rows;
  parallel_run(threads, static_cast<int>((v.rows + v.chunk - 1) / v.chunk), RunVocabRows, &v);
}

// logSoftmax(logits, rows, vocab, entropy): an empty entropy means none is wanted.
napi_value LogSoftmax(napi_env env, napi_callback_info info) {
  Call c(env, info, "logSoftmax");
  long rows = c.dim(1, "rows"), vocab = c.dim(2, "vocab");
  float* x = c.f32(0, "logits", rows * vocab);
  float* entropy = c.length(3, "entropy") == 0 ? nullptr : c.f32(3, "entropy", rows);
  if (c.ok && vocab > 0 && rows > 0) ForVocabRows(*c.instance, VocabRows{c.instance->isa, x, rows, vocab, 0, nullptr, nullptr, entropy});
  return c.undefined();
}

// logSoftmaxGatherBackward(logp, rows, vocab, targets: Int32Array, g): every target is
// checked, so a wrong one cannot write outside its row.
napi_value LogSoftmaxGatherBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "logSoftmaxGatherBackward");
  long rows = c.dim(1, "rows"), vocab = c.dim(2, "vocab");
  float* x = c.f32(0, "logp", rows * vocab);
  size_t ntargets = 0;
  auto* targets = static_cast<const int32_t*>(c.typed(3, napi_int32_array, &ntargets, "targets"));
  const float* g = c.f32(4, "g", rows);
  if (c.ok && static_cast<long>(ntargets) < rows) c.fail("'targets' is shorter than rows");
  for (long r = 0; c.ok && r < rows; r++) {
    if (targets[r] < 0 || targets[r] >= vocab) c.fail("a target lies outside the vocabulary");
  }
  if (c.ok && rows > 0) ForVocabRows(*c.instance, VocabRows{c.instance->isa, x, rows, vocab, 0, targets, g, nullptr});
  return c.undefined();
}

// The head split both attention entry points need; false (after throwing) when it is wrong.
bool CheckHeadSplit(Call& c, long heads, long kv_heads, long row_block) {
  if (c.ok && (kv_heads == 0 || heads % kv_heads != 0)) c.fail("heads must be a multiple of kvHeads (> 0)");
  if (c.ok && row_block < 1) c.fail("rowBlock must be at least 1");
  return c.ok;
}

// An Int32Array 'dims' argument of at least n entries, none negative; null (after throwing)
// otherwise. `layout` names the entries for the error.
const int32_t* DimsAt(Call& c, size_t i, long n, const char* layout) {
  size_t count = 0;
  auto* v = static_cast<const int32_t*>(c.typed(i, napi_int32_array, &count, "dims"));
  if (!c.ok) return nullptr;
  if (static_cast<long>(count) < n) {
    c.fail(std::string("'dims' must hold ") + layout);
    return nullptr;
  }
  for (long k = 0; k < n; k++) {
    if (v[k] < 0) c.fail("every entry of 'dims' must be non-negative");
  }
  return c.ok ? v : nullptr;
}

// The dims of attentionForward / attentionBackward: an Int32Array [T, lp, heads, kvHeads,
// headDim, rowBlock] and the scale; false (after throwing) when they do not fit together.
bool AttentionDimsAt(Call& c, size_t i, size_t scale_at, AttentionDims* d) {
  const float scale = static_cast<float>(c.number(scale_at, "scale"));
  const int32_t* v = DimsAt(c, i, 6, "[seqLen, prefixLen, heads, kvHeads, headDim, rowBlock]");
  if (!v) return false;
  *d = AttentionDims{v[0], v[1], v[2], v[3], v[4], v[5], scale};
  return CheckHeadSplit(c, d->heads, d->kv_heads, d->row_block);
}

// The first four arguments of both attention calls (q, kh, vh, probs), checked against dims;
// rows and keys are the lengths of q-shaped and kh-shaped arrays.
struct AttentionOperands {
  const float *q, *kh, *vh;
  float* probs;
  long rows, keys;
};

AttentionOperands AttentionOperandsOf(Call& c, const AttentionDims& d) {
  AttentionOperands o{};
  o.rows = d.seq_len * d.heads * d.head_dim;
  o.keys = d.kv_heads * (d.prefix_len + d.seq_len) * d.head_dim;
  o.q = c.f32(0, "q", o.rows);
  o.kh = c.f32(1, "kh", o.keys);
  o.vh = c.f32(2, "vh", o.keys);
  o.probs = c.f32(3, "probs", d.heads * attention_score_count(d.seq_len, d.prefix_len, d.row_block));
  return o;
}

// attentionForward(q, kh, vh, probs, out, dims, scale): attention.h.
napi_value AttentionForward(napi_env env, napi_callback_info info) {
  Call c(env, info, "attentionForward");
  AttentionDims d{};
  if (!AttentionDimsAt(c, 5, 6, &d)) return nullptr;
  AttentionOperands o = AttentionOperandsOf(c, d);
  float* out = c.f32(4, "out", o.rows);
  if (c.ok) attention_forward(*c.instance->isa, d, o.q, o.kh, o.vh, o.probs, out, c.instance->split.threads);
  return c.undefined();
}

// attentionBackward(q, kh, vh, probs, dOut, dq, dk, dv, dims, scale, dqAccumulate): an empty dq
// means no gradient for q.
napi_value AttentionBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "attentionBackward");
  AttentionDims d{};
  if (!AttentionDimsAt(c, 8, 9, &d)) return nullptr;
  AttentionOperands o = AttentionOperandsOf(c, d);
  const float* d_out = c.f32(4, "dOut", o.rows);
  float* dq = c.length(5, "dq") == 0 ? nullptr : c.f32(5, "dq", o.rows);
  float* dk = c.f32(6, "dk", o.keys);
  float* dv = c.f32(7, "dv", o.keys);
  bool dq_accumulate = c.number(10, "dqAccumulate") != 0;
  if (c.ok) {
    attention_backward(*c.instance->isa, d, o.q, o.kh, o.vh, o.probs, d_out, dq, dq_accumulate, dk, dv,
                       c.instance->split.threads);
  }
  return c.undefined();
}

// The Float32Array at index i of the JavaScript array at argument `at`, with at least `need`
// elements; null (after throwing) otherwise.
float* F32Element(Call& c, size_t at, uint32_t i, long need, const char* name) {
  napi_value element;
  if (!c.ok) return nullptr;
  if (napi_get_element(c.env, c.argv[at], i, &element) != napi_ok) {
    c.fail(std::string("'") + name + "' must be an array of Float32Array");
    return nullptr;
  }
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  bool is_typed = false;
  if (napi_is_typedarray(c.env, element, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(c.env, element, &type, &length, &data, nullptr, nullptr) != napi_ok || type != napi_float32_array) {
    c.fail(std::string("'") + name + "' must be an array of Float32Array");
    return nullptr;
  }
  if (static_cast<long>(length) < need) c.fail(std::string("an array of '") + name + "' is shorter than its cache");
  return c.ok ? static_cast<float*>(data) : nullptr;
}

// cacheAttention(q, out, kCaches, vCaches, meta, dims, scale): the new rows of each segment
// attending over its own KV cache, every head as llama-inference.ts's loop does it with three
// calls (scores = q K^T, causalSoftmax at offset keys - rows, out = P V) of the same gemm and
// softmax on the same operands (a segment's rows of one head gathered into a contiguous block
// when there are several, as that loop does), so the same bits, in one call instead of three per
// head and segment: the calls' overhead was most of a small model's attention in sampling.
// kCaches / vCaches: per segment a head-major [kvHeads][capacity][headDim] array; meta: [first
// row, rows, keys, capacity] per segment (keys: positions visible to its last row); dims
// [segments, heads, kvHeads, headDim].
napi_value CacheAttention(napi_env env, napi_callback_info info) {
  Call c(env, info, "cacheAttention");
  const int32_t* d = DimsAt(c, 5, 4, "[segments, heads, kvHeads, headDim]");
  if (!d) return nullptr;
  const long segments = d[0], heads = d[1], kv_heads = d[2], hd = d[3];
  CheckHeadSplit(c, heads, kv_heads, 1);
  size_t meta_count = 0;
  auto* meta = static_cast<const int32_t*>(c.typed(4, napi_int32_array, &meta_count, "meta"));
  if (c.ok && static_cast<long>(meta_count) < 4 * segments) c.fail("'meta' must hold [first row, rows, keys, capacity] per segment");
  const float scale = static_cast<float>(c.number(6, "scale"));
  if (!c.ok) return nullptr;
  long total_rows = 0, most_scores = 0, most_rows = 0;
  for (long s = 0; c.ok && s < segments; s++) {
    const long row = meta[4 * s], rows = meta[4 * s + 1], keys = meta[4 * s + 2], capacity = meta[4 * s + 3];
    if (row < 0 || rows < 1 || keys < rows || keys > capacity) c.fail("a segment's rows must be >= 1 and within 1..keys, its keys within capacity");
    total_rows = row + rows > total_rows ? row + rows : total_rows;
    most_scores = rows * keys > most_scores ? rows * keys : most_scores;
    most_rows = rows > most_rows ? rows : most_rows;
  }
  const long qw = heads * hd, rep = heads / kv_heads;
  const float* q = c.f32(0, "q", total_rows * qw);
  float* out = c.f32(1, "out", total_rows * qw);
  if (!c.ok) return nullptr;
  std::vector<float> scores(static_cast<size_t>(most_scores)), qh(static_cast<size_t>(most_rows * hd)), oh(static_cast<size_t>(most_rows * hd));
  const IsaKernels& isa = *c.instance->isa;
  for (long s = 0; c.ok && s < segments; s++) {
    const long row = meta[4 * s], rows = meta[4 * s + 1], keys = meta[4 * s + 2], capacity = meta[4 * s + 3];
    const float* k = F32Element(c, 2, static_cast<uint32_t>(s), kv_heads * capacity * hd, "kCaches");
    const float* v = F32Element(c, 3, static_cast<uint32_t>(s), kv_heads * capacity * hd, "vCaches");
    for (long h = 0; c.ok && h < heads; h++) {
      const long head_start = (h / rep) * capacity * hd;
      if (rows == 1) {
        const long at = row * qw + h * hd;
        gemm(isa, GemmArgs{q + at, k + head_start, nullptr, scores.data(), 1, keys, hd, false, true, false, false}, c.instance->split);
        isa.causal_softmax(scores.data(), 1, keys, keys - 1, scale);
        gemm(isa, GemmArgs{scores.data(), v + head_start, nullptr, out + at, 1, hd, keys, false, false, false, false}, c.instance->split);
        continue;
      }
      for (long t = 0; t < rows; t++) std::memcpy(qh.data() + t * hd, q + (row + t) * qw + h * hd, sizeof(float) * hd);
      gemm(isa, GemmArgs{qh.data(), k + head_start, nullptr, scores.data(), rows, keys, hd, false, true, false, false}, c.instance->split);
      isa.causal_softmax(scores.data(), rows, keys, keys - rows, scale);
      gemm(isa, GemmArgs{scores.data(), v + head_start, nullptr, oh.data(), rows, hd, keys, false, false, false, false}, c.instance->split);
      for (long t = 0; t < rows; t++) std::memcpy(out + (row + t) * qw + h * hd, oh.data() + t * hd, sizeof(float) * hd);
    }
  }
  return c.undefined();
}

// The batch of attentionBatchForward / attentionBatchBackward: dims [batch, seqLen, heads,
// kvHeads, headDim, rowBlock, prefixSeqLen, prefixCount], meta [prefixLen x batch, prefixIndex x
// batch]; every prefix row a sequence reads is checked to lie in the prefix arrays. Sets the
// length probs must have; false (after throwing) when something does not fit.
struct BatchShape {
  AttentionDims d;
  AttentionBatch b;
  long prefix_count, scores;
};

bool AttentionBatchAt(Call& c, size_t meta_at, size_t dims_at, size_t scale_at, BatchShape* out) {
  size_t meta_count = 0;
  auto* meta = static_cast<const int32_t*>(c.typed(meta_at, napi_int32_array, &meta_count, "meta"));
  const float scale = static_cast<float>(c.number(scale_at, "scale"));
  const int32_t* v = DimsAt(c, dims_at, 8, "[batch, seqLen, heads, kvHeads, headDim, rowBlock, prefixSeqLen, prefixCount]");
  if (!v) return false;
  CheckHeadSplit(c, v[2], v[3], v[5]);
  if (c.ok && static_cast<long>(meta_count) < 2L * v[0]) c.fail("'meta' must hold a prefix length and index per sequence");
  if (!c.ok) return false;
  out->d = AttentionDims{v[1], 0, v[2], v[3], v[4], v[5], scale};
  out->b = AttentionBatch{v[0], v[6], meta, meta + v[0]};
  out->prefix_count = v[7];
  out->scores = 0;
  for (long s = 0; c.ok && s < v[0]; s++) {
    const long lp = meta[s], index = meta[v[0] + s];
    if (lp < 0 || lp > v[6]) c.fail("a prefix length is negative or longer than prefixSeqLen");
    if (lp > 0 && (index < 0 || index >= v[7])) c.fail("a prefix index lies outside the prefix sequences");
    out->scores += v[2] * attention_score_count(v[1], lp, v[5]);
  }
  return c.ok;
}

// The token-major inputs both attention batch calls read: q, k, v, prefixK, prefixV at
// arguments 0-4, checked against the shape.
struct BatchInputs {
  const float *q, *k, *v, *pk, *pv;
};

BatchInputs BatchInputsAt(Call& c, const BatchShape& s) {
  const long rows = s.b.batch * s.d.seq_len, qw = s.d.heads * s.d.head_dim, kw = s.d.kv_heads * s.d.head_dim;
  const long prefix = s.prefix_count * s.b.prefix_seq_len * kw;
  return BatchInputs{c.f32(0, "q", rows * qw), c.f32(1, "k", rows * kw), c.f32(2, "v", rows * kw),
                     c.f32(3, "prefixK", prefix), c.f32(4, "prefixV", prefix)};
}

// attentionBatchForward(q, k, v, prefixK, prefixV, probs, out, meta, dims, scale): attention.h.
napi_value AttentionBatchForward(napi_env env, napi_callback_info info) {
  Call c(env, info, "attentionBatchForward");
  BatchShape s{};
  if (!AttentionBatchAt(c, 7, 8, 9, &s)) return nullptr;
  const BatchInputs in = BatchInputsAt(c, s);
  float* probs = c.f32(5, "probs", s.scores);
  float* out = c.f32(6, "out", s.b.batch * s.d.seq_len * s.d.heads * s.d.head_dim);
  if (c.ok) attention_batch_forward(*c.instance->isa, s.d, s.b, in.q, in.k, in.v, in.pk, in.pv, probs, out, c.instance->split.threads);
  return c.undefined();
}

// attentionBatchBackward(q, k, v, prefixK, prefixV, probs, dOut, dq, dk, dv, dPrefixK, dPrefixV,
// meta, dims, scale, flags): an empty gradient array means none is wanted; flags 1, 2, 4 = dq,
// dk, dv add to what they hold instead of being overwritten (the prefix gradients always add).
napi_value AttentionBatchBackward(napi_env env, napi_callback_info info) {
  Call c(env, info, "attentionBatchBackward");
  BatchShape s{};
  if (!AttentionBatchAt(c, 12, 13, 14, &s)) return nullptr;
  const long rows = s.b.batch * s.d.seq_len, qw = s.d.heads * s.d.head_dim, kw = s.d.kv_heads * s.d.head_dim;
  const long prefix = s.prefix_count * s.b.prefix_seq_len * kw;
  const long flags = c.dim(15, "flags");
  const BatchInputs in = BatchInputsAt(c, s);
  const float* probs = c.f32(5, "probs", s.scores);
  const float* d_out = c.f32(6, "dOut", rows * qw);
  auto optional = [&](size_t i, const char* name, long need) { return c.length(i, name) == 0 ? nullptr : c.f32(i, name, need); };
  float* dq = optional(7, "dq", rows * qw);
  float* dk = optional(8, "dk", rows * kw);
  float* dv = optional(9, "dv", rows * kw);
  float* dpk = optional(10, "dPrefixK", prefix);
  float* dpv = optional(11, "dPrefixV", prefix);
  if (c.ok) {
    attention_batch_backward(*c.instance->isa, s.d, s.b, in.q, in.k, in.v, in.pk, in.pv, probs, d_out, dq, (flags & 1) != 0,
                             dk, (flags & 2) != 0, dv, (flags & 4) != 0, dpk, dpv, c.instance->split.threads);
  }
  return c.undefined();
}

// adamw(param, grad, m, v, lr, beta1, beta2, eps, decayFactor, c1, c2): c1, c2 are the
// reciprocal bias corrections, decayFactor = 1 - lr * weightDecay.
napi_value Adamw(napi_env env, napi_callback_info info) {
  Call c(env, info, "adamw");
  long n = c.length(0, "param");
  float* p = c.f32(0, "param", n);
  const float* g = c.f32(1, "grad", n);
  float* m = c.f32(2, "m", n);
  float* v = c.f32(3, "v", n);
  float o[7];
  const char* names[7] = {"lr", "beta1", "beta2", "eps", "decay", "c1", "c2"};
  for (int i = 0; i < 7; i++) o[i] = static_cast<float>(c.number(4 + i, names[i]));
  if (c.ok) c.instance->isa->adamw(p, g, m, v, n, o[0], o[1], o[2], o[3], o[4], o[5], o[6]);
  return c.undefined();
}

// One block handed out by alloc. free() gives the memory back at once; the garbage collector's
// finalizer gives back only blocks free() never saw. Detaching a buffer does not run its
// finalizer (that waits for a GC), so without this release-on-free the temporaries of a
// training step piled up until the next collection: 18 GB of RSS in one LoRA step of a
// 0.6B model, where the live memory was about 2 GB.
struct Block {
  void* data;    // 64-byte aligned, what the ArrayBuffer shows
  void* origin;  // what malloc returned (small blocks); equal to data for mapped ones
  size_t bytes;         // what liveBytes counts
  size_t mapped_bytes;  // the mapping's size (page-cache.h; may be larger), 0 when from malloc
  bool mapped;
  bool released;
  bool untracked;  // alloc's `managed`: left out of V8's external-memory pressure
};

// Blocks from 64 KB up get pages of their own (mmap, through the size-capped cache of
// page-cache.h), so nothing of them stays in glibc's heap. Measured on the 0.6B LoRA benchmark
// (one 256-token row per tape, about 1,900 blocks a row, a third of them 128 KB - 1 MB):
// - blocks of a few MB from malloc stayed in the heap, fragmented: 10 GB peak RSS;
// - mapping only blocks of 1 MB and up left the 128 KB - 1 MB ones (attention scores, per-head
//   slices) to malloc, and glibc's dynamic mmap threshold moves up to the largest block freed,
//   so after the first few they all came from the heap, which grew by ~220 MB a row while the
//   live bytes returned to the same level: 6.9 GB peak RSS in the benchmark's 16 rows.
// Below 64 KB glibc never maps (its threshold starts at 128 KB and only rises), so the small
// blocks always come from the heap, where same-sized holes are reused.
constexpr size_t kMapFrom = size_t{1} << 16;
constexpr size_t kAlign = 64;

// Live blocks by base address, and their bytes. N-API calls and finalizers run on a
// JavaScript thread, but a process may have several (a worker_thread that samples beside the
// learner loads the addon too), so the table is locked; each block is only ever freed by the
// thread that allocated it.
std::unordered_map<void*, Block*>& LiveBlocks() {
  static std::unordered_map<void*, Block*> live;
  return live;
}

std::mutex g_blocks_lock;
size_t g_live_bytes = 0;

// `bytes` (a multiple of kAlign) of zeroed memory aligned to kAlign, or false. Small blocks are
// over-allocated by plain malloc and aligned by hand: aligned_alloc splits off a leading and a
// trailing piece of every block it returns, and those pieces fragmented the heap so that it grew
// by ~3 MB every training row (a 30-round replay of one row's alloc/free sequence: +80 MB with
// aligned_alloc, +12 MB with malloc).
bool AcquireBlock(Block* block, size_t bytes, bool zero) {
  block->bytes = bytes;
  block->mapped = bytes >= kMapFrom;
  block->released = false;
  block->mapped_bytes = 0;
  if (block->mapped) {
    block->origin = block->data = take_pages(bytes, zero, &block->mapped_bytes);
    return block->data != nullptr;
  }
  block->origin = malloc(bytes + kAlign - 1);
  if (!block->origin) return false;
  uintptr_t at = (reinterpret_cast<uintptr_t>(block->origin) + kAlign - 1) / kAlign * kAlign;
  block->data = reinterpret_cast<void*>(at);
  if (zero) memset(block->data, 0, bytes);
  return true;
}

// Managed blocks (alloc's third argument): arrays whose owner always frees them (a buffer pool).
// V8 counts every ArrayBuffer's bytes as external memory and starts a full collection each time
// that count grows by about 64 MB since the last one; the first micro-batch of a 0.6B model's
// update takes ~1 GB of activations, which cost 11 full collections of the ~85 MB heap (4.8 s
// of a 78 s micro-batch, measured with --trace-gc) to reclaim nothing. A managed block's bytes
// are taken back out of that count (napi_adjust_external_memory) while it lives, up to
// kUntrackedCap in all, so a bug that drops pooled arrays without freeing them can hide at most
// that much garbage from the collector; blocks beyond the cap are counted as usual.
constexpr int64_t kUntrackedCap = int64_t{2} << 30;
int64_t g_untracked_bytes = 0;  // under g_blocks_lock
// The offsets of managed blocks the collector finalized, by the environment (isolate) that
// allocated them, to give back to its V8 on its next alloc or free (a finalizer does not call
// into the engine; a worker thread that loads the addon has an isolate of its own).
std::unordered_map<napi_env, int64_t>& UntrackedToRestore() {  // under g_blocks_lock
  static std::unordered_map<napi_env, int64_t> pending;
  return pending;
}

void RestoreUntracked(napi_env env) {
  int64_t restore = 0;
  {
    std::lock_guard<std::mutex> hold(g_blocks_lock);
    auto found = UntrackedToRestore().find(env);
    if (found != UntrackedToRestore().end()) {
      restore = found->second;
      UntrackedToRestore().erase(found);
    }
  }
  int64_t total;
  if (restore != 0) napi_adjust_external_memory(env, restore, &total);
}

void ReturnBlock(Block* block) {
  if (block->mapped) give_pages(block->data, block->mapped_bytes);
  else free(block->origin);
}

// Gives a block back; `finalizing`: from the collector's finalizer, where a managed block's
// offset is returned to V8 later (RestoreUntracked) instead of now.
void Release(napi_env env, Block* block, bool finalizing) {
  {
    std::lock_guard<std::mutex> hold(g_blocks_lock);
    g_live_bytes -= block->bytes;
    LiveBlocks().erase(block->data);
    block->released = true;
    if (block->untracked) {
      g_untracked_bytes -= static_cast<int64_t>(block->bytes);
      if (finalizing) UntrackedToRestore()[env] += static_cast<int64_t>(block->bytes);
    }
  }
  int64_t total;
  if (block->untracked && !finalizing) napi_adjust_external_memory(env, static_cast<int64_t>(block->bytes), &total);
  ReturnBlock(block);
}

void FinalizeBlock(napi_env env, void* data, void* hint) {
  (void)data;
  Block* block = static_cast<Block*>(hint);
  if (!block->released) Release(env, block, true);
  delete block;
}

// alloc(length[, zero = true[, managed = false]]): 64-byte aligned memory outside the JavaScript
// heap, zeroed (with zero false: whatever it held); given back by free(), or when the array is
// garbage-collected if free() is never called. `managed`: see kUntrackedCap. V8 counts the bytes of every ArrayBuffer, external ones too, as
// external memory, so a program that drops arrays without free() still gets a collection
// before they pile up. (The addon used to report them once more with
// napi_adjust_external_memory: twice the pressure, twice the collections of a training row.)
napi_value Alloc(napi_env env, napi_callback_info info) {
  Call c(env, info, "alloc");
  long length = c.dim(0, "length");
  bool zero = true;
  bool managed = false;
  if (c.argc > 1 && napi_get_value_bool(env, c.argv[1], &zero) != napi_ok) c.fail("'zero' must be a boolean");
  if (c.argc > 2 && napi_get_value_bool(env, c.argv[2], &managed) != napi_ok) c.fail("'managed' must be a boolean");
  if (!c.ok) return nullptr;
  RestoreUntracked(env);
  size_t bytes = static_cast<size_t>(length) * sizeof(float);
  size_t rounded = bytes == 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
  Block* block = new Block{};
  if (!AcquireBlock(block, rounded, zero)) {
    delete block;
    napi_throw_error(env, nullptr, ("alloc: out of memory for " + std::to_string(length) + " floats").c_str());
    return nullptr;
  }
  napi_value buffer, array;
  // The buffer spans the whole rounded block, never 0 bytes: free() finds a block by the
  // buffer's data pointer, which an empty buffer does not have (alloc(0) then leaked).
  if (napi_create_external_arraybuffer(env, block->data, rounded, FinalizeBlock, block, &buffer) != napi_ok) {
    ReturnBlock(block);
    delete block;
    napi_throw_error(env, nullptr, "alloc: could not wrap native memory in an ArrayBuffer");
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> hold(g_blocks_lock);
    LiveBlocks()[block->data] = block;
    g_live_bytes += rounded;
    block->untracked = managed && g_untracked_bytes + static_cast<int64_t>(rounded) <= kUntrackedCap;
    if (block->untracked) g_untracked_bytes += static_cast<int64_t>(rounded);
  }
  int64_t total;
  if (block->untracked) napi_adjust_external_memory(env, -static_cast<int64_t>(rounded), &total);
  napi_create_typedarray(env, napi_float32_array, static_cast<size_t>(length), buffer, 0, &array);
  return array;
}

// free(array): gives the block back now and detaches the buffer, so no view of it can read
// or write the memory again. Arrays not from alloc are left alone (the GC owns them).
napi_value Free(napi_env env, napi_callback_info info) {
  Call c(env, info, "free");
  napi_value buffer;
  void* base = nullptr;
  size_t length = 0;
  bool detached = true;
  if (c.argc < 1 || napi_get_typedarray_info(env, c.argv[0], nullptr, nullptr, nullptr, &buffer, nullptr) != napi_ok ||
      napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok || detached ||
      napi_get_arraybuffer_info(env, buffer, &base, &length) != napi_ok) {
    return c.undefined();
  }
  // Detach first: should the runtime finalize the buffer right there, the block is still
  // unreleased and the finalizer gives it back; otherwise Release below does.
  napi_detach_arraybuffer(env, buffer);
  Block* block = nullptr;
  {
    std::lock_guard<std::mutex> hold(g_blocks_lock);
    auto found = LiveBlocks().find(base);
    if (found != LiveBlocks().end() && !found->second->released) block = found->second;
  }
  if (block) Release(env, block, false);
  RestoreUntracked(env);
  return c.undefined();
}

// A count under g_blocks_lock, as a JavaScript number.
template <typename T>
napi_value LockedCount(napi_env env, const T& count) {
  double value;
  {
    std::lock_guard<std::mutex> hold(g_blocks_lock);
    value = static_cast<double>(count);
  }
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

// liveBytes(): bytes of the blocks alloc handed out and nobody has given back yet.
napi_value LiveBytes(napi_env env, napi_callback_info info) {
  (void)info;
  return LockedCount(env, g_live_bytes);
}

// untrackedBytes(): bytes of live managed blocks left out of V8's external-memory count.
napi_value UntrackedBytes(napi_env env, napi_callback_info info) {
  (void)info;
  return LockedCount(env, g_untracked_bytes);
}

// v8ExternalMemory(): V8's count of external memory, the one that schedules collections
// (what napi_adjust_external_memory moves; ArrayBuffers add their bytes to it too).
napi_value V8ExternalMemory(napi_env env, napi_callback_info info) {
  (void)info;
  int64_t total = 0;
  napi_adjust_external_memory(env, 0, &total);
  napi_value result;
  napi_create_double(env, static_cast<double>(total), &result);
  return result;
}

// cachedBytes(): bytes of freed large blocks kept for reuse (page-cache.h).
napi_value CachedBytes(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_create_double(env, static_cast<double>(cached_page_bytes()), &result);
  return result;
}

// setPageCacheLimit(bytes): how much the cache of freed large blocks may hold (0: none);
// returns the previous limit.
napi_value SetPageCacheLimit(napi_env env, napi_callback_info info) {
  Call c(env, info, "setPageCacheLimit");
  long bytes = c.dim(0, "bytes");
  if (!c.ok) return nullptr;
  napi_value result;
  napi_create_double(env, static_cast<double>(set_page_cache_limit(static_cast<size_t>(bytes))), &result);
  return result;
}

// sampleRows(logits, rows, vocab, temperature: Float64Array, uniform: Float64Array, out:
// Float64Array): one token from each row (sample-rows.h), out[4r..4r+3] = pick, its weight,
// the weights' sum, the row's max (pick -1: a row the caller samples itself).
napi_value SampleRows(napi_env env, napi_callback_info info) {
  Call c(env, info, "sampleRows");
  long rows = c.dim(1, "rows"), vocab = c.dim(2, "vocab");
  const float* logits = c.f32(0, "logits", rows * vocab);
  size_t nt = 0, nu = 0, no = 0;
  auto* temperature = static_cast<const double*>(c.typed(3, napi_float64_array, &nt, "temperature"));
  auto* uniform = static_cast<const double*>(c.typed(4, napi_float64_array, &nu, "uniform"));
  auto* out = static_cast<double*>(c.typed(5, napi_float64_array, &no, "out"));
  if (c.ok && (static_cast<long>(nt) < rows || static_cast<long>(nu) < rows || static_cast<long>(no) < 4 * rows)) {
    c.fail("'temperature' and 'uniform' need one element a row, 'out' four");
  }
  for (long r = 0; c.ok && r < rows; r++) {
    if (!(temperature[r] > 0) || temperature[r] == HUGE_VAL) c.fail("every temperature must be a finite number > 0");
    if (!(uniform[r] >= 0 && uniform[r] < 1)) c.fail("every uniform draw must be in [0, 1)");
  }
  const bool vector = std::strcmp(c.instance->isa->name, "baseline") != 0;  // every other table has AVX2
  // Split from the matmuls' threshold on, as the log-softmax: a tiny model's rows are not worth waking a helper.
  const int threads = rows * vocab >= c.instance->split.parallel_from ? c.instance->split.threads : 1;
  if (c.ok && rows > 0 && vocab > 0) sample_rows(logits, rows, vocab, temperature, uniform, out, threads, vector);
  return c.undefined();
}

void AddFunction(napi_env env, napi_value object, const char* name, napi_callback cb, void* data) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, data, &fn);
  napi_set_named_property(env, object, name, fn);
}

// setThreads(n): the threads this kernels object's later calls may use (results never depend
// on it, docs/performance.md). An asynchronous run lends half of them to
// the sampling thread while an update runs and takes them back after.
napi_value SetThreads(napi_env env, napi_callback_info info) {
  Call c(env, info, "setThreads");
  long threads = c.dim(0, "threads");
  if (c.ok) c.instance->split.threads = threads < 1 ? 1 : static_cast<int>(threads);
  return c.undefined();
}

const IsaKernels* g_isas[4];
int g_isa_count = 0;

napi_value Create(napi_env env, napi_callback_info info) {
  Call c(env, info, "create");
  char name[32] = {0};
  size_t len = 0;
  if (c.argc < 1 || napi_get_value_string_utf8(env, c.argv[0], name, sizeof name, &len) != napi_ok) {
    c.fail("the first argument must be an instruction set name");
  }
  long threads = c.dim(1, "threads");
  // Optional split thresholds (tests set them to 0 to send every product down the split path).
  long parallel_from = c.argc > 2 ? c.dim(2, "parallelFrom") : kDefaultParallelFrom;
  long rows_parallel_from = c.argc > 3 ? c.dim(3, "rowsParallelFrom") : kDefaultRowsParallelFrom;
  long stream_rows_upto = c.argc > 4 ? c.dim(4, "streamRowsUpTo") : kDefaultStreamRowsUpTo;
  if (!c.ok) return nullptr;
  const IsaKernels* isa = nullptr;
  for (int i = 0; i < g_isa_count; i++) {
    if (strcmp(g_isas[i]->name, name) == 0) isa = g_isas[i];
  }
  if (!isa) {
    c.fail(std::string("instruction set '") + name + "' is not available on this CPU");
    return nullptr;
  }
  // Lives as long as the process: a handful are created, one per kernels object.
  auto* instance = new Instance{isa, {threads < 1 ? 1 : static_cast<int>(threads), parallel_from, rows_parallel_from, stream_rows_upto}};
  napi_value object;
  napi_create_object(env, &object);
  AddFunction(env, object, "matmul", Matmul, instance);
  AddFunction(env, object, "setThreads", SetThreads, instance);
  AddFunction(env, object, "matmulBf16", MatmulBf16, instance);
  AddFunction(env, object, "add", Binary<&IsaKernels::add>, instance);
  AddFunction(env, object, "mul", Binary<&IsaKernels::mul>, instance);
  AddFunction(env, object, "axpy", Axpy, instance);
  AddFunction(env, object, "sumSquares", SumSquares, instance);
  AddFunction(env, object, "rmsNorm", RmsNorm, instance);
  AddFunction(env, object, "rmsNormBackward", RmsNormBackward, instance);
  AddFunction(env, object, "causalSoftmax", CausalSoftmax, instance);
  AddFunction(env, object, "causalSoftmaxBackward", CausalSoftmaxBackward, instance);
  AddFunction(env, object, "swiglu", Binary<&IsaKernels::swiglu>, instance);
  AddFunction(env, object, "swigluBackward", SwigluBackward, instance);
  AddFunction(env, object, "rope", Rope, instance);
  AddFunction(env, object, "logSoftmax", LogSoftmax, instance);
  AddFunction(env, object, "logSoftmaxGatherBackward", LogSoftmaxGatherBackward, instance);
  AddFunction(env, object, "adamw", Adamw, instance);
  AddFunction(env, object, "attentionForward", AttentionForward, instance);
  AddFunction(env, object, "attentionBackward", AttentionBackward, instance);
  AddFunction(env, object, "attentionBatchForward", AttentionBatchForward, instance);
  AddFunction(env, object, "attentionBatchBackward", AttentionBatchBackward, instance);
  AddFunction(env, object, "cacheAttention", CacheAttention, instance);
  AddFunction(env, object, "sampleRows", SampleRows, instance);
  return object;
}

// A JavaScript array of the tables' names.
napi_value IsaNames(napi_env env, const IsaKernels* const* tables, int count) {
  napi_value names;
  napi_create_array_with_length(env, count, &names);
  for (int i = 0; i < count; i++) {
    napi_value name;
    napi_create_string_utf8(env, tables[i]->name, NAPI_AUTO_LENGTH, &name);
    napi_set_element(env, names, i, name);
  }
  return names;
}

napi_value Init(napi_env env, napi_value exports) {
  // Once per process: a worker thread that loads the addon runs Init again.
  static std::once_flag detected;
  std::call_once(detected, [] { g_isa_count = available_isas(g_isas); });
  napi_set_named_property(env, exports, "isas", IsaNames(env, g_isas, g_isa_count));
  const IsaKernels* built[4];
  int built_count = built_isas(built);
  napi_set_named_property(env, exports, "builtIsas", IsaNames(env, built, built_count));
  napi_value bf16;
  napi_get_boolean(env, cpu_has_avx512_bf16(), &bf16);
  napi_set_named_property(env, exports, "bf16", bf16);
  AddFunction(env, exports, "create", Create, nullptr);
  AddFunction(env, exports, "alloc", Alloc, nullptr);
  AddFunction(env, exports, "free", Free, nullptr);
  AddFunction(env, exports, "liveBytes", LiveBytes, nullptr);
  AddFunction(env, exports, "untrackedBytes", UntrackedBytes, nullptr);
  AddFunction(env, exports, "v8ExternalMemory", V8ExternalMemory, nullptr);
  AddFunction(env, exports, "cachedBytes", CachedBytes, nullptr);
  AddFunction(env, exports, "setPageCacheLimit", SetPageCacheLimit, nullptr);
  return exports;
}

}  // namespace
}  // namespace troupe

NAPI_MODULE(NODE_GYP_MODULE_NAME, troupe::Init)
