// Memory read and copy bandwidth of this machine, 1 and 2 threads: the ceiling of decoding
// at batch 1, which streams every weight once per token (docs/performance.md).
//   cc -O2 -mavx2 -pthread bench/memory-bandwidth.c -o /tmp/bw && /tmp/bw [MB per thread]
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t bytes;
static int copy_mode;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Reads (sums) or copies its own buffer 5 times; returns through the pointer it was given.
static void* run(void* arg) {
  double* seconds = arg;
  char* src = aligned_alloc(64, bytes);
  char* dst = copy_mode ? aligned_alloc(64, bytes) : NULL;
  memset(src, 1, bytes);
  if (dst) memset(dst, 0, bytes);
  __m256i acc = _mm256_setzero_si256();
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    if (copy_mode) {
      memcpy(dst, src, bytes);
    } else {
      for (size_t i = 0; i < bytes; i += 128) {
        acc = _mm256_add_epi32(acc, _mm256_load_si256((__m256i*)(src + i)));
        acc = _mm256_add_epi32(acc, _mm256_load_si256((__m256i*)(src + i + 32)));
        acc = _mm256_add_epi32(acc, _mm256_load_si256((__m256i*)(src + i + 64)));
        acc = _mm256_add_epi32(acc, _mm256_load_si256((__m256i*)(src + i + 96)));
      }
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  int sink[8];
  _mm256_storeu_si256((__m256i*)sink, acc);
  if (sink[0] == 42) printf(" ");
  *seconds = best;
  free(src);
  free(dst);
  return NULL;
}

int main(int argc, char** argv) {
  bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 512) << 20;
  for (copy_mode = 0; copy_mode < 2; copy_mode++) {
    for (int threads = 1; threads <= 2; threads++) {
      pthread_t t[2];
      double s[2];
      for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, &s[i]);
      for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
      double gbs = 0;
      for (int i = 0; i < threads; i++) gbs += bytes * (copy_mode ? 2.0 : 1.0) / s[i] / 1e9;
      printf("%s, %d thread(s): %.1f GB/s\n", copy_mode ? "copy (read + write)" : "read", threads, gbs);
    }
  }
  return 0;
}
