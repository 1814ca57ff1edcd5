#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ds {

/// Asks the kernel to back [p, p + bytes) with transparent huge pages where the system allows
/// them on request (`transparent_hugepage/enabled` = madvise, Debian's default): a buffer of
/// hundreds of MB written once (the operators of a whole run) then costs a few hundred page
/// faults instead of tens of thousands. Only the whole 2 MiB pages inside the range are
/// advised; a hint, so any failure is ignored.
inline void adviseHugePages(const void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin)
        (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

} // namespace ds
