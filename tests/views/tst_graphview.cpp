#include "compare/compare.h"
#include "compareview.h"
#include "graph/graphgenerator.h"
#include "dumpgraph/graphstart.h"
#include "graphcompareview.h"
#include "graphpanel.h"
#include "graphview.h"
#include "index/buildindex.h"
#include "models/comparetablemodel.h"
#include "../core/copytree.h"

#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QToolButton>

#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

using namespace ds;
using ds::testing::copyTree;

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

/// What a person sees in the last paint of `view`: every box lying wholly inside the view has
/// its name drawn, at least `minLabels` names are drawn, each at least as large as a 9 pt
/// font renders on this screen (measured from the painted labels, not from the view's
/// font); the box of `start` is among them.
void checkLegible(GraphView *view, NodeId start, int minLabels)
{
    QVERIFY(!view->grab().isNull()); // paints now
    const auto layout = view->currentLayout();
    QVERIFY(layout);
    QFont nine = view->font();
    nine.setPointSizeF(9);
    const double ninePixels = QFontMetricsF(nine, view).height();
    std::set<int> named;
    for (const PaintedLabel &l : view->paintedLabels()) {
        if (!l.isName)
            continue;
        QVERIFY2(l.rect.height() >= ninePixels * 0.98,
                 qPrintable(QStringLiteral("%1: %2 px < %3 px").arg(l.text).arg(l.rect.height()).arg(ninePixels)));
        QVERIFY2(l.pointSize >= 9 - 1e-6, qPrintable(l.text));
        QVERIFY(QRectF(view->rect()).contains(l.rect));
        named.insert(l.item);
    }
    QVERIFY2(int(named.size()) >= minLabels, qPrintable(QStringLiteral("%1 labels").arg(named.size())));
    const QRectF inside(view->rect());
    int boxes = 0;
    for (size_t i = 0; i < layout->items.size(); ++i) {
        const LayoutItem &it = layout->items[i];
        const QRectF r(view->mapFromScene(it.rect.topLeft()), view->mapFromScene(it.rect.bottomRight()));
        if (it.kind == LayoutItem::Kind::ExpandedGroup || !inside.contains(r))
            continue;
        ++boxes;
        QVERIFY2(named.count(int(i)), qPrintable(view->itemName(int(i)) + QStringLiteral(" has no label")));
    }
    QVERIFY(boxes >= std::min(minLabels, int(layout->items.size())));
    const int startItem = layout->visibleItemOf(start);
    QVERIFY(startItem >= 0);
    QVERIFY2(named.count(startItem), qPrintable(QStringLiteral("the start %1 is not labelled").arg(view->itemName(startItem))));
}

