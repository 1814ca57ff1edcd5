// msprobe's training monitor output (core/monitor, issue 33 item 3) against the files msprobe's
// own writer classes rendered (samples/msprobe_monitor, tools/render_monitor.py): rows, steps,
// ranks and statistics of v1 and v2 CSVs; anomalies and msprobe's order of them (its own
// anomaly_analyse.json is the oracle); Trends points with anomalies marked; bad input.
#include "monitor/monitor.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace ds;
using namespace ds::monitor;

namespace {

const QString kRoot = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_monitor");

} // namespace

class TestMonitor : public QObject
{
    Q_OBJECT
private slots:
    void v1Tables();
    void v2Tables();
    void anomaliesInMsprobeOrder();
    void trends();
    void badCsv_data();
    void badCsv();
    void badAnomalyJson_data();
    void badAnomalyJson();
    void nothingHere();
};

void TestMonitor::v1Tables()
{
    auto doc = openMonitor(kRoot + QStringLiteral("/monitor_output"));
    QVERIFY2(doc, qPrintable(doc.errorText()));
    QVERIFY2(doc->errors.empty(), qPrintable(doc->errors.empty() ? QString() : doc->errors.front().text()));
    // 7 prefixes x 2 step ranges (step_count_per_record 3) x 2 ranks
    QCOMPARE(doc->tables.size(), size_t(28));
    QCOMPARE(doc->ranks(), (std::vector<int>{0, 1}));
    const auto metrics = doc->metrics();
    QStringList names;
    for (const auto &m : metrics)
        names << m.first;
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("actv"), QStringLiteral("exp_avg"), QStringLiteral("exp_avg_sq"), QStringLiteral("grad_reduced"),
                                 QStringLiteral("grad_unreduced"), QStringLiteral("param_origin"), QStringLiteral("param_updated")}));
    for (const MonitorTable &t : doc->tables) {
        QCOMPARE(t.version, Version::V1);
        QCOMPARE(t.stats, (QStringList{QStringLiteral("norm"), QStringLiteral("min"), QStringLiteral("max"), QStringLiteral("mean"),
                                       QStringLiteral("zeros"), QStringLiteral("nans")}));
        for (const MonitorRow &r : t.rows) {
            QVERIFY(r.step >= t.firstStep && r.step <= t.lastStep);
            QCOMPARE(r.microStep >= 0, t.metric == u"actv"); // CSV_HEADER_MICRO_STEP for actv only
        }
    }
    // the rendering's designed values, as pandas rounded them to 6 digits: rank 1 fc2.weight
    // reduced gradient norm at step 4 = 0.5 * 1.4 * 1.05 * 0.95^4 * 8
    const double expected = 0.5 * 1.4 * 1.05 * std::pow(0.95, 4) * 8;
    bool found = false;
    for (const MonitorTable &t : doc->tables)
        if (t.metric == u"grad_reduced" && t.rank == 1)
            for (const MonitorRow &r : t.rows)
                if (r.step == 4 && r.name == u"fc2.weight") {
                    QVERIFY(std::abs(r.values[0] - expected) < 1e-5);
                    found = true;
                }
    QVERIFY(found);
}

void TestMonitor::v2Tables()
{
    auto doc = openMonitor(kRoot + QStringLiteral("/monitor_v2_output"));
    QVERIFY2(doc, qPrintable(doc.errorText()));
    QVERIFY(doc->errors.empty());
    QCOMPARE(doc->tables.size(), size_t(8));
    for (const MonitorTable &t : doc->tables) {
        QCOMPARE(t.version, Version::V2);
        QCOMPARE(t.stats, (QStringList{QStringLiteral("min"), QStringLiteral("max"), QStringLiteral("mean"), QStringLiteral("norm"), QStringLiteral("nans")}));
    }
    QStringList names;
    for (const auto &m : doc->metrics())
        names << m.first;
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("module/backward"), QStringLiteral("module/forward"), QStringLiteral("weight_grad/reduced"),
                                 QStringLiteral("weight_grad/unreduced")}));
    // rank 0 fc2 forward output NaN at step 5: norm NaN, nans 64
    const auto points = trendPoints(*doc, QStringLiteral("module/forward"), QStringLiteral("nans"));
    auto it = std::find_if(points.begin(), points.end(), [](const TrendPoint &p) { return p.rank == 0 && p.step == 5 && p.module == u"fc2.output.0"; });
    QVERIFY(it != points.end());
    QCOMPARE(it->value, 64.0);
}

