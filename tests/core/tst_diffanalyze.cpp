// msprobe `compare -da` answers read back (core/compare/diffanalyze.h) and DumpScope's own first
// divergence beside them (core/run/firstdiffanswers.h), issue 33 item 1.
// Oracles: the files the real msprobe 26.0.0 wrote (samples/msprobe_real/compare/*/step*/
// diff_analyze) and what expected.json recorded of them (collect_answers.py: msprobe's ops per
// rank, read by Python's json); the per-rank compare_result_rank*.json read by QJsonDocument
// against diff_analyze's answer of the same run; DumpScope's answers against the designed origins
// of expected.json (the perturbation each case was built with). Bad input: an error naming the file.
#include "compare/diffanalyze.h"
#include "run/firstdiffanswers.h"
#include "runcorpus.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ds;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

} // namespace

class TestDiffAnalyze : public QObject
{
    Q_OBJECT

private slots:
    /// Every diff_analyze_*.json msprobe wrote: the ops of each rank are those Python's json read.
    void diffAnalyzeFiles()
    {
        int files = 0;
        for (const QJsonValue c : runcorpus::expected()[QLatin1String("cases")].toArray()) {
            const QJsonObject steps = c[QLatin1String("msprobe")].toObject();
            for (auto s = steps.begin(); s != steps.end(); ++s) {
                const QJsonObject da = s.value()[QLatin1String("diff_analyze")].toObject();
                const QString file = da[QLatin1String("file")].toString();
                if (file.isEmpty())
                    continue;
                QVERIFY(isDiffAnalyzeName(QFileInfo(file).fileName()));
                QVERIFY(!isCompareResultJsonName(QFileInfo(file).fileName()));
                auto read = readFirstDiffFile(kReal + QLatin1Char('/') + file);
                QVERIFY2(read, qPrintable(read.errorText()));
                QCOMPARE(read->kind, DiffAnalyzeFile::Kind::DiffAnalyze);
                QMap<QString, QStringList> ours, theirs;
                for (const MsprobeFirstDiff &d : read->diffs) {
                    ours[d.rank] << d.opName;
                    QVERIFY2(!d.stack.isEmpty(), qPrintable(file));
                    QVERIFY2(!d.rows.isEmpty() && d.rows.front().startsWith(d.opName + QLatin1Char('.')), qPrintable(d.rows.join(',')));
                }
                const QJsonObject byRank = da[QLatin1String("ops_by_rank")].toObject();
                for (auto r = byRank.begin(); r != byRank.end(); ++r)
                    for (const QJsonValue op : r.value().toArray())
                        theirs[r.key()] << op.toString();
                QCOMPARE(ours, theirs);
                ++files;
            }
        }
        QVERIFY2(files >= 20, qPrintable(QString::number(files)));
    }

    /// -da's per-rank compare_result_rank*.json: its entries and is_same as QJsonDocument reads
    /// them; the first entry that is not the same is the op msprobe's diff_analyze names for the
    /// rank (before its first communication op, as here); the op_items as msprobe's columns.
    void compareResultFiles()
    {
        const QJsonObject da = runcorpus::caseById(QStringLiteral("weight_statistics_mix"))[QLatin1String("msprobe")][QLatin1String("step0")]
                                   [QLatin1String("diff_analyze")].toObject();
        const QJsonArray files = da[QLatin1String("compare_result_json")].toArray();
        QCOMPARE(files.size(), 2);
        for (const QJsonValue v : files) {
            const QString path = kReal + QLatin1Char('/') + v.toString();
            QVERIFY(isCompareResultJsonName(QFileInfo(path).fileName()));
            auto read = readFirstDiffFile(path);
            QVERIFY2(read, qPrintable(read.errorText()));
            QCOMPARE(read->kind, DiffAnalyzeFile::Kind::CompareResult);
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
            int differing = 0, rows = 0;
            for (auto e = doc.begin(); e != doc.end(); ++e) {
                differing += !e.value()[QLatin1String("is_same")].toBool();
                rows += e.value()[QLatin1String("op_items")].toArray().size();
            }
            QCOMPARE(read->entries, int(doc.size()));
            QCOMPARE(read->differing, differing);
            QCOMPARE(int(read->table.rows.size()), rows);
            QVERIFY(read->table.header.contains(QStringLiteral("NPU Name")) && read->table.header.contains(QStringLiteral("Bench l2norm")));
            QCOMPARE(read->diffs.size(), size_t(1));
            const MsprobeFirstDiff &d = read->diffs.front();
            QCOMPARE(d.opName, da[QLatin1String("ops_by_rank")][d.rank].toArray().first().toString());
            QVERIFY(!d.stack.isEmpty());
        }
    }