NodeId nodeOfEntry(const Graph &g, const QString &entry)
{
    for (size_t n = 0; n < g.nodes.size(); ++n)
        if (g.nodes[n].name.endsWith(QLatin1Char('/') + entry))
            return NodeId{int(n)};
    return {};
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
        QVERIFY(resnet.isValid() && view->isExpanded(resnet)); // the first view opened it (a small graph)
        view->setExpanded(resnet, false);
        QTRY_VERIFY(!view->isLayoutPending());
        QVERIFY(!view->isExpanded(resnet));
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
        for (const char *module : {"forward/Module.conv1.Conv2d.forward.0", "forward/Module.fc.Linear.forward.0", "backward/Module.fc.Linear.backward.0"})
            QVERIFY2(groupByPath(g, QString::fromLatin1(module)).isValid(), module);

        // Search finds the API inside its module group.
        const NodeId conv = g.findNode(QStringLiteral("forward/Module.conv1.Conv2d.forward.0/Functional.conv2d.0.forward"));
        QVERIFY(conv.isValid());
        QTest::keyClicks(panel.searchBox(), QStringLiteral("conv2d"));
        const auto hits = view->findNodes(QStringLiteral("conv2d"));
        QVERIFY(std::find(hits.begin(), hits.end(), conv) != hits.end());
        QTest::keyClick(panel.searchBox(), Qt::Key_Return);
        QTRY_COMPARE(view->selectedNode(), hits.front());

        // Clicking the API emits its dump entry.
        view->selectNode(conv);
        QTRY_VERIFY(!view->isLayoutPending() && view->currentLayout()->nodeItem[conv.index()] >= 0);
        QVERIFY(view->isExpanded(groupByPath(g, QStringLiteral("forward/Module.conv1.Conv2d.forward.0"))));
        QSignalSpy activated(&panel, &GraphPanel::opActivated);
        QTest::mouseClick(view, Qt::LeftButton, {}, nodeCentre(*view, conv).toPoint());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated[0][0].toInt(), 1);
        const OpRecord &op = index->ops[size_t(activated[0][1].toInt())];
        QCOMPARE(op.relPath, QStringLiteral("step0/rank0/Functional.conv2d.0.forward"));
        QCOMPARE(panel.nodeOfOp(activated[0][1].toInt()), conv);
        // selectOp from elsewhere (the op table) selects the node of the entry.
        panel.selectOp(1, index->opIndex(QStringLiteral("step0/rank0/Functional.linear.0.forward")));
        QTRY_COMPARE(view->selectedNode(), g.findNode(QStringLiteral("forward/Module.fc.Linear.forward.0/Functional.linear.0.forward")));
        QTRY_VERIFY(!view->isLayoutPending());
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/modgraph.png")));
        view->fitToView();
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/modgraph_fit.png")));
    }

    /// A graph over GraphPanel::overlayOnGuiUpTo nodes (the bound lowered to 0 here) has its
    /// colouring lifted to the nodes on a worker: nothing on the view when setOpMarks returns,
    /// the same levels as the GUI thread's pass when the worker's arrive; no marks: cleared at once.
    void bigGraphOverlayLiftedOnAWorker_data()
    {
        QTest::addColumn<bool>("worker");
        QTest::addRow("GUI thread") << false;
        QTest::addRow("worker") << true;
    }
    void bigGraphOverlayLiftedOnAWorker()
    {
        QFETCH(bool, worker);
        GraphPanel panel;
        if (worker)
            panel.setOverlayOnGuiUpTo(0);
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(m_index->openedPath, m_index, 0);
        QTRY_COMPARE(shown.count(), 1);
        GraphView *view = panel.view();
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        const Graph &g = *view->graph();
        const GroupId resnet = groupByPath(g, QStringLiteral("resnet"));
        QVERIFY(resnet.isValid());
        view->setExpanded(resnet, false);
        QTRY_VERIFY(!view->isLayoutPending());
        const auto resnetLevel = [&] { return view->itemLevel(view->currentLayout()->groupItem[resnet.index()]); };
        QCOMPARE(resnetLevel(), 0);
        panel.setOpMarks({{opByName(*m_index, QStringLiteral("resnet_block1_bn_BNInference")), 3}});
        QCOMPARE(resnetLevel(), worker ? 0 : 3); // the worker's levels come through the event loop
        if (worker)
            QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("computing")));
        QTRY_COMPARE(resnetLevel(), 3);
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("critical")));
        QVERIFY(!panel.legendLabel()->text().contains(QStringLiteral("computing")));
        panel.setOpMarks({{opByName(*m_index, QStringLiteral("resnet_fc_BiasAdd")), 1}});
        QTRY_COMPARE(resnetLevel(), 1);
        panel.setOpMarks({});
        QCOMPARE(resnetLevel(), 0); // nothing to lift: no pass, no worker
        QVERIFY(panel.legendLabel()->text().contains(QStringLiteral("none in this graph")));
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
        const GraphExpansion first = view.expansion(); // what the first view opened
        QSignalSpy changed(&view, &GraphView::layoutChanged);
        const GroupId flat = groupByPath(*g, QStringLiteral("flat")), block = groupByPath(*g, QStringLiteral("block2/layer1"));
        QVERIFY(!view.isExpanded(flat) && !view.isExpanded(block));
        view.setExpanded(flat, true);
        view.setExpanded(block, true); // asked before the first result arrives
        QTRY_VERIFY(!view.isLayoutPending());
        GraphExpansion both = first;
        both.insert({flat, block});
        QCOMPARE(view.currentLayout()->expanded, view.engine()->normalize(both));
        QVERIFY(view.currentLayout()->groupItem[flat.index()] >= 0 && view.currentLayout()->groupItem[block.index()] >= 0);
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

    /// Item 1 of the issue: at first paint, readable labels where the user starts.
    void firstViewIsLegible_data()
    {
        QTest::addColumn<QString>("dump");
        QTest::addColumn<QString>("startEntry"); // "" : the data entry the view chose
        QTest::addRow("GE sample") << QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump") << QString();
        QTest::addRow("msprobe sample") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe/step0/rank0") << QString();
        QTest::addRow("msprobe network") << QStringLiteral(DUMPSCOPE_SAMPLES "/graph_compare/npu") << QString();
    }
    void firstViewIsLegible()
    {
        QFETCH(QString, dump);
        auto built = buildIndex(dump);
        QVERIFY(built);
        const std::shared_ptr<const DumpIndex> index = *built;
        GraphPanel panel;
        panel.resize(1100, 750);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(index->openedPath, index, 0);
        QTRY_COMPARE(shown.count(), 1);
        GraphView *view = panel.view();
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        const Graph &g = *view->graph();
        QCOMPARE(view->startNode(), entryNode(g));
        QVERIFY(view->zoom() >= GraphView::readableZoom());
        checkLegible(view, view->startNode(), std::min(6, int(g.nodes.size())));
        const QString name = QFileInfo(dump).fileName();
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graph_first_%1.png").arg(name)));
    }

    /// A generated 50,000-operator graph with GE's top-level crowds: laid out off the GUI
    /// thread, legible at once, the crowds folded.
    void firstViewOfABigGraph()
    {
        GeneratedGraphSpec spec{48, 20, 50, 0, 3};
        spec.atomicCleans = 500;
        spec.weightTransforms = 750;
        auto g = std::make_shared<const Graph>(generateScopedGraph(spec));
        QCOMPARE(int(g->nodes.size()), 50002);
        GraphView view;
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setGraph(g);
        QVERIFY(view.isLayoutPending()); // the hierarchy and the first layout are made on a worker
        QVERIFY(!view.currentLayout());
        QTRY_VERIFY_WITH_TIMEOUT(view.currentLayout() && !view.isLayoutPending(), 30000);
        checkLegible(&view, g->findNode(QStringLiteral("input")), 6);
        // The crowds are single boxes of the top level, which fits the view's width.
        int folds = 0;
        for (GroupId grp : view.hierarchy()->topGroups)
            folds += view.hierarchy()->group(grp).kind == GroupKind::Fold ? 1 : 0;
        QCOMPARE(folds, 3);
        QVERIFY(view.currentLayout()->bounds.width() <= view.width());
        QVERIFY(!view.minimapRect().isEmpty()); // the rest of the graph is below: the minimap says where we are
        QVERIFY(view.grab().save(QStringLiteral("/tmp/graph_first_generated.png")));
    }

    /// A first overflow known before the graph is shown: the view starts there, readable.
    void startsAtTheFirstOverflow()
    {
        GraphPanel panel;
        panel.resize(1100, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(m_index->openedPath, m_index, 0);
        QTRY_COMPARE(shown.count(), 1);
        GraphView *view = panel.view();
        const int bnOp = opByName(*m_index, QStringLiteral("resnet_block1_bn_BNInference"));
        panel.setFirstOverflowOp(bnOp);
        const NodeId bn = view->graph()->findNode(QStringLiteral("resnet/block1/bn/BNInference"));
        QCOMPARE(view->startNode(), bn);
        QTRY_VERIFY(view->currentLayout() && !view->isLayoutPending());
        checkLegible(view, bn, 5);
        // Fit all stays a button; Start comes back.
        view->fitToView();
        QVERIFY(view->zoom() < GraphView::readableZoom() || view->minimapRect().isEmpty());
        view->showStart();
        QVERIFY(view->zoom() >= GraphView::readableZoom());
        checkLegible(view, bn, 5);
    }

    /// Item 5: graph files opened apart from the dump are linked by the CLI's rules, and the
    /// Graph tab says how many operators are linked.
    void linkCountWhenOpenedSeparately()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dump = tmp.filePath(QStringLiteral("run/dump")), graphs = tmp.filePath(QStringLiteral("workdir/graphs"));
        QVERIFY(copyTree(QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump"), dump));
        QVERIFY(copyTree(QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump_graph"), graphs));
        auto built = buildIndex(dump);
        QVERIFY(built);
        const std::shared_ptr<const DumpIndex> index = *built;
        GraphPanel panel;
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(dump, index, 0);
        QTRY_VERIFY(panel.statusLabel()->text().contains(QStringLiteral("No GE graph files")));
        QVERIFY(!panel.view()->graph());
        panel.addGraphPaths({graphs});
        QTRY_COMPARE(shown.count(), 1);
        // The CLI with the same two paths is the oracle: `dumpscope-cli graph DUMP GRAPH_DIR`.
        const QJsonObject cli = cliGraphReport(dump, graphs);
        const int mapped = cli[QStringLiteral("dump")][QStringLiteral("mapped_ops")].toInt();
        QVERIFY(mapped > 0);
        QCOMPARE(panel.linkedOps(), mapped);
        QCOMPARE(cli[QStringLiteral("computation_graph")][QStringLiteral("graph")].toString(), panel.view()->graph()->name);
        const QString text = panel.linkLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("Linked: %1 of %2").arg(mapped).arg(index->ops.size())), qPrintable(text));
        // The dump opened second: the same links.
        GraphPanel later;
        QSignalSpy laterShown(&later, &GraphPanel::graphShown);
        later.addGraphPaths({graphs});
        QTRY_COMPARE(laterShown.count(), 1);
        QVERIFY(later.linkLabel()->text().contains(QStringLiteral("No dump is open")));
        later.loadForDump(dump, index, 0);
        QTRY_COMPARE(laterShown.count(), 2);
        QCOMPARE(later.linkedOps(), mapped);
    }

    /// Item 4: NPU and bench graphs side by side, matched nodes aligned, unmatched marked on
    /// both sides, click an NPU node then a bench node to pair them (CompareView's mapping).
    void graphCompare()
    {
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/graph_compare");
        QFile f(root + QStringLiteral("/expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(f.readAll()).object();
        const QStringList npuOnly = [&] { QStringList l; for (const auto v : expected[QStringLiteral("npu_only")].toArray()) l << v.toString(); return l; }();
        const QStringList benchOnly = [&] { QStringList l; for (const auto v : expected[QStringLiteral("bench_only")].toArray()) l << v.toString(); return l; }();
        QVERIFY(npuOnly.contains(QStringLiteral("NPU.npu_fast_gelu.0.forward")));
        QVERIFY(benchOnly.contains(QStringLiteral("Functional.gelu.0.forward")));

        auto built = buildIndex(root + QStringLiteral("/npu"));
        QVERIFY(built);
        const std::shared_ptr<const DumpIndex> npu = *built;
        CompareView compare;
        QSignalSpy finished(&compare, &CompareView::finished);
        compare.start(npu, 0, root + QStringLiteral("/bench"));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        GraphPanel panel;
        panel.resize(1400, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        connect(&panel, &GraphPanel::pairRequested, &compare, &CompareView::mapOperators);
        connect(&compare, &CompareView::mappingApplied, &panel,
                [&] { panel.setCompareResult(compare.model()->result(), compare.model()->benchIndex()); });
        QSignalSpy shown(&panel, &GraphPanel::graphShown);
        panel.loadForDump(npu->openedPath, npu, 0);
        QTRY_COMPARE(shown.count(), 1);
        QSignalSpy benchReady(&panel, &GraphPanel::benchGraphReady);
        panel.setCompareResult(compare.model()->result(), compare.model()->benchIndex());
        QTRY_COMPARE_WITH_TIMEOUT(benchReady.count(), 1, 30000);
        QVERIFY(panel.sideBySideButton()->isVisible() && panel.sideBySideButton()->isEnabled());
        QTest::mouseClick(panel.sideBySideButton(), Qt::LeftButton);
        QVERIFY(panel.isSideBySide());
        GraphCompareView *cv = panel.compareView();
        GraphView *left = cv->npuView(), *right = cv->benchView();
        QTRY_VERIFY_WITH_TIMEOUT(left->currentLayout() && right->currentLayout() && !left->isLayoutPending() && !right->isLayoutPending(), 30000);
        const Graph &ng = *left->graph(), &bg = *right->graph();

        // Both sides start at the first divergence, readable: the call inside the perturbed
        // module that reads its weight (the innermost operator; the module is the parameter's).
        const Divergence &d = compare.model()->result()->divergences.at(0);
        const QString perturbed = expected[QStringLiteral("perturbed_module")].toString();
        QCOMPARE(npu->ops[size_t(d.originOp)].parent, perturbed);
        QCOMPARE(npu->ops[size_t(d.parameterModule)].opName, perturbed);
        const NodeId origin = nodeOfEntry(ng, npu->ops[size_t(d.originOp)].opName);
        QVERIFY(origin.isValid());
        QVERIFY(origin != nodeOfEntry(ng, perturbed));
        QCOMPARE(left->startNode(), origin);
        QCOMPARE(right->startNode(), NodeId{cv->match().npuPartner[origin.index()]});
        QCOMPARE(bg.node(right->startNode()).name.section(QLatin1Char('/'), -1), npu->ops[size_t(d.originOp)].opName);
        checkLegible(left, origin, 4);

        // The entries only one side has by name (the expectations) are one structure region
        // (comparematch.h rule 4: NPU.npu_fast_gelu where the bench calls Functional.gelu, in the
        // same module): the graph pairs them by the same alignment, nothing stays unmatched.
        QStringList unmatchedNpu, unmatchedBench;
        for (size_t n = 0; n < ng.nodes.size(); ++n)
            if (cv->match().isUnmatchedNpu(NodeId{int(n)}))
                unmatchedNpu << ng.nodes[n].name.section(QLatin1Char('/'), -1);
        for (size_t n = 0; n < bg.nodes.size(); ++n)
            if (cv->match().isUnmatchedBench(NodeId{int(n)}))
                unmatchedBench << bg.nodes[n].name.section(QLatin1Char('/'), -1);
        QCOMPARE(unmatchedNpu, QStringList());
        QCOMPARE(unmatchedBench, QStringList());
        const CompareResult &aligned = *compare.model()->result();
        QVERIFY(aligned.aligned);
        QStringList regionNpu, regionBench;
        for (const StructureFinding &f : aligned.structure) {
            regionNpu << f.npuOps;
            regionBench << f.benchOps;
        }
        regionNpu.sort();
        regionBench.sort();
        QCOMPARE(regionNpu, npuOnly);
        QCOMPARE(regionBench, benchOnly);
        const NodeId npuGelu = nodeOfEntry(ng, QStringLiteral("NPU.npu_fast_gelu.0.forward"));
        const NodeId benchGelu = nodeOfEntry(bg, QStringLiteral("Functional.gelu.0.forward"));
        QCOMPARE(cv->match().npuPartner[npuGelu.index()], benchGelu.value);

        // Matched nodes aligned: the partner of a selected NPU node sits at the same place.
        const NodeId linear = nodeOfEntry(ng, QStringLiteral("Functional.linear.1.forward"));
        QVERIFY(linear.isValid() && cv->match().npuPartner[linear.index()] >= 0);
        left->selectNode(linear);
        QTRY_VERIFY(!left->isLayoutPending() && left->currentLayout()->nodeItem[linear.index()] >= 0);
        cv->alignOnNpu(linear);
        const NodeId partner{cv->match().npuPartner[linear.index()]};
        QCOMPARE(bg.node(partner).name.section(QLatin1Char('/'), -1), QStringLiteral("Functional.linear.1.forward"));
        QTRY_VERIFY(!right->isLayoutPending() && right->currentLayout()->nodeItem[partner.index()] >= 0);
        QTRY_VERIFY((nodeCentre(*left, linear) - nodeCentre(*right, partner)).manhattanLength() < 3);
        // ... and stay aligned when the NPU side is panned.
        QTest::mousePress(left, Qt::LeftButton, {}, QPoint(200, 300));
        QTest::mouseMove(left, QPoint(230, 260));
        QTest::mouseMove(left, QPoint(260, 220));
        QTest::mouseRelease(left, Qt::LeftButton, {}, QPoint(260, 220));
        QTRY_VERIFY((nodeCentre(*left, linear) - nodeCentre(*right, partner)).manhattanLength() < 3);
        QVERIFY(panel.grab().save(QStringLiteral("/tmp/graph_compare.png")));

    }

    /// The side-by-side graphs of an align_* pair of samples/msprobe_real pair nodes by the
    /// compare's alignment, and an NPU node only the NPU has is paired with a bench node by hand
    /// (two clicks), as before the aligner removed the only unmatched pair of graph_compare.
    /// Oracle: expected.json's designed change (NPU blocks.0 skips its layer scale: one
    /// Tensor.__mul__ fewer) and construct.json (the module each call sits in).
    void alignedGraphCompare()
    {
        const QString runs = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/");
        const QString base = runs + QStringLiteral("align_base_statistics_mix/step0/rank0");
        const QString missing = runs + QStringLiteral("align_missing_statistics_mix/step0/rank0");
        auto readObject = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
        };
        const QJsonObject baseConstruct = readObject(base + QStringLiteral("/construct.json"));
        const QJsonObject missingConstruct = readObject(missing + QStringLiteral("/construct.json"));
        // The layer scale's Tensor.__mul__ of blocks.0: only the base run calls it.
        const QString layerScale = QStringLiteral("Tensor.__mul__.0.forward");
        QCOMPARE(baseConstruct[layerScale].toString(), QStringLiteral("Module.blocks.0.Block.forward.0"));
        // The missing run's only Tensor.__mul__ is that of blocks.1, the base run's .1 there.
        QCOMPARE(missingConstruct[layerScale].toString(), QStringLiteral("Module.blocks.1.Block.forward.0"));
        QCOMPARE(baseConstruct[QStringLiteral("Tensor.__mul__.1.forward")].toString(), QStringLiteral("Module.blocks.1.Block.forward.0"));
        QVERIFY(!missingConstruct.contains(QStringLiteral("Tensor.__mul__.1.forward")));

        struct Side
        {
            std::shared_ptr<const DumpIndex> npu;
            std::unique_ptr<CompareView> compare;
            std::unique_ptr<GraphPanel> panel;
        };
        auto open = [](const QString &npuPath, const QString &benchPath, Side &side) {
            auto built = buildIndex(npuPath);
            QVERIFY(built);
            side.npu = *built;
            side.compare = std::make_unique<CompareView>();
            QSignalSpy finished(side.compare.get(), &CompareView::finished);
            side.compare->start(side.npu, 0, benchPath);
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
            QVERIFY(side.compare->model()->result()->aligned);
            side.panel = std::make_unique<GraphPanel>();
            side.panel->resize(1400, 800);
            side.panel->show();
            QVERIFY(QTest::qWaitForWindowExposed(side.panel.get()));
            GraphPanel *panel = side.panel.get();
            CompareView *compare = side.compare.get();
            connect(panel, &GraphPanel::pairRequested, compare, &CompareView::mapOperators);
            connect(compare, &CompareView::mappingApplied, panel,
                    [panel, compare] { panel->setCompareResult(compare->model()->result(), compare->model()->benchIndex()); });
            QSignalSpy shown(panel, &GraphPanel::graphShown);
            panel->loadForDump(side.npu->openedPath, side.npu, 0);
            QTRY_COMPARE(shown.count(), 1);
            QSignalSpy benchReady(panel, &GraphPanel::benchGraphReady);
            panel->setCompareResult(compare->model()->result(), compare->model()->benchIndex());
            QTRY_COMPARE_WITH_TIMEOUT(benchReady.count(), 1, 30000);
            QTest::mouseClick(panel->sideBySideButton(), Qt::LeftButton);
            QVERIFY(panel->isSideBySide());
            GraphCompareView *cv = panel->compareView();
            QTRY_VERIFY_WITH_TIMEOUT(cv->npuView()->currentLayout() && cv->benchView()->currentLayout()
                                         && !cv->npuView()->isLayoutPending() && !cv->benchView()->isLayoutPending(), 30000);
        };

        // NPU missing vs bench base: the NPU's Tensor.__mul__.0 (blocks.1) pairs with the bench's
        // Tensor.__mul__.1 (blocks.1), not with the bench's .0 of the same name (blocks.0), which
        // is left unmatched: the graph follows the alignment, not the names.
        {
            Side side;
            open(missing, base, side);
            if (QTest::currentTestFailed())
                return;
            GraphCompareView *cv = side.panel->compareView();
            const Graph &ng = *cv->npuView()->graph(), &bg = *cv->benchView()->graph();
            const NodeId npuMul = nodeOfEntry(ng, layerScale);
            const NodeId benchMul0 = nodeOfEntry(bg, layerScale), benchMul1 = nodeOfEntry(bg, QStringLiteral("Tensor.__mul__.1.forward"));
            QVERIFY(npuMul.isValid() && benchMul0.isValid() && benchMul1.isValid());
            QCOMPARE(cv->match().npuPartner[npuMul.index()], benchMul1.value);
            QVERIFY(cv->match().isUnmatchedBench(benchMul0));
        }

        // NPU base vs bench missing: the layer scale is an NPU-only node; click it, then the
        // bench's Tensor.__mul__: the pair goes to the compare's mapping, which compares again,
        // and the node is matched afterwards, its rows paired by the user.
        Side side;
        open(base, missing, side);
        if (QTest::currentTestFailed())
            return;
        GraphCompareView *cv = side.panel->compareView();
        GraphView *left = cv->npuView(), *right = cv->benchView();
        const Graph &ng = *left->graph(), &bg = *right->graph();
        const NodeId npuMul = nodeOfEntry(ng, layerScale), benchMul = nodeOfEntry(bg, layerScale);
        QVERIFY(npuMul.isValid() && benchMul.isValid());
        QVERIFY(cv->match().isUnmatchedNpu(npuMul));
        left->selectNode(npuMul);
        right->selectNode(benchMul);
        QTRY_VERIFY(!left->isLayoutPending() && !right->isLayoutPending() && left->currentLayout()->nodeItem[npuMul.index()] >= 0
                    && right->currentLayout()->nodeItem[benchMul.index()] >= 0);
        QCOMPARE(left->itemLevel(left->currentLayout()->nodeItem[npuMul.index()]), GraphCompareView::kUnmatchedLevel);
        QSignalSpy pair(side.panel.get(), &GraphPanel::pairRequested);
        QSignalSpy applied(side.compare.get(), &CompareView::mappingApplied);
        QTest::mouseClick(left, Qt::LeftButton, {}, nodeCentre(*left, npuMul).toPoint());
        QCOMPARE(cv->armedNode(), npuMul);
        QVERIFY(cv->statusLabel()->text().contains(QStringLiteral("now click the bench node")));
        QTest::mouseClick(right, Qt::LeftButton, {}, nodeCentre(*right, benchMul).toPoint());
        QCOMPARE(pair.count(), 1);
        QCOMPARE(pair[0][0].toStringList(), QStringList{layerScale});
        QCOMPARE(pair[0][1].toStringList(), QStringList{layerScale});
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 30000);
        QTRY_VERIFY(!cv->match().isUnmatchedNpu(npuMul));
        QCOMPARE(cv->match().npuPartner[npuMul.index()], benchMul.value);
        QVERIFY(side.compare->mapping().mentionsNpu(layerScale));
        // The new pair's row in the Compare tab: the bench tensor of the same name, by the user.
        const CompareTableModel *model = side.compare->model();
        int row = -1;
        for (int r = 0; r < model->rowCount() && row < 0; ++r)
            if (model->index(r, CompareTableModel::NpuName).data().toString() == layerScale + QStringLiteral(".output.0"))
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(model->index(row, CompareTableModel::BenchName).data().toString(), layerScale + QStringLiteral(".output.0"));
        QCOMPARE(model->index(row, 0).data(CompareTableModel::SourceRole).toInt(), int(MatchSource::User));
        QVERIFY(model->index(row, 0).data(CompareTableModel::VerdictRole).toInt() != int(Verdict::None));
    }

private:
    static QJsonObject cliGraphReport(const QString &dump, const QString &graphs);
    std::shared_ptr<const DumpIndex> m_index;
};

QJsonObject TestGraphView::cliGraphReport(const QString &dump, const QString &graphs)
{
    QProcess cli;
    cli.start(QStringLiteral(DUMPSCOPE_CLI), {QStringLiteral("graph"), dump, graphs, QStringLiteral("--json")});
    if (!cli.waitForFinished(60000))
        return {};
    return QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
}

QTEST_MAIN(TestGraphView)
#include "tst_graphview.moc"
