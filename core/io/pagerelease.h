#pragma once

#include <cstddef>
#include <cstdint>

namespace ds {

/// "This process has finished reading [begin, begin + length) for now."
///
/// Pages of a mapped dump that were read count in the resident set for as long as the
/// mapping lives, so one pass over a 1 GiB tensor used to add 1 GiB to RSS. When the range
/// lies in a live MappedFile, the whole pages it touches (the partly covered first and last
/// one included) leave the resident set (madvise MADV_DONTNEED). The mappings are read-only,
/// so nothing is lost: a later read fetches the page again from the page cache (a minor
/// fault, no I/O while the kernel keeps the file cached). Memory that is not a MappedFile
/// (converted or unpacked buffers, the heap, the stack, null) is never touched, so a kernel
/// may call this on any TensorView's bytes. A range running past the end of its mapping is
/// clipped. Thread-safe; one system call, so call it every few MiB, not per element.
///
/// Streaming passes (statistics, histograms, heatmap blocks, export, compare metrics) call
/// it behind them as they go, e.g. after finishing elements [b, e) of a view:
///
///     releaseMappedPages(view.data + b * elemBytes(view.elem), (e - b) * elemBytes(view.elem));
void releaseMappedPages(const void *begin, std::size_t length);

/// True when [begin, begin + length) lies inside one live MappedFile.
bool isMappedRange(const void *begin, std::size_t length);

/// True when every page of [begin, begin + length), a mapped file's range, is in memory
/// (mincore(): for a file mapping, the page cache, whether or not this process has mapped the
/// page; the kernel answers that only for files the user owns or may write, else only for the
/// pages this process has mapped, so the answer errs towards "no"). A pass over such a range
/// waits for no disk: it needs no read-ahead. False for null, empty or unmapped memory.
bool isCachedRange(const void *begin, std::size_t length);

/// (readahead.cpp) Tells the live ReadAheads over this range that their pass has read it.
/// releaseMappedPages() calls it; nothing else needs to.
void noteReleasedForReadAhead(const void *begin, std::size_t length);

/// Bytes of the live MappedFile starting at `mappingBegin` that are resident in this
/// process (its "Rss" in /proc/self/smaps); -1 when unknown. For tests and measurements.
std::int64_t mappedResidentBytes(const void *mappingBegin);

} // namespace ds
