#include "resultscommand.h"

#include "monitor/monitor.h"
#include "precheck/precheck.h"
#include "tensor/dtype.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <cmath>
#include <cstdio>

namespace ds {

namespace {

enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3 };

void out(const QString &text) { std::fputs(qPrintable(text), stdout); }
void out(const QJsonObject &o) { std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", qPrintable(text)); }
QString num(double v) { return QString::number(v, 'g', 8); }

} // namespace

int runPrecheckCommand(const QString &path, bool json)
{
    using namespace precheck;
    if (!QFileInfo::exists(path)) {
        err(QStringLiteral("no such file or directory: %1").arg(path));
        return NoPath;
    }
    auto doc = openPrecheck(path);
    if (!doc) {
        err(doc.errorText());
        return Failed;
    }
    std::vector<std::optional<Result<PairComparison>>> comparisons;
    for (const FailedPair &p : doc->failed)
        comparisons.emplace_back(compareFailedPair(doc->root, p));
    bool failed = !doc->errors.empty();
    for (const auto &c : comparisons)
        failed |= !*c;
    if (json) {
        out(precheckJson(*doc, comparisons));
        return failed ? Failed : Ok;
    }
    for (const PrecheckTable &t : doc->tables) {
        out(QStringLiteral("%1 (%2): %3 rows, %4 pass, %5 warning, %6 error, %7 SKIP\n")
                .arg(t.file, tableKindName(t.kind)).arg(t.rows.size()).arg(t.count(Status::Pass)).arg(t.count(Status::Warning))
                .arg(t.count(Status::Error)).arg(t.count(Status::Skip)));
        const int message = t.column(QStringLiteral("Message"));
        for (const PrecheckRow &r : t.rows) {
            if (r.status == Status::Pass || r.status == Status::None)
                continue;
            QString what = r.output.isEmpty() ? r.api : r.api + QLatin1Char('.') + r.output;
            if (!r.output.isEmpty() || r.forward == r.backward || r.backward == Status::None)
                what += QStringLiteral("  ") + statusWord(r.status);
            else
                what += QStringLiteral("  forward %1, backward %2").arg(statusWord(r.forward), statusWord(r.backward));
            const QString m = message >= 0 ? r.cells[message].simplified() : QString();
            out(QStringLiteral("  %1%2\n").arg(what, m.isEmpty() ? QString() : QStringLiteral("  (") + m + QLatin1Char(')')));
        }
    }
    for (size_t i = 0; i < doc->failed.size(); ++i) {
        const FailedPair &p = doc->failed[i];
        out(QStringLiteral("failed %1.%2: device %3, bench %4\n").arg(p.api, p.output(), p.deviceFile, p.benchFile));
        const auto &c = *comparisons[i];
        if (!c) {
            out(QStringLiteral("  error: %1\n").arg(c.errorText()));
            continue;
        }
        const PairMetrics &m = c->metrics;
        const double cosine = m.npuNorm > 0 && m.benchNorm > 0 ? m.dot / (m.npuNorm * m.benchNorm) : std::nan("");
        out(QStringLiteral("  %1 vs %2, %3 elements: cosine %4, max abs err %5, max rel err %6, rmse %7, %8 exactly equal\n")
                .arg(dataTypeName(c->deviceType), dataTypeName(c->benchType)).arg(m.count)
                .arg(num(cosine), num(m.maxAbsErr), num(m.maxRelErr), num(m.rmse)).arg(c->detail.exactlyEqual));
        if (!c->detail.worst.empty()) {
            const ElementDiff &d = c->detail.worst.front();
            out(QStringLiteral("  worst element %1: device %2, bench %3\n").arg(d.index).arg(num(d.npu), num(d.bench)));
        }
    }
    for (const Error &e : doc->errors)
        out(QStringLiteral("error: %1\n").arg(e.text()));
    return failed ? Failed : Ok;
}

int runMonitorCommand(const QString &path, bool json)
{
    using namespace monitor;
    if (!QFileInfo::exists(path)) {
        err(QStringLiteral("no such file or directory: %1").arg(path));
        return NoPath;
    }
    auto doc = openMonitor(path);
    if (!doc) {
        err(doc.errorText());
        return Failed;
    }
    const bool failed = !doc->errors.empty();
    if (json) {
        out(monitorJson(*doc));
        return failed ? Failed : Ok;
    }
    QStringList ranks;
    for (int r : doc->ranks())
        ranks << QString::number(r);
    if (!doc->tables.empty()) // an anomaly file opened alone has no series: its errors say why
        out(QStringLiteral("%1 monitor file(s), rank(s) %2\n").arg(doc->tables.size()).arg(ranks.join(QStringLiteral(", "))));
    for (const auto &[metric, stats] : doc->metrics()) {
        std::int64_t first = 0, last = 0;
        bool any = false;
        QStringList modules;
        for (const MonitorTable &t : doc->tables)
            for (const MonitorRow &r : t.rows)
                if (rowMetric(t, r) == metric) {
                    first = any ? std::min(first, r.step) : r.step;
                    last = any ? std::max(last, r.step) : r.step;
                    any = true;
                    if (!modules.contains(r.name))
                        modules << r.name;
                }
        out(QStringLiteral("%1: steps %2-%3, %4 module(s), statistics %5\n").arg(metric).arg(first).arg(last).arg(modules.size()).arg(stats.join(QStringLiteral(", "))));
    }
    out(QStringLiteral("%1 anomal%2 (msprobe's order)\n").arg(doc->anomalies.size()).arg(doc->anomalies.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies")));
    for (const Anomaly &a : doc->anomalies)
        out(QStringLiteral("  rank %1 step %2 micro %3 %4 %5\n").arg(a.rank).arg(a.step).arg(a.microStep).arg(a.tagName, a.stat()));
    if (!doc->analysed.empty()) {
        out(QStringLiteral("anomaly_analyse.json: %1 first anomalies\n").arg(doc->analysed.size()));
        for (const Anomaly &a : doc->analysed)
            out(QStringLiteral("  rank %1 step %2 %3\n").arg(a.rank).arg(a.step).arg(a.tagName));
    }
    for (const Error &e : doc->errors)
        out(QStringLiteral("error: %1\n").arg(e.text()));
    return failed ? Failed : Ok;
}

} // namespace ds
