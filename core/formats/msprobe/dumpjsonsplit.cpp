#include "dumpjsonsplit.h"

#include <QFile>
#include <QThread>

#include <algorithm>
#include <cstring>
#include <limits>

namespace ds::msprobe {

namespace {
std::mutex g_settingsMutex;
DumpJsonSplitSettings g_settings;
thread_local std::uint64_t t_chunksTaken = 0;
} // namespace

void setDumpJsonSplit(const DumpJsonSplitSettings &settings)
{
    std::lock_guard lock(g_settingsMutex);
    g_settings = settings;
}

DumpJsonSplitSettings dumpJsonSplit()
{
    std::lock_guard lock(g_settingsMutex);
    return g_settings;
}

std::uint64_t splitChunksTaken() { return t_chunksTaken; }

namespace dumpjson {

namespace {
constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

/// Up to `len` bytes of the input at `at`.
std::string bytesAt(const FastJsonReader &r, QFile *file, std::uint64_t at, size_t len)
{
    std::string out;
    if (at >= r.size())
        return out;
    len = size_t(std::min<std::uint64_t>(len, r.size() - at));
    if (!file) {
        out.assign(r.input().substr(size_t(at), len));
        return out;
    }
    out.resize(len);
    if (!file->seek(qint64(at)))
        return {};
    const qint64 got = file->read(out.data(), qint64(len));
    out.resize(size_t(std::max<qint64>(got, 0)));
    return out;
}
} // namespace

DumpJsonSplit::DumpJsonSplit(FastJsonReader &r, std::uint64_t dataStart, const std::string &closing,
                             const DumpJsonContext &ctx)
    : m_relDir(ctx.relDir), m_relFile(ctx.relFile), m_job(ctx.job), m_closing(closing)
{
    const DumpJsonSplitSettings settings = dumpJsonSplit();
    m_waitForWorkers = settings.waitForWorkers;
    // Asked once: idealThreadCount() is a system call, and this runs per file (102,400 at 1,024 x 100).
    static const int ideal = std::max(1, QThread::idealThreadCount());
    m_threadCount = settings.threads > 0 ? settings.threads : ideal;
    if (m_threadCount < 2 || closing.size() < 3 || r.size() <= dataStart || r.size() - dataStart <= settings.threshold)
        return;
    findSplits(r, dataStart, closing, std::max<std::uint64_t>(settings.chunkBytes, 1), m_splits);
    // Chunk k runs from split k - 1 (chunk 0: dataStart) to split k (the last one: the end of
    // the file). The reading thread's: k % threads == 0 and the last.
    const int count = int(m_splits.size()) + 1;
    for (int k = 1; k + 1 < count; ++k) {
        if (k % m_threadCount == 0)
            continue;
        Chunk c;
        c.index = k;
        c.worker = k % m_threadCount - 1;
        c.start = m_splits[size_t(k - 1)];
        c.end = m_splits[size_t(k)];
        m_chunks.push_back(std::move(c));
    }
    if (m_chunks.empty())
        return;
    const int workers = std::min(m_threadCount - 1, int(m_chunks.size()));
    m_workerGone.assign(size_t(workers), false);
    if (r.readsDirect()) {
        // One O_DIRECT stream for all threads (the disk reads one sequence, not one per
        // thread): worker w reads the blocks of its chunks (parser w + 1), the reading thread
        // those of every other byte (parser 0).
        std::vector<ds::DirectStream::Range> ranges;
        std::uint64_t mine = 0;
        for (const Chunk &c : m_chunks) {
            if (c.start > mine)
                ranges.push_back({mine, c.start, 0});
            ranges.push_back({c.start, c.end, c.worker + 1});
            mine = c.end;
        }
        ranges.push_back({mine, r.size(), 0});
        m_stream = r.shareDirect(std::move(ranges), workers + 1);
    }
    for (int w = 0; w < workers; ++w)
        m_threads.emplace_back([this, w, path = r.path(), input = r.input()] {
            FastJsonReader reader;
            if (path.isEmpty())
                reader.setView(input);
            // From the shared stream, or through the page cache (never a second O_DIRECT stream).
            if (path.isEmpty() || reader.openShared(path, m_stream, w + 1))
                work(w, reader);
            // Chunks of this worker still pending are the reading thread's.
            {
                std::lock_guard lock(m_mutex);
                m_workerGone[size_t(w)] = true;
            }
            m_changed.notify_all();
        });
}

DumpJsonSplit::~DumpJsonSplit()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    for (std::thread &t : m_threads)
        t.join();
}

void DumpJsonSplit::findSplits(const FastJsonReader &r, std::uint64_t dataStart, const std::string &closing,
                               std::uint64_t chunkBytes, std::vector<std::uint64_t> &splits) const
{
    // "\n" + indent + "}," then "\n" + indent + '"': an entry ends and the next one starts. A
    // raw newline cannot be inside a JSON string, so in a valid file this is no string's
    // content; whether it is an entry boundary is proven when the chunks are read.
    const std::string indent = closing.substr(1, closing.size() - 3);
    const std::string pattern = closing + '\n' + indent + '"';
    std::unique_ptr<QFile> file;
    if (!r.path().isEmpty()) {
        file = std::make_unique<QFile>(r.path());
        if (!file->open(QIODevice::ReadOnly))
            return;
    }
    std::uint64_t last = dataStart;
    for (std::uint64_t target = dataStart + chunkBytes; target < r.size(); target += chunkBytes) {
        target = std::max(target, last + 1);
        for (size_t probe : {size_t(64) << 10, size_t(1) << 20}) {
            const std::string bytes = bytesAt(r, file.get(), target, probe);
            const size_t q = bytes.find(pattern);
            if (q == std::string::npos)
                continue;
            const std::uint64_t at = target + q + closing.size() - 1; // the ','
            if (at > last && at < r.size()) {
                splits.push_back(at);
                last = at;
            }
            break;
        }
    }
}

void DumpJsonSplit::seen(int chunkIndex)
{
    if (chunkIndex > m_mainChunk) {
        m_mainChunk = chunkIndex;
        m_changed.notify_all();
    }
}

std::uint64_t DumpJsonSplit::nextStop(std::uint64_t at)
{
    std::lock_guard lock(m_mutex);
    seen(int(std::upper_bound(m_splits.begin(), m_splits.end(), at) - m_splits.begin()));
    for (Chunk &c : m_chunks) {
        if (c.start >= at)
            return c.start;
        if (c.state == State::Running)
            c.abandoned = true; // its worker drops what it reads
        else if (c.state != State::Dropped) {
            c.state = State::Dropped;
            c.entries = ChunkEntries();
        }
    }
    return kNone;
}

bool DumpJsonSplit::take(std::uint64_t at, ChunkEntries &out)
{
    std::unique_lock lock(m_mutex);
    auto it = std::lower_bound(m_chunks.begin(), m_chunks.end(), at,
                               [](const Chunk &c, std::uint64_t v) { return c.start < v; });
    if (it == m_chunks.end() || it->start != at)
        return false;
    Chunk &c = *it;
    seen(c.index);
    if (c.state == State::Pending && !m_waitForWorkers)
        c.state = State::Dropped; // its worker has not started it: faster to read it here
    m_changed.wait(lock, [&] { return c.state != State::Running && (c.state != State::Pending || m_workerGone[size_t(c.worker)]); });
    if (c.state != State::Done)
        return false;
    c.state = State::Dropped;
    if (!c.complete)
        return false;
    out = std::move(c.entries);
    c.entries = ChunkEntries();
    ++t_chunksTaken;
    return true;
}

void DumpJsonSplit::recycle(std::vector<OpRecord> &&ops)
{
    ops.clear();
    std::lock_guard lock(m_mutex);
    if (m_spare.size() < size_t(m_threadCount))
        m_spare.push_back(std::move(ops));
}

void DumpJsonSplit::work(int worker, FastJsonReader &reader)
{
    DumpJsonContext ctx;
    IndexPart part;
    ctx.relDir = m_relDir;
    ctx.relFile = m_relFile;
    // ctx.levels and ctx.dataFile stay empty: the reading thread sets them in every record it
    // takes (ChunkEntries::ops).
    ctx.job = m_job;
    ctx.part = &part;
    ctx.pathPrefix = m_relDir.isEmpty() ? std::string() : m_relDir.toStdString() + '/';
    double bytesPerEntry = 0;
    for (Chunk &c : m_chunks) {
        if (c.worker != worker)
            continue;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return m_stop || c.index <= m_mainChunk + m_threadCount; });
            if (m_stop)
                return;
            if (c.state != State::Pending)
                continue;
            c.state = State::Running;
        }
        ChunkEntries entries;
        part.ops.clear();
        {
            std::lock_guard lock(m_mutex);
            if (part.ops.capacity() == 0 && !m_spare.empty()) {
                part.ops = std::move(m_spare.back());
                m_spare.pop_back();
            }
        }
        if (bytesPerEntry > 0) // the chunk's entries from the previous chunk's size per entry, + 1/8
            part.ops.reserve(size_t(double(c.end - c.start) / bytesPerEntry * 1.125) + 64);
        const bool complete = readChunk(reader, ctx, c, entries);
        if (complete && !entries.ops.empty())
            bytesPerEntry = double(c.end - c.start) / double(entries.ops.size());
        {
            std::lock_guard lock(m_mutex);
            c.complete = complete && !c.abandoned;
            if (c.complete)
                c.entries = std::move(entries);
            c.state = State::Done;
        }
        m_changed.notify_all();
    }
}