void TestMonitor::anomaliesInMsprobeOrder()
{
    auto doc = openMonitor(kRoot + QStringLiteral("/monitor_output"));
    QVERIFY(doc);
    QVERIFY(!doc->anomalies.empty());
    // msprobe's own ranking (anomaly_processor -d, top 8) is the first anomalies in our order
    QVERIFY(!doc->analysed.empty());
    QVERIFY(doc->analysed.size() <= doc->anomalies.size());
    for (size_t i = 0; i < doc->analysed.size(); ++i)
        QCOMPARE(doc->anomalies[i].key, doc->analysed[i].key);
    // the designed ones are there: rank 1's gradient jump at step 4 (norm, AnomalyTurbulence) and
    // rank 0's NaN activation at step 5 (AnomalyNan)
    auto has = [&](int rank, int step, const char *tagEnd) {
        return std::any_of(doc->anomalies.begin(), doc->anomalies.end(),
                           [&](const Anomaly &a) { return a.rank == rank && a.step == step && a.tagName.endsWith(QLatin1String(tagEnd)); });
    };
    QVERIFY(has(1, 4, "fc2.weight/rank1/post_grad"));
    QVERIFY(has(0, 5, "fc2.output:0/rank0/actv"));
    const Anomaly &first = doc->anomalies.front();
    QCOMPARE(first.step, std::int64_t(4));
    QCOMPARE(first.stat(), QStringLiteral("norm"));
}

void TestMonitor::trends()
{
    auto doc = openMonitor(kRoot + QStringLiteral("/monitor_output"));
    QVERIFY(doc);
    const auto norm = trendPoints(*doc, QStringLiteral("grad_reduced"), QStringLiteral("norm"));
    // 2 ranks x 6 steps x 2 parameters
    QCOMPARE(norm.size(), size_t(24));
    int marked = 0;
    for (const TrendPoint &p : norm)
        if (p.anomaly) {
            ++marked;
            QCOMPARE(p.rank, 1);
            QCOMPARE(p.step, std::int64_t(4));
            QCOMPARE(p.module, QStringLiteral("fc2.weight"));
        }
    QCOMPARE(marked, 1);
    // msprobe keeps one entry per tag, step and call id whatever statistic fired: the cell is
    // marked in every statistic's series
    const auto min = trendPoints(*doc, QStringLiteral("grad_reduced"), QStringLiteral("min"));
    QCOMPARE(std::count_if(min.begin(), min.end(), [](const TrendPoint &p) { return p.anomaly; }), 1);
    // activations: micro steps reduced to the last one; the NaN marked
    const auto actv = trendPoints(*doc, QStringLiteral("actv"), QStringLiteral("norm"));
    QCOMPARE(actv.size(), size_t(2 * 6 * 4));
    auto it = std::find_if(actv.begin(), actv.end(), [](const TrendPoint &p) { return p.rank == 0 && p.step == 5 && p.module == u"fc2.output"; });
    QVERIFY(it != actv.end());
    QVERIFY(std::isnan(it->value));
    QVERIFY(it->anomaly);
}

void TestMonitor::badCsv_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("opens");
    QTest::addColumn<QString>("error");
    const QByteArray head = "vpp_stage,name,step,norm,min\n";
    QTest::addRow("truncated row") << head + "0,fc1.weight,0,1.0,0.5\n0,fc1.weight,1,1.0" << true
                                   << QStringLiteral("r0/grad_reduced_0-2.csv: line 3: 4 fields where the header has 5 (a truncated or garbled row; left out)");
    QTest::addRow("garbled number") << head + "0,fc1.weight,0,1.x,0.5\n" << true
                                    << QStringLiteral("r0/grad_reduced_0-2.csv: line 2, column 4 (norm): \"1.x\" is not a number (shown as empty)");
    QTest::addRow("bad step") << head + "0,fc1.weight,zero,1,0.5\n" << true
                              << QStringLiteral("r0/grad_reduced_0-2.csv: line 2, column 3 (step): \"zero\" is not a whole number (row left out)");
    QTest::addRow("another tool") << QByteArray("API name,Forward Test Success\nx,pass\n") << false
                                  << QStringLiteral("r0/grad_reduced_0-2.csv: line 1: not a monitor CSV of msprobe (the header starts \"API name,Forward Test Success\"; expected \"vpp_stage,name,step,...\" (TrainerMon) or \"vpp_stage,step,module_name,...\" (monitor v2))");
    QTest::addRow("missing key column") << QByteArray("vpp_stage,step,norm\n0,1,2\n") << false
                                        << QStringLiteral("r0/grad_reduced_0-2.csv: line 1: not a monitor CSV of msprobe (the header starts \"vpp_stage,step,norm\"; expected \"vpp_stage,name,step,...\" (TrainerMon) or \"vpp_stage,step,module_name,...\" (monitor v2))");
    QTest::addRow("open quote") << head + "0,\"fc1" << false << QStringLiteral("r0/grad_reduced_0-2.csv: line 2, column 2 (name): a quoted field that never ends (the file is truncated)");
}

