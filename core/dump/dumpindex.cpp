#include "dumpindex.h"

#include "levels.h"

#include <QHash>

#include <algorithm>
#include <numeric>

namespace ds {

namespace {

/// Execution order of ops: levels, then timestamp, then relative path. All the files of a
/// directory share their levels, so the levels are ranked once per distinct directory and the
/// sort compares integers (and paths only on equal timestamps). Returns the permutation.
std::vector<size_t> executionOrder(const std::vector<OpRecord> &ops)
{
    // Distinct level tuples; consecutive ops usually come from the same directory.
    std::vector<size_t> levelId(ops.size());
    std::vector<const DumpLevels *> distinct;
    QHash<QString, size_t> idByKey;
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
            it = idByKey.insert(key, distinct.size());
            distinct.push_back(&l);
        }
        levelId[i] = *it;
    }
    std::vector<size_t> byLevels(distinct.size());
    std::iota(byLevels.begin(), byLevels.end(), size_t(0));
    std::sort(byLevels.begin(), byLevels.end(),
              [&](size_t a, size_t b) { return levelsBefore(*distinct[a], *distinct[b]); });
    std::vector<size_t> rank(distinct.size());
    for (size_t r = 0; r < byLevels.size(); ++r)
        rank[byLevels[r]] = r;

    std::vector<size_t> order(ops.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const size_t ra = rank[levelId[a]], rb = rank[levelId[b]];
        if (ra != rb)
            return ra < rb;
        if (ops[a].timestamp != ops[b].timestamp)
            return ops[a].timestamp < ops[b].timestamp;
        return ops[a].relPath < ops[b].relPath;
    });
    return order;
}

} // namespace

void DumpIndex::finalize()
{
    // Apply the order in place, cycle by cycle: a sorted copy would hold every operator twice.
    std::vector<size_t> order = executionOrder(ops);
    for (size_t i = 0; i < order.size(); ++i) {
        if (order[i] == i)
            continue;
        OpRecord held = std::move(ops[i]);
        size_t j = i;
        while (order[j] != i) {
            const size_t from = order[j];
            ops[j] = std::move(ops[from]);
            order[j] = j;
            j = from;
        }
        ops[j] = std::move(held);
        order[j] = j;
    }
    std::sort(errors.begin(), errors.end(), [](const FileError &a, const FileError &b) { return a.file < b.file; });
    m_byPath.clear();
    m_byPath.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
        m_byPath.emplace_back(std::hash<std::string_view>{}(ops[i].relPath.utf8()), int(i));
    std::sort(m_byPath.begin(), m_byPath.end());
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
    auto it = std::lower_bound(m_byPath.begin(), m_byPath.end(), std::pair<std::uint64_t, int>{h, -1});
    for (; it != m_byPath.end() && it->first == h; ++it)
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

std::uint64_t DumpIndex::tensorCount(bool inputsAndOutputsOnly) const
{
    std::uint64_t n = 0;
    for (const auto &op : ops)
        for (const auto &t : op.tensors)
            n += !inputsAndOutputsOnly || (t.isTensor() && t.io() != IoKind::Buffer && t.io() != IoKind::Workspace);
    return n;
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

std::uint64_t DumpIndex::payloadBytes() const
{
    std::uint64_t n = 0;
    for (const auto &op : ops)
        for (const auto &t : op.tensors)
            n += t.dataBytes();
    return n;
}

} // namespace ds
