// The display hierarchy: folded crowds of pattern siblings, the first view's start node and
// groups (graphhierarchy.h, graphstart.h).
#include "graph/graphgenerator.h"
#include "graph/graphhierarchy.h"
#include "graph/graphlayout.h"
#include "dumpgraph/graphstart.h"
#include "dumpgraph/modulegraph.h"
#include "util/parallel.h"

#include <QTest>
#include <set>
#include <tuple>

using namespace ds;

namespace {

/// A graph from (name, type, inputs) rows.
Graph handmade(const std::vector<std::tuple<QString, QString, QStringList>> &ops)
{
    Graph g;
    for (const auto &[name, type, inputs] : ops) {
        GraphNode n;
        n.name = name;
        n.type = type;
        n.inputs = inputs;
        g.nodes.push_back(n);
    }
    g.build();
    return g;
}

std::vector<GroupId> foldsOf(const GraphHierarchy &h)
{
    std::vector<GroupId> out;
    for (size_t i = 0; i < h.groups.size(); ++i)
        if (h.groups[i].kind == GroupKind::Fold)
            out.push_back(GroupId{int(i)});
    return out;
}

/// Every node lies in exactly one innermost group, the parent links agree with the member
/// lists, and every scope group keeps the Graph's id, path and members (folds only move them).
void checkHierarchy(const Graph &g, const GraphHierarchy &h)
{
    QCOMPARE(h.scopeGroups, int(g.groups.size()));
    std::vector<int> seen(g.nodes.size(), 0);
    auto visit = [&](const std::vector<GroupId> &groups, const std::vector<NodeId> &nodes, GroupId parent, auto &&self) -> void {
        for (NodeId n : nodes) {
            ++seen[n.index()];
            QCOMPARE(h.nodeGroup[n.index()], parent);
        }
        for (GroupId c : groups) {
            QCOMPARE(h.group(c).parent, parent);
            self(h.group(c).childGroups, h.group(c).nodes, c, self);
        }
    };
    visit(h.topGroups, h.topNodes, GroupId{}, visit);
    for (size_t n = 0; n < g.nodes.size(); ++n)
        QCOMPARE(seen[n], 1);
    for (size_t i = 0; i < g.groups.size(); ++i) {
        QCOMPARE(h.groups[i].kind, GroupKind::Scope);
        QCOMPARE(h.groups[i].path, g.groups[i].path);
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) { // a node's scope is still among its ancestors
        const auto anc = h.ancestors(NodeId{int(n)});
        if (g.nodes[n].group.isValid())
            QVERIFY(std::find(anc.begin(), anc.end(), g.nodes[n].group) != anc.end());
    }
}

} // namespace

