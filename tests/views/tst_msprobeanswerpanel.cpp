// The msprobe Answer tab (views/msprobeanswerpanel) on the real msprobe 26 answers of
// samples/msprobe_real: overflow_check's anomaly_analyze JSON and compare -da's diff_analyze
// JSON, each with the dumps found beside it. Oracles: msprobe's ops per rank as Python's json
// read them (expected.json), the designed first divergence of the -da case, DumpScope's
// first anomaly from the overflow scan of the dump (core); the model under QAbstractItemModelTester.
#include "msprobeanswerpanel.h"
#include "../core/runcorpus.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

QString cell(const MsprobeAnswerPanel &p, int row, int column) { return p.model()->index(row, column).data().toString(); }

} // namespace

class TestMsprobeAnswerPanel : public QObject
{
    Q_OBJECT
private slots:
    /// overflow_check: msprobe's rank_1 Torch.exp.0.forward beside DumpScope's first anomaly of
    /// the dump found beside the file; rank 0, which msprobe does not list, with DumpScope's only.
    void anomalyAnalyze()
    {
        MsprobeAnswerPanel panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1000, 700);
        panel.show();
        const QJsonObject c = runcorpus::caseById(QStringLiteral("overflow_statistics_mix"));
        const QJsonObject step1 = c[QLatin1String("msprobe")][QLatin1String("step1")].toObject();
        panel.open(kReal + QLatin1Char('/') + step1[QLatin1String("file")].toString());
        QTRY_VERIFY_WITH_TIMEOUT(panel.isReady(), 30000);
        const QJsonObject byRank = step1[QLatin1String("ops_by_rank")].toObject();
        QCOMPARE(byRank.keys(), QStringList{QStringLiteral("rank_1")});
        QCOMPARE(panel.model()->rowCount(), 2);
        QCOMPARE(cell(panel, 0, MsprobeAnswerPanel::RankColumn), QStringLiteral("rank_1"));
        QCOMPARE(cell(panel, 0, MsprobeAnswerPanel::MsprobeColumn), byRank[QLatin1String("rank_1")].toArray().first().toString());
        QString error;
        const auto ours = ownFirstAnomalies(kReal + QStringLiteral("/dumps/overflow_statistics_mix/step1"), error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(cell(panel, 0, MsprobeAnswerPanel::DumpScopeColumn), ours.value(QStringLiteral("rank_1")).opName);
        QCOMPARE(cell(panel, 0, MsprobeAnswerPanel::AgreementColumn), QStringLiteral("the same"));
        QCOMPARE(cell(panel, 1, MsprobeAnswerPanel::RankColumn), QStringLiteral("rank_0"));
        QCOMPARE(cell(panel, 1, MsprobeAnswerPanel::DumpScopeColumn), ours.value(QStringLiteral("rank_0")).opName);
        QCOMPARE(cell(panel, 1, MsprobeAnswerPanel::AgreementColumn), QStringLiteral("differs"));
        // the first screen says what this is and where to go next; the first row's stack is shown
        QVERIFY2(panel.summary()->text().contains(u"first anomaly") && panel.summary()->text().contains(u"Next:"), qPrintable(panel.summary()->text()));
        QVERIFY2(panel.summary()->toolTip().contains(u"dumps/overflow_statistics_mix/step1"), qPrintable(panel.summary()->toolTip()));
        QVERIFY(panel.detail()->toPlainText().contains(u"train.py, line 70"));
        panel.view()->selectRow(1);
        QTRY_VERIFY(panel.detail()->toPlainText().contains(u"msprobe names no op for rank_0"));
    }

    /// compare -da: both ranks' ops as msprobe wrote them, DumpScope's designed origin beside them.
    void diffAnalyze()
    {
        MsprobeAnswerPanel panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QJsonObject c = runcorpus::caseById(QStringLiteral("weight_statistics_mix"));
        const QJsonObject da = c[QLatin1String("msprobe")][QLatin1String("step0")][QLatin1String("diff_analyze")].toObject();
        panel.open(kReal + QLatin1Char('/') + da[QLatin1String("file")].toString());
        QTRY_VERIFY_WITH_TIMEOUT(panel.isReady(), 30000);
        QCOMPARE(panel.model()->rowCount(), 2);
        for (int row = 0; row < 2; ++row) {
            const QString rank = cell(panel, row, MsprobeAnswerPanel::RankColumn);
            QCOMPARE(cell(panel, row, MsprobeAnswerPanel::MsprobeColumn), da[QLatin1String("ops_by_rank")][rank].toArray().first().toString());
            const QString scope = QStringLiteral("step0/rank") + rank.mid(5);
            QCOMPARE(cell(panel, row, MsprobeAnswerPanel::DumpScopeColumn),
                     c[QLatin1String("designed")][QLatin1String("per_scope_origin")][scope][QLatin1String("op")].toString());
            QCOMPARE(cell(panel, row, MsprobeAnswerPanel::AgreementColumn), QStringLiteral("the same"));
        }
        QVERIFY(panel.summary()->text().contains(u"first differing op") && panel.summary()->text().contains(u"Next:"));
    }

    /// Not JSON: the error names the file; no rows.
    void badFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("diff_analyze_1.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"rank_0\": [");
        f.close();
        MsprobeAnswerPanel panel;
        QSignalSpy opened(&panel, &MsprobeAnswerPanel::opened);
        panel.open(path);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY2(panel.summary()->text().startsWith(path + QStringLiteral(": not JSON")), qPrintable(panel.summary()->text()));
    }
};

QTEST_MAIN(TestMsprobeAnswerPanel)
#include "tst_msprobeanswerpanel.moc"
