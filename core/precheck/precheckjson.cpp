// The JSON of `dumpscope-cli precheck` (precheck.h, README "precheck").
#include "precheck.h"

#include "tensor/dtype.h"

#include <QJsonArray>
#include <cmath>

namespace ds::precheck {

namespace {

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); // JSON has no NaN/Inf: null
}

QJsonArray shapeJson(const Shape &s)
{
    QJsonArray a;
    for (auto d : s)
        a.append(double(d));
    return a;
}

QJsonObject errorJson(const Error &e)
{
    return {{QStringLiteral("file"), e.file}, {QStringLiteral("kind"), QString::fromLatin1(errorKindName(e.kind))}, {QStringLiteral("message"), e.message}};
}

QJsonObject comparisonJson(const PairComparison &c)
{
    const PairMetrics &m = c.metrics;
    const double cosine = m.npuNorm > 0 && m.benchNorm > 0 ? m.dot / (m.npuNorm * m.benchNorm) : std::nan("");
    QJsonArray worst;
    for (const ElementDiff &d : c.detail.worst)
        worst.append(QJsonObject{{QStringLiteral("index"), double(d.index)}, {QStringLiteral("position"), shapeJson(d.position)},
                                 {QStringLiteral("device"), number(d.npu)}, {QStringLiteral("bench"), number(d.bench)},
                                 {QStringLiteral("abs_err"), number(d.absErr)}, {QStringLiteral("rel_err"), number(d.relErr)}});
    return {{QStringLiteral("bench_dtype"), dataTypeName(c.benchType)}, {QStringLiteral("device_dtype"), dataTypeName(c.deviceType)},
            {QStringLiteral("bench_shape"), shapeJson(c.benchShape)}, {QStringLiteral("device_shape"), shapeJson(c.deviceShape)},
            {QStringLiteral("count"), double(m.count)}, {QStringLiteral("cosine"), number(cosine)},
            {QStringLiteral("max_abs_err"), number(m.maxAbsErr)}, {QStringLiteral("max_rel_err"), number(m.maxRelErr)},
            {QStringLiteral("mean_abs_err"), number(m.meanAbsErr)}, {QStringLiteral("rmse"), number(m.rmse)},
            {QStringLiteral("inf_nan_mismatch"), double(m.infNanMismatch)}, {QStringLiteral("exactly_equal"), double(c.detail.exactlyEqual)},
            {QStringLiteral("worst"), worst}};
}

} // namespace

QJsonObject precheckJson(const PrecheckDocument &doc, const std::vector<std::optional<Result<PairComparison>>> &comparisons)
{
    QJsonArray tables;
    for (const PrecheckTable &t : doc.tables) {
        QJsonArray columns;
        for (const QString &h : t.header) {
            QJsonObject c{{QStringLiteral("name"), h}};
            if (const ColumnInfo *info = columnInfo(t.kind, h)) {
                c.insert(QStringLiteral("meaning"), QString::fromUtf8(info->meaning));
                if (*info->threshold)
                    c.insert(QStringLiteral("threshold"), QString::fromUtf8(info->threshold));
            } else {
                c.insert(QStringLiteral("unknown"), true);
            }
            columns.append(c);
        }
        QJsonArray rows;
        for (const PrecheckRow &r : t.rows) {
            QJsonObject row{{QStringLiteral("api"), r.api}, {QStringLiteral("status"), statusWord(r.status)}, {QStringLiteral("line"), r.line},
                            {QStringLiteral("cells"), QJsonArray::fromStringList(r.cells)}};
            if (!r.output.isEmpty())
                row.insert(QStringLiteral("output"), r.output);
            if (t.kind == TableKind::Result || t.kind == TableKind::PrecisionResult) {
                row.insert(QStringLiteral("forward"), statusWord(r.forward));
                row.insert(QStringLiteral("backward"), statusWord(r.backward));
            }
            rows.append(row);
        }
        QJsonObject counts;
        for (Status s : {Status::Pass, Status::Warning, Status::Error, Status::Skip})
            counts.insert(statusWord(s), t.count(s));
        tables.append(QJsonObject{{QStringLiteral("kind"), tableKindName(t.kind)}, {QStringLiteral("file"), t.file},
                                  {QStringLiteral("columns"), columns}, {QStringLiteral("rows"), rows}, {QStringLiteral("counts"), counts}});
    }
    QJsonArray failed;
    for (size_t i = 0; i < doc.failed.size(); ++i) {
        const FailedPair &p = doc.failed[i];
        QJsonObject o{{QStringLiteral("api"), p.api}, {QStringLiteral("output"), p.output()}, {QStringLiteral("bench"), p.benchFile},
                      {QStringLiteral("device"), p.deviceFile}, {QStringLiteral("inputs"), QJsonArray::fromStringList(p.inputFiles)}};
        if (i < comparisons.size() && comparisons[i]) {
            const auto &c = *comparisons[i];
            if (c)
                o.insert(QStringLiteral("comparison"), comparisonJson(*c));
            else
                o.insert(QStringLiteral("error"), errorJson(c.error()));
        }
        failed.append(o);
    }
    QJsonArray errors;
    for (const Error &e : doc.errors)
        errors.append(errorJson(e));
    return {{QStringLiteral("path"), doc.root}, {QStringLiteral("tables"), tables}, {QStringLiteral("failed"), failed},
            {QStringLiteral("errors"), errors}};
}

} // namespace ds::precheck
