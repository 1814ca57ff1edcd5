// The error each operator adds (addederror.h; docs/COMPARE.md "Error added per operator").
#include "addederror.h"

#include "compare.h"
#include "comparematch.h"
#include "msprobenames.h"

#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace ds {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// num / den with den 0: 0 when num is 0 too, else +inf.
double relative(double num, double den)
{
    if (std::isnan(num) || std::isnan(den))
        return AddedError::kNaN;
    if (den == 0)
        return num == 0 ? 0.0 : kInf;
    return num / den;
}

/// The relative error of the recorded (or computed) L2 norms of a row, NaN when either is missing.
double normRelativeError(const CompareRow &row)
{
    const MetricValue &n = row.npuStats[3], &b = row.benchStats[3];
    if (!n.isNumber() || !b.isNumber())
        return AddedError::kNaN;
    return relative(std::fabs(n.value - b.value), std::fabs(b.value));
}

bool isInputRow(const CompareRow &row, const AddedRowRole &role)
{
    return row.io == IoKind::Input || row.io == IoKind::Parameter || role.parameter;
}

} // namespace

QString addedInputsName(AddedInputs a)
{
    switch (a) {
    case AddedInputs::None: return QStringLiteral("none");
    case AddedInputs::Agree: return QStringLiteral("agree");
    case AddedInputs::ParameterDiffers: return QStringLiteral("parameter_differs");
    case AddedInputs::Differ: return QStringLiteral("differ");
    }
    return {};
}

double rowRelativeError(const CompareRow &row, CompareMode *basis)
{
    if (basis)
        *basis = CompareMode::Tensor;
    if (!row.compared())
        return AddedError::kNaN;
    if (row.identical)
        return 0.0;
    switch (row.mode) {
    case CompareMode::Tensor: {
        const PairMetrics &r = row.metrics.raw();
        if (r.count > 0) {
            if (r.infNanMismatch > 0)
                return kInf;
            return relative(r.eucDist, r.benchNorm);
        }
        if (basis) // no element-wise pass (shapes differ): the norms are all there is
            *basis = CompareMode::Summary;
        return normRelativeError(row);
    }
    case CompareMode::Summary:
        if (basis)
            *basis = CompareMode::Summary;
        return normRelativeError(row);
    case CompareMode::Md5:
    case CompareMode::Value:
    case CompareMode::None: break; // they differ, by how much is not known
    }
    return AddedError::kNaN;
}