bool DumpJsonSplit::readChunk(FastJsonReader &r, DumpJsonContext &ctx, Chunk &c, ChunkEntries &out)
{
    IndexPart &part = *ctx.part;
    r.setReadAheadLimit(c.end);
    r.seek(c.start);
    LeafBuilder lb(ctx.pool, ctx.leaves);
    lb.tensorDirPrefix = ctx.relDir.isEmpty() ? QStringLiteral("dump_tensor_data/")
                                              : ctx.relDir + QStringLiteral("/dump_tensor_data/");
    EntryRecords records(lb);
    SimdState simd;
    simd.closing = m_closing;
    OpRecord op;
    JsonTree tree;
    std::string entry, path;
    bool first = false;
    std::uint64_t windows = 0;
    auto entryDone = [&](std::uint64_t) {
        if ((part.ops.size() & 1023) == 0 && (m_stop || (ctx.job && ctx.job->cancelled())))
            return false;
        return true;
    };
    while (r.offset() < c.end) {
        if (simd.failures < kSimdFailures) {
            const std::uint64_t left = c.end - r.offset();
            const int w = readEntryWindow(r, ctx, simd, records, lb, op, tree, first, out.lastEntry, entryDone,
                                          left < kWindowBytes ? size_t(left) + 1 : kWindowBytes);
            if (w < 0)
                return false;
            if (w > 0) {
                windows += std::uint64_t(w);
                continue;
            }
        }
        if (r.nextMember(entry, first) != 1)
            return false; // the end of "data", or an error: the reading thread reads it
        const EntryKind kind = entryKind(entry);
        bool inTree = true;
        const bool parsed = kind != EntryKind::Debug ? records.parse(r, kind == EntryKind::ParametersGrad, op, tree, inTree)
                                                     : r.parseValue(tree);
        if (!parsed)
            return false;
        if (inTree) {
            convertEntry(ctx, lb, entry, kind, tree, path);
        } else {
            nameOp(ctx, entry, op);
            lb.finish(op);
            part.ops.push_back(std::move(op));
        }
        out.lastEntry.swap(entry);
        if (!entryDone(r.offset()))
            return false;
    }
    if (r.offset() != c.end || part.ops.empty())
        return false;
    out.windowEntries = windows;
    out.ops = std::move(part.ops);
    part.ops = {};
    out.end = c.end;
    return true;
}

} // namespace dumpjson
} // namespace ds::msprobe
