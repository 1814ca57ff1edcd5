// The Compare tab on an aligned compare (issue 31 item 4): the structure regions where the two op
// streams differ named on their rows, the rows only one side has shown as such, a filter for
// them, and "pair these two" by hand onto a gap. Oracle: the designed change of each align_* pair
// of samples/msprobe_real (expected.json) and the two sides' construct.json / dump.json.
#include "compareview.h"
#include "index/buildindex.h"
#include "models/comparetablemodel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace ds;

namespace {

const QString kRuns = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/");

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

/// The designed structure region (module entry) of an expected.json case.
QString designedRegion(const QString &caseId)
{
    const QJsonObject expected = readJson(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/expected.json"));
    for (const auto c : expected[QStringLiteral("cases")].toArray())
        if (c.toObject()[QStringLiteral("id")].toString() == caseId)
            return c.toObject()[QStringLiteral("designed")].toObject()[QStringLiteral("structural_region")].toString();
    return {};
}

/// "Tensor.__mul__.0.forward" -> "Tensor.__mul__.forward" (a call without its counter)
QString withoutCounter(const QString &entry)
{
    static const QRegularExpression counter(QStringLiteral("\\.\\d+\\.(forward|backward)$"));
    return QString(entry).replace(counter, QStringLiteral(".\\1"));
}

/// The API calls (not module entries) construct.json puts directly in `module`, in execution
/// order (that of dump.json's entries; QJsonObject sorts its keys, so the file text orders them).
QStringList callsIn(const QString &run, const QString &module)
{
    const QString dir = kRuns + run + QStringLiteral("/step0/rank0/");
    const QJsonObject construct = readJson(dir + QStringLiteral("construct.json"));
    QFile dump(dir + QStringLiteral("dump.json"));
    if (!dump.open(QIODevice::ReadOnly))
        return {};
    const QByteArray text = dump.readAll();
    QStringList out;
    for (auto it = construct.begin(); it != construct.end(); ++it)
        if (it.value().toString() == module && !it.key().startsWith(QLatin1String("Module.")))
            out << it.key();
    auto at = [&](const QString &entry) { return text.indexOf(QByteArray('"' + entry.toUtf8() + "\": {")); };
    std::sort(out.begin(), out.end(), [&](const QString &a, const QString &b) { return at(a) < at(b); });
    return out;
}

/// The calls of one side's region the other side does not make (by name without counter).
QStringList onlyHere(const QStringList &here, const QStringList &there)
{
    QStringList rest = there, out;
    for (const QString &c : here) {
        const auto it = std::find_if(rest.begin(), rest.end(), [&](const QString &o) { return withoutCounter(o) == withoutCounter(c); });
        if (it == rest.end())
            out << c;
        else
            rest.erase(it);
    }
    return out;
}

/// The row names msprobe's dump.json gives a call (inputs, then outputs).
QStringList rowsOf(const QString &run, const QString &entry)
{
    const QJsonObject data = readJson(kRuns + run + QStringLiteral("/step0/rank0/dump.json"))[QStringLiteral("data")].toObject();
    const QJsonObject call = data[entry].toObject();
    QStringList out;
    const QString kinds[][2] = {{QStringLiteral("input_args"), QStringLiteral("input")}, {QStringLiteral("output"), QStringLiteral("output")}};
    for (const auto &kind : kinds)
        for (qsizetype i = 0; i < call[kind[0]].toArray().size(); ++i)
            out << QStringLiteral("%1.%2.%3").arg(entry, kind[1]).arg(i);
    return out;
}

} // namespace

class TestAlignGaps : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void gapsAndRegions_data()
    {
        QTest::addColumn<QString>("caseId");
        QTest::addColumn<QString>("npuRun");
        QTest::addColumn<QString>("benchRun");
        QTest::addColumn<QString>("where");
        QTest::newRow("missing: bench only") << "align_missing" << "align_missing_statistics_mix" << "align_base_statistics_mix" << "blocks.0";
        QTest::newRow("missing reversed: NPU only") << "align_missing" << "align_base_statistics_mix" << "align_missing_statistics_mix" << "blocks.0";
        QTest::newRow("unfused: both sides") << "align_unfused" << "align_unfused_statistics_mix" << "align_base_statistics_mix" << "blocks.0.mlp.fc1";
    }

