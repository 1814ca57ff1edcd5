#include "compare/compare.h"
#include "graph/graphgenerator.h"
#include "graphpanel.h"
#include "graphview.h"
#include "index/buildindex.h"

#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace ds;

namespace {

GroupId groupByPath(const Graph &g, const QString &path)
{
    for (size_t i = 0; i < g.groups.size(); ++i)
        if (g.groups[i].path == path)
            return GroupId{int(i)};
    return {};
}

int opByName(const DumpIndex &index, const QString &opName)
{
    for (size_t o = 0; o < index.ops.size(); ++o)
        if (index.ops[o].opName == opName)
            return int(o);
    return -1;
}

/// The node's box centre in widget coordinates.
QPointF nodeCentre(const GraphView &view, NodeId node)
{
    const auto layout = view.currentLayout();
    const int item = layout->nodeItem[node.index()];
    return item < 0 ? QPointF(-1, -1) : view.mapFromScene(layout->items[size_t(item)].rect.center());
}

} // namespace

class TestGraphView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump"));
        QVERIFY(built);
        m_index = *built;
        QVERIFY(!m_index->ops.empty());
    }

    void sampleGraph()
    {
        GraphPanel panel;
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(m_index->openedPath, m_index, 0); // the dump folder: graph files are found next to it
        QTRY_COMPARE(shown.count(), 1);
        GraphView *view = panel.view();
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());

        // The ranked graphs: the Build ge_proto file first.
        QCOMPARE(panel.graphSelector()->count(), 3);
        QVERIFY(panel.graphSelector()->itemText(0).startsWith(QStringLiteral("ge_proto_00000292_Build.txt")));
        QVERIFY(panel.mapping());
        const Graph &g = *view->graph();

        // Overflow marks colour the node and, collapsed, its outermost group.
        const int bnOp = opByName(*m_index, QStringLiteral("resnet_block1_bn_BNInference"));
        QVERIFY(bnOp >= 0);
        panel.setOpMarks({{bnOp, 3}});
        const GroupId resnet = groupByPath(g, QStringLiteral("resnet"));
        QVERIFY(resnet.isValid() && !view->isExpanded(resnet));
        QCOMPARE(view->itemLevel(view->currentLayout()->groupItem[resnet.index()]), 3);
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("critical")));

        // Search by name: incremental hit count, Enter jumps, the groups open, the node is centred.
        const NodeId bn = g.findNode(QStringLiteral("resnet/block1/bn/BNInference"));
        QVERIFY(bn.isValid());
        QTest::keyClicks(panel.searchBox(), QStringLiteral("bninfer"));
        QCOMPARE(view->findNodes(QStringLiteral("bninfer")).size(), size_t(1));
        QTest::keyClick(panel.searchBox(), Qt::Key_Return);
        QTRY_COMPARE(view->selectedNode(), bn);
        QTRY_VERIFY(!view->isLayoutPending());
        for (const char *path : {"resnet", "resnet/block1", "resnet/block1/bn"})
            QVERIFY2(view->isExpanded(groupByPath(g, QString::fromLatin1(path))), path);
        QTRY_VERIFY(view->currentLayout()->nodeItem[bn.index()] >= 0);
        const QPointF c = nodeCentre(*view, bn);
        QVERIFY2(std::abs(c.x() - view->width() / 2.0) < 2 && std::abs(c.y() - view->height() / 2.0) < 2,
                 qPrintable(QStringLiteral("node at %1,%2").arg(c.x()).arg(c.y())));
        QCOMPARE(view->itemLevel(view->currentLayout()->nodeItem[bn.index()]), 3);

        // Search by type finds the same node.
        QVERIFY(!view->findNodes(QStringLiteral("BNInferenceD")).empty());

        // Clicking a node with dump data emits its operator.
        const NodeId conv = g.findNode(QStringLiteral("resnet/block1/conv/Conv2D"));
        QVERIFY(conv.isValid());
        view->selectNode(conv);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[conv.index()] >= 0);
        QSignalSpy activated(&panel, &GraphPanel::opActivated);
        QTest::mouseClick(view, Qt::LeftButton, {}, nodeCentre(*view, conv).toPoint());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated[0][0].toInt(), 0);
        const int op = activated[0][1].toInt();
        QCOMPARE(m_index->ops[size_t(op)].opName, QStringLiteral("resnet_block1_conv_Conv2D"));
        QCOMPARE(panel.opsOfNode(conv).front(), op);

        // selectOp from elsewhere centres the node of the op.
        const int fcOp = opByName(*m_index, QStringLiteral("resnet_fc_BiasAdd"));
        QVERIFY(fcOp >= 0);
        panel.selectOp(0, fcOp);
        const NodeId fc = g.findNode(QStringLiteral("resnet/fc/BiasAdd"));
        QTRY_COMPARE(view->selectedNode(), fc);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[fc.index()] >= 0);
        QVERIFY((nodeCentre(*view, fc) - QPointF(view->width() / 2.0, view->height() / 2.0)).manhattanLength() < 3);

        // Edge tooltips name the producer's tensor.
        const auto layout = view->currentLayout();
        int dataEdge = -1;
        for (size_t e = 0; e < layout->edges.size() && dataEdge < 0; ++e)
            if (!layout->edges[e].control && layout->items[size_t(layout->edges[e].from)].kind == LayoutItem::Kind::Node)
                dataEdge = int(e);
        QVERIFY(dataEdge >= 0);
        QVERIFY2(view->edgeToolTip(dataEdge).contains(QStringLiteral("DT_")), qPrintable(view->edgeToolTip(dataEdge)));

        // Double-click an open group's frame header to close it.
        const GroupId fcGroup = groupByPath(g, QStringLiteral("resnet/fc"));
        QVERIFY(view->isExpanded(fcGroup));
        const QRectF frame = layout->items[size_t(layout->groupItem[fcGroup.index()])].rect;
        const QPoint header = view->mapFromScene(frame.topLeft() + QPointF(frame.width() / 2, 6)).toPoint();
        QCOMPARE(view->itemAt(header), layout->groupItem[fcGroup.index()]);
        QTest::mouseDClick(view, Qt::LeftButton, {}, header);
        QVERIFY(!view->isExpanded(fcGroup));
        QTRY_VERIFY(!view->isLayoutPending());
        QCOMPARE(view->currentLayout()->items[size_t(view->currentLayout()->groupItem[fcGroup.index()])].kind, LayoutItem::Kind::Group);

        panel.view()->fitToView();
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graphview_fit.png")));
        // Show the overview of what the user sees after a search.
        view->selectNode(bn);
        QTRY_VERIFY(!view->isLayoutPending());
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graphview.png")));
    }

    /// An msprobe dump has no GE graph: its construct.json module hierarchy is shown, one
    /// selector entry per step/rank directory; search and click work as for GE graphs.
    void moduleGraph()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe"));
        QVERIFY(built);
        const std::shared_ptr<const DumpIndex> index = *built;
        GraphPanel panel;
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(index->openedPath, index, 1);
        QTRY_COMPARE(shown.count(), 1);
        QSet<QString> dirs;
        for (const OpRecord &op : index->ops)
            dirs.insert(op.relPath.section(QLatin1Char('/'), 0, -2));
        QComboBox *selector = panel.graphSelector();
        QCOMPARE(selector->count(), int(dirs.size()));
        const int rank0 = selector->findText(QStringLiteral("step0/rank0 ("), Qt::MatchContains);
        QVERIFY(rank0 >= 0);
        if (selector->currentIndex() != rank0) {
            selector->setCurrentIndex(rank0);
            emit selector->activated(rank0);
            QTRY_COMPARE(shown.count(), 2);
        }
        GraphView *view = panel.view();
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        const Graph &g = *view->graph();
        QCOMPARE(g.name, QStringLiteral("step0/rank0"));
        for (const char *module : {"Module.conv1.Conv2d.forward.0", "Module.fc.Linear.forward.0", "Module.fc.Linear.backward.0"})
            QVERIFY2(groupByPath(g, QString::fromLatin1(module)).isValid(), module);

        // Search finds the API inside its module group.
        const NodeId conv = g.findNode(QStringLiteral("Module.conv1.Conv2d.forward.0/Functional.conv2d.0.forward"));
        QVERIFY(conv.isValid());
        QTest::keyClicks(panel.searchBox(), QStringLiteral("conv2d"));
        const auto hits = view->findNodes(QStringLiteral("conv2d"));
        QVERIFY(std::find(hits.begin(), hits.end(), conv) != hits.end());
        QTest::keyClick(panel.searchBox(), Qt::Key_Return);
        QTRY_COMPARE(view->selectedNode(), hits.front());

        // Clicking the API emits its dump entry.
        view->selectNode(conv);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[conv.index()] >= 0);
        QVERIFY(view->isExpanded(groupByPath(g, QStringLiteral("Module.conv1.Conv2d.forward.0"))));
        QSignalSpy activated(&panel, &GraphPanel::opActivated);
        QTest::mouseClick(view, Qt::LeftButton, {}, nodeCentre(*view, conv).toPoint());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated[0][0].toInt(), 1);
        const OpRecord &op = index->ops[size_t(activated[0][1].toInt())];
        QCOMPARE(op.relPath, QStringLiteral("step0/rank0/Functional.conv2d.0.forward"));
        QCOMPARE(panel.nodeOfOp(activated[0][1].toInt()), conv);
        // selectOp from elsewhere (the op table) selects the node of the entry.
        panel.selectOp(1, index->opIndex(QStringLiteral("step0/rank0/Functional.linear.0.forward")));
        QTRY_COMPARE(view->selectedNode(), g.findNode(QStringLiteral("Module.fc.Linear.forward.0/Functional.linear.0.forward")));
        QTRY_VERIFY(!view->isLayoutPending());
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/modgraph.png")));
        view->fitToView();
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/modgraph_fit.png")));
    }

    /// Colour by max |output| and NaN/Inf: statistics computed in the background, levels match
    /// the numpy statistics of the sample manifest; double-clicking a node opens its sub-graph.
    void statisticOverlaysAndSubgraphs()
    {
        QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QHash<QString, std::pair<double, bool>> expected; // op relPath -> (max |output|, non-finite)
        for (const auto s : QJsonDocument::fromJson(f.readAll())[QStringLiteral("samples")].toArray()) {
            if (s[QStringLiteral("name")].toString() != QStringLiteral("graph_ge"))
                continue;
            for (const auto t : s[QStringLiteral("tensors_expected")].toArray()) {
                const QString id = t[QStringLiteral("id")].toString();
                const qsizetype at = id.lastIndexOf(QStringLiteral(".output."));
                if (at < 0)
                    continue;
                const QString op = id.left(at).mid(QStringLiteral("dump/").size());
                const auto st = t[QStringLiteral("stats")].toObject();
                auto &e = expected[op];
                e.first = std::max({e.first, std::fabs(st[QStringLiteral("min")].toDouble()), std::fabs(st[QStringLiteral("max")].toDouble())});
                e.second = e.second || st[QStringLiteral("nan")].toInt() + st[QStringLiteral("posinf")].toInt() + st[QStringLiteral("neginf")].toInt() > 0;
            }
        }
        QVERIFY(expected.size() > 5);

        GraphPanel panel;
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(m_index->openedPath, m_index, 0);
        QTRY_COMPARE(shown.count(), 1);
        GraphView *view = panel.view();
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        const Graph &g = *view->graph();

        panel.setOverlayKind(GraphPanel::Overlay::MaxAbs);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.legendLabel()->text().contains(QStringLiteral("computing")), 20000);
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("65504")));
        int checked = 0;
        for (size_t n = 0; n < g.nodes.size(); ++n) {
            const auto ops = panel.opsOfNode(NodeId{int(n)});
            if (ops.size() != 1 || !expected.contains(m_index->ops[size_t(ops[0])].relPath))
                continue;
            const auto [maxAbs, nonFinite] = expected[m_index->ops[size_t(ops[0])].relPath];
            const int level = nonFinite ? 5 : maxAbs < 1 ? 1 : maxAbs < 1e2 ? 2 : maxAbs < 1e4 ? 3 : maxAbs < 65504 ? 4 : 5;
            view->selectNode(NodeId{int(n)});
            QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[n] >= 0);
            QCOMPARE(view->itemLevel(view->currentLayout()->nodeItem[n]), level);
            ++checked;
        }
        QVERIFY2(checked >= 5, qPrintable(QString::number(checked)));
        view->fitToView();
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graphview_maxabs.png")));

        panel.setOverlayKind(GraphPanel::Overlay::NonFinite);
        const NodeId bn = g.findNode(QStringLiteral("resnet/block1/bn/BNInference"));
        view->selectNode(bn);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[bn.index()] >= 0);
        const auto bnOps = panel.opsOfNode(bn);
        QCOMPARE(bnOps.size(), size_t(1));
        QCOMPARE(view->itemLevel(view->currentLayout()->nodeItem[bn.index()]),
                 expected[m_index->ops[size_t(bnOps[0])].relPath].second ? 3 : 1);
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("NaN")));

        // Compare overlays: the worst value of each op's rows, in the legend's bands. Two mapped
        // ops get rows with known metrics (a NaN cosine is worse than any number).
        std::vector<int> mappedOps;
        std::vector<NodeId> mappedNodes;
        for (size_t n = 0; n < g.nodes.size() && mappedOps.size() < 2; ++n)
            if (const auto ops = panel.opsOfNode(NodeId{int(n)}); ops.size() == 1) {
                mappedOps.push_back(ops[0]);
                mappedNodes.push_back(NodeId{int(n)});
            }
        QCOMPARE(mappedOps.size(), size_t(2));
        CompareResult result;
        auto row = [&](int op, double cosine, double maxAbs, double maxRel, Verdict v) {
            CompareRow r;
            r.npu = {op, 0};
            r.verdict = v;
            r.metrics[size_t(Metric::Cosine)] = MetricValue::of(cosine);
            r.metrics[size_t(Metric::MaxAbsErr)] = MetricValue::of(maxAbs);
            r.metrics[size_t(Metric::MaxRelativeErr)] = MetricValue::of(maxRel);
            result.rows.push_back(r);
        };
        row(mappedOps[0], 0.99995, 2e-5, 5e-5, Verdict::Pass);
        row(mappedOps[0], 0.9995, 3e-3, 0.5, Verdict::Warning);  // worst cosine 0.9995, abs 3e-3, rel 0.5
        row(mappedOps[1], std::nan(""), 7.0, 2e-5, Verdict::Error); // NaN cosine, abs 7
        row(mappedOps[1], 0.999999, 1e-6, 1e-6, Verdict::Pass);
        panel.setCompareResult(result);
        auto levelOf = [&](NodeId n) {
            view->selectNode(n);
            [&] { QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[n.index()] >= 0); }();
            const int item = view->currentLayout()->nodeItem[n.index()];
            return item >= 0 ? view->itemLevel(item) : -1;
        };
        QCOMPARE(panel.overlayKind(), GraphPanel::Overlay::Compare);
        QCOMPARE(levelOf(mappedNodes[0]), int(Verdict::Warning));
        QCOMPARE(levelOf(mappedNodes[1]), int(Verdict::Error));
        panel.setOverlayKind(GraphPanel::Overlay::CompareCosine);
        QCOMPARE(levelOf(mappedNodes[0]), 2); // 0.999 <= 0.9995 < 0.9999
        QCOMPARE(levelOf(mappedNodes[1]), 4); // NaN
        panel.setOverlayKind(GraphPanel::Overlay::CompareMaxAbsErr);
        QCOMPARE(levelOf(mappedNodes[0]), 2); // 1e-4 <= 3e-3 < 1e-2
        QCOMPARE(levelOf(mappedNodes[1]), 4); // 7 >= 1
        panel.setOverlayKind(GraphPanel::Overlay::CompareMaxRelErr);
        QCOMPARE(levelOf(mappedNodes[0]), 3); // 1e-2 <= 0.5 < 1
        QCOMPARE(levelOf(mappedNodes[1]), 1); // 2e-5 < 1e-4
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("Max relative error")));

        // The Build graph's If node calls a sub-graph: double-click opens it.
        QVERIFY(panel.subgraphSelector()->isVisible());
        QCOMPARE(panel.subgraphSelector()->count(), 2);
        NodeId caller;
        for (size_t n = 0; n < g.nodes.size() && !caller.isValid(); ++n)
            if (!g.nodes[n].subgraphNames.isEmpty())
                caller = NodeId{int(n)};
        QVERIFY(caller.isValid());
        const QString subName = g.node(caller).subgraphNames.front();
        view->selectNode(caller);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[caller.index()] >= 0);
        QTest::mouseDClick(view, Qt::LeftButton, {}, nodeCentre(*view, caller).toPoint());
        QCOMPARE(panel.shownGraph(), 1);
        QCOMPARE(view->graph()->name, subName);
        QCOMPARE(panel.subgraphSelector()->currentIndex(), 1);
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graphview_subgraph.png")));
        panel.showGraph(0);
        QCOMPARE(view->graph()->name, g.name);
    }

    void staleLayoutsAreDropped()
    {
        GeneratedGraphSpec spec{6, 4, 20, 200, 3};
        auto g = std::make_shared<const Graph>(generateScopedGraph(spec));
        GraphView view;
        view.resize(800, 600);
        view.setGraph(g);
        QTRY_VERIFY(view.currentLayout() && !view.isLayoutPending());
        const auto top = view.currentLayout();
        QSignalSpy changed(&view, &GraphView::layoutChanged);
        const GroupId flat = groupByPath(*g, QStringLiteral("flat")), block = groupByPath(*g, QStringLiteral("block2"));
        view.setExpanded(flat, true);
        view.setExpanded(block, true); // asked before the first result arrives
        QTRY_VERIFY(!view.isLayoutPending());
        QCOMPARE(view.currentLayout()->expanded, (std::vector<int>{std::min(flat.value, block.value), std::max(flat.value, block.value)}));
        QVERIFY(changed.count() >= 1);
        // Going back to a known state uses the cache: no job, shown at once.
        view.setExpanded(flat, false);
        view.setExpanded(block, false);
        QVERIFY(!view.isLayoutPending());
        QCOMPARE(view.currentLayout().get(), top.get());
        // Labels are hidden when zoomed far out; the minimap shows when the graph overflows.
        view.setExpanded(flat, true);
        QTRY_VERIFY(!view.isLayoutPending());
        view.setZoom(1.0, QPointF(0, 0));
        QVERIFY(!view.minimapRect().isEmpty());
        view.show();
        view.selectNode(g->group(flat).nodes[100]);
        QVERIFY(view.grab().save(QStringLiteral("/tmp/graphview_generated.png")));
        view.fitToView();
        QVERIFY(view.minimapRect().isEmpty());
    }

private:
    std::shared_ptr<const DumpIndex> m_index;
};

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
