#include "comparegaps.h"

#include <QHash>

namespace ds {

CompareGaps CompareGaps::build(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result)
{
    CompareGaps out;
    if (result.structure.empty())
        return out;
    // "<scope>|<entry>" -> region, per side (a finding names its operators by opMatchKey; its
    // scope is that of its operators, the bench's when only the bench has some)
    QHash<QString, int> npuRegion, benchRegion;
    for (size_t r = 0; r < result.structure.size(); ++r) {
        const StructureFinding &f = result.structure[r];
        for (const QString &op : f.npuOps)
            npuRegion.insert(f.scope + QLatin1Char('|') + op, int(r));
        for (const QString &op : f.benchOps)
            benchRegion.insert(f.scope + QLatin1Char('|') + op, int(r));
    }
    auto key = [](const OpRecord &op) -> QString { return scopeKey(*op.levels) + QLatin1Char('|') + opMatchKey(op); };
    out.rowRegion.assign(result.rows.size(), -1);
    QHash<int, int> npuOpRegion; // rows of one operator share its key
    for (size_t i = 0; i < result.rows.size(); ++i) {
        const int op = result.rows[i].npu.op;
        if (op < 0)
            continue;
        auto it = npuOpRegion.find(op);
        if (it == npuOpRegion.end())
            it = npuOpRegion.insert(op, npuRegion.value(key(npu.ops[size_t(op)]), -1));
        out.rowRegion[i] = *it;
    }
    for (const BenchOnlyRow &b : result.benchOnly) {
        if (b.bench.op < 0)
            continue;
        const int region = benchRegion.value(key(bench.op(b.bench)), -1);
        if (region >= 0)
            out.benchRows.push_back({b.bench, region, b.reason});
    }
    return out;
}

} // namespace ds
