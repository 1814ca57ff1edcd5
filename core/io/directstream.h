#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ds {

/// One sequential O_DIRECT reading of a file shared by several parsers (the threads of a split
/// dump.json, core/formats/msprobe/dumpjsonsplit.h): a thread of its own reads the file in
/// order, in aligned blocks of blockBytes(), and hands every block to the parsers whose ranges
/// it overlaps (a bounded queue per parser). The disk sees one sequential stream instead of one
/// per parser at two offsets (which read slower than one on the project's virtual disk:
/// docs/scale/files.md, item 1, "Third session" and "Fourth session").
///
/// A parser asks for the block that holds an offset (block()): it gets it from its queue, waits
/// for it while the stream is on its way to it, or gets nullptr when the block is not coming
/// for it (outside its ranges, already dropped, or the stream is held up by another parser's
/// full queue): it then reads those bytes itself (readAt(), a synchronous read of the same
/// file descriptor), so no parser ever waits for another through the stream.
///
/// Memory: the stream waits while a parser that reads a block has kQueueBlocks queued; a block
/// that a parser wants only for the slack past one of its ranges is queued without that wait
/// (at most one such block per range end). Bound: every parser's queue (kQueueBlocks + the
/// slack blocks among them, at most one more per range in it), the block each parser holds and
/// the one being read: about (parsers x (kQueueBlocks + 2) + 1) x blockBytes(), 208 MiB for
/// two parsers with 16 MiB blocks; buffers are reused (no fresh pages faulted in per block).
class DirectStream
{
public:
    static constexpr std::size_t kAlign = 4096;
    static constexpr int kQueueBlocks = 4;

    struct Range
    {
        std::uint64_t start = 0, end = 0; ///< [start, end) of the file
        int parser = 0;
    };
    struct Block
    {
        std::uint64_t at = 0; ///< the file offset of data[0] (aligned)
        std::size_t len = 0;  ///< bytes read (fewer than asked at the end of the file)
        char *data = nullptr;
    };
    using BlockPtr = std::shared_ptr<const Block>;

    /// Takes `fd` (opened with O_DIRECT; closed by the destructor) of a file of `size` bytes
    /// and reads it from `start` (aligned) to its end. Block k ([start + k * blockBytes(), ...))
    /// goes to every parser with a range that overlaps [block start - 0, block end) once that
    /// range is extended by `slack` bytes at its end (parsers read a little past a range).
    DirectStream(int fd, std::uint64_t size, std::uint64_t start, std::vector<Range> ranges, int parsers,
                 std::uint64_t slack);
    ~DirectStream(); ///< stops the thread and waits for it
    DirectStream(const DirectStream &) = delete;
    DirectStream &operator=(const DirectStream &) = delete;

    int fd() const { return m_fd; }
    /// The block holding byte `at` for `parser`, or nullptr: read it yourself (readAt()).
    BlockPtr block(int parser, std::uint64_t at);
    /// `parser` will read nothing more: its queue is emptied and it gets no more blocks.
    void detach(int parser);
    /// A parser read `bytes` itself (block() gave nullptr): counted for DS_DIRECT_STATS=1, with
    /// which the destructor writes the stream's blocks and the parsers' own reads to stderr.
    void noteOwnRead(std::size_t bytes);

    /// The size of the blocks of streams started from now on (tests force small blocks so that
    /// block boundaries fall inside entries); 0: the default, 16 MiB.
    static void setBlockBytes(std::size_t bytes);
    static std::size_t blockBytes();
    /// Streams started since the process began (tests, benchmarks).
    static std::uint64_t started();

private:
    struct Pool;
    void run();
    bool wants(int parser, std::uint64_t from, std::uint64_t to, bool withSlack = true) const;
    /// The stream waits for room in the queue of a parser that wants the next block.
    bool heldUp() const;

    int m_fd = -1;
    std::uint64_t m_size = 0, m_start = 0, m_slack = 0;
    std::size_t m_blockBytes = 0;
    std::vector<Range> m_ranges;
    std::shared_ptr<Pool> m_pool;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<std::deque<BlockPtr>> m_queues;
    std::vector<bool> m_detached;
    std::uint64_t m_next = 0; ///< the offset of the block being read or read next
    bool m_stalled = false;   ///< waiting for room in a parser's queue
    bool m_done = false;      ///< at the end of the file, after a read error, or stopped
    bool m_stop = false;
    std::uint64_t m_blocks = 0, m_bytes = 0, m_stalls = 0;
    std::atomic<std::uint64_t> m_ownReads{0}, m_ownBytes{0};
    std::thread m_thread;
};

} // namespace ds
