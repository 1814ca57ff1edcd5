#include "formats/ge/gegraphreader.h"
#include "graph/graphgenerator.h"
#include "graph/graphlayout.h"

#include <QTest>
#include <set>

using namespace ds;

namespace {

std::shared_ptr<const Graph> small(int top = 4, int sub = 3, int ops = 12, int flat = 30)
{
    GeneratedGraphSpec spec;
    spec.topGroups = top;
    spec.subGroups = sub;
    spec.opsPerGroup = ops;
    spec.flatGroupOps = flat;
    return std::make_shared<const Graph>(generateScopedGraph(spec));
}

/// A graph from (name, inputs) pairs.
std::shared_ptr<const Graph> handmade(const std::vector<std::pair<QString, QStringList>> &ops)
{
    Graph g;
    for (const auto &[name, inputs] : ops) {
        GraphNode n;
        n.name = name;
        n.type = QStringLiteral("Op");
        n.inputs = inputs;
        g.nodes.push_back(n);
    }
    g.build();
    return std::make_shared<const Graph>(std::move(g));
}

/// The layout invariants every expansion state must keep.
void checkInvariants(const Graph &g, const GraphLayout &L)
{
    // Every visible item placed once: each node is either its own item or inside exactly one
    // collapsed group box; groups appear at most once.
    std::set<std::pair<int, int>> seen;
    for (const auto &it : L.items) {
        QVERIFY2(seen.insert({int(it.kind == LayoutItem::Kind::Node), it.id}).second, "item placed twice");
        QVERIFY(it.rect.width() > 0 && it.rect.height() > 0);
        QVERIFY(L.bounds.contains(it.rect));
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) {
        const int v = L.visibleItemOf(NodeId{int(n)});
        QVERIFY2(v >= 0, qPrintable(g.nodes[n].name));
        QVERIFY(L.items[size_t(v)].isVisibleItem());
    }
    // No overlapping boxes among the children of one container; children lie inside their frame.
    std::map<int, std::vector<int>> byContainer;
    for (size_t i = 0; i < L.items.size(); ++i)
        byContainer[L.items[i].container.value].push_back(int(i));
    for (const auto &[container, members] : byContainer) {
        if (container >= 0) {
            const QRectF frame = L.items[size_t(L.groupItem[size_t(container)])].rect;
            for (int i : members)
                QVERIFY(frame.contains(L.items[size_t(i)].rect));
        }
        for (size_t a = 0; a < members.size(); ++a)
            for (size_t b = a + 1; b < members.size(); ++b) {
                const QRectF ra = L.items[size_t(members[a])].rect, rb = L.items[size_t(members[b])].rect;
                QVERIFY2(!ra.intersects(rb), qPrintable(QStringLiteral("overlap in container %1").arg(container)));
            }
    }
    // Edges join visible items, are unique, and go downward unless flagged as back edges.
    std::set<std::pair<int, int>> pairs;
    for (const auto &e : L.edges) {
        QVERIFY(e.from != e.to);
        // Edges join boxes, or the frame of an open fold (which speaks for its members).
        auto endpoint = [&](int i) { return L.items[size_t(i)].isVisibleItem() || L.items[size_t(i)].kind == LayoutItem::Kind::ExpandedGroup; };
        QVERIFY(endpoint(e.from) && endpoint(e.to));
        QVERIFY2(pairs.insert({e.from, e.to}).second, "duplicate edge");
        QVERIFY(e.points.size() >= 2);
        const QRectF a = L.items[size_t(e.from)].rect, b = L.items[size_t(e.to)].rect;
        if (!e.reversed)
            QVERIFY2(b.top() > a.bottom(), "a forward edge must go down");
        else
            QVERIFY2(a.top() > b.bottom(), "a back edge goes up");
        for (size_t p = 1; p < e.points.size(); ++p)
            QVERIFY(e.reversed ? e.points[p].y() <= e.points[p - 1].y() : e.points[p].y() >= e.points[p - 1].y());
    }
}

GroupId groupByPath(const Graph &g, const QString &path)
{
    for (size_t i = 0; i < g.groups.size(); ++i)
        if (g.groups[i].path == path)
            return GroupId{int(i)};
    return {};
}

} // namespace

class TestGraphLayout : public QObject
{
    Q_OBJECT
private slots:
    void generator()
    {
        GeneratedGraphSpec spec{3, 2, 10, 20, 7};
        const Graph g = generateScopedGraph(spec);
        QCOMPARE(int(g.nodes.size()), spec.nodeCount());
        QVERIFY(g.unresolvedInputs.isEmpty());
        QCOMPARE(int(g.topGroups.size()), 4); // block0..2 + flat
        QVERIFY(g.controlEdgeCount() >= 0);
        QVERIFY(g.dataEdgeCount() > int(g.nodes.size()) - 20);
        QVERIFY(generateScopedGraph(spec).nodes == g.nodes); // deterministic
    }

    void collapsedTopLevel()
    {
        const auto g = small();
        GraphLayoutEngine engine(g);
        const auto L = engine.layout({});
        // Visible: 5 top groups + input + output.
        QCOMPARE(int(L->items.size()), 7);
        QCOMPARE(L->items.front().kind, LayoutItem::Kind::Group);
        checkInvariants(*g, *L);
        // The chain input -> block0 -> ... -> flat -> output is lifted onto the boxes.
        const int in = L->nodeItem[g->findNode(QStringLiteral("input")).index()];
        const int b0 = L->groupItem[0];
        QVERIFY(std::any_of(L->edges.begin(), L->edges.end(), [&](const LayoutEdge &e) { return e.from == in && e.to == b0; }));
        QVERIFY(L->items[size_t(in)].layer < L->items[size_t(b0)].layer);
    }