void TestMonitor::badCsv()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, opens);
    QFETCH(QString, error);
    auto t = parseMonitorCsv(bytes, QStringLiteral("r0/grad_reduced_0-2.csv"));
    QCOMPARE(bool(t), opens);
    QCOMPARE(t ? (t->errors.empty() ? QString() : t->errors.front().text()) : t.errorText(), error);
    if (t)
        QCOMPARE(t->rows.size(), size_t(QTest::currentDataTag() == QLatin1String("bad step") ? 0 : 1));
}

void TestMonitor::badAnomalyJson_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("opens");
    QTest::addColumn<QString>("error");
    QTest::addRow("not json") << QByteArray("{\n \"a\": {\"rank\": 0,\n  \"step\": }") << false
                              << QStringLiteral("anomaly.json: line 3, column 12: not JSON (object is missing after a comma)");
    QTest::addRow("truncated") << QByteArray("{\n \"a\": {\"rank\": 0, \"step\": 1") << false
                               << QStringLiteral("anomaly.json: line 2, column 28: not JSON (invalid termination by number)");
    QTest::addRow("array") << QByteArray("[1, 2]") << false << QStringLiteral("anomaly.json: not an anomaly file: the JSON is not an object of anomalies");
    QTest::addRow("entry without step") << QByteArray(R"({"k1": {"rank": 0}, "k2": {"rank": 1, "step": 2, "tag_name": "0:x/rank1/actv"}})") << true
                                        << QStringLiteral("anomaly.json: entry \"k1\": no number step (left out)");
}

void TestMonitor::badAnomalyJson()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, opens);
    QFETCH(QString, error);
    auto a = parseAnomalyJson(bytes, QStringLiteral("anomaly.json"));
    QCOMPARE(bool(a), opens);
    QCOMPARE(a ? a->errors.front().text() : a.errorText(), error);
    if (a) {
        QCOMPARE(a->anomalies.size(), size_t(1));
        QCOMPARE(a->anomalies.front().module(), QStringLiteral("x"));
    }
}

void TestMonitor::nothingHere()
{
    QTemporaryDir dir;
    auto doc = openMonitor(dir.path());
    QVERIFY(!doc);
    QVERIFY(doc.errorText().contains(u"no monitor output here"));
    QVERIFY(looksLikeMonitor(kRoot + QStringLiteral("/monitor_output")));
    QVERIFY(looksLikeMonitor(kRoot + QStringLiteral("/monitor_v2_output")));
    QVERIFY(!looksLikeMonitor(dir.path()));
    // dumps are not monitor output: an msprobe rank folder, MindSpore's rank_{id} kernel dumps
    QVERIFY(!looksLikeMonitor(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0")));
    QVERIFY(!looksLikeMonitor(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0")));
    QVERIFY(!looksLikeMonitor(QStringLiteral(DUMPSCOPE_SAMPLES "/mindspore_kernel")));
    // a bad anomaly.json next to good CSVs: named, the rest loads
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("anomaly_detected/rank0")));
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("rank_0")));
    QVERIFY(QFile::copy(kRoot + QStringLiteral("/monitor_v2_output/rank_0/module_step0-2.csv"), dir.filePath(QStringLiteral("rank_0/module_step0-2.csv"))));
    QFile bad(dir.filePath(QStringLiteral("anomaly_detected/rank0/anomaly.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("not json");
    bad.close();
    doc = openMonitor(dir.path());
    QVERIFY(doc);
    QCOMPARE(doc->tables.size(), size_t(1));
    QCOMPARE(doc->errors.size(), size_t(1));
    QCOMPARE(doc->errors.front().file, QStringLiteral("anomaly_detected/rank0/anomaly.json"));
}

QTEST_GUILESS_MAIN(TestMonitor)
#include "tst_monitor.moc"
