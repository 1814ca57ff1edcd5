#pragma once
// Internal to the msprobe reader: one large dump.json read on several threads.

#include "dumpjsonentries.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ds::msprobe::dumpjson {

/// The entries of one chunk, read completely by a worker thread.
struct ChunkEntries
{
    /// In file order; timestamps count from 0 in the chunk. Their `levels` and `dataFile` are
    /// empty: the reading thread sets them when it takes the chunk (take()), so that the two
    /// threads never write the reference counts of the same levels and file name at once.
    std::vector<OpRecord> ops;
    std::string lastEntry;     ///< the name of the chunk's last entry
    std::uint64_t end = 0;     ///< the offset after it (the ',' before the next entry)
    std::uint64_t windowEntries = 0;
};

/// Splits the "data" object of a large dump.json into chunks that end where msprobe's
/// json.dump(indent=1) layout ends an entry ("\n" + indent + "}," followed by "\n" + indent +
/// '"'), and reads every chunk but the reading thread's own on worker threads, each with its
/// own pools and arena. Nothing a worker reads is trusted: the reading thread takes a chunk's
/// entries only when it has itself reached the chunk's start right after an entry (so the start
/// is an entry boundary: everything before it was read as entries) and the worker read the
/// chunk as whole entries ending exactly at its end. A chunk the worker could not read that
/// way (an odd layout, a split inside a string, a syntax error, the end of "data") is read by
/// the reading thread itself, with its errors and salvage messages, as without the split.
/// Chunks alternate between the threads (chunk k is the reading thread's when k % threads ==
/// 0, and the last one is always its own); workers keep at most one round ahead of it, so the
/// entries waiting to be taken stay bounded.
class DumpJsonSplit
{
public:
    /// `r` is positioned inside "data" at `dataStart`; `closing` is "\n" + indent + "},".
    /// If `r` reads with O_DIRECT, its descriptor becomes one stream shared by all threads
    /// (FastJsonReader::shareDirect). Starts the workers when "data" is large enough
    /// (dumpJsonSplit()) and split points are found; otherwise active() is false.
    DumpJsonSplit(FastJsonReader &r, std::uint64_t dataStart, const std::string &closing,
                  const DumpJsonContext &ctx);
    ~DumpJsonSplit();
    DumpJsonSplit(const DumpJsonSplit &) = delete;
    DumpJsonSplit &operator=(const DumpJsonSplit &) = delete;

    bool active() const { return !m_threads.empty(); }
    /// The start of the first worker chunk at or after `at` (UINT64_MAX: none). Worker chunks
    /// before `at` are dropped: the reading thread has read past them.
    std::uint64_t nextStop(std::uint64_t at);
    /// The reading thread is at `at`, a worker chunk's start, right after an entry: true with
    /// the chunk's entries if its worker read it completely (waits for it); false (the chunk
    /// is dropped): read it yourself.
    bool take(std::uint64_t at, ChunkEntries &out);
    /// Gives back the array of a chunk taken (its records moved out): a worker fills it again
    /// instead of faulting in fresh pages for every chunk.
    void recycle(std::vector<OpRecord> &&ops);

private:
    enum class State { Pending, Running, Done, Dropped };
    struct Chunk
    {
        int index = 0; ///< position among all chunks (the reading thread's included)
        int worker = 0;
        std::uint64_t start = 0, end = 0;
        State state = State::Pending;
        bool complete = false;
        bool abandoned = false; ///< the reading thread went past it while it was read
        ChunkEntries entries;
    };
    void findSplits(const FastJsonReader &r, std::uint64_t dataStart, const std::string &closing,
                    std::uint64_t chunkBytes, std::vector<std::uint64_t> &splits) const;
    void work(int worker, FastJsonReader &reader);
    bool readChunk(FastJsonReader &r, DumpJsonContext &ctx, Chunk &c, ChunkEntries &out);
    void seen(int chunkIndex);

    // What the workers' contexts copy from the reading thread's (copied here, on its thread).
    QString m_relDir, m_relFile;
    const JobControl *m_job = nullptr;
    std::string m_closing;
    int m_threadCount = 1;
    std::vector<Chunk> m_chunks; ///< the workers' chunks, by start
    std::vector<std::uint64_t> m_splits;
    int m_mainChunk = 0; ///< the chunk the reading thread is in
    bool m_waitForWorkers = false;
    std::vector<bool> m_workerGone; ///< workers that returned (their pending chunks are never read)
    std::vector<std::vector<OpRecord>> m_spare; ///< emptied chunk arrays (recycle())
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::atomic<bool> m_stop{false};
    std::shared_ptr<ds::DirectStream> m_stream; ///< the O_DIRECT stream the threads share, if any
    std::vector<std::thread> m_threads;
};

} // namespace ds::msprobe::dumpjson
