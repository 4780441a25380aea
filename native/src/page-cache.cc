// The cache behind take_pages / give_pages (page-cache.h). Measured on the Qwen3-0.6B-shaped
// LoRA benchmark (one 256-token row per tape): a row allocates ~1 GB in ~1,900 blocks, and
// with every block freshly mapped the kernel's page faults and zeroing took 0.8 s of system
// time per row (of ~3.9 s). A training step repeats its shapes, so nearly every block can
// be served by one freed a moment earlier; zeroing it with memset costs a fraction of that.
//
// The limit bounds what a process holds beyond its live blocks: with shapes that repeat, the
// cached blocks are taken again as fast as they were given back, so peak RSS hardly moves;
// with shapes that never repeat, the cache only costs its limit.
#include "page-cache.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <sys/mman.h>

namespace troupe {
namespace {

struct Cached {
  void* data;
  uint64_t order;  // when it was given back: the oldest go first when over the limit
};

struct PageCache {
  std::mutex lock;  // alloc and free run on JavaScript threads; a worker may load the addon too
  std::multimap<size_t, Cached> by_size;
  std::map<uint64_t, std::multimap<size_t, Cached>::iterator> by_age;
  uint64_t next_order = 0;
  size_t bytes = 0;
  size_t limit = initial_limit();

  static size_t initial_limit() {
    const char* env = getenv("TROUPE_PAGE_CACHE_MB");
    long mb = env && *env ? strtol(env, nullptr, 10) : 1024;
    return static_cast<size_t>(mb < 0 ? 0 : mb) << 20;
  }

  void erase(std::multimap<size_t, Cached>::iterator it) {
    bytes -= it->first;
    by_age.erase(it->second.order);
    by_size.erase(it);
  }

  // Unmaps the oldest cached mappings until the cache holds at most `keep` bytes.
  void trim(size_t keep) {
    while (bytes > keep && !by_age.empty()) {
      auto it = by_age.begin()->second;
      void* data = it->second.data;
      size_t size = it->first;
      erase(it);
      munmap(data, size);
    }
  }
};

PageCache& cache() {
  static PageCache* instance = new PageCache();  // never destroyed: finalizers may run at exit
  return *instance;
}

}  // namespace

void* take_pages(size_t bytes, bool zero, size_t* mapped_bytes) {
  PageCache& c = cache();
  {
    std::lock_guard<std::mutex> hold(c.lock);
    auto it = c.by_size.lower_bound(bytes);
    if (it != c.by_size.end() && it->first <= bytes + bytes / 4) {
      void* data = it->second.data;
      *mapped_bytes = it->first;
      c.erase(it);
      if (zero) memset(data, 0, bytes);  // the bytes past `bytes` are never shown to JavaScript
      return data;
    }
  }
  // Fresh anonymous pages are zero already (and are only backed by memory once written).
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return nullptr;
  *mapped_bytes = bytes;
  return pages;
}

void give_pages(void* data, size_t mapped_bytes) {
  PageCache& c = cache();
  std::lock_guard<std::mutex> hold(c.lock);
  if (mapped_bytes > c.limit) {
    munmap(data, mapped_bytes);
    return;
  }
  c.trim(c.limit - mapped_bytes);
  uint64_t order = c.next_order++;
  c.by_age[order] = c.by_size.insert({mapped_bytes, Cached{data, order}});
  c.bytes += mapped_bytes;
}

size_t cached_page_bytes() {
  PageCache& c = cache();
  std::lock_guard<std::mutex> hold(c.lock);
  return c.bytes;
}

size_t set_page_cache_limit(size_t bytes) {
  PageCache& c = cache();
  std::lock_guard<std::mutex> hold(c.lock);
  size_t previous = c.limit;
  c.limit = bytes;
  c.trim(bytes);
  return previous;
}

}  // namespace troupe
