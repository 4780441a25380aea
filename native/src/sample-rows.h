// Sampling one token from each of several rows of logits, with the numbers JavaScript's
// sampler computes (src/engine/sampling/sample-token.ts, the whole-row path), bit for bit:
// the exponentials are V8's Math.exp (fdlibm's algorithm, evaluated in the same order without
// fused multiply-adds) and the weights are summed one by one in token order.
#pragma once

namespace troupe {

// Math.exp(x) of V8 (its port of fdlibm's e_exp.c), for any double.
double exp_like_v8(double x);

// For each row r of `rows` (vocab logits each): with w_i = exp(logit_i / T[r] - max), picks the
// first token j where u[r] * sum(w) - (w_0 + ... + w_j) < 0 (or the last with any weight) and
// writes out[4r..4r+3] = { j, w_j, sum(w), max } with max = max_i logit_i / T[r].
// A row with a NaN or +Infinity logit, or only -Infinity ones, gets out[4r] = -1: the caller
// samples it itself. `vector` uses AVX2 (the caller checked the CPU has it).
void sample_rows(const float* logits, long rows, long vocab, const double* temperature, const double* uniform,
                 double* out, int threads, bool vector);

}  // namespace troupe