    /// DumpScope's own answer: found beside a diff_analyze file through the per-rank files -da
    /// wrote into the same folder, and with the dumps given; the designed origin of every rank.
    void answers()
    {
        const QJsonObject c = runcorpus::caseById(QStringLiteral("weight_statistics_mix"));
        const QJsonObject designed = c[QLatin1String("designed")][QLatin1String("per_scope_origin")].toObject();
        for (const QString &step : {QStringLiteral("step0"), QStringLiteral("step1")}) {
            const QString file = c[QLatin1String("msprobe")][step][QLatin1String("diff_analyze")][QLatin1String("file")].toString();
            auto read = readFirstDiffFile(kReal + QLatin1Char('/') + file);
            QVERIFY2(read, qPrintable(read.errorText()));
            // step0 keeps its compare_result_rank*.json: the dumps are found beside it; step1 does not
            const FirstDiffAnswers beside = firstDiffAnswers(*read);
            QCOMPARE(beside.found, step == QLatin1String("step0"));
            QVERIFY2(beside.errors.isEmpty(), qPrintable(beside.errors.join('\n')));
            if (!beside.found)
                QVERIFY2(beside.how.contains(QLatin1String("--npu")), qPrintable(beside.how));
            const QString npu = kReal + QStringLiteral("/dumps/") + c[QLatin1String("npu")].toString() + QLatin1Char('/') + step;
            const QString bench = kReal + QStringLiteral("/dumps/") + c[QLatin1String("bench")].toString() + QLatin1Char('/') + step;
            const FirstDiffAnswers given = firstDiffAnswers(*read, npu, bench);
            QVERIFY(given.found);
            QVERIFY2(given.errors.isEmpty(), qPrintable(given.errors.join('\n')));
            for (const QString &rank : {QStringLiteral("0"), QStringLiteral("1")}) {
                const QJsonObject want = designed[step + QStringLiteral("/rank") + rank].toObject();
                for (const FirstDiffAnswers *a : {&beside, &given}) {
                    if (!a->found)
                        continue;
                    const OwnFirstDiff o = a->ours.value(QStringLiteral("rank_") + rank);
                    QCOMPARE(o.opName, want[QLatin1String("op")].toString());
                    QCOMPARE(o.scope, step + QStringLiteral("/rank") + rank);
                    QCOMPARE(o.parameter, want[QLatin1String("parameter")].toString());
                }
            }
        }
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("what");
        QTest::addRow("not JSON") << "diff_analyze_1.json" << QByteArray("{\"rank_0\": [") << "not JSON";
        QTest::addRow("a list") << "diff_analyze_2.json" << QByteArray("[1, 2]") << "expected an object of rank_N lists";
        QTest::addRow("rank not a list") << "diff_analyze_3.json" << QByteArray("{\"rank_0\": {}}") << "rank_0 is not a list";
        QTest::addRow("no op_name") << "diff_analyze_4.json" << QByteArray("{\"rank_0\": [{\"data_info\": {}}]}") << "without op_name";
        QTest::addRow("rank file not JSON") << "compare_result_rank0_1.json" << QByteArray("is_same") << "not JSON";
        QTest::addRow("rank file a list") << "compare_result_rank0_2.json" << QByteArray("[]") << "expected an object of entries";
        QTest::addRow("no is_same") << "compare_result_rank0_3.json" << QByteArray("{\"Torch.exp.0.forward\": {\"op_items\": []}}")
                                    << "entry Torch.exp.0.forward: expected";
        QTest::addRow("op_items not a list") << "compare_result_rank0_4.json" << QByteArray("{\"a\": {\"is_same\": false, \"op_items\": 3}}")
                                             << "entry a: expected";
        QTest::addRow("row not an object") << "compare_result_rank0_5.json" << QByteArray("{\"a\": {\"is_same\": false, \"op_items\": [3]}}")
                                           << "op_items[0] is not an object";
    }

    /// Not JSON, wrong shape: an error that names the file and says what is wrong.
    void badInput()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, text);
        QFETCH(QString, what);
        const QString shown = QStringLiteral("out/") + name;
        const auto r = isDiffAnalyzeName(name) ? parseDiffAnalyze(text, shown) : parseCompareResultJson(text, shown);
        QVERIFY(!r);
        QVERIFY2(r.errorText().startsWith(shown + QStringLiteral(": ")), qPrintable(r.errorText()));
        QVERIFY2(r.errorText().contains(what), qPrintable(r.errorText()));
    }

    /// A file that is not there: the error names it.
    void missingFile()
    {
        const auto r = readFirstDiffFile(QStringLiteral("/nonexistent/diff_analyze_9.json"));
        QVERIFY(!r);
        QVERIFY2(r.errorText().startsWith(QLatin1String("/nonexistent/diff_analyze_9.json: ")), qPrintable(r.errorText()));
    }
};

QTEST_GUILESS_MAIN(TestDiffAnalyze)
#include "tst_diffanalyze.moc"
