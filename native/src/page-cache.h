// Pages for the large blocks of alloc (addon.cc): own mappings, so a freed block never stays
// behind in glibc's heap, recycled through a size-capped cache so that a training step's
// blocks are not mapped, faulted in and zeroed page by page by the kernel every time.
#pragma once
#include <cstddef>

namespace troupe {

// `bytes` of page-aligned memory, zeroed when `zero` (else maybe a freed block's old values),
// or nullptr. *mapped_bytes is the size of the
// mapping handed out (at least `bytes`: a cached block up to a quarter larger may serve), to
// be passed back to give_pages.
void* take_pages(size_t bytes, bool zero, size_t* mapped_bytes);
// Gives a mapping from take_pages back: kept for reuse while the cache holds under its limit,
// the oldest cached mappings unmapped beyond it.
void give_pages(void* data, size_t mapped_bytes);
// Bytes held in the cache (resident, not handed out).
size_t cached_page_bytes();
// Sets the cache's limit in bytes (default 1 GiB, or TROUPE_PAGE_CACHE_MB; 0 unmaps freed
// blocks at once) and returns the previous one.
size_t set_page_cache_limit(size_t bytes);

}  // namespace troupe
