// The JSON of `dumpscope-cli monitor` (monitor.h, README "monitor").
#include "monitor.h"

#include <QJsonArray>
#include <cmath>

namespace ds::monitor {

namespace {

QJsonValue number(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); }

QJsonObject anomalyJson(const Anomaly &a)
{
    return {{QStringLiteral("key"), a.key},          {QStringLiteral("rank"), a.rank},
            {QStringLiteral("step"), double(a.step)}, {QStringLiteral("micro_step"), a.microStep},
            {QStringLiteral("pp_stage"), a.ppStage}, {QStringLiteral("vpp_stage"), a.vppStage},
            {QStringLiteral("call_id"), a.callId},   {QStringLiteral("tag_name"), a.tagName},
            {QStringLiteral("module"), a.module()},  {QStringLiteral("metric"), metricOfKind(a.kind())},
            {QStringLiteral("stat"), a.stat()},      {QStringLiteral("message"), a.message},
            {QStringLiteral("file"), a.file}};
}

} // namespace

QJsonObject monitorJson(const MonitorDocument &doc)
{
    QJsonArray tables;
    for (const MonitorTable &t : doc.tables) {
        QJsonArray rows;
        for (const MonitorRow &r : t.rows) {
            QJsonObject values;
            for (qsizetype i = 0; i < t.stats.size(); ++i)
                values.insert(t.stats[i], number(r.values[size_t(i)]));
            for (qsizetype i = 0; i < t.textStats.size(); ++i)
                values.insert(t.textStats[i], r.text.value(i));
            QJsonObject o{{QStringLiteral("vpp_stage"), r.vppStage}, {QStringLiteral("name"), r.name}, {QStringLiteral("step"), double(r.step)},
                          {QStringLiteral("values"), values}, {QStringLiteral("line"), r.line}};
            if (r.microStep >= 0)
                o.insert(QStringLiteral("micro_step"), r.microStep);
            if (!r.scope.isEmpty())
                o.insert(QStringLiteral("scope"), r.scope);
            rows.append(o);
        }
        tables.append(QJsonObject{{QStringLiteral("file"), t.file}, {QStringLiteral("version"), t.version == Version::V1 ? 1 : 2},
                                  {QStringLiteral("metric"), t.metric}, {QStringLiteral("rank"), t.rank},
                                  {QStringLiteral("steps"), QJsonArray{double(t.firstStep), double(t.lastStep)}},
                                  {QStringLiteral("stats"), QJsonArray::fromStringList(t.stats)}, {QStringLiteral("rows"), rows}});
    }
    QJsonArray metrics;
    for (const auto &[m, stats] : doc.metrics()) {
        QJsonObject trends;
        for (const QString &s : stats) {
            int marked = 0, points = 0;
            for (const TrendPoint &p : trendPoints(doc, m, s)) {
                ++points;
                marked += p.anomaly;
            }
            trends.insert(s, QJsonObject{{QStringLiteral("points"), points}, {QStringLiteral("anomalies"), marked}});
        }
        metrics.append(QJsonObject{{QStringLiteral("metric"), m}, {QStringLiteral("stats"), QJsonArray::fromStringList(stats)},
                                   {QStringLiteral("trends"), trends}});
    }
    QJsonArray ranks;
    for (int r : doc.ranks())
        ranks.append(r);
    QJsonArray anomalies, analysed, errors;
    for (const Anomaly &a : doc.anomalies)
        anomalies.append(anomalyJson(a));
    for (const Anomaly &a : doc.analysed)
        analysed.append(anomalyJson(a));
    for (const Error &e : doc.errors)
        errors.append(QJsonObject{{QStringLiteral("file"), e.file}, {QStringLiteral("kind"), QString::fromLatin1(errorKindName(e.kind))},
                                  {QStringLiteral("message"), e.message}});
    return {{QStringLiteral("path"), doc.root},        {QStringLiteral("ranks"), ranks},         {QStringLiteral("metrics"), metrics},
            {QStringLiteral("tables"), tables},        {QStringLiteral("anomalies"), anomalies}, {QStringLiteral("analysed"), analysed},
            {QStringLiteral("errors"), errors}};
}

} // namespace ds::monitor