    void gapsAndRegions()
    {
        QFETCH(QString, caseId);
        QFETCH(QString, npuRun);
        QFETCH(QString, benchRun);
        QFETCH(QString, where);
        const QString module = designedRegion(caseId);
        QVERIFY(!module.isEmpty());
        // The designed region from both sides' construct.json: the calls only one side makes there.
        const QStringList npuCalls = callsIn(npuRun, module), benchCalls = callsIn(benchRun, module);
        const QStringList npuOnly = onlyHere(npuCalls, benchCalls), benchOnly = onlyHere(benchCalls, npuCalls);
        QVERIFY(!npuOnly.isEmpty() || !benchOnly.isEmpty());
        const QString plus = QStringLiteral(" + ");
        const QString region = npuOnly.isEmpty()    ? QStringLiteral("%1: only in the bench: %2").arg(where, benchOnly.join(plus))
                               : benchOnly.isEmpty() ? QStringLiteral("%1: only on the NPU: %2").arg(where, npuOnly.join(plus))
                                                     : QStringLiteral("%1: bench %2 vs NPU %3").arg(where, benchOnly.join(plus), npuOnly.join(plus));
        // numerically identical by design (expected.json: no first divergence)
        const QString regionText = region + QStringLiteral(": numerically equal");

        auto npu = buildIndex(kRuns + npuRun + QStringLiteral("/step0/rank0"));
        QVERIFY(npu);
        CompareView view;
        view.resize(1280, 800);
        view.show();
        using Tester = QAbstractItemModelTester;
        Tester t1(view.model(), Tester::FailureReportingMode::QtTest), t2(view.proxy(), Tester::FailureReportingMode::QtTest);
        QSignalSpy finished(&view, &CompareView::finished);
        view.start(*npu, 0, kRuns + benchRun + QStringLiteral("/step0/rank0"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const CompareTableModel *model = view.model();
        QVERIFY(model->result()->aligned);
        QVERIFY(!view.table()->isColumnHidden(CompareTableModel::Region));

        // Every row of the designed region's calls names the region; the rows the other side
        // lacks are marked as gaps, on the side that has none.
        QStringList npuGapRows, benchGapRows, regionRows;
        for (int r = 0; r < model->rowCount(); ++r) {
            const auto gap = CompareGaps::Gap(model->index(r, 0).data(CompareTableModel::GapRole).toInt());
            const QString npuName = model->index(r, CompareTableModel::NpuName).data().toString();
            const QString benchName = model->index(r, CompareTableModel::BenchName).data().toString();
            const QString text = model->index(r, CompareTableModel::Region).data().toString();
            QCOMPARE(model->index(r, 0).data(CompareTableModel::RegionRole).toString(), text);
            if (gap == CompareGaps::Gap::NpuOnly) {
                QCOMPARE(benchName, QStringLiteral("NPU only"));
                QVERIFY(model->index(r, CompareTableModel::Verdict).data().toString().endsWith(QStringLiteral("NPU only")));
                npuGapRows << npuName;
            } else if (gap == CompareGaps::Gap::BenchOnly) {
                QVERIFY(model->isBenchOnlyRow(r));
                QCOMPARE(npuName, QStringLiteral("bench only"));
                QVERIFY(model->index(r, CompareTableModel::Verdict).data().toString().endsWith(QStringLiteral("bench only")));
                QCOMPARE(model->index(r, 0).data(CompareTableModel::VerdictRole).toInt(), int(Verdict::None));
                benchGapRows << benchName;
            }
            if (gap != CompareGaps::Gap::None)
                QVERIFY2(!text.isEmpty(), qPrintable(npuName + QLatin1Char('/') + benchName));
            if (text == regionText)
                regionRows << (gap == CompareGaps::Gap::BenchOnly ? benchName : npuName);
        }
        // The forward calls only one side makes: all their rows are gaps of the designed region
        // (their backward calls form a region of the backward module, marked the same way).
        QStringList expectedNpuGaps, expectedBenchGaps;
        for (const QString &c : npuOnly)
            expectedNpuGaps << rowsOf(npuRun, c);
        for (const QString &c : benchOnly)
            expectedBenchGaps << rowsOf(benchRun, c);
        auto forward = [](QStringList rows) {
            rows.removeIf([](const QString &r) { return r.contains(QLatin1String(".backward.")); });
            return rows;
        };
        if (benchOnly.isEmpty()) { // the whole region is on the NPU: every one of its rows is a gap
            QCOMPARE(forward(npuGapRows), expectedNpuGaps);
        } else if (npuOnly.isEmpty()) {
            QCOMPARE(forward(benchGapRows), expectedBenchGaps);
        } else { // both sides compute the region: its first inputs and last outputs pair, the rest are gaps
            for (const QString &r : forward(npuGapRows))
                QVERIFY2(expectedNpuGaps.contains(r), qPrintable(r));
            for (const QString &r : forward(benchGapRows))
                QVERIFY2(expectedBenchGaps.contains(r), qPrintable(r));
            QVERIFY(!npuGapRows.isEmpty());
        }
        QVERIFY2(!regionRows.isEmpty(), qPrintable(QStringLiteral("no row names the region \"%1\"").arg(regionText)));
        for (const QString &r : regionRows)
            QVERIFY2((expectedNpuGaps + expectedBenchGaps + rowsOf(npuRun, npuOnly.value(0)) + rowsOf(benchRun, benchOnly.value(0))).contains(r)
                         || npuOnly.contains(r.section(QLatin1String(".forward."), 0, 0) + QStringLiteral(".forward"))
                         || benchOnly.contains(r.section(QLatin1String(".forward."), 0, 0) + QStringLiteral(".forward")),
                     qPrintable(r));

        // The summary says the compare was aligned and names a region.
        QVERIFY(view.summary()->text().contains(QStringLiteral("aligned by structure")));
        // Nothing diverges: the first gap row is selected, its detail names the region.
        QVERIFY(view.table()->currentIndex().isValid());
        QVERIFY(!view.table()->currentIndex().data(CompareTableModel::RegionRole).toString().isEmpty());

        // "Structural differences only": exactly the rows in a region, the gaps among them.
        auto *filter = view.findChild<QComboBox *>();
        QVERIFY(filter);
        const int item = filter->findText(QStringLiteral("Structural differences only"));
        QVERIFY(item >= 0);
        int inRegions = 0;
        for (int r = 0; r < model->rowCount(); ++r)
            inRegions += !model->index(r, 0).data(CompareTableModel::RegionRole).toString().isEmpty();
        filter->setCurrentIndex(item);
        emit filter->activated(item);
        QCOMPARE(view.proxy()->rowCount(), inRegions);
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            QVERIFY(!view.proxy()->index(r, 0).data(CompareTableModel::RegionRole).toString().isEmpty());
        QVERIFY(view.proxy()->rowCount() < model->rowCount());
        filter->setCurrentIndex(0);
        emit filter->activated(0);
        QCOMPARE(view.proxy()->rowCount(), model->rowCount());

        // A bench-only row takes dropped NPU operators like any bench row ("pair these two"; last: the
        // drop re-matches).
        for (int r = 0; r < model->rowCount(); ++r) {
            if (!model->isBenchOnlyRow(r))
                continue;
            const QString benchOp = model->benchOperator(r);
            QVERIFY(model->index(r, CompareTableModel::BenchName).data().toString().startsWith(benchOp + QLatin1Char('.')));
            QMimeData mime;
            mime.setData(QLatin1String(kNpuOperatorsMime), QByteArrayLiteral("[\"Functional.linear.0.forward\"]"));
            QSignalSpy requested(model, &CompareTableModel::mappingRequested);
            QSignalSpy applied(&view, &CompareView::mappingApplied);
            const size_t gapsBefore = model->gaps().benchRows.size();
            QVERIFY(!(model->flags(model->index(r, 0)) & Qt::ItemIsDragEnabled)); // no NPU operator to drag
            QVERIFY(const_cast<CompareTableModel *>(model)->dropMimeData(&mime, Qt::CopyAction, -1, 0, model->index(r, CompareTableModel::BenchName)));
            QCOMPARE(requested.count(), 1);
            QCOMPARE(requested[0][1].toStringList(), QStringList{benchOp});
            // the re-match pairs bench rows of that operator: fewer bench-only rows (the models
            // stay consistent through the reset, the testers above watch)
            QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 30000);
            QVERIFY(model->gaps().benchRows.size() < gapsBefore);
            QCOMPARE(model->rowCount(), int(model->result()->rows.size() + model->gaps().benchRows.size()));
            break;
        }
    }

    /// "Pair these two" by hand onto a gap: an NPU call only the NPU makes (align_base against
    /// align_missing: the layer scale's Tensor.__mul__ of blocks.0) mapped onto the bench's
    /// Tensor.__mul__ (a bench-only row's operator is a drop target like any bench row's) pairs
    /// its rows (source user) and the gap closes.
    void pairGapByHand()
    {
        const QString npuRun = QStringLiteral("align_base_statistics_mix"), benchRun = QStringLiteral("align_missing_statistics_mix");
        const QStringList npuOnly = onlyHere(callsIn(npuRun, designedRegion(QStringLiteral("align_missing"))),
                                             callsIn(benchRun, designedRegion(QStringLiteral("align_missing"))));
        QCOMPARE(npuOnly.size(), 1);
        const QString npuOp = npuOnly.front();
        const QStringList npuRows = rowsOf(npuRun, npuOp);
        // the bench's call of the same kind (its only Tensor.__mul__ forward)
        QString benchOp;
        const QJsonObject benchData = readJson(kRuns + benchRun + QStringLiteral("/step0/rank0/dump.json"))[QStringLiteral("data")].toObject();
        for (auto it = benchData.begin(); it != benchData.end(); ++it)
            if (withoutCounter(it.key()) == withoutCounter(npuOp))
                benchOp = it.key();
        QVERIFY(!benchOp.isEmpty());
        const QStringList benchRows = rowsOf(benchRun, benchOp);
        QCOMPARE(benchRows.size(), npuRows.size());

        auto npu = buildIndex(kRuns + npuRun + QStringLiteral("/step0/rank0"));
        QVERIFY(npu);
        CompareView view;
        view.resize(1280, 800);
        view.show();
        QSignalSpy finished(&view, &CompareView::finished);
        QSignalSpy applied(&view, &CompareView::mappingApplied);
        view.start(*npu, 0, kRuns + benchRun + QStringLiteral("/step0/rank0"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        auto rowOf = [&](const QString &name) {
            for (int r = 0; r < view.model()->rowCount(); ++r)
                if (view.model()->index(r, CompareTableModel::NpuName).data().toString() == name)
                    return r;
            return -1;
        };
        for (const QString &r : npuRows) {
            const int row = rowOf(r);
            QVERIFY2(row >= 0, qPrintable(r));
            QCOMPARE(view.model()->index(row, 0).data(CompareTableModel::GapRole).toInt(), int(CompareGaps::Gap::NpuOnly));
        }
        view.mapOperators({npuOp}, {benchOp});
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 30000);
        QVERIFY(view.mapping().mentionsNpu(npuOp));
        for (qsizetype i = 0; i < npuRows.size(); ++i) {
            const int row = rowOf(npuRows[i]);
            QVERIFY(row >= 0);
            QCOMPARE(view.model()->index(row, CompareTableModel::BenchName).data().toString(), benchRows[i]);
            QCOMPARE(view.model()->index(row, 0).data(CompareTableModel::SourceRole).toInt(), int(MatchSource::User));
            QCOMPARE(view.model()->index(row, 0).data(CompareTableModel::GapRole).toInt(), int(CompareGaps::Gap::None));
            QVERIFY(view.model()->index(row, 0).data(CompareTableModel::VerdictRole).toInt() != int(Verdict::None));
        }
    }
};

QTEST_MAIN(TestAlignGaps)
#include "tst_aligngaps.moc"
