#include "comparematch.h"

#include "msprobenames.h"
#include "formats/readers.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

namespace ds {

namespace {

using Ref = DumpIndex::TensorRef;
const QChar kSep(0x1f);

bool isRowTensor(const TensorRecord &t)
{
    return t.io() == IoKind::Input || t.io() == IoKind::Output || t.io() == IoKind::Parameter;
}

/// Candidate lists of one index keyed by name; take() hands out the first unused one.
class RowTable
{
public:
    QHash<QString, std::vector<int>> exact, fuzzy, byRowName;
    std::vector<Ref> refs;
    std::vector<char> used;

    int take(const QHash<QString, std::vector<int>> &map, const QString &key, const std::function<bool(int)> &accept = {})
    {
        const auto it = map.constFind(key);
        if (it == map.cend())
            return -1;
        for (int r : *it)
            if (!used[size_t(r)] && (!accept || accept(r))) {
                used[size_t(r)] = 1;
                return r;
            }
        return -1;
    }
    qsizetype candidates(const QHash<QString, std::vector<int>> &map, const QString &key) const
    {
        const auto it = map.constFind(key);
        return it == map.cend() ? 0 : qsizetype(it->size());
    }
};

QString join(const QString &scope, const QString &a, const QString &b = {})
{
    return scope + kSep + a + kSep + b;
}

} // namespace

QString opMatchKey(const OpRecord &op)
{
    if (!formatReader(op.source).opsAreFiles())
        return op.relPath.mid(op.relPath.lastIndexOf(QLatin1Char('/')) + 1);
    return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
}

QString tensorMatchKey(const OpRecord &op, const TensorRecord &t)
{
    if (t.name().isEmpty())
        return ioKindName(t.io()) + QLatin1Char('.') + QString::number(t.index());
    return isMsprobeOp(op) ? msprobeTensorKey(opMatchKey(op), t) : t.name();
}

QString tensorMatchKey(const TensorRecord &t)
{
    return t.name().isEmpty() ? ioKindName(t.io()) + QLatin1Char('.') + QString::number(t.index()) : t.name();
}

QString rowName(const OpRecord &op, const TensorRecord &t)
{
    return opMatchKey(op) + QLatin1Char('.') + tensorMatchKey(op, t);
}

std::vector<int> rowTensors(const OpRecord &op)
{
    std::vector<int> out;
    for (size_t t = 0; t < op.tensors.size(); ++t)
        if (isRowTensor(op.tensors[t]))
            out.push_back(int(t));
    if (isMsprobeOp(op))
        std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
            return msprobeSection(op.tensors[size_t(a)]) < msprobeSection(op.tensors[size_t(b)]);
        });
    return out;
}

QString fuzzyOpName(const QString &name)
{
    QStringList tokens = name.split(QLatin1Char('.'));
    const qsizetype dir = std::max(tokens.indexOf(QLatin1String("forward")), tokens.indexOf(QLatin1String("backward")));
    const bool module = !tokens.isEmpty() && (tokens.front() == QLatin1String("Module") || tokens.front() == QLatin1String("Cell"));
    if (dir >= 2 && !module) { // Functional.conv2d.0.forward -> Functional.conv2d.forward
        tokens.removeAt(dir - 1);
        return tokens.join(QLatin1Char('.'));
    }
    if (dir >= 2 && module) { // Module.conv1.Conv2d.forward.0 -> Module.conv1.forward.0 (msprobe quirk)
        tokens.removeAt(dir - 1);
        return tokens.join(QLatin1Char('.'));
    }
    static const QRegularExpression counters(QStringLiteral("\\.\\d+(?=\\.|$)|_rank\\d+"));
    return QString(name).remove(counters);
}

bool isNpuOnlyOpType(const QString &type)
{
    static const QSet<QString> types{
        QStringLiteral("TransData"), QStringLiteral("TransDataRNN"), QStringLiteral("Cast"),
        QStringLiteral("AtomicAddrClean"), QStringLiteral("DynamicAtomicAddrClean"), QStringLiteral("MemSet"),
        QStringLiteral("MemcpyAsync"), QStringLiteral("NPUAllocFloatStatus"), QStringLiteral("NPUClearFloatStatus"),
        QStringLiteral("NPUGetFloatStatus"), QStringLiteral("Opdebug"),
    };
    return types.contains(type);
}

QString scopeKey(const DumpLevels &l)
{
    return l.step + QLatin1Char('/') + l.rank + QLatin1Char('/') + l.device + QLatin1Char('/') + l.dataIndex;
}

