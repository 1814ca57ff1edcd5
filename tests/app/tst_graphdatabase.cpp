// msprobe graph databases (.vis.db, samples/msprobe_real/graph: written by the real msprobe
// 26.0.0) in the workbench: listed by what they are, coloured the way the shown database asks
// (an overflow build database by its overflow levels, a compare one by its precision levels),
// opened on the earliest finding, and a node click reaches the inspector: the operator of the
// open dump, or without it the statistics msprobe recorded for the node. Oracles: expected.json
// (the designed first anomaly, the overflow nodes Python's sqlite3 read) and dump.json read with
// QJsonDocument (tests/core/runcorpus.h).
#include "../core/runcorpus.h"

#include "documentcontext.h"
#include "dumpgraph/visdbgraph.h"
#include "graphpanel.h"
#include "graphview.h"
#include "histogramwidget.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"

#include <QComboBox>
#include <QHelpEvent>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>
#include <QTreeView>

#include <cmath>

using namespace ds;

namespace {

const QString kGraphs = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/graph");

/// The node of the shown graph whose database name is `name`.
NodeId visNode(const Graph &g, const QString &name)
{
    for (size_t n = 0; n < g.nodes.size(); ++n)
        if (const GraphAttr *a = g.nodes[n].attr(QString::fromLatin1(kVisNodeAttr)); a && a->value == name)
            return NodeId{int(n)};
    return {};
}

/// Clicks a node as a person does: brought into view, then a left click on its box.
void clickNode(GraphView *view, NodeId node)
{
    view->selectNode(node);
    QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout() && view->currentLayout()->nodeItem[node.index()] >= 0);
    const auto layout = view->currentLayout();
    const QPoint at = view->mapFromScene(layout->items[size_t(layout->nodeItem[node.index()])].rect.center()).toPoint();
    QTest::mouseClick(view, Qt::LeftButton, {}, at);
}

void pick(GraphPanel *panel, int item)
{
    QSignalSpy shown(panel, &GraphPanel::graphShown);
    panel->graphSelector()->setCurrentIndex(item);
    emit panel->graphSelector()->activated(item); // what a user's pick sends
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && panel->view()->graph(), 20000);
}

QString recordedText(double v) { return std::isinf(v) ? QString::fromLatin1(v > 0 ? "+Inf" : "-Inf") : QString::number(v, 'g', 8); }

} // namespace

