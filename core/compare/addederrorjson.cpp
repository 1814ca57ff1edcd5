// "added_error" and "added_error_ranking" of the compare JSON (addederrorjson.h).
#include "addederrorjson.h"

#include "compare.h"
#include "comparematch.h"

#include <nlohmann/json.hpp>

#include <QSet>
#include <cmath>

namespace ds {

namespace {

using json = nlohmann::ordered_json;

std::string s(const QString &q) { return q.toStdString(); }

/// A number; +inf as "inf", NaN as null.
json number(double v)
{
    if (std::isnan(v))
        return nullptr;
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    return v;
}

json rowName(const CompareResult &result, int row)
{
    return row >= 0 ? json(s(result.rows[size_t(row)].npuName)) : json(nullptr);
}

json entryJson(const DumpIndex &npu, const CompareResult &result, const AddedError &e)
{
    const OpRecord &op = npu.ops[size_t(e.op)];
    return {{"op", e.op},
            {"path", s(op.relPath)},
            {"name", s(opMatchKey(op))},
            {"type", s(op.opType)},
            {"scope", s(scopeKey(*op.levels))},
            {"basis", e.basis == CompareMode::Summary ? "norm" : "tensor"},
            {"input_rel_err", number(e.inputRelErr)},
            {"output_rel_err", number(e.outputRelErr)},
            {"added", number(e.added)},
            {"ratio", number(e.ratio)},
            {"inputs", s(addedInputsName(e.inputs))},
            {"worst_input", rowName(result, e.worstInputRow)},
            {"worst_output", rowName(result, e.worstOutputRow)},
            {"module", e.module},
            {"note", e.note.isEmpty() ? json(nullptr) : json(s(e.note))}};
}

} // namespace

json addedErrorJson(const DumpIndex &npu, const CompareResult &result)
{
    json a = json::array();
    for (const AddedError &e : result.addedErrors)
        a.push_back(entryJson(npu, result, e));
    return a;
}

json addedErrorRankingJson(const DumpIndex &npu, const CompareResult &result)
{
    QStringList scopes;
    QSet<QString> seen;
    for (const AddedError &e : result.addedErrors) {
        const QString scope = scopeKey(*npu.ops[size_t(e.op)].levels);
        if (!seen.contains(scope)) {
            seen.insert(scope);
            scopes << scope;
        }
    }
    json a = json::array();
    for (const QString &scope : scopes) {
        json ops = json::array();
        for (size_t k : addedErrorRanking(npu, result, scope, kAddedErrorRanked))
            ops.push_back(entryJson(npu, result, result.addedErrors[k]));
        a.push_back({{"scope", s(scope)}, {"ops", ops}});
    }
    return a;
}

} // namespace ds
