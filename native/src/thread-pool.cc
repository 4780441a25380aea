#include "thread-pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include <immintrin.h>
#include <sched.h>

namespace troupe {
namespace {

// Helpers are started on demand, as many as the largest thread count asked for so far.
constexpr int kMaxHelpers = 255;
// How long a helper keeps polling after a job before it sleeps (matmuls of one layer come
// microseconds apart; a condition-variable wake-up costs tens of microseconds).
constexpr auto kSpin = std::chrono::microseconds(60);

// One job: a ticket packs the job's generation (high 32 bits), its chunk count (16 bits) and
// the next unclaimed chunk (low 16 bits). A thread claims a chunk with a compare-and-swap
// that also checks the generation, so a helper that wakes late can never run a chunk of a
// later job with the function of an earlier one.
struct Pool {
  std::atomic<uint64_t> ticket{0};
  std::atomic<ChunkFn> fn{nullptr};
  std::atomic<void*> ctx{nullptr};
  std::atomic<int> done{0};
  std::atomic<int> sleepers{0};
  // Helpers that may take chunks of the current job (threads - 1): kernels objects with fewer
  // threads share the pool, and a job must not use more threads than its caller asked for.
  std::atomic<int> allowed{0};
  std::mutex mutex;
  std::condition_variable wake;
  int helpers = 0;

  static uint32_t generation(uint64_t t) { return static_cast<uint32_t>(t >> 32); }

  // Claims and runs chunks of generation `gen` until none are left.
  void work(uint32_t gen) {
    for (;;) {
      uint64_t t = ticket.load();
      ChunkFn f = fn.load();
      void* c = ctx.load();
      if (generation(t) != gen) return;
      uint32_t chunks = (t >> 16) & 0xffff, next = t & 0xffff;
      if (next >= chunks) return;
      if (!ticket.compare_exchange_weak(t, t + 1)) continue;
      f(c, static_cast<int>(next));
      done.fetch_add(1);
    }
  }

  void helper_loop(int index) {
    uint32_t seen = generation(ticket.load());
    for (;;) {
      auto start = std::chrono::steady_clock::now();
      for (int spins = 0; generation(ticket.load()) == seen; spins++) {
        _mm_pause();
        if ((spins & 63) == 63 && std::chrono::steady_clock::now() - start > kSpin) {
          std::unique_lock<std::mutex> lock(mutex);
          sleepers.fetch_add(1);
          wake.wait(lock, [&] { return generation(ticket.load()) != seen; });
          sleepers.fetch_sub(1);
          break;
        }
      }
      seen = generation(ticket.load());
      if (index < allowed.load()) work(seen);
    }
  }

  void ensure_helpers(int wanted) {
    while (helpers < wanted && helpers < kMaxHelpers) {
      // Detached: the process may exit while a helper sleeps; it owns nothing to clean up.
      std::thread([this, index = helpers] { helper_loop(index); }).detach();
      helpers++;
    }
  }

  void run(int threads, int chunks, ChunkFn f, void* c) {
    ensure_helpers(threads - 1);
    uint32_t gen = generation(ticket.load()) + 1;
    fn.store(f);
    ctx.store(c);
    done.store(0);
    allowed.store(threads - 1);
    ticket.store((static_cast<uint64_t>(gen) << 32) | (static_cast<uint64_t>(chunks) << 16));
    if (sleepers.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex); }
      wake.notify_all();
    }
    work(gen);
    for (int spins = 0; done.load() < chunks; spins++) {
      if (spins < 4096) _mm_pause();
      else sched_yield();  // a helper was descheduled mid-chunk: let it run
    }
  }
};

Pool& shared_pool() {
  static Pool* pool = new Pool();  // never destroyed: helpers may still reference it at exit
  return *pool;
}

}  // namespace

void parallel_run(int threads, int chunks, ChunkFn fn, void* ctx) {
  if (threads <= 1 || chunks <= 1) {
    for (int c = 0; c < chunks; c++) fn(ctx, c);
    return;
  }
  // One job at a time: a second JavaScript thread (a worker_thread) that calls in while the
  // helpers are busy runs its job alone rather than waiting.
  static std::mutex busy;
  std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
  if (!lock.owns_lock()) {
    for (int c = 0; c < chunks; c++) fn(ctx, c);
    return;
  }
  shared_pool().run(threads, chunks, fn, ctx);
}

}  // namespace troupe