class TestGraphDatabase : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// The overflow database alone: it opens on the designed first anomaly (step 1, rank 1,
    /// Torch.exp) coloured by overflow; step 0 rank 0 (no overflow) was shown with every node white.
    void overflowDatabaseOpensOnItsOverflow()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs + QStringLiteral("/build_overflow_statistics_mix"));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        const QJsonObject first = runcorpus::caseById(QStringLiteral("overflow_statistics_mix")).value(QStringLiteral("designed")).toObject()
                                      .value(QStringLiteral("run_first_anomaly")).toObject();
        const QString op = first.value(QStringLiteral("op")).toString();
        QVERIFY2(w.graph()->graphSelector()->currentText().contains(
                     QStringLiteral("NPU step%1 rank%2").arg(first.value(QStringLiteral("step")).toInt()).arg(first.value(QStringLiteral("rank")).toInt())),
                 qPrintable(w.graph()->graphSelector()->currentText()));
        QCOMPARE(w.graph()->overlayKind(), GraphPanel::Overlay::Overflow);
        const NodeId exp = visNode(*w.graph()->view()->graph(), op);
        QVERIFY(exp.isValid());
        QCOMPARE(w.graph()->view()->nodeLevel(exp), 3); // critical, red
    }

    /// A big database graph (here: every graph, the bound lowered) has its stored levels
    /// lifted on a worker: the critical node turns red once they arrive, as a small one's at once.
    void bigGraphLevelsLiftedOnAWorker()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.graph()->setVisDbLevelsOnGuiUpTo(0);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs + QStringLiteral("/build_overflow_statistics_mix"));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        QCOMPARE(w.graph()->overlayKind(), GraphPanel::Overlay::Overflow);
        const NodeId exp = visNode(*w.graph()->view()->graph(), QStringLiteral("Torch.exp.0.forward"));
        QVERIFY(exp.isValid());
        QTRY_COMPARE(w.graph()->view()->nodeLevel(exp), 3); // critical, red
    }

    /// Every database of the folder at once: each listed by what it is with its time stamp
    /// last, and the colouring follows the database shown (it stayed on "Compare verdict" for
    /// the overflow database, every node white).
    void everyDatabaseListedAndColouredByWhatItIs()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        QComboBox *selector = w.graph()->graphSelector();
        int nodes = 0;
        for (const QJsonValue &g : runcorpus::expected().value(QStringLiteral("graphs")).toObject())
            nodes += int(g.toObject().value(QStringLiteral("nodes")).toObject().size());
        QCOMPARE(selector->count(), nodes); // one per database, side, step and rank
        int build = -1, compare = -1;
        for (int i = 0; i < selector->count(); ++i) {
            const QString text = selector->itemText(i);
            QVERIFY2(text.startsWith(QStringLiteral("build with overflow check \u00b7 build_overflow_statistics_mix \u00b7 NPU step"))
                         || text.startsWith(QStringLiteral("compare (statistics) \u00b7 compare_weight_statistics_mix \u00b7 "))
                         || text.startsWith(QStringLiteral("compare (tensors) \u00b7 npu_weight_tensor_mix vs base_tensor_mix \u00b7 ")),
                     qPrintable(text));
            QVERIFY2(text.contains(QRegularExpression(QStringLiteral(" \u2014 2026-11-24 15:21:\\d\\d$"))), qPrintable(text));
            if (text.startsWith(QLatin1String("build")) && text.contains(QLatin1String("NPU step1 rank1")))
                build = i;
            if (text.startsWith(QLatin1String("compare (statistics)")) && text.contains(QLatin1String("NPU step0 rank0")))
                compare = i;
        }
        QVERIFY(build >= 0 && compare >= 0);
        for (const auto &[item, overlay] : {std::pair{build, GraphPanel::Overlay::Overflow}, std::pair{compare, GraphPanel::Overlay::Compare},
                                            std::pair{build, GraphPanel::Overlay::Overflow}}) {
            pick(w.graph(), item);
            QCOMPARE(w.graph()->overlayKind(), overlay);
        }
        // the overflow database's critical node is red without choosing a colouring
        QCOMPARE(w.graph()->view()->nodeLevel(visNode(*w.graph()->view()->graph(), QStringLiteral("Torch.exp.0.forward"))), 3);
    }

    /// Without its dump, a click on a node shows in the inspector the statistics msprobe
    /// recorded for it (dump.json's, for Torch.exp's output: Max inf) instead of nothing.
    void nodeClickShowsTheRecordedStatistics()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs + QStringLiteral("/build_overflow_statistics_mix"));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        const NodeId exp = visNode(*w.graph()->view()->graph(), QStringLiteral("Torch.exp.0.forward"));
        QSignalSpy recorded(w.graph(), &GraphPanel::recordedNodeActivated);
        clickNode(w.graph()->view(), exp);
        QTRY_COMPARE(recorded.count(), 1);
        const QJsonObject leaf = runcorpus::readDumpJson(runcorpus::runDir(QStringLiteral("overflow_statistics_mix")) + QStringLiteral("/step1/rank1/dump.json"))
                                     .value(QStringLiteral("data")).toObject().value(QStringLiteral("Torch.exp.0.forward")).toObject()
                                     .value(QStringLiteral("output")).toArray().at(0).toObject();
        const QString text = w.inspector()->histogram()->messageText();
        QVERIFY2(text.contains(QLatin1String("Torch.exp.0.forward.output.0")), qPrintable(text));
        for (const char *key : {"Max", "Min", "Mean", "Norm"})
            QVERIFY2(text.contains(recordedText(runcorpus::statistic(leaf, QLatin1String(key)))), qPrintable(QLatin1String(key) + QLatin1Char(' ') + text));
        QVERIFY(std::isinf(runcorpus::statistic(leaf, QStringLiteral("Max"))));
        QVERIFY(!w.inspector()->histogram()->hasPlot());
        QCOMPARE(w.inspector()->findChild<QLabel *>()->text(), QStringLiteral("Torch.exp.0.forward"));
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            w.grab().save(dir + QStringLiteral("/graph_database_node.png"));
    }

    /// A big database's rows stay in the file (here forced on the 18-node sample): the graph
    /// holds no node's rows after the open, a click shows the node at once saying its rows are
    /// being read, and the inspector shows the same recorded statistics as an eager read once
    /// the worker has read them (dump.json's, for Torch.exp's output: Max inf).
    void nodeRowsReadOnDemandReachTheInspector()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.graph()->setVisDbRowsInMemoryUpTo(0);
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs + QStringLiteral("/build_overflow_statistics_mix"));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        const Graph &graph = *w.graph()->view()->graph();
        for (const GraphNode &n : graph.nodes) { // not read at open
            QVERIFY(n.inputDescs.empty() && n.outputDescs.empty());
            QVERIFY(visDbRowsKey(graph, n).isValid());
        }
        const NodeId exp = visNode(graph, QStringLiteral("Torch.exp.0.forward"));
        QString atClick;
        QSignalSpy recorded(w.graph(), &GraphPanel::recordedNodeActivated);
        connect(w.graph(), &GraphPanel::recordedNodeActivated, this, [&] { atClick = w.inspector()->histogram()->messageText(); });
        clickNode(w.graph()->view(), exp);
        QTRY_COMPARE(recorded.count(), 1);
        QVERIFY2(atClick.contains(QLatin1String("reading")), qPrintable(atClick)); // shown at once, rows on their way
        QTRY_VERIFY_WITH_TIMEOUT(w.inspector()->histogram()->messageText().contains(QLatin1String("Torch.exp.0.forward.output.0")), 10000);
        QVERIFY(!w.inspector()->isBusy());
        const QJsonObject leaf = runcorpus::readDumpJson(runcorpus::runDir(QStringLiteral("overflow_statistics_mix")) + QStringLiteral("/step1/rank1/dump.json"))
                                     .value(QStringLiteral("data")).toObject().value(QStringLiteral("Torch.exp.0.forward")).toObject()
                                     .value(QStringLiteral("output")).toArray().at(0).toObject();
        const QString text = w.inspector()->histogram()->messageText();
        for (const char *key : {"Max", "Min", "Mean", "Norm"})
            QVERIFY2(text.contains(recordedText(runcorpus::statistic(leaf, QLatin1String(key)))), qPrintable(QLatin1String(key) + QLatin1Char(' ') + text));
        QCOMPARE(w.inspector()->findChild<QLabel *>()->text(), QStringLiteral("Torch.exp.0.forward"));
        // The tooltip reads them on demand too, and then lists the node's rows.
        GraphView *view = w.graph()->view();
        const auto layout = view->currentLayout();
        const QPoint at = view->mapFromScene(layout->items[size_t(layout->nodeItem[exp.index()])].rect.center()).toPoint();
        QHelpEvent help(QEvent::ToolTip, at, view->mapToGlobal(at));
        QCoreApplication::sendEvent(view, &help);
        QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(QToolTip::text().contains(QLatin1String("Torch.exp.0.forward.output.0")), qPrintable(QToolTip::text()), 10000);
    }

    /// With the run open, a click on a node selects its operator (tree, table, inspector): the
    /// database's step and rank, the entry of the node's name.
    void nodeClickSelectsTheOperatorOfTheOpenDump()
    {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.centralTabs()->setCurrentWidget(w.graph());
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        w.openPath(runcorpus::runDir(QStringLiteral("overflow_statistics_mix")));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QSignalSpy shown(w.graph(), &GraphPanel::graphShown);
        w.openPath(kGraphs + QStringLiteral("/build_overflow_statistics_mix"));
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0 && w.graph()->view()->graph(), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.graph()->mapping(), 20000);
        QVERIFY2(w.graph()->linkLabel()->text().contains(QLatin1String("nodes are operators of the open dump")), qPrintable(w.graph()->linkLabel()->text()));
        const NodeId exp = visNode(*w.graph()->view()->graph(), QStringLiteral("Torch.exp.0.forward"));
        QSignalSpy activated(w.graph(), &GraphPanel::opActivated);
        clickNode(w.graph()->view(), exp);
        QTRY_COMPARE(activated.count(), 1);
        const auto index = w.context()->index(0);
        const int op = activated[0][1].toInt();
        QCOMPARE(index->ops[size_t(op)].relPath.toString(), QStringLiteral("step1/rank1/Torch.exp.0.forward"));
        QTRY_COMPARE(w.tree()->currentIndex().siblingAtColumn(0).data(DumpTreeModel::OpPathRole).toString(),
                     QStringLiteral("step1/rank1/Torch.exp.0.forward"));
        QTRY_VERIFY(w.inspector()->findChild<QLabel *>()->text().contains(QLatin1String("Torch.exp.0.forward.output.0")));
    }
};

QTEST_MAIN(TestGraphDatabase)
#include "tst_graphdatabase.moc"
