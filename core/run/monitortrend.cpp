#include "monitortrend.h"

#include "dump/dumpindex.h"

#include <QHash>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ds {

TrendTable monitorTrend(const monitor::MonitorDocument &doc, const QString &metric, const QString &stat,
                        std::vector<TrendCell> *anomalies)
{
    TrendTable t;
    t.metric = TrendMetric::Norm;
    t.group = TrendGroup::Module;
    const std::vector<monitor::TrendPoint> points = monitor::trendPoints(doc, metric, stat);
    QHash<QString, int> rowOf;
    for (const monitor::TrendPoint &p : points) {
        if (!rowOf.contains(p.module)) {
            rowOf.insert(p.module, int(t.rows.size()));
            t.rows << p.module;
        }
        t.steps.push_back(p.step);
        t.ranks.push_back(p.rank);
    }
    for (std::vector<qint64> *v : {&t.steps, &t.ranks}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    for (qint64 s : t.steps)
        t.stepLabels << QStringLiteral("step %1").arg(s);
    for (qint64 r : t.ranks)
        t.rankLabels << QStringLiteral("rank %1").arg(r);
    t.values.assign(size_t(t.rows.size()) * t.steps.size() * t.ranks.size(), std::numeric_limits<double>::quiet_NaN());
    for (const monitor::TrendPoint &p : points) {
        const int row = rowOf.value(p.module);
        const int step = int(std::lower_bound(t.steps.begin(), t.steps.end(), p.step) - t.steps.begin());
        const int rank = int(std::lower_bound(t.ranks.begin(), t.ranks.end(), qint64(p.rank)) - t.ranks.begin());
        t.values[(size_t(row) * t.steps.size() + size_t(step)) * t.ranks.size() + size_t(rank)] = p.value;
        if (anomalies && p.anomaly)
            anomalies->push_back({row, step, rank});
    }
    t.cacheRankMax();
    return t;
}

int monitorAnomalyOp(const DumpIndex &index, const monitor::Anomaly &anomaly)
{
    // "fc2.input" / "fc2.output" / "fc2.weight" / "fc2.bias" -> "fc2"; a bare module name stays
    QString module = anomaly.module();
    static const QRegularExpression leaf(QStringLiteral("\\.(input|output|weight|bias)(\\.\\d+)?$"));
    module.remove(leaf);
    const QString direction = anomaly.trainStage() == 1 ? QStringLiteral("backward") : QStringLiteral("forward");
    const QString prefix = QStringLiteral("Module.") + module + QLatin1Char('.');
    static const QRegularExpression tail(QStringLiteral("^[^.]+\\.(forward|backward)\\.\\d+$")); // "<Class>.forward.0"
    const QString step = QStringLiteral("step%1").arg(anomaly.step), rank = QStringLiteral("rank%1").arg(anomaly.rank);
    for (size_t i = 0; i < index.ops.size(); ++i) {
        const OpRecord &op = index.ops[i];
        if (op.levels->step != step || op.levels->rank != rank)
            continue;
        const QString name = op.opName.toString();
        if (!name.startsWith(prefix))
            continue;
        const auto m = tail.match(QStringView(name).mid(prefix.size()));
        if (m.hasMatch() && m.captured(1) == direction)
            return int(i);
    }
    return -1;
}

} // namespace ds
