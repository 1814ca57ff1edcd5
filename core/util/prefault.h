#pragma once

#include "parallel.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ds {

/// Has the kernel map (and zero) the pages of fresh memory [p, p + bytes) on all cores, before
/// one thread writes it: a first write to each page would otherwise fault it in there, one
/// page at a time. Only whole pages inside the range are touched, by the kernel
/// (MADV_POPULATE_WRITE, Linux 5.14); elsewhere, or when it refuses, nothing happens and the
/// pages fault in as usual. Never changes the contents of memory in use.
inline void prefault(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    static const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    constexpr size_t kChunk = size_t(8) << 20;
    const std::uintptr_t begin = (std::uintptr_t(p) + page - 1) / page * page;
    const std::uintptr_t end = (std::uintptr_t(p) + bytes) / page * page;
    if (end <= begin || end - begin < 2 * kChunk)
        return;
    parallelChunks(size_t(end - begin), kChunk, [&](size_t, size_t from, size_t to) {
        return madvise(reinterpret_cast<void *>(begin + from), to - from, MADV_POPULATE_WRITE) == 0;
    });
#else
    (void)p;
    (void)bytes;
#endif
}

/// v.reserve(n) with the new storage prefaulted (for vectors of millions of elements).
template<typename T>
void reservePrefaulted(std::vector<T> &v, size_t n)
{
    if (n <= v.capacity())
        return;
    v.reserve(n);
    prefault(v.data() + v.size(), (n - v.size()) * sizeof(T));
}

} // namespace ds