std::vector<AddedError> computeAddedErrors(const DumpIndex &npu, const CompareResult &result,
                                           const std::vector<AddedRowRole> &roles)
{
    const std::vector<CompareRow> &rows = result.rows;
    const AddedRowRole none;
    // Pass 1, per operator (consecutive rows): its inputs' and outputs' worst relative errors.
    struct OpErrors
    {
        AddedError e;
        QString entry, scope;
        bool anyOutput = false, anyInput = false, dataBad = false, parameterBad = false;
        double in = 0, out = -1;
        QString inUnknown, outUnknown;
    };
    std::vector<OpErrors> ops;
    QHash<QString, size_t> forwardOf; // scope|entry of each forward entry -> ops
    for (size_t i = 0; i < rows.size();) {
        const int op = rows[i].npu.op;
        const size_t begin = i;
        while (i < rows.size() && rows[i].npu.op == op)
            ++i;
        OpErrors o;
        o.e.op = op;
        for (size_t r = begin; r < i; ++r) {
            const CompareRow &row = rows[r];
            const AddedRowRole &role = r < roles.size() ? roles[r] : none;
            const bool input = isInputRow(row, role);
            if (!input && row.io != IoKind::Output)
                continue; // buffers, workspaces
            CompareMode basis = CompareMode::Tensor;
            const double rel = rowRelativeError(row, &basis);
            if (input) {
                o.anyInput = true;
                const bool bad = roles.empty() ? row.compared() && !row.identical : role.bad;
                if (role.parameter || row.io == IoKind::Parameter)
                    o.parameterBad = o.parameterBad || bad;
                else
                    o.dataBad = o.dataBad || bad;
                if (std::isnan(rel)) {
                    if (o.inUnknown.isEmpty())
                        o.inUnknown = row.npuName;
                    continue;
                }
                if (o.e.worstInputRow < 0 || rel > o.in) {
                    o.e.worstInputRow = int(r);
                    o.in = rel;
                }
            } else {
                if (!row.compared())
                    continue;
                o.anyOutput = true;
                if (std::isnan(rel)) {
                    if (o.outUnknown.isEmpty())
                        o.outUnknown = row.npuName;
                    continue;
                }
                if (rel > o.out) {
                    o.out = rel;
                    o.e.worstOutputRow = int(r);
                }
            }
            if (basis == CompareMode::Summary)
                o.e.basis = CompareMode::Summary;
        }
        const OpRecord &record = npu.ops[size_t(op)];
        o.entry = opMatchKey(record);
        o.scope = scopeKey(*record.levels) + QLatin1Char('|');
        if (isForwardEntry(o.entry))
            forwardOf.insert(o.scope + o.entry, ops.size());
        ops.push_back(std::move(o));
    }

    // Pass 2: a backward entry computes from its forward entry's inputs too (saved activations
    // and weights), not only from the gradients msprobe lists as its inputs; then the numbers.
    static const QRegularExpression backwardToken(QStringLiteral("\\.backward(?=\\.|$)"));
    std::vector<AddedError> out;
    for (OpErrors &o : ops) {
        if (!o.anyOutput)
            continue; // no compared output: nothing to say about this operator
        AddedError &e = o.e;
        if (const auto m = backwardToken.match(o.entry); m.hasMatch()) {
            QString forward = o.entry;
            forward.replace(m.capturedStart(), m.capturedLength(), QStringLiteral(".forward"));
            if (const auto f = forwardOf.constFind(o.scope + forward); f != forwardOf.cend()) {
                const OpErrors &fw = ops[*f];
                o.anyInput = o.anyInput || fw.anyInput;
                o.dataBad = o.dataBad || fw.dataBad;
                o.parameterBad = o.parameterBad || fw.parameterBad;
                if (o.inUnknown.isEmpty())
                    o.inUnknown = fw.inUnknown;
                if (fw.e.worstInputRow >= 0 && (e.worstInputRow < 0 || fw.in > o.in)) {
                    o.in = fw.in;
                    e.worstInputRow = fw.e.worstInputRow;
                }
            }
        }
        e.inputs = !o.anyInput      ? AddedInputs::None
                   : o.dataBad      ? AddedInputs::Differ
                   : o.parameterBad ? AddedInputs::ParameterDiffers
                                    : AddedInputs::Agree;
        e.module = moduleNameOf(o.entry).isModule();
        e.inputRelErr = o.inUnknown.isEmpty() ? o.in : AddedError::kNaN;
        e.outputRelErr = o.outUnknown.isEmpty() && o.out >= 0 ? o.out : AddedError::kNaN;
        if (!o.inUnknown.isEmpty()) {
            e.note = QStringLiteral("input %1: relative error unknown (not compared, or md5/value row that differs)").arg(o.inUnknown);
        } else if (!o.outUnknown.isEmpty()) {
            e.note = QStringLiteral("output %1: relative error unknown (md5/value row that differs)").arg(o.outUnknown);
        } else if (std::isinf(e.inputRelErr) && std::isinf(e.outputRelErr)) {
            e.note = QStringLiteral("input and output errors are both infinite");
        } else {
            e.added = e.outputRelErr - e.inputRelErr;
            e.ratio = e.inputRelErr == 0 ? (e.outputRelErr == 0 ? AddedError::kNaN : kInf) : e.outputRelErr / e.inputRelErr;
        }
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<size_t> addedErrorRanking(const DumpIndex &npu, const CompareResult &result, const QString &scope, size_t limit)
{
    const std::vector<AddedError> &all = result.addedErrors;
    auto inScope = [&](const AddedError &e) {
        return scope.isEmpty() || scopeKey(*npu.ops[size_t(e.op)].levels) == scope;
    };
    bool calls = false; // operators that are not module entries have a number
    for (const AddedError &e : all)
        calls = calls || (!e.module && e.known() && inScope(e));
    std::vector<size_t> ranked;
    for (size_t k = 0; k < all.size(); ++k)
        if (all[k].known() && all[k].added > 0 && !(calls && all[k].module) && inScope(all[k]))
            ranked.push_back(k);
    std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) { return all[a].added > all[b].added; });
    if (ranked.size() > limit)
        ranked.resize(limit);
    return ranked;
}

const AddedError *addedErrorOf(const CompareResult &result, int op)
{
    const auto it = std::lower_bound(result.addedErrors.begin(), result.addedErrors.end(), op,
                                     [](const AddedError &e, int o) { return e.op < o; });
    if (it != result.addedErrors.end() && it->op == op)
        return &*it;
    // rows not in operator order (a table read from disk): look through all
    const auto found = std::find_if(result.addedErrors.begin(), result.addedErrors.end(), [&](const AddedError &e) { return e.op == op; });
    return found != result.addedErrors.end() ? &*found : nullptr;
}

} // namespace ds
