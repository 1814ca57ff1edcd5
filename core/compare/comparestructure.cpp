// What the structure regions of an aligned compare (comparematch.h rule 4) found: the text
// users read ("blocks.0.mlp.fc1: bench Functional.linear.1.forward vs NPU Tensor.t.0.forward
// + Torch.matmul.0.forward + Tensor.__add__.0.forward") and whether the region's result agrees.

#include "compare.h"

#include <QHash>
#include <QRegularExpression>

namespace ds {

QString structureOutcomeName(StructureFinding::Outcome o)
{
    switch (o) {
    case StructureFinding::Outcome::Equal: return QStringLiteral("equal");
    case StructureFinding::Outcome::Differs: return QStringLiteral("differs");
    case StructureFinding::Outcome::NotCompared: return QStringLiteral("not_compared");
    }
    return {};
}

QString StructureFinding::where() const
{
    // "Module.blocks.0.mlp.fc1.Linear.forward.0" -> "blocks.0.mlp.fc1"
    static const QRegularExpression tail(QStringLiteral("\\.[^.]+\\.(?:forward|backward)\\.\\d+$"));
    QString where = module;
    if (where.startsWith(QLatin1String("Module.")) || where.startsWith(QLatin1String("Cell.")))
        where = where.mid(where.indexOf(QLatin1Char('.')) + 1).remove(tail);
    return where;
}

QString StructureFinding::text() const
{
    QString where = this->where();
    if (where.isEmpty())
        where = QStringLiteral("(top level)");
    const QString plus = QStringLiteral(" + ");
    if (npuOps.isEmpty())
        return QStringLiteral("%1: only in the bench: %2").arg(where, benchOps.join(plus));
    if (benchOps.isEmpty())
        return QStringLiteral("%1: only on the NPU: %2").arg(where, npuOps.join(plus));
    return QStringLiteral("%1: bench %2 vs NPU %3").arg(where, benchOps.join(plus), npuOps.join(plus));
}

std::vector<StructureFinding> structureFindings(const DumpIndex &npu, const DumpIndex &bench,
                                                const std::vector<StructureRegion> &regions, const CompareResult &result,
                                                Verdict level)
{
    std::vector<StructureFinding> out;
    if (regions.empty())
        return out;
    const Verdict statsLevel = std::min(level, Verdict::Warning);
    // the output rows of every NPU operator, by operator index
    QHash<int, std::vector<size_t>> outputs;
    QHash<QString, int> npuOpByName; // "<scope>|<entry>" -> NPU operator
    for (size_t i = 0; i < result.rows.size(); ++i)
        if (result.rows[i].io == IoKind::Output)
            outputs[result.rows[i].npu.op].push_back(i);
    for (size_t o = 0; o < npu.ops.size(); ++o)
        npuOpByName.insert(scopeKey(*npu.ops[o].levels) + QLatin1Char('|') + opMatchKey(npu.ops[o]), int(o));
    // Equal / Differs / NotCompared of the output rows of `op` (only the aligned ones when asked)
    auto judge = [&](int op, bool alignedOnly) {
        bool any = false, bad = false;
        for (const size_t i : outputs.value(op)) {
            const CompareRow &row = result.rows[i];
            if (!row.compared() || (alignedOnly && row.source != MatchSource::Aligned))
                continue;
            any = true;
            bad = bad || row.verdict >= (row.mode == CompareMode::Tensor ? level : statsLevel);
        }
        return !any ? StructureFinding::Outcome::NotCompared
                    : bad ? StructureFinding::Outcome::Differs : StructureFinding::Outcome::Equal;
    };
    for (const StructureRegion &r : regions) {
        StructureFinding f;
        f.module = r.module;
        f.scope = !r.npuOps.empty() ? scopeKey(*npu.ops[size_t(r.npuOps.front())].levels)
                                    : scopeKey(*bench.ops[size_t(r.benchOps.front())].levels);
        for (const int o : r.npuOps)
            f.npuOps << opMatchKey(npu.ops[size_t(o)]);
        for (const int o : r.benchOps)
            f.benchOps << opMatchKey(bench.ops[size_t(o)]);
        if (!r.npuOps.empty() && !r.benchOps.empty())
            f.outcome = judge(r.npuOps.back(), true);
        if (f.outcome == StructureFinding::Outcome::NotCompared && !r.module.isEmpty()) {
            const int m = npuOpByName.value(f.scope + QLatin1Char('|') + r.module, -1);
            if (m >= 0)
                f.outcome = judge(m, false);
        }
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace ds
