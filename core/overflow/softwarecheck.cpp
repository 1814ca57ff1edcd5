#include "softwarecheck.h"

#include "index/tensorloader.h"
#include "tensor/dtype.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

namespace ds {

namespace {


bool nonFinite(double v) { return !std::isfinite(v); }

/// The API of a framework entry as msprobe's ignore rules name it: its first two
/// dot-separated fields, lower case ("Torch.empty.0.forward" -> "torch.empty").
QString ruleApiName(const QString &entry)
{
    const qsizetype first = entry.indexOf(QLatin1Char('.'));
    if (first < 0)
        return entry.toLower();
    const qsizetype second = entry.indexOf(QLatin1Char('.'), first + 1);
    return (second < 0 ? entry : entry.left(second)).toLower();
}

/// Tensors whose NaN/Inf is expected (uninitialised memory that the call overwrites), from
/// the API list of msprobe's core/overflow_check/ignore_rules.yaml (overflow.md §14).
/// An ignored tensor counts as normal; the operator is still classified by its other tensors.
struct IgnoreRule
{
    const char *api;
    int inputIndex;          ///< positional argument, -1 none
    const char *inputName;   ///< keyword argument, nullptr none
    int outputIndex;         ///< output, -1 none
};

constexpr IgnoreRule kIgnoreRules[] = {
    {"torch.empty", -1, nullptr, 0},
    {"torch.empty_like", -1, nullptr, 0},
    {"torch.empty_strided", -1, nullptr, 0},
    {"distributed.recv", 0, "tensor", -1},
    {"distributed.all_gather", 0, nullptr, -1},
    {"distributed.reduce_scatter", 0, "output", -1},
    {"distributed._reduce_scatter_base", 0, nullptr, -1},
    {"distributed.all_gather_into_tensor", 0, nullptr, -1},
    {"distributed.reduce_scatter_tensor", 0, nullptr, -1},
    {"tensor.masked_fill_", 0, nullptr, -1},
};

/// The argument a framework leaf belongs to: "input_args.0.1" -> (0, ""), "input_kwargs.dim"
/// -> (-1, "dim"), "input.0" -> (0, ""), "output.1" -> (1, "").
std::pair<int, QString> argumentOf(const TensorCheck &t)
{
    if (t.name.isEmpty())
        return {int(t.index), QString()};
    const QString arg = t.name.section(QLatin1Char('.'), 1, 1);
    bool numeric = false;
    const int i = arg.toInt(&numeric);
    return numeric ? std::pair{i, QString()} : std::pair{-1, arg};
}

void applyIgnoreRules(const OpRecord &op, OpCheck &check)
{
    const QString api = ruleApiName(op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName());
    for (const IgnoreRule &rule : kIgnoreRules) {
        if (api != QLatin1String(rule.api))
            continue;
        for (TensorCheck &t : check.tensors) {
            const auto [index, name] = argumentOf(t);
            if (t.io == IoKind::Input)
                t.ignored = (rule.inputIndex >= 0 && index == rule.inputIndex)
                            || (rule.inputName && name == QLatin1String(rule.inputName));
            else if (t.io == IoKind::Output)
                t.ignored = rule.outputIndex >= 0 && index == rule.outputIndex;
        }
        return;
    }
}

bool recordedStatisticOverflow(const RecordedStats &r)
{
    return (r.has(RecordedStats::Mean) && nonFinite(r.mean)) || (r.has(RecordedStats::Norm) && nonFinite(r.norm));
}

/// Largest Norm of the tensors of one kind, NaN norms skipped and infinite ones kept (as
/// msprobe's numerical-mutation scene does). `any` tells whether there was one.
double maxNorm(const OpCheck &c, IoKind io, bool &any)
{
    double m = 0;
    any = false;
    for (const auto &t : c.tensors) {
        if (t.io != io || t.source == CheckSource::None)
            continue;
        const double n = t.source == CheckSource::Recorded ? (t.recorded.has(RecordedStats::Norm) ? t.recorded.norm : NAN)
                                                           : t.stats.l2norm;
        if (std::isnan(n))
            continue;
        any = true;
        m = std::max(m, n);
    }
    return m;
}

QString numberText(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
    return QString::number(v, 'g', 6);
}

const TensorCheck *firstStatisticOverflow(const OpCheck &c)
{
    for (const auto &t : c.tensors)
        if (t.io == IoKind::Output && t.statisticOverflow)
            return &t;
    return nullptr;
}

} // namespace

QString TensorCheck::label() const
{
    return name.isEmpty() ? ioKindName(io) + QLatin1Char('.') + QString::number(index) : name;
}

bool TensorCheck::anomalous() const
{
    if (ignored)
        return false;
    switch (source) {
    case CheckSource::Data: return stats.nan || stats.posinf || stats.neginf || saturated;
    case CheckSource::Recorded:
        return (recorded.has(RecordedStats::Max) && nonFinite(recorded.max)) || (recorded.has(RecordedStats::Min) && nonFinite(recorded.min))
               || saturated;
    case CheckSource::None: break;
    }
    return false;
}

bool OpCheck::anyInputAnomalous() const
{
    return std::any_of(tensors.begin(), tensors.end(),
                       [](const TensorCheck &t) { return (t.io == IoKind::Input || t.io == IoKind::Parameter) && t.anomalous(); });
}

bool OpCheck::anyOutputAnomalous() const
{
    return std::any_of(tensors.begin(), tensors.end(), [](const TensorCheck &t) { return t.io == IoKind::Output && t.anomalous(); });
}

bool OpCheck::anyOutputStatisticOverflow() const { return firstStatisticOverflow(*this) != nullptr; }

QString overflowLevelName(OverflowLevel l)
{
    switch (l) {
    case OverflowLevel::Critical: return QStringLiteral("critical");
    case OverflowLevel::High: return QStringLiteral("high");
    case OverflowLevel::Medium: return QStringLiteral("medium");
    case OverflowLevel::None: break;
    }
    return {};
}

TensorCheck checkRecorded(const TensorRecord &t)
{
    TensorCheck c;
    c.io = t.io();
    c.index = t.index();
    c.name = t.name();
    c.dataType = t.dataType();
    c.recorded = t.recorded();
    if (!t.recorded().present) {
        c.source = CheckSource::None;
        return c;
    }
    c.source = CheckSource::Recorded;
    const RecordedStats r = t.recorded();
    if (r.has(RecordedStats::Max))
        c.stats.max = r.max;
    if (r.has(RecordedStats::Min))
        c.stats.min = r.min;
    if (r.has(RecordedStats::Mean))
        c.stats.mean = r.mean;
    if (r.has(RecordedStats::Norm))
        c.stats.l2norm = r.norm;
    // Saturation mode clamps to the dtype's finite extreme: a recorded Max or Min equal to it
    // means at least one saturated element (the count itself was not recorded).
    const double limit = saturationLimit(dataTypeInfo(t.dataType()).elem);
    if (limit > 0 && ((r.has(RecordedStats::Max) && std::fabs(r.max) == limit) || (r.has(RecordedStats::Min) && std::fabs(r.min) == limit)))
        c.saturated = 1;
    const bool valuesNonFinite = (r.has(RecordedStats::Max) && nonFinite(r.max)) || (r.has(RecordedStats::Min) && nonFinite(r.min));
    c.statisticOverflow = !valuesNonFinite && !c.saturated && recordedStatisticOverflow(r);
    return c;
}

OpCheck checkOp(const DumpIndex &index, int op, const JobControl *job)
{
    OpCheck check;
    const OpRecord &rec = index.ops[size_t(op)];
    const auto &tensors = rec.tensors;
    for (size_t t = 0; t < tensors.size(); ++t) {
        const TensorRecord &tr = tensors[t];
        if ((tr.io() != IoKind::Input && tr.io() != IoKind::Output && tr.io() != IoKind::Parameter) || !tr.isTensor())
            continue;
        if (tr.storage() == TensorStorage::Absent) {
            check.tensors.push_back(checkRecorded(tr));
            continue;
        }
        TensorCheck c;
        c.io = tr.io();
        c.index = tr.index();
        c.name = tr.name();
        c.dataType = tr.dataType();
        auto loaded = loadTensor(index, {op, int(t)}, LayoutChoice::Logical, job);
        if (!loaded) {
            if (tr.recorded().present) { // judge from what was recorded, and say why
                c = checkRecorded(tr);
                c.error = QCoreApplication::translate("ds::Overflow", "cannot load (%1); judged from the recorded statistics").arg(loaded.errorText());
            } else {
                c.source = CheckSource::None;
                c.error = loaded.errorText();
            }
        } else {
            computeStats((*loaded)->view, c.stats, job);
            c.saturated = countSaturated((*loaded)->view);
            c.recorded = tr.recorded();
            // Values finite, but the producer's Mean/Norm of them overflowed (its dtype's range).
            c.statisticOverflow = !c.stats.nan && !c.stats.posinf && !c.stats.neginf && !c.saturated && recordedStatisticOverflow(tr.recorded());
        }
        check.tensors.push_back(std::move(c));
    }
    applyIgnoreRules(rec, check);
    return check;
}

SoftwareFinding classify(int op, const OpCheck &c)
{
    SoftwareFinding f;
    f.op = op;
    const bool classified = std::any_of(c.tensors.begin(), c.tensors.end(),
                                        [](const TensorCheck &t) { return t.io == IoKind::Input || t.io == IoKind::Output; });
    if (!classified)
        return f;
    const bool in = c.anyInputAnomalous(), out = c.anyOutputAnomalous();
    f.valueAnomaly = in || out;
    f.statisticOverflow = !out && c.anyOutputStatisticOverflow();
    if (!in && out) {
        f.level = OverflowLevel::Critical;
        f.reason = QCoreApplication::translate("ds::Overflow", "inputs normal, outputs hold NaN/Inf or saturated values: overflow produced here");
    } else if (in && out) {
        f.level = OverflowLevel::High;
        f.reason = QCoreApplication::translate("ds::Overflow", "inputs and outputs abnormal: propagated from upstream");
    } else if (in) {
        f.level = OverflowLevel::Medium;
        f.reason = QCoreApplication::translate("ds::Overflow", "inputs abnormal, outputs normal");
    } else {
        bool hasIn = false, hasOut = false;
        const double normIn = maxNorm(c, IoKind::Input, hasIn), normOut = maxNorm(c, IoKind::Output, hasOut);
        if (hasIn && hasOut && ((normIn > 0 && normOut / normIn > 100) || (normIn == 0 && normOut > 100))) {
            f.level = OverflowLevel::High;
            f.reason = QCoreApplication::translate("ds::Overflow", "numerical mutation: output norm %1 vs input norm %2").arg(numberText(normOut), numberText(normIn));
        }
    }
    if (const TensorCheck *s = f.statisticOverflow ? firstStatisticOverflow(c) : nullptr) {
        const bool norm = s->recorded.has(RecordedStats::Norm) && nonFinite(s->recorded.norm);
        const QString what = QCoreApplication::translate("ds::Overflow", "%1: values finite (max %2, min %3) but the recorded %4 overflowed to %5: the values are near the range limit of %6")
                                 .arg(s->label(), numberText(s->stats.max), numberText(s->stats.min),
                                      norm ? QStringLiteral("Norm") : QStringLiteral("Mean"),
                                      numberText(norm ? s->recorded.norm : s->recorded.mean), dataTypeName(s->dataType));
        f.reason = f.reason.isEmpty() ? QCoreApplication::translate("ds::Overflow", "statistic overflow: %1").arg(what) : f.reason + QStringLiteral("; ") + what;
    }
    return f;
}

SoftwareFinding registerFinding(int op, bool firstInScope)
{
    SoftwareFinding f;
    f.op = op;
    f.valueAnomaly = true;
    f.nanCheck = true;
    // The register is cleared before each call: the first call that sets it in a step is where
    // NaN/Inf arose; later ones may only carry it on (nan_check records no values to tell).
    if (firstInScope) {
        f.level = OverflowLevel::Critical;
        f.reason = QCoreApplication::translate("ds::Overflow", "nan_check: the NPU overflow register was set during this call (is_nan 1), "
                                                               "the first call of the step to set it: NaN/Inf arose here (or a process overflow: "
                                                               "an intermediate value overflowed though the outputs may be finite)");
    } else {
        f.level = OverflowLevel::High;
        f.reason = QCoreApplication::translate("ds::Overflow", "nan_check: the NPU overflow register was set during this call (is_nan 1), "
                                                               "after an earlier call set it: likely propagated from upstream");
    }
    return f;
}

bool isOpDebug(const OpRecord &op)
{
    if (op.opDebug)
        return true;
    if (op.headerOpName() != QLatin1String("Node_OpDebug") || op.count(IoKind::Output) != 1 || op.count(IoKind::Input) != 0)
        return false;
    const TensorRecord *out = op.tensor(IoKind::Output, 0);
    return out && out->dataType() == int(DataType::UInt8) && out->size() == 2048;
}

bool isCommunicationOp(const OpRecord &op)
{
    const QString &name = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    if (!name.startsWith(QLatin1String("Distributed.")))
        return false;
    static const char *const kApis[] = {"send", "recv", "broadcast", "all_reduce", "reduce", "all_gather", "gather", "isend",
                                        "irecv", "scatter", "reduce_scatter", "_reduce_scatter_base", "_all_gather_base",
                                        "all_to_all_single", "all_to_all", "all_gather_into_tensor", "reduce_scatter_tensor",
                                        "send_object_list", "recv_object_list"};
    const QString api = name.section(QLatin1Char('.'), 1, 1);
    return std::any_of(std::begin(kApis), std::end(kApis), [&](const char *a) { return api == QLatin1String(a); });
}

QString OverflowScope::label() const
{
    const DumpLevels &l = *levels;
    QStringList parts;
    for (const QString *v : {&l.part, &l.time, &l.step, &l.rank, &l.device, &l.modelName, &l.modelId, &l.dataIndex})
        if (!v->isEmpty())
            parts << *v;
    return parts.join(QLatin1Char('/'));
}

std::vector<OverflowScope> overflowScopes(const DumpIndex &index)
{
    std::vector<OverflowScope> scopes;
    auto same = [](const DumpLevels &a, const DumpLevels &b) {
        return a.part == b.part && a.run == b.run && a.time == b.time && a.step == b.step && a.rank == b.rank && a.device == b.device
               && a.modelName == b.modelName && a.modelId == b.modelId && a.dataIndex == b.dataIndex;
    };
    for (int o = 0; o < int(index.ops.size()); ++o) {
        const OpRecord &op = index.ops[size_t(o)];
        if (scopes.empty() || !same(*scopes.back().levels, *op.levels)) {
            OverflowScope s;
            s.begin = o;
            s.levels = op.levels;
            scopes.push_back(std::move(s));
        }
        scopes.back().end = o + 1;
    }
    return scopes;
}

bool ScopeScan::firstIsCommunication(const DumpIndex &index) const
{
    return first >= 0 && isCommunicationOp(index.ops[size_t(findings[size_t(first)].op)]);
}

ScopeScan scanScope(const DumpIndex &index, const OverflowScope &scope, std::map<int, OpCheck> *checks, const JobControl *job)
{
    ScopeScan scan;
    scan.scope = scope;
    const int count = std::max(1, scope.end - scope.begin);
    for (int o = scope.begin; o < scope.end; ++o) {
        if (job && job->cancelled()) {
            scan.cancelled = true;
            break;
        }
        const OpRecord &op = index.ops[size_t(o)];
        if (isOpDebug(op))
            continue;
        OpCheck check;
        if (checks && checks->count(o))
            check = checks->at(o);
        else
            check = checkOp(index, o, job);
        SoftwareFinding f = classify(o, check);
        if (f.level == OverflowLevel::None && op.nanCheck == NanCheck::Overflow)
            f = registerFinding(o, scan.first < 0);
        if (f.level != OverflowLevel::None || f.statisticOverflow) {
            const int at = int(scan.findings.size());
            scan.findings.push_back(f);
            if (f.valueAnomaly && scan.first < 0)
                scan.first = at;
            if (f.level == OverflowLevel::Critical && scan.producer < 0)
                scan.producer = at;
            if (f.statisticOverflow && scan.first < 0 && scan.precursor < 0)
                scan.precursor = at;
            if (checks)
                (*checks)[o] = std::move(check);
        }
        if (job)
            job->report(int(1000LL * (o - scope.begin + 1) / count));
    }
    return scan;
}

} // namespace ds
