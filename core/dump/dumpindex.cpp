#include "dumpindex.h"

#include "levels.h"
#include "util/parallel.h"
#include "util/prefault.h"

#include <QHash>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>

namespace ds {

namespace {

/// Execution order of ops: levels, then timestamp, then relative path. All the files of a
/// directory share their levels, so the levels are ranked once per distinct directory and the
/// ops are sorted on (level rank, timestamp) keys held next to each other (paths are compared
/// only on equal keys). The parts of an index arrive as runs already in that order (one
/// directory's files, one dump.json's entries), so the runs are found and merged instead of
/// sorting from scratch. Returns the permutation.
std::vector<std::uint32_t> executionOrder(const std::vector<OpRecord> &ops)
{
    // Distinct level tuples; consecutive ops usually come from the same directory.
    std::vector<std::uint32_t> levelId;
    reservePrefaulted(levelId, ops.size());
    levelId.resize(ops.size());
    std::vector<const DumpLevels *> distinct;
    QHash<QString, std::uint32_t> idByKey;
    for (size_t i = 0; i < ops.size(); ++i) {
        const DumpLevels &l = *ops[i].levels;
        if (i > 0 && sameLevels(l, *ops[i - 1].levels)) {
            levelId[i] = levelId[i - 1];
            continue;
        }
        const QChar sep(0);
        const QString key = l.part + sep + l.run + sep + l.time + sep + l.step + sep + l.rank + sep + l.device + sep + l.modelName
                            + sep + l.modelId + sep + l.dataIndex;
        auto it = idByKey.find(key);
        if (it == idByKey.end()) {
            it = idByKey.insert(key, std::uint32_t(distinct.size()));
            distinct.push_back(&l);
        }
        levelId[i] = *it;
    }
    std::vector<size_t> byLevels(distinct.size());
    std::iota(byLevels.begin(), byLevels.end(), size_t(0));
    std::sort(byLevels.begin(), byLevels.end(),
              [&](size_t a, size_t b) { return levelsBefore(*distinct[a], *distinct[b]); });
    std::vector<std::uint32_t> rank(distinct.size());
    for (size_t r = 0; r < byLevels.size(); ++r)
        rank[byLevels[r]] = std::uint32_t(r);

    struct Key
    {
        std::uint64_t timestamp;
        std::uint32_t rank;
        std::uint32_t op;
    };
    std::vector<Key> keys;
    reservePrefaulted(keys, ops.size());
    keys.resize(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        keys[i] = {ops[i].timestamp, rank[levelId[i]], std::uint32_t(i)};
    levelId = {};
    auto before = [](const Key &a, const Key &b) { return a.rank != b.rank ? a.rank < b.rank : a.timestamp < b.timestamp; };
    // Runs in order; many runs (a CANN tree of single-file directories in walk order): sort.
    std::vector<size_t> runs{0};
    for (size_t i = 1; i < keys.size() && runs.size() <= 64; ++i)
        if (before(keys[i], keys[i - 1]))
            runs.push_back(i);
    if (runs.size() > 64) {
        std::stable_sort(keys.begin(), keys.end(), before);
    } else {
        runs.push_back(keys.size());
        // Bottom-up merges of neighbouring runs (stable: equal keys keep their index order).
        while (runs.size() > 2) {
            std::vector<size_t> merged{0};
            for (size_t r = 0; r + 1 < runs.size(); r += 2) {
                const size_t end = r + 2 < runs.size() ? runs[r + 2] : runs[r + 1];
                if (r + 2 < runs.size())
                    std::inplace_merge(keys.begin() + std::ptrdiff_t(runs[r]), keys.begin() + std::ptrdiff_t(runs[r + 1]),
                                       keys.begin() + std::ptrdiff_t(end), before);
                merged.push_back(end);
            }
            runs.swap(merged);
        }
    }
    // Equal keys (files with the same timestamp in one directory): by path.
    for (size_t i = 0; i < keys.size();) {
        size_t j = i + 1;
        while (j < keys.size() && !before(keys[i], keys[j]))
            ++j;
        if (j - i > 1)
            std::sort(keys.begin() + std::ptrdiff_t(i), keys.begin() + std::ptrdiff_t(j),
                      [&](const Key &a, const Key &b) { return ops[a.op].relPath < ops[b.op].relPath; });
        i = j;
    }
    std::vector<std::uint32_t> order;
    reservePrefaulted(order, ops.size());
    order.resize(ops.size());
    for (size_t i = 0; i < keys.size(); ++i)
        order[i] = keys[i].op;
    return order;
}

/// Sorts (hash, index) pairs: distributed into 256 buckets by the top byte of the (well
/// mixed) hash (few write streams: cache friendly), then each bucket, small enough for the
/// cache, sorted; the same order as std::sort over the pairs, in about half its time.
void sortByHash(std::vector<std::pair<std::uint64_t, int>> &v)
{
    if (v.size() < 65536) {
        std::sort(v.begin(), v.end());
        return;
    }
    auto bucket = [](const std::pair<std::uint64_t, int> &p) { return size_t(p.first >> 56); };
    std::array<size_t, 257> start{};
    for (const auto &p : v)
        ++start[bucket(p) + 1];
    for (size_t b = 1; b < start.size(); ++b)
        start[b] += start[b - 1];
    std::array<size_t, 256> next;
    std::copy(start.begin(), start.end() - 1, next.begin());
    std::vector<std::pair<std::uint64_t, int>> out;
    reservePrefaulted(out, v.size());
    out.resize(v.size());
    for (const auto &p : v)
        out[next[bucket(p)]++] = p;
    v.swap(out);
    out = {};
    parallelChunks(256, 16, [&](size_t, size_t from, size_t to) {
        for (size_t b = from; b < to; ++b)
            std::sort(v.begin() + std::ptrdiff_t(start[b]), v.begin() + std::ptrdiff_t(start[b + 1]));
        return true;
    });
}

bool inputOrOutputTensor(const TensorRecord &t)
{
    return t.isTensor() && t.io() != IoKind::Buffer && t.io() != IoKind::Workspace;
}

/// True when the ops already are in execution order with no ties: each op's (levels, timestamp)
/// strictly after its predecessor's (levels strictly before by levelsBefore, or the same levels
/// and a later timestamp). The parts of a whole run usually arrive so (one dump.json's entries,
/// the parts in level order); checked on all cores, where executionOrder is one thread's work.
bool inExecutionOrder(const std::vector<OpRecord> &ops)
{
    if (ops.size() < 2)
        return true;
    return parallelChunks(ops.size() - 1, size_t(1) << 16, [&](size_t, size_t from, size_t to) {
        for (size_t i = from + 1; i <= to; ++i) {
            const OpRecord &a = ops[i - 1], &b = ops[i];
            if (sameLevels(*a.levels, *b.levels) ? !(a.timestamp < b.timestamp) : !levelsBefore(*a.levels, *b.levels))
                return false;
        }
        return true;
    });
}

void applyExecutionOrder(std::vector<OpRecord> &ops)
{
    // Apply the order in place, cycle by cycle: a sorted copy would hold every operator twice.
    std::vector<std::uint32_t> order = executionOrder(ops);
    for (size_t i = 0; i < order.size(); ++i) {
        if (order[i] == i)
            continue;
        OpRecord held = std::move(ops[i]);
        size_t j = i;
        while (order[j] != i) {
            const size_t from = order[j];
            ops[j] = std::move(ops[from]);
            order[j] = std::uint32_t(j);
            j = from;
        }
        ops[j] = std::move(held);
        order[j] = std::uint32_t(j);
    }
}

} // namespace

void DumpIndex::finalize()
{
    if (!inExecutionOrder(ops))
        applyExecutionOrder(ops);
    // Stable: a file's errors keep the order its reader gave them (line by line). std::sort
    // arranged equal files by how the parts' errors happened to interleave, so `list --json` of
    // samples/ swapped a statistic.csv's two errors in about 1 run of 10.
    std::stable_sort(errors.begin(), errors.end(), [](const FileError &a, const FileError &b) { return a.file < b.file; });
    m_paths.reset();
}

const DumpIndex::PathTable::Entries &DumpIndex::PathTable::get(const std::vector<OpRecord> &ops) const
{
    std::call_once(d->built, [&] {
        Entries &byPath = d->entries;
        reservePrefaulted(byPath, ops.size());
        byPath.resize(ops.size());
        parallelChunks(ops.size(), 1 << 16, [&](size_t, size_t from, size_t to) {
            for (size_t i = from; i < to; ++i)
                byPath[i] = {std::hash<std::string_view>{}(ops[i].relPath.utf8()), int(i)};
            return true;
        });
        sortByHash(byPath);
    });
    return d->entries;
}

QString DumpIndex::absolutePath(const OpRecord &op) const { return absolute(op.dataFile.isEmpty() ? op.relPath : op.dataFile); }

QString DumpIndex::absolute(const QString &relPath) const { return rootDir + QLatin1Char('/') + relPath; }

int DumpIndex::opIndex(const QString &relPath) const
{
    const QByteArray u = relPath.toUtf8();
    return opIndex(std::string_view(u.constData(), size_t(u.size())));
}

int DumpIndex::opIndex(std::string_view relPathUtf8) const
{
    const std::uint64_t h = std::hash<std::string_view>{}(relPathUtf8);
    const auto &byPath = m_paths.get(ops);
    auto it = std::lower_bound(byPath.begin(), byPath.end(), std::pair<std::uint64_t, int>{h, -1});
    for (; it != byPath.end() && it->first == h; ++it)
        if (ops[size_t(it->second)].relPath.utf8() == relPathUtf8)
            return it->second;
    return -1;
}

TensorId DumpIndex::tensorId(const TensorRef &ref) const
{
    const auto &t = tensor(ref);
    return TensorId{op(ref).relPath, t.io(), t.index()};
}

std::optional<DumpIndex::TensorRef> DumpIndex::find(const TensorId &id) const
{
    const int o = opIndex(id.op);
    if (o < 0)
        return std::nullopt;
    const auto &tensors = ops[size_t(o)].tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
        if (tensors[t].index() == id.index && tensors[t].io() == id.io)
            return TensorRef{o, int(t)};
    return std::nullopt;
}

std::uint64_t DumpIndex::tensorCount(bool inputsAndOutputsOnly) const { return tensorCount(0, ops.size(), inputsAndOutputsOnly); }

std::uint64_t DumpIndex::tensorCount(size_t begin, size_t end, bool inputsAndOutputsOnly) const
{
    std::uint64_t n = 0;
    for (size_t o = begin; o < end; ++o)
        for (const auto &t : ops[o].tensors)
            n += !inputsAndOutputsOnly || inputOrOutputTensor(t);
    return n;
}

std::pair<std::uint64_t, std::uint64_t> DumpIndex::tensorCountAndBytes(size_t begin, size_t end) const
{
    std::uint64_t n = 0, bytes = 0;
    for (size_t o = begin; o < end; ++o)
        for (const auto &t : ops[o].tensors) {
            n += inputOrOutputTensor(t);
            bytes += t.dataBytes();
        }
    return {n, bytes};
}

std::vector<FormatId> DumpIndex::sourceFormats() const
{
    std::vector<FormatId> found;
    for (const auto &op : ops)
        if (std::find(found.begin(), found.end(), op.source) == found.end())
            found.push_back(op.source);
    std::sort(found.begin(), found.end());
    return found;
}

std::uint64_t DumpIndex::payloadBytes() const { return payloadBytes(0, ops.size()); }

std::uint64_t DumpIndex::payloadBytes(size_t begin, size_t end) const
{
    std::uint64_t n = 0;
    for (size_t o = begin; o < end; ++o)
        for (const auto &t : ops[o].tensors)
            n += t.dataBytes();
    return n;
}

} // namespace ds