MatchResult matchIndexes(const DumpIndex &npu, const DumpIndex &bench, const MatchOptions &options)
{
    MatchResult result;
    QSet<QString> benchScopes;
    for (const auto &op : bench.ops)
        benchScopes.insert(scopeKey(*op.levels));
    const bool useScope = benchScopes.size() > 1;
    auto scopeOf = [&](const OpRecord &op) { return useScope ? scopeKey(*op.levels) : QString(); };

    RowTable table;
    for (size_t o = 0; o < bench.ops.size(); ++o) {
        const OpRecord &op = bench.ops[o];
        const QString scope = scopeOf(op), key = opMatchKey(op), fuzzyKey = fuzzyOpName(key);
        for (const int t : rowTensors(op)) {
            const TensorRecord &tr = op.tensors[size_t(t)];
            const int r = int(table.refs.size());
            table.refs.push_back({int(o), t});
            const QString tk = tensorMatchKey(op, tr);
            table.exact[join(scope, key, tk)].push_back(r);
            table.fuzzy[join(scope, fuzzyKey, tk)].push_back(r);
            table.byRowName[join(scope, key + QLatin1Char('.') + tk)].push_back(r);
        }
    }
    table.used.assign(table.refs.size(), 0);

    // User names and groups.
    QHash<QString, QString> names;
    if (options.mapping)
        for (const auto &[n, b] : options.mapping->names)
            names.insert(n, b);
    struct GroupRole { const UserMapping::Group *group; bool first, last; };
    QHash<QString, GroupRole> groupOf;
    QSet<QString> fusedBench; // bench operators fused into an NPU operator
    if (options.mapping)
        for (const auto &g : options.mapping->groups) {
            for (qsizetype i = 0; i < g.npu.size(); ++i)
                groupOf.insert(g.npu[i], {&g, i == 0, i == g.npu.size() - 1});
            for (const QString &b : g.bench)
                fusedBench.insert(b);
        }
    QSet<QString> seenNames;
    QHash<QString, int> npuOccurrences;
    for (const auto &op : npu.ops)
        for (const auto &tr : op.tensors)
            if (isRowTensor(tr))
                ++npuOccurrences[join(scopeOf(op), opMatchKey(op), tensorMatchKey(op, tr))];

    for (size_t o = 0; o < npu.ops.size(); ++o) {
        const OpRecord &op = npu.ops[o];
        const QString scope = scopeOf(op), key = opMatchKey(op);
        const auto group = groupOf.constFind(key);
        for (const int t : rowTensors(op)) {
            const TensorRecord &tr = op.tensors[size_t(t)];
            MatchedRow row;
            row.npu = {int(o), t};
            const QString tk = tensorMatchKey(op, tr), name = key + QLatin1Char('.') + tk;
            auto found = [&](int r, MatchSource s) {
                if (r < 0)
                    return false;
                row.bench = table.refs[size_t(r)];
                row.source = s;
                return true;
            };
            if (group != groupOf.cend()) {
                seenNames.insert(key);
                const bool in = tr.io() != IoKind::Output && group->first, out = tr.io() == IoKind::Output && group->last;
                const QString target = out ? group->group->bench.back() : group->group->bench.front();
                if (!((in || out) && found(table.take(table.exact, join(scope, target, tk)), MatchSource::User))) {
                    row.hasReason = true;
                    row.reason = ReasonCode::FusedAway;
                    row.notes << QStringLiteral("inside mapping group %1 -> %2; intermediate result not available")
                                     .arg(group->group->npu.join(QLatin1Char('+')), group->group->bench.join(QLatin1Char('+')));
                }
                result.rows.push_back(std::move(row));
                continue;
            }
            if (names.contains(name)) {
                seenNames.insert(name);
                found(table.take(table.byRowName, join(scope, names.value(name))), MatchSource::User);
            } else if (names.contains(key)) {
                seenNames.insert(key);
                found(table.take(table.exact, join(scope, names.value(key), tk)), MatchSource::User);
            }
            const QString exactKey = join(scope, key, tk);
            if (row.source == MatchSource::None && found(table.take(table.exact, exactKey), MatchSource::Exact)) {
                const qsizetype k = table.candidates(table.exact, exactKey);
                if (k != npuOccurrences.value(exactKey))
                    row.notes << QStringLiteral("ambiguous match (%1 candidates); paired in execution order").arg(k);
            }
            if (row.source == MatchSource::None && formatReader(op.source).opsAreFiles() && tr.io() == IoKind::Output
                && !tr.originalOpName().isEmpty() && tr.originalOpName() != key) {
                const int idx = tr.originalOutputIndex() >= 0 ? tr.originalOutputIndex() : int(tr.index());
                if (found(table.take(table.exact, join(scope, tr.originalOpName(), QStringLiteral("output.%1").arg(idx))),
                          MatchSource::Mapping))
                    row.notes << QStringLiteral("compared with original operator %1 output %2").arg(tr.originalOpName()).arg(idx);
            }
            if (row.source == MatchSource::None && options.fuzzy) {
                const int r = table.take(table.fuzzy, join(scope, fuzzyOpName(key), tk),
                                         [&](int c) { return bench.tensor(table.refs[size_t(c)]).shape() == tr.shape(); });
                if (found(r, MatchSource::Fuzzy) && opMatchKey(bench.op(row.bench)) != key)
                    row.notes << QStringLiteral("Fuzzy matching data, the comparison accuracy may be affected.");
            }
            if (row.source == MatchSource::None) {
                row.hasReason = true;
                row.reason = isNpuOnlyOpType(op.opType) ? ReasonCode::NpuOnly : ReasonCode::UnmatchedBench;
            }
            result.rows.push_back(std::move(row));
        }
    }

    QSet<QString> originals;
    for (const auto &op : npu.ops)
        for (const auto &tr : op.tensors)
            if (!tr.originalOpName().isEmpty() && tr.originalOpName() != opMatchKey(op))
                originals.insert(tr.originalOpName());
    for (size_t r = 0; r < table.refs.size(); ++r) {
        if (table.used[r])
            continue;
        const QString key = opMatchKey(bench.op(table.refs[r]));
        const bool fused = fusedBench.contains(key) || (originals.contains(key) && !names.contains(key));
        result.benchOnly.push_back({table.refs[r], fused ? ReasonCode::FusedAway : ReasonCode::UnmatchedBench});
    }
    if (options.mapping) {
        for (const auto &[n, b] : options.mapping->names)
            if (!seenNames.contains(n))
                result.warnings << QStringLiteral("mapping: \"%1\" names no operator or row of the NPU dump").arg(n);
        for (auto it = groupOf.cbegin(); it != groupOf.cend(); ++it)
            if (!seenNames.contains(it.key()))
                result.warnings << QStringLiteral("mapping group: \"%1\" names no operator of the NPU dump").arg(it.key());
        result.warnings.sort();
    }
    return result;
}

} // namespace ds