class TestGraphHierarchy : public QObject
{
    Q_OBJECT
private slots:
    void patterns_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("word");
        QTest::addRow("atomic") << "atomic_addr_clean0_71" << "atomic_addr_clean*" << "atomic";
        QTest::addRow("trans") << "trans_TransData_17" << "trans_TransData*" << "trans";
        QTest::addRow("variable") << "Variable" << "Variable*" << "Variable";
        QTest::addRow("variable_n") << "Variable_12" << "Variable*" << "Variable";
        QTest::addRow("inner digits") << "block3_conv2d" << "block#_conv#d*" << "block";
        QTest::addRow("module") << "Module.layers.3.Block.forward.0" << "Module.layers.#.Block.forward*" << "Module";
        QTest::addRow("api") << "Functional.linear.12.forward" << "Functional.linear.#.forward*" << "Functional";
        QTest::addRow("all digits") << "123" << "#*" << "";
    }
    void patterns()
    {
        QFETCH(QString, label);
        QFETCH(QString, pattern);
        QFETCH(QString, word);
        QCOMPARE(foldPattern(label), pattern);
        QCOMPARE(leadingWord(label), word);
    }

    /// The case: 500 atomic_addr_clean siblings at the top level next to the scopes
    /// fold into one box that says how many it holds.
    void fiveHundredAtomicCleans()
    {
        GeneratedGraphSpec spec{3, 2, 20, 0, 5};
        spec.atomicCleans = 500;
        spec.weightTransforms = 40;
        const Graph g = generateScopedGraph(spec);
        QCOMPARE(int(g.nodes.size()), spec.nodeCount());
        const GraphHierarchy h = GraphHierarchy::build(g);
        checkHierarchy(g, h);
        GroupId atomic, trans, vars;
        for (GroupId f : foldsOf(h)) {
            const HierarchyGroup &hg = h.group(f);
            if (hg.label == QLatin1String("atomic_addr_clean*"))
                atomic = f;
            else if (hg.label == QLatin1String("trans_TransData*"))
                trans = f;
            else if (hg.label == QLatin1String("Variable*"))
                vars = f;
        }
        QVERIFY(atomic.isValid() && trans.isValid() && vars.isValid());
        QCOMPARE(h.group(atomic).memberCount, 500);
        QCOMPARE(h.group(atomic).nodeCount, 500);
        QCOMPARE(h.group(atomic).commonType, QStringLiteral("AtomicAddrClean"));
        QVERIFY(!h.group(atomic).parent.isValid()); // folded where they were: the top level
        QCOMPARE(h.group(trans).memberCount, 40);
        QCOMPARE(h.group(vars).memberCount, 40);
        for (NodeId n : h.group(atomic).nodes)
            QVERIFY(g.node(n).name.startsWith(QLatin1String("atomic_addr_clean0_")));
        // The top level: 3 blocks, the input, the output and the three folds.
        QCOMPARE(int(h.topGroups.size() + h.topNodes.size()), 3 + 2 + 3);

        // Laid out collapsed, the top level fits a screen width with boxes sized for their labels.
        GraphLayoutOptions o;
        o.maxRowWidth = 1600;
        GraphLayoutEngine engine(std::make_shared<const Graph>(g), o);
        const auto top = engine.layout({});
        QVERIFY2(top->bounds.width() <= o.maxRowWidth, qPrintable(QString::number(top->bounds.width())));
        QCOMPARE(int(top->items.size()), 8);
        QCOMPARE(top->items[size_t(top->groupItem[atomic.index()])].kind, LayoutItem::Kind::Group);
        // Each atomic node is shown in the fold's box.
        for (NodeId n : h.group(atomic).nodes)
            QCOMPARE(top->visibleItemOf(n), top->groupItem[atomic.index()]);
        // Opened, the 500 boxes are one over-wide layer: split into rows, not laid out flat.
        const auto open = engine.layout({atomic});
        QVERIFY(open->wrappedLayers >= 1);
        QVERIFY2(open->bounds.width() <= o.maxRowWidth + 2 * o.framePadding,
                 qPrintable(QString::number(open->bounds.width())));
        std::set<int> rows;
        for (NodeId n : h.group(atomic).nodes)
            rows.insert(open->items[size_t(open->nodeItem[n.index()])].row);
        QVERIFY(rows.size() >= 500 * o.minWidth / o.maxRowWidth);
        // The open crowd speaks for its members: their control edges leave its frame, one per
        // consumer box, not one line per member.
        const int frame = open->groupItem[atomic.index()];
        std::set<int> consumers;
        for (NodeId n : h.group(atomic).nodes)
            for (const GraphEdge &e : g.edges)
                if (e.from == n)
                    consumers.insert(open->visibleItemOf(e.to));
        int fromFrame = 0;
        for (const LayoutEdge &e : open->edges) {
            const LayoutItem &from = open->items[size_t(e.from)];
            QVERIFY(from.kind != LayoutItem::Kind::Node || h.nodeGroup[from.node().index()] != atomic); // not from a member's box
            if (e.from == frame) {
                ++fromFrame;
                QVERIFY(e.control);
                QVERIFY(consumers.count(e.to));
            }
        }
        QCOMPARE(fromFrame, int(consumers.size()));

        // The problem this solves: without folding and splitting the top level is one line of
        // more than 500 boxes.
        FoldOptions none;
        none.enabled = false;
        GraphLayoutOptions flat = o;
        flat.maxRowWidth = 0;
        const auto line = GraphLayoutEngine(std::make_shared<const Graph>(g), flat, none).layout({});
        QVERIFY(line->bounds.width() > 500 * flat.minWidth);
        // Without folding but with splitting: as wide as a screen again.
        const auto split = GraphLayoutEngine(std::make_shared<const Graph>(g), o, none).layout({});
        QVERIFY(split->wrappedLayers >= 1);
        QVERIFY(split->bounds.width() <= o.maxRowWidth);
    }

    /// What is not a crowd stays unfolded: a chain (conv_i -> relu_i -> conv_i+1: its box would
    /// draw false cycles) and weights each feeding their own operator (the box would send
    /// edges all over the scope). Eight constants feeding one concat are a crowd.
    void onlyCrowdsFold()
    {
        std::vector<std::tuple<QString, QString, QStringList>> ops;
        QString last;
        for (int i = 0; i < 8; ++i) {
            const QString conv = QStringLiteral("net/conv_%1").arg(i), relu = QStringLiteral("net/relu_%1").arg(i);
            ops.emplace_back(conv, QStringLiteral("Conv2D"), last.isEmpty() ? QStringList() : QStringList{last + QStringLiteral(":0")});
            ops.emplace_back(relu, QStringLiteral("Relu"), QStringList{conv + QStringLiteral(":0")});
            last = relu;
        }
        for (int i = 0; i < 8; ++i) {
            ops.emplace_back(QStringLiteral("net/weight_%1").arg(i), QStringLiteral("Const"), QStringList());
            std::get<2>(ops[size_t(2 * i)]) << QStringLiteral("net/weight_%1:0").arg(i);
        }
        {
            const Graph g = handmade(ops);
            const GraphHierarchy h = GraphHierarchy::build(g);
            checkHierarchy(g, h);
            QCOMPARE(foldsOf(h).size(), size_t(0));
        }
        // Eight shape constants of one concat at the end.
        QStringList concatInputs{last + QStringLiteral(":0")};
        for (int i = 0; i < 8; ++i) {
            ops.emplace_back(QStringLiteral("net/shape_%1").arg(i), QStringLiteral("Const"), QStringList());
            concatInputs << QStringLiteral("net/shape_%1:0").arg(i);
        }
        ops.emplace_back(QStringLiteral("net/concat"), QStringLiteral("ConcatD"), concatInputs);
        const Graph g = handmade(ops);
        const GraphHierarchy h = GraphHierarchy::build(g);
        checkHierarchy(g, h);
        const auto folds = foldsOf(h);
        QCOMPARE(folds.size(), size_t(1));
        QCOMPARE(h.group(folds[0]).label, QStringLiteral("shape*"));
        QCOMPARE(h.group(folds[0]).memberCount, 8);
        QCOMPARE(h.group(folds[0]).commonType, QStringLiteral("Const"));
        QCOMPARE(h.group(folds[0]).parent, GroupId{0}); // inside "net"
        // Laid out, no edge of the folded graph is a back edge.
        GraphLayoutEngine engine(std::make_shared<const Graph>(g));
        const auto L = engine.layout({GroupId{0}});
        for (const LayoutEdge &e : L->edges)
            QVERIFY(!e.reversed);
    }

    /// Module graphs: calls of one pattern fold only in runs (the call order is the meaning).
    void consecutiveRuns()
    {
        std::vector<std::tuple<QString, QString, QStringList>> ops;
        QString last;
        auto call = [&](const QString &name) {
            ops.emplace_back(QStringLiteral("forward/") + name, name.section(QLatin1Char('.'), 0, 1),
                             last.isEmpty() ? QStringList() : QStringList{last + QStringLiteral(":0")});
            last = QStringLiteral("forward/") + name;
        };
        for (int i = 0; i < 6; ++i)
            call(QStringLiteral("Tensor.add_.%1.forward").arg(i)); // a run of 6
        call(QStringLiteral("Functional.relu.0.forward"));
        for (int i = 6; i < 9; ++i)
            call(QStringLiteral("Tensor.add_.%1.forward").arg(i)); // 3 more, after another call
        const Graph g = handmade(ops);
        FoldOptions o;
        o.consecutiveOnly = true;
        const GraphHierarchy h = GraphHierarchy::build(g, o);
        checkHierarchy(g, h);
        const auto folds = foldsOf(h);
        QCOMPARE(folds.size(), size_t(1));
        QCOMPARE(h.group(folds[0]).memberCount, 6);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(h.nodeGroup[size_t(i)], folds[0]);
        // Without the rule the 9 calls would fold into one box around the relu: a false cycle,
        // which the acyclic check refuses too.
        const GraphHierarchy loose = GraphHierarchy::build(g);
        for (GroupId f : foldsOf(loose))
            QVERIFY(loose.group(f).memberCount < 9);
    }

    /// Module graphs: a run of repeated module calls (decoder layers) folds into one box,
    /// labelled like the modules ("layers.# · Block").
    void repeatedModules()
    {
        std::vector<std::tuple<QString, QString, QStringList>> ops;
        QString last;
        for (int i = 0; i < 10; ++i) {
            const QString module = QStringLiteral("forward/Module.layers.%1.Block.forward.0").arg(i);
            for (const QString &call : {module.section(QLatin1Char('/'), 1) , QStringLiteral("Functional.linear.%1.forward").arg(i)}) {
                ops.emplace_back(module + QLatin1Char('/') + call, QStringLiteral("Block"),
                                 last.isEmpty() ? QStringList() : QStringList{last + QStringLiteral(":0")});
                last = module + QLatin1Char('/') + call;
            }
        }
        ops.emplace_back(QStringLiteral("forward/Functional.softmax.0.forward"), QStringLiteral("Functional.softmax"), QStringList{last + QStringLiteral(":0")});
        const Graph g = handmade(ops);
        FoldOptions o;
        o.consecutiveOnly = true;
        const GraphHierarchy h = GraphHierarchy::build(g, o);
        checkHierarchy(g, h);
        const auto folds = foldsOf(h);
        QCOMPARE(folds.size(), size_t(1));
        const HierarchyGroup &f = h.group(folds[0]);
        QCOMPARE(f.memberCount, 10);
        QCOMPARE(f.childGroups.size(), size_t(10));
        QCOMPARE(f.nodeCount, 20);
        QCOMPARE(moduleDisplayLabel(f.label), QStringLiteral("layers.# \u00b7 Block"));
        QCOMPARE(moduleDisplayLabel(h.group(f.childGroups[3]).label), QStringLiteral("layers.3 \u00b7 Block"));
        // Seven repeated modules, fewer than minGroupPattern (8): no fold.
        std::vector<std::tuple<QString, QString, QStringList>> few(ops.begin(), ops.begin() + 14);
        QCOMPARE(foldsOf(GraphHierarchy::build(handmade(few), o)).size(), size_t(0));
    }

    /// Module graphs: a phase of 5,000 calls that nothing folds (two kinds alternating) is split
    /// into pages of 2,000 consecutive calls, so that opening it lays out three boxes, and
    /// opening a page at most 2,000.
    void crowdedContainerPaged()
    {
        std::vector<std::tuple<QString, QString, QStringList>> ops;
        QString last;
        for (int i = 0; i < 5000; ++i) {
            const QString name = i % 2 ? QStringLiteral("backward/Functional.relu.%1.backward").arg(i)
                                       : QStringLiteral("backward/Tensor.add_.%1.backward").arg(i);
            ops.emplace_back(name, i % 2 ? QStringLiteral("Functional.relu") : QStringLiteral("Tensor.add_"),
                             last.isEmpty() ? QStringList() : QStringList{last + QStringLiteral(":0")});
            last = name;
        }
        const Graph g = handmade(ops);
        FoldOptions o;
        o.consecutiveOnly = true;
        const GraphHierarchy h = GraphHierarchy::build(g, o);
        checkHierarchy(g, h);
        QCOMPARE(h.topGroups.size(), size_t(1));
        const HierarchyGroup &phase = h.group(h.topGroups[0]);
        QCOMPARE(phase.label, QStringLiteral("backward"));
        QCOMPARE(phase.nodes.size(), size_t(0));
        QCOMPARE(phase.childGroups.size(), size_t(3));
        QCOMPARE(phase.nodeCount, 5000);
        const QStringList labels{QStringLiteral("calls 1\u20132000 of 5000"), QStringLiteral("calls 2001\u20134000 of 5000"),
                                 QStringLiteral("calls 4001\u20135000 of 5000")};
        for (int p = 0; p < 3; ++p) {
            const HierarchyGroup &page = h.group(phase.childGroups[size_t(p)]);
            QCOMPARE(page.kind, GroupKind::Page);
            QCOMPARE(page.label, labels[p]);
            QCOMPARE(page.memberCount, p < 2 ? 2000 : 1000);
            for (size_t i = 0; i < page.nodes.size(); ++i) // consecutive calls, in call order
                QCOMPARE(page.nodes[i].value, p * 2000 + int(i));
        }
        for (const HierarchyGroup &grp : h.groups)
            QVERIFY(grp.memberCount <= 2000);
        // GE graphs (no call order) and pageSize 0 are not paged.
        const GraphHierarchy ge = GraphHierarchy::build(g);
        QVERIFY(std::none_of(ge.groups.begin(), ge.groups.end(), [](const HierarchyGroup &grp) { return grp.kind == GroupKind::Page; }));
        o.pageSize = 0;
        QCOMPARE(GraphHierarchy::build(g, o).group(GroupId{0}).memberCount, 5000);
    }

    /// A graph of 100,000 nodes or more has the folds of its containers found on all cores:
    /// the hierarchy is the one a single thread makes (util/parallel.h's ParallelLimit), for
    /// GE's folding and for module graphs' (consecutive runs, pages).
    void bigGraphFoldsOnAllCoresAsOnOne()
    {
        GeneratedGraphSpec spec{40, 25, 100, 3000, 7};
        spec.atomicCleans = 800;
        spec.weightTransforms = 300;
        const Graph g = generateScopedGraph(spec);
        QVERIFY(g.nodes.size() >= 100000);
        FoldOptions modules;
        modules.consecutiveOnly = true;
        for (const FoldOptions &o : {FoldOptions{}, modules}) {
            const GraphHierarchy h = GraphHierarchy::build(g, o);
            GraphHierarchy one;
            {
                const ParallelLimit single(1);
                one = GraphHierarchy::build(g, o);
            }
            QVERIFY2(h.foldCount() > 0, qPrintable(QString::number(h.foldCount()))); // there is something to find
            QCOMPARE(h.scopeGroups, one.scopeGroups);
            QCOMPARE(h.groups.size(), one.groups.size());
            for (size_t i = 0; i < h.groups.size(); ++i)
                QVERIFY2(h.groups[i] == one.groups[i], qPrintable(h.groups[i].path + QLatin1String(" / ") + one.groups[i].path));
            QVERIFY(h.topGroups == one.topGroups);
            QVERIFY(h.topNodes == one.topNodes);
            QVERIFY(h.nodeGroup == one.nodeGroup);
            checkHierarchy(g, h);
        }
    }

    void entryAndFirstView()
    {
        GeneratedGraphSpec spec{4, 3, 15, 100, 2};
        spec.atomicCleans = 30;
        const Graph g = generateScopedGraph(spec);
        const NodeId entry = entryNode(g);
        QCOMPARE(g.node(entry).name, QStringLiteral("input"));
        QCOMPARE(g.node(entry).type, QStringLiteral("IteratorV2"));
        const GraphHierarchy h = GraphHierarchy::build(g);
        const int budget = 40;
        const GraphExpansion open = initialExpansion(h, entry, budget);
        int shown = int(h.topGroups.size() + h.topNodes.size());
        for (GroupId grp : open) {
            QVERIFY(h.group(grp).kind == GroupKind::Scope); // folds stay closed
            shown += h.group(grp).memberCount - 1;
            for (GroupId a : h.ancestors(grp))
                QVERIFY(open.count(a)); // only groups that are shown are opened
        }
        QVERIFY(shown <= budget);
        QVERIFY(!open.empty());
        // A focus deep inside: its groups are open whatever the budget.
        NodeId deep; // the last operator of the last layer of the last block
        for (size_t n = 0; n < g.nodes.size(); ++n)
            if (g.nodes[n].name.startsWith(QLatin1String("block3/layer2/")))
                deep = NodeId{int(n)};
        QVERIFY(deep.isValid() && h.ancestors(deep).size() >= 2);
        const GraphExpansion focused = initialExpansion(h, deep, 1);
        for (GroupId a : h.ancestors(deep))
            QVERIFY(focused.count(a));
        // A module graph starts at its first forward call.
        Graph m = handmade({{QStringLiteral("backward/Functional.relu.0.backward"), QStringLiteral("Functional.relu"), {}},
                            {QStringLiteral("forward/Module.conv.Conv2d.forward.0/parameters.weight"), QStringLiteral("Parameter"), {}},
                            {QStringLiteral("forward/Module.conv.Conv2d.forward.0/Module.conv.Conv2d.forward.0"), QStringLiteral("Conv2d"), {}}});
        QCOMPARE(entryNode(m), NodeId{0}); // not a module graph: no iterator, no data: the first node
        m.attrs.push_back({QString::fromLatin1(kHierarchyAttr), QStringLiteral("s"), QString::fromLatin1(kHierarchyModules)});
        QCOMPARE(entryNode(m), NodeId{2});
    }
};

QTEST_GUILESS_MAIN(TestGraphHierarchy)
#include "tst_graphhierarchy.moc"
