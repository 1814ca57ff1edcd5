#pragma once

#include <cstddef>
#include <memory>
#include <thread>

namespace ds {

/// Keeps the disk busy ahead of one streaming pass over a mapped file.
///
/// A pass over a mapping of a file that is not in the page cache reads it by page faults: each
/// fault reads one read-ahead window (read_ahead_kb) and the faulting thread waits for it, so
/// the disk idles while the cores compute and the cores idle while the disk reads (64-74 % of
/// `cat`'s rate in docs/scale/files.md). While a ReadAhead lives, a thread of its own reads the
/// range's next pages (one byte a page: its faults do the kernel's read-around, kStep at a
/// time) and hands them back at once (MADV_DONTNEED: they stay in the page cache, not in the
/// resident set), at most kWindow bytes ahead of what the pass has handed back with
/// releaseMappedPages(). The pass then finds its pages read (a minor fault each) and the disk
/// streams while the cores compute. madvise(MADV_WILLNEED) instead of the touches was measured
/// slower than no read-ahead at all (0.41x against 0.71x `cat`): see docs/scale/files.md.
///
/// Over one range, a step whose pages are all in the page cache already (isCachedRange: a warm
/// file) is skipped without a touch, so a pass over a warm file pays no extra faults for it.
///
/// Does nothing for a range that is not in a live MappedFile or is smaller than kMinBytes (a
/// thread is not worth it). The caller keeps the mapping alive for the ReadAhead's lifetime.
class ReadAhead
{
public:
    static constexpr std::size_t kStep = std::size_t(8) << 20;
    static constexpr std::size_t kWindow = std::size_t(64) << 20;
    static constexpr std::size_t kMinBytes = std::size_t(32) << 20;

    /// A pass over two mapped ranges at once (compare's metric passes over both tensors): one
    /// thread reads kPairStep of each in turn, each at most kWindow ahead of what the pass has
    /// handed back of it, so that two cold files stream from one disk instead of the pass
    /// faulting on both alternately. A range too small or not mapped is left out.
    ReadAhead(const void *first, std::size_t firstLength, const void *second, std::size_t secondLength);
    static constexpr std::size_t kPairStep = std::size_t(4) << 20;
    ReadAhead(const void *begin, std::size_t length);
    ~ReadAhead(); ///< stops the thread and waits for it
    ReadAhead(const ReadAhead &) = delete;
    ReadAhead &operator=(const ReadAhead &) = delete;

    bool active() const { return m_state != nullptr; }
    /// Bytes the thread has come past so far, and of those, the bytes it read (touched): the
    /// others were in the page cache already. For tests and measurements.
    std::size_t coveredBytes() const;
    std::size_t touchedBytes() const;

    struct State; ///< (readahead.cpp; releaseMappedPages reports progress to it)

private:
    std::shared_ptr<State> m_state;
    std::thread m_thread;
};

} // namespace ds
