// libFuzzer harness: msprobe's monitor CSVs and anomaly JSON (core/monitor parseMonitorCsv,
// parseAnomalyJson) and the order and Trends points built from them.
#include "monitor/monitor.h"

#include <QByteArray>
#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString csvName = QStringLiteral("x-rank0-y/grad_reduced_0-2.csv");
    ds::monitor::MonitorDocument doc;
    if (auto t = ds::monitor::parseMonitorCsv(bytes, csvName)) {
        for (const auto &row : t->rows)
            if (row.values.size() != size_t(t->stats.size()) || row.line < 2)
                __builtin_trap(); // one value per statistic column
        for (const auto &e : t->errors)
            if (e.file != csvName || !e.message.startsWith(QLatin1String("line ")))
                __builtin_trap();
        doc.tables.push_back(std::move(*t));
    } else if (t.error().file != csvName || t.error().message.isEmpty()) {
        __builtin_trap();
    }
    if (auto a = ds::monitor::parseAnomalyJson(bytes, QStringLiteral("anomaly.json"))) {
        doc.anomalies = a->anomalies;
        std::stable_sort(doc.anomalies.begin(), doc.anomalies.end(), ds::monitor::anomalyBefore);
    } else if (a.error().file != QLatin1String("anomaly.json") || a.error().message.isEmpty()) {
        __builtin_trap();
    }
    for (const auto &[metric, stats] : doc.metrics())
        for (const QString &s : stats)
            (void)ds::monitor::trendPoints(doc, metric, s);
    (void)ds::monitor::monitorJson(doc);
    return 0;
}
