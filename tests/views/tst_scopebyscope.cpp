// A run of more scopes than DocumentContext's threshold opens scope by scope (issue 35,
// item 3): the walk's folders and scopes at once, no operator indexed; a scope's operators
// when its node is expanded, equal to the whole index's rows for that scope.
#include "documentcontext.h"
#include "models/dumptreemodel.h"
#include "models/rungridmodel.h"
#include "runspanel.h"
#include "run/runtree.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace ds;

namespace {

const QString kRuns = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_multirun/dumps/md5"); // 4 runs x 2 steps x 2 ranks
const QString kOneRun = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_multirun/dumps/md5/run2");

/// Every row below `item` as "name | count | size | info", tensors indented (and their ids).
QStringList rowsBelow(const DumpTreeModel &m, const QModelIndex &item)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(item); ++r) {
        const QModelIndex op = m.index(r, 0, item);
        QStringList cells;
        for (int c = 0; c < DumpTreeModel::ColumnCount; ++c)
            cells << m.index(r, c, item).data().toString();
        out << cells.join(QStringLiteral(" | ")) + QStringLiteral(" @ ") + op.data(DumpTreeModel::OpPathRole).toString();
        for (int t = 0; t < m.rowCount(op); ++t) {
            const QModelIndex tensor = m.index(t, 0, op);
            out << QStringLiteral("  ") + tensor.data().toString() + QStringLiteral(" ") +
                       tensor.data(DumpTreeModel::TensorIdRole).value<TensorId>().toString();
        }
    }
    return out;
}

DumpLevels scopeLevels(const QString &run, const QString &step, const QString &rank)
{
    DumpLevels l;
    l.run = run;
    l.step = step;
    l.rank = rank;
    return l;
}

} // namespace