    void expansionStates_data()
    {
        QTest::addColumn<QStringList>("open");
        QTest::addRow("one block") << QStringList{QStringLiteral("block1")};
        QTest::addRow("nested") << QStringList{QStringLiteral("block1"), QStringLiteral("block1/layer2")};
        QTest::addRow("flat group") << QStringList{QStringLiteral("flat")};
        QTest::addRow("hidden child only") << QStringList{QStringLiteral("block2/layer0")};
        QTest::addRow("many") << QStringList{QStringLiteral("block0"), QStringLiteral("block0/layer0"), QStringLiteral("block0/layer1"),
                                             QStringLiteral("block3"), QStringLiteral("flat")};
    }
    void expansionStates()
    {
        QFETCH(QStringList, open);
        const auto g = small();
        GraphLayoutEngine engine(g);
        GraphExpansion exp;
        for (const QString &path : open)
            for (size_t i = 0; i < g->groups.size(); ++i)
                if (g->groups[i].path == path)
                    exp.insert(GroupId{int(i)});
        QCOMPARE(int(exp.size()), open.size());
        const auto L = engine.layout(exp);
        checkInvariants(*g, *L);
        for (int gid : L->expanded)
            QCOMPARE(L->items[size_t(L->groupItem[size_t(gid)])].kind, LayoutItem::Kind::ExpandedGroup);
    }

    void cycleIsBrokenAndFlagged()
    {
        // a -> b -> c -> a, plus c -> d.
        const auto g = handmade({{QStringLiteral("a"), {QStringLiteral("c:0")}},
                                 {QStringLiteral("b"), {QStringLiteral("a:0")}},
                                 {QStringLiteral("c"), {QStringLiteral("b:0")}},
                                 {QStringLiteral("d"), {QStringLiteral("c:0"), QStringLiteral("a:-1")}}});
        GraphLayoutEngine engine(g);
        const auto L = engine.layout({});
        checkInvariants(*g, *L);
        QCOMPARE(int(L->edges.size()), 5);
        QCOMPARE(std::count_if(L->edges.begin(), L->edges.end(), [](const LayoutEdge &e) { return e.reversed; }), 1);
        QCOMPARE(std::count_if(L->edges.begin(), L->edges.end(), [](const LayoutEdge &e) { return e.control; }), 1);
    }

    void liftedEdgesAreDeduplicated()
    {
        // Three edges from scope s into scope t become one edge between the two boxes.
        const auto g = handmade({{QStringLiteral("s/x"), {}},
                                 {QStringLiteral("s/y"), {}},
                                 {QStringLiteral("t/u"), {QStringLiteral("s/x:0"), QStringLiteral("s/y:0")}},
                                 {QStringLiteral("t/v"), {QStringLiteral("s/x:-1"), QStringLiteral("t/u:0")}}});
        GraphLayoutEngine engine(g);
        const auto L = engine.layout({});
        QCOMPARE(int(L->edges.size()), 1);
        QCOMPARE(L->edges[0].count, 3);
        QVERIFY(!L->edges[0].control);
        GraphExpansion both{groupByPath(*g, QStringLiteral("s")), groupByPath(*g, QStringLiteral("t"))};
        const auto open = engine.layout(both);
        checkInvariants(*g, *open);
        QCOMPARE(int(open->edges.size()), 4);
        QCOMPARE(std::count_if(open->edges.begin(), open->edges.end(), [](const LayoutEdge &e) { return e.control; }), 1);
    }

    void cacheHit()
    {
        const auto g = small();
        GraphLayoutEngine engine(g);
        const GraphExpansion a{groupByPath(*g, QStringLiteral("block1"))};
        QVERIFY(!engine.cached(a));
        const auto first = engine.layout(a);
        QCOMPARE(engine.cacheSize(), 1);
        QCOMPARE(engine.cacheHits(), 0);
        const auto again = engine.layout(a);
        QCOMPARE(again.get(), first.get()); // the same object: no recomputation
        QCOMPARE(engine.cacheHits(), 1);
        // A hidden expanded group (its parent is collapsed) does not change the state.
        GraphExpansion withHidden = a;
        withHidden.insert(groupByPath(*g, QStringLiteral("block2/layer1")));
        QCOMPARE(engine.layout(withHidden).get(), first.get());
        QCOMPARE(engine.cacheHits(), 2);
        QCOMPARE(engine.cached(a).get(), first.get());
        engine.layout({});
        QCOMPARE(engine.cacheSize(), 2);
    }

    void sampleGraph()
    {
        const QStringList files = ge::findGraphFiles(QStringLiteral(DUMPSCOPE_SAMPLES "/graph"));
        QVERIFY(!files.isEmpty());
        for (const QString &f : files) {
            auto model = ge::readGraphFile(f);
            QVERIFY2(model, qPrintable(f));
            for (const Graph &graph : model->graphs) {
                auto g = std::make_shared<const Graph>(graph);
                GraphLayoutEngine engine(g);
                checkInvariants(*g, *engine.layout({}));
                GraphExpansion all;
                for (size_t i = 0; i < g->groups.size(); ++i)
                    all.insert(GroupId{int(i)});
                const auto L = engine.layout(all);
                checkInvariants(*g, *L);
                for (size_t n = 0; n < g->nodes.size(); ++n)
                    QVERIFY(L->nodeItem[n] >= 0); // fully expanded: every node is its own box
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graphlayout.moc"
