#pragma once
// Allocator policy for commands that build and free large structures over and over.

#include <limits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ds {

/// Has glibc's malloc keep freed memory for the process's next allocations: large blocks come
/// from the heap instead of their own mappings (which free() hands back to the kernel at once),
/// and the heap's top is not trimmed. A command that builds a scope's index and rows, frees
/// them and builds the next scope's then reuses pages already mapped instead of faulting fresh
/// ones in (the 8-rank compare of docs/PERFORMANCE.md: 505 k → 365 k page faults, 3 % less
/// wall time). The process keeps its peak footprint until it exits: for one-shot commands,
/// not the GUI.
inline void keepFreedMemory()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, std::numeric_limits<int>::max());
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

} // namespace ds