class TestScopeByScope : public QObject
{
    Q_OBJECT
private slots:
    void opensWithNoOperatorIndexed_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("scopes");
        QTest::newRow("one run") << kOneRun << 4;
        QTest::newRow("four runs") << kRuns << 16;
    }
    void opensWithNoOperatorIndexed()
    {
        QFETCH(QString, path);
        QFETCH(int, scopes);
        DocumentContext context;
        context.setScopeByScopeAbove(1);
        QSignalSpy finished(&context, &DocumentContext::indexingFinished);
        context.openDump(path);
        context.waitForIndexing();
        QCOMPARE(finished.size(), 1);
        auto *m = context.treeModel();
        const int dump = m->dumpIds().value(0);
        QVERIFY(context.isScopeByScope(dump));
        QVERIFY(!context.index(dump)); // no index of the whole dump
        QCOMPARE(m->liveOps(dump), 0); // and no operator read
        QCOMPARE(m->scopesRead(dump), std::make_pair(scopes, 0));
        const QModelIndex root = m->dumpItem(dump);
        QCOMPARE(m->index(root.row(), DumpTreeModel::CountColumn).data().toString(),
                 QStringLiteral("0 op(s) in 0 of %1 scopes read").arg(scopes));
        // A scope's node has an expander and says it is not read.
        const QModelIndex scope = m->findLevels(dump, scopeLevels(scopes > 4 ? QStringLiteral("run2") : QString(),
                                                                  QStringLiteral("step1"), QStringLiteral("rank0")));
        QVERIFY(scope.isValid());
        QVERIFY(m->hasChildren(scope));
        QCOMPARE(m->rowCount(scope), 0);
        QVERIFY(m->canFetchMore(scope));
        QCOMPARE(scope.siblingAtColumn(DumpTreeModel::CountColumn).data().toString(), QStringLiteral("not read (expand to read)"));
        // Expanding it asks for it once, and it says so until its operators are in.
        QSignalSpy wanted(m, &DumpTreeModel::scopeWanted);
        m->fetchMore(scope);
        QVERIFY(!m->canFetchMore(scope));
        m->fetchMore(scope);
        QCOMPARE(wanted.size(), 1);
        QCOMPARE(scope.siblingAtColumn(DumpTreeModel::CountColumn).data().toString(), QStringLiteral("reading\u2026"));
        QTRY_VERIFY(!m->isUnreadScope(scope));
        QVERIFY(m->rowCount(scope) > 0);
        QCOMPARE(m->scopesRead(dump), std::make_pair(scopes, 1));
        QVERIFY(!context.index(dump));
    }

    void belowThresholdIndexesAll()
    {
        DocumentContext context;
        context.setScopeByScopeAbove(16); // the 16 scopes are not more than 16
        context.openDump(kRuns);
        context.waitForIndexing();
        const int dump = context.treeModel()->dumpIds().value(0);
        QVERIFY(!context.isScopeByScope(dump));
        QVERIFY(context.index(dump));
        QVERIFY(!context.index(dump)->ops.empty());
    }

    void expandedScopeEqualsWholeIndex_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("run");
        QTest::newRow("one run") << kOneRun << QString();
        QTest::newRow("four runs") << kRuns << QStringLiteral("run2");
    }
    void expandedScopeEqualsWholeIndex()
    {
        QFETCH(QString, path);
        QFETCH(QString, run);
        DocumentContext whole;
        whole.setScopeByScopeAbove(0); // never: the whole index, as below the threshold
        whole.openDump(path);
        whole.waitForIndexing();
        DocumentContext lazy;
        lazy.setScopeByScopeAbove(1);
        lazy.openDump(path);
        lazy.waitForIndexing();
        auto *m = lazy.treeModel();
        // The tester walks the whole model, expanding (fetchMore) every scope it meets.
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int dump = m->dumpIds().value(0), wholeDump = whole.treeModel()->dumpIds().value(0);
        QVERIFY(whole.index(wholeDump));
        QSignalSpy read(&lazy, &DocumentContext::scopeRead);
        for (const QString &step : {QStringLiteral("step0"), QStringLiteral("step1")})
            for (const QString &rank : {QStringLiteral("rank0"), QStringLiteral("rank1")}) {
                const DumpLevels levels = scopeLevels(run, step, rank);
                const QModelIndex scope = m->findLevels(dump, levels);
                QVERIFY(scope.isValid());
                m->fetchMore(scope); // what expanding it in a view does (the tester may have)
                QVERIFY(!m->canFetchMore(scope)); // asked once
                QTRY_VERIFY(!m->isUnreadScope(scope));
                const QModelIndex full = whole.treeModel()->findLevels(wholeDump, levels);
                QVERIFY(full.isValid());
                const QStringList expected = rowsBelow(*whole.treeModel(), full);
                QVERIFY(expected.size() > 4);
                QCOMPARE(rowsBelow(*m, scope), expected);
                // The scope's row itself (count, size) as the whole index's.
                for (int c = DumpTreeModel::CountColumn; c <= DumpTreeModel::SizeColumn; ++c)
                    QCOMPARE(scope.siblingAtColumn(c).data().toString(), full.siblingAtColumn(c).data().toString());
                // Its tensors open in the inspector through indexFor.
                const QModelIndex tensor = m->index(0, 0, m->index(0, 0, scope));
                const auto id = tensor.data(DumpTreeModel::TensorIdRole).value<TensorId>();
                QVERIFY(lazy.indexFor(dump, id));
            }
        QVERIFY(!lazy.index(dump)); // still no index of the whole dump
        const int scopes = run.isEmpty() ? 4 : 16;
        QTRY_COMPARE(m->scopesRead(dump), std::make_pair(scopes, scopes)); // those the tester expanded too
        QCOMPARE(read.size(), scopes);
        // Every scope read: the dump's row counts what the whole index counts, as it does.
        QCOMPARE(m->dumpItem(dump).siblingAtColumn(DumpTreeModel::CountColumn).data().toString(),
                 QStringLiteral("%1 op(s)").arg(whole.index(wholeDump)->ops.size()));
    }

    // The Runs overview of a dump opened scope by scope (its grid laid out by the walk's worker,
    // RunGridModel::layoutOf) is the grid of the whole index: the same steps x ranks, each cell
    // the scope the whole index's operators belong to, with the same size.
    void runsGridEqualsWholeIndex()
    {
        DocumentContext whole;
        whole.setScopeByScopeAbove(0);
        whole.openDump(kOneRun);
        whole.waitForIndexing();
        const auto index = whole.index(whole.treeModel()->dumpIds().value(0));
        QVERIFY(index);
        RunsPanel full, lazy;
        full.openDump(0, kOneRun);
        lazy.openDump(0, kOneRun);
        QTRY_VERIFY(full.runs(0) && !full.isBusy());
        QTRY_VERIFY(lazy.runs(0) && !lazy.isBusy());
        full.setIndex(0, index);
        lazy.setScopeByScope(0);
        QAbstractItemModelTester tester(lazy.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The oracle: the scopes of the whole index's operators, and their steps and ranks.
        QSet<QString> scopes, steps, ranks;
        for (const auto &[id, ops] : opsByScope(*index)) {
            scopes << id;
            steps << scopeStepLabel(*index->ops[size_t(ops.front())].levels);
            ranks << scopeRankLabel(*index->ops[size_t(ops.front())].levels);
        }
        const RunGridModel &g = *lazy.model();
        QCOMPARE(g.rowCount(), int(steps.size()));
        QCOMPARE(g.columnCount(), int(ranks.size()));
        QCOMPARE(g.rowCount(), full.model()->rowCount());
        QCOMPARE(g.columnCount(), full.model()->columnCount());
        QSet<QString> cells;
        for (int r = 0; r < g.rowCount(); ++r) {
            QCOMPARE(g.headerData(r, Qt::Vertical).toString(), full.model()->headerData(r, Qt::Vertical).toString());
            for (int c = 0; c < g.columnCount(); ++c) {
                if (!r)
                    QCOMPARE(g.headerData(c, Qt::Horizontal).toString(), full.model()->headerData(c, Qt::Horizontal).toString());
                const QModelIndex i = g.index(r, c), f = full.model()->index(r, c);
                QCOMPARE(i.data(RunGridModel::ScopeIdRole).toString(), f.data(RunGridModel::ScopeIdRole).toString());
                QCOMPARE(i.data(RunGridModel::BytesRole), f.data(RunGridModel::BytesRole));
                QVERIFY(i.data(RunGridModel::BytesRole).toULongLong() > 0);
                cells << i.data(RunGridModel::ScopeIdRole).toString();
            }
        }
        QCOMPARE(cells, scopes);
        QVERIFY2(lazy.statusText().contains(QStringLiteral("operators are read when it is selected or expanded")), qPrintable(lazy.statusText()));
        QCOMPARE(full.statusText(), QStringLiteral("All scopes read."));
    }
};

QTEST_MAIN(TestScopeByScope)
#include "tst_scopebyscope.moc"
