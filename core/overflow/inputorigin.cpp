#include "inputorigin.h"

#include "dump/levels.h"

#include <QCoreApplication>
#include <cmath>

namespace ds {

namespace {

/// The step and rank of a scope as the run tree names them (run/runtree.h, not included here:
/// core/run builds on core/overflow): a step level, else the CANN iteration; a rank level,
/// else the device.
QString stepOf(const DumpLevels &l) { return l.step.isEmpty() ? l.dataIndex : l.step; }
QString rankOf(const DumpLevels &l) { return l.rank.isEmpty() ? l.device : l.rank; }
/// The number a step level ends with ("step12" -> 12, "3" -> 3), -1 none.
qint64 stepNumber(const QString &step)
{
    qsizetype digits = step.size();
    while (digits > 0 && step[digits - 1].isDigit() && step[digits - 1].unicode() < 128)
        --digits;
    bool ok = false;
    const qint64 n = step.mid(digits).toLongLong(&ok);
    return ok ? n : -1;
}

QString entryName(const OpRecord &op) { return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName(); }

QString number(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
    return QString::number(v, 'g', 6);
}

/// Equal recorded statistics, NaN equal to NaN: the same tensor seen by two entries.
bool sameStatistics(const RecordedStats &a, const RecordedStats &b)
{
    if (a.present != b.present || !a.present)
        return false;
    auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
    return same(a.max, b.max) && same(a.min, b.min) && same(a.mean, b.mean) && same(a.norm, b.norm);
}

bool finiteStatistics(const RecordedStats &r)
{
    for (const auto &[field, v] : {std::pair{RecordedStats::Max, r.max}, {RecordedStats::Min, r.min}})
        if (r.has(field) && !std::isfinite(v))
            return false;
    return r.has(RecordedStats::Max) || r.has(RecordedStats::Min);
}

/// "NaN", "Inf" or "abnormal" for a tensor's recorded statistics.
QString what(const RecordedStats &r)
{
    for (double v : {r.max, r.min, r.mean, r.norm})
        if (std::isnan(v))
            return QStringLiteral("NaN");
    for (double v : {r.max, r.min})
        if (std::isinf(v))
            return QStringLiteral("Inf");
    return QCoreApplication::translate("ds::Overflow", "abnormal");
}

bool sameTensor(const TensorRecord &a, const TensorRecord &b)
{
    return a.isTensor() && b.isTensor() && a.dataType() == b.dataType() && a.shape() == b.shape() && sameStatistics(a.recorded(), b.recorded());
}

/// The module path of a module entry: "Module.fc1.Linear.forward.0" -> "fc1" (msprobe names).
QString modulePath(const QString &entry)
{
    const QStringList parts = entry.split(QLatin1Char('.'));
    if (parts.size() < 5 || parts.front() != QLatin1String("Module"))
        return {};
    return parts.mid(1, parts.size() - 4).join(QLatin1Char('.'));
}

/// "parameters.weight" -> "weight".
QString leafName(const QString &label) { return label.section(QLatin1Char('.'), -1); }

/// The scope of `scopes` that is the previous step of the same rank (same run and other levels).
int previousStep(const std::vector<ScopeScan> &scopes, size_t of)
{
    const DumpLevels &l = *scopes[of].scope.levels;
    const qint64 step = stepNumber(stepOf(l));
    if (step < 0)
        return -1;
    int best = -1;
    qint64 bestStep = -1;
    for (size_t i = 0; i < scopes.size(); ++i) {
        const DumpLevels &m = *scopes[i].scope.levels;
        if (m.part != l.part || m.run != l.run || m.time != l.time || m.modelName != l.modelName || m.modelId != l.modelId
            || rankOf(m) != rankOf(l))
            continue;
        const qint64 s = stepNumber(stepOf(m));
        if (s >= 0 && s < step && s > bestStep) {
            best = int(i);
            bestStep = s;
        }
    }
    return best;
}

QString tensorLabel(const TensorRecord &t)
{
    return t.name().isEmpty() ? ioKindName(t.io()) + QLatin1Char('.') + QString::number(t.index()) : t.name();
}

InputOrigin explain(const DumpIndex &index, const std::vector<ScopeScan> &scopes, size_t scopeAt, const OpRecord &first,
                    const TensorRecord &input)
{
    const ScopeScan &scan = scopes[scopeAt];
    InputOrigin o;
    o.tensor = tensorLabel(input);
    // The parameter it is: itself, or a module parameter of the scope with the same values.
    if (input.io() == IoKind::Parameter) {
        o.module = entryName(first);
    } else {
        for (int p = scan.scope.begin; p < scan.scope.end && o.module.isEmpty(); ++p)
            for (const TensorRecord &t : index.ops[size_t(p)].tensors)
                if (t.io() == IoKind::Parameter && sameTensor(t, input)) {
                    o.module = entryName(index.ops[size_t(p)]);
                    o.parameter = tensorLabel(t); // as labelled there
                    break;
                }
    }
    const QString paramLabel = input.io() == IoKind::Parameter ? o.tensor : o.parameter;
    if (!o.module.isEmpty() && !modulePath(o.module).isEmpty())
        o.parameter = modulePath(o.module) + QLatin1Char('.') + leafName(paramLabel);
    else if (input.io() != IoKind::Parameter)
        o.parameter.clear();

    const int prev = previousStep(scopes, scopeAt);
    if (prev >= 0) {
        const ScopeScan &p = scopes[size_t(prev)];
        o.previousScope = scopeIdOf(*p.scope.levels);
        const QString firstEntry = entryName(first);
        for (int op = p.scope.end - 1; op >= p.scope.begin && o.writer.isEmpty(); --op) {
            const OpRecord &rec = index.ops[size_t(op)];
            for (const TensorRecord &t : rec.tensors)
                if (t.io() == IoKind::Output && sameTensor(t, input)) { // the last write of those values
                    o.writer = entryName(rec);
                    o.writerTensor = tensorLabel(t);
                    break;
                }
        }
        if (o.writer.isEmpty()) // where the same tensor was last seen with finite values
            for (int op = p.scope.end - 1; op >= p.scope.begin && o.lastNormal.isEmpty(); --op) {
                const OpRecord &rec = index.ops[size_t(op)];
                const QString entry = entryName(rec);
                for (const TensorRecord &t : rec.tensors) {
                    const QString label = tensorLabel(t);
                    const bool same = (entry == firstEntry && label == o.tensor && t.io() == input.io())
                                      || (!o.module.isEmpty() && entry == o.module && t.io() == IoKind::Parameter && label == paramLabel);
                    if (same && t.isTensor() && t.dataType() == input.dataType() && t.shape() == input.shape() && finiteStatistics(t.recorded())) {
                        o.lastNormal = entry;
                        o.lastNormalTensor = label;
                        const RecordedStats r = t.recorded();
                        o.lastNormalTensor += QStringLiteral(" (Max %1, Min %2)").arg(number(r.max), number(r.min));
                        break;
                    }
                }
            }
    }

    // One sentence.
    const QString name = o.parameter.isEmpty() ? o.tensor
                                               : QCoreApplication::translate("ds::Overflow", "%1 (%2, parameter of %3)").arg(o.tensor, o.parameter, o.module);
    const QString scope = scopeIdOf(*scan.scope.levels);
    o.text = QCoreApplication::translate("ds::Overflow", "%1 was already %2 when %3 began (no operator before it in this step produced it)").arg(name, what(input.recorded()), scope);
    if (prev < 0)
        o.text += QStringLiteral("; ") + QCoreApplication::translate("ds::Overflow", "no earlier step of this rank is in the dump");
    else if (!o.writer.isEmpty())
        o.text += QStringLiteral("; ") + QCoreApplication::translate("ds::Overflow", "written in %1 by %2 (its %3 has the same shape, dtype and statistics)")
                                             .arg(o.previousScope, o.writer, o.writerTensor);
    else if (!o.lastNormal.isEmpty())
        o.text += QStringLiteral("; ") + QCoreApplication::translate("ds::Overflow", "last seen normal in %1 at %2 %3: it changed between the two steps outside the dump "
                                            "(e.g. the optimizer step, when it is not dumped)")
                                             .arg(o.previousScope, o.lastNormal, o.lastNormalTensor);
    else
        o.text += QStringLiteral("; ") + QCoreApplication::translate("ds::Overflow", "not found in %1 with these values or with finite ones").arg(o.previousScope);
    return o;
}

} // namespace

void explainFirstAnomalyInputs(const DumpIndex &index, OverflowReport &report)
{
    for (size_t s = 0; s < report.scopes.size(); ++s) {
        ScopeScan &scan = report.scopes[s];
        if (scan.first < 0)
            continue;
        SoftwareFinding &f = scan.findings[size_t(scan.first)];
        if (f.level != OverflowLevel::High && f.level != OverflowLevel::Medium)
            continue; // its inputs were normal: nothing came from elsewhere
        const auto check = report.checks.find(f.op);
        if (check == report.checks.end() || scan.firstIsCommunication(index))
            continue; // a communication op receives what other ranks sent (firstScopeOf)
        const OpRecord &op = index.ops[size_t(f.op)];
        for (const TensorCheck &t : check->second.tensors) {
            if ((t.io != IoKind::Input && t.io != IoKind::Parameter) || !t.anomalous())
                continue;
            const TensorRecord *rec = op.tensor(t.io, t.index);
            if (!rec || !rec->recorded().present)
                continue; // recorded statistics only: nothing is loaded to find where it came from
            f.origins.push_back(explain(index, report.scopes, s, op, *rec));
            f.reason += QStringLiteral("; ") + f.origins.back().text;
        }
        for (SoftwareFinding &flat : report.findings) // the same finding in the flat list
            if (flat.op == f.op)
                flat = f;
    }
}

} // namespace ds
