// Graph view costs on a generated 50,000-operator graph in name scopes (48 blocks x 20 layers
// x 50 ops + one flat scope of 2,000 ops): building the Graph and its hierarchy, reading it
// back from ge_proto text, the collapsed top-level layout, expanding the 2,000-op scope,
// expanding a block and a layer inside it, and a cache hit. Then the first view of a
// GE-like 50,000-operator graph (48 x 20 x 50 ops in scopes and GE's top-level crowds: 500
// atomic_addr_clean nodes, 750 Variable -> trans_TransData weight transforms): the display
// hierarchy with its folds, the start node and groups to open, and the first layout - what
// the graph view computes on a worker thread before its first paint. Prints one JSON object.
//
//   bench_graph [--dot FILE]   also writes the 2,000-op scope as Graphviz DOT (for `dot -Tplain`)
//   bench_graph --write-ge DIR writes the GE-like graph as DIR/ge_proto_00000001_Build.txt and
//                              exits (open DIR in dumpscope: a graph folder opened as a path)
//   bench_graph --write-ge DIR --million  the same shape at 1,020,002 operators (200 blocks x 50
//                              layers x 100 ops, 5,000 atomic_addr_clean, 7,500 weight
//                              transforms; bench_graph_scale, docs/scale/graphs-runs.md)
#include "benchutil.h"

#include "formats/ge/gegraphreader.h"
#include "graph/graphgenerator.h"
#include "graph/graphlayout.h"
#include "dumpgraph/graphstart.h"

#include <QFile>
#include <QTemporaryDir>
#include <cstring>

using namespace ds;

namespace {

QByteArray dotOfGroup(const Graph &g, GroupId group)
{
    QByteArray t = "digraph flat {\n  node [shape=box];\n";
    std::vector<char> in(g.nodes.size(), 0);
    for (NodeId n : g.group(group).nodes) {
        in[n.index()] = 1;
        t += "  n" + QByteArray::number(n.value) + " [label=\"" + g.node(n).type.toUtf8() + "\"];\n";
    }
    for (const GraphEdge &e : g.edges)
        if (in[e.from.index()] && in[e.to.index()])
            t += "  n" + QByteArray::number(e.from.value) + " -> n" + QByteArray::number(e.to.value) + ";\n";
    return t + "}\n";
}

GroupId groupByPath(const Graph &g, const QString &path)
{
    for (size_t i = 0; i < g.groups.size(); ++i)
        if (g.groups[i].path == path)
            return GroupId{int(i)};
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    const char *dotFile = nullptr, *geDir = nullptr;
    bool million = false;
    for (int i = 1; i < argc; ++i)
        million = million || !std::strcmp(argv[i], "--million");
    for (int i = 1; i + 1 < argc; ++i) {
        if (!std::strcmp(argv[i], "--dot"))
            dotFile = argv[i + 1];
        if (!std::strcmp(argv[i], "--write-ge"))
            geDir = argv[i + 1];
    }
    GeneratedGraphSpec ge{48, 20, 50, 0, 3}; // GE-like: scopes and GE's top-level crowds
    ge.atomicCleans = 500;
    ge.weightTransforms = 750;
    if (million) {
        ge = GeneratedGraphSpec{200, 50, 100, 0, 3};
        ge.atomicCleans = 5000;
        ge.weightTransforms = 7500;
    }
    if (geDir) {
        Graph g = generateScopedGraph(ge);
        g.name = million ? QStringLiteral("ge_default_generated_1m") : QStringLiteral("ge_default_generated_50k");
        QFile f(QString::fromLocal8Bit(geDir) + QStringLiteral("/ge_proto_00000001_Build.txt"));
        if (!f.open(QIODevice::WriteOnly))
            return 1;
        f.write(geProtoText(g));
        return 0;
    }

    GeneratedGraphSpec spec; // 48 x 20 x 50 + 2,000 + input/output
    Graph graph;
    const double generate = bench::timeOnce([&] { graph = generateScopedGraph(spec); });
    Graph rebuilt = graph;
    const double build = bench::bestOf(3, [&] { rebuilt.build(); });

    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("ge_proto_00000001_Build.txt"));
    {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly))
            return 1;
        f.write(geProtoText(graph));
    }
    const qint64 textBytes = QFileInfo(file).size();
    size_t parsedNodes = 0;
    const double parse = bench::bestOf(2, [&] {
        auto m = ge::readGraphFile(file);
        parsedNodes = m && m->root() ? m->root()->nodes.size() : 0;
    });

    auto shared = std::make_shared<const Graph>(std::move(graph));
    const Graph &g = *shared;
    const GroupId flat = groupByPath(g, QStringLiteral("flat"));
    const GroupId block = groupByPath(g, QStringLiteral("block7"));
    const GroupId layer = groupByPath(g, QStringLiteral("block7/layer3"));

    GraphLayoutEngine engine(shared);
    std::shared_ptr<const GraphLayout> top, wide, nested;
    const double topLayout = bench::timeOnce([&] { top = engine.layout({}); });
    const double flatLayout = bench::timeOnce([&] { wide = engine.layout({flat}); });
    const double nestedLayout = bench::timeOnce([&] { nested = engine.layout({block, layer}); });
    const double cacheHit = bench::timeOnce([&] { engine.layout({flat}); });
    // Engine construction (group sizes) and layouts from a cold engine, best of 3.
    const double coldFlat = bench::bestOf(3, [&] { GraphLayoutEngine e(shared); e.layout({flat}); });

    // The first view of a GE-like graph with top-level crowds.
    auto geGraph = std::make_shared<const Graph>(generateScopedGraph(ge));
    std::shared_ptr<GraphLayoutEngine> geEngine;
    const double hierarchy = bench::bestOf(3, [&] { geEngine = std::make_shared<GraphLayoutEngine>(geGraph); });
    NodeId start;
    GraphExpansion firstOpen;
    const double startAndOpen = bench::bestOf(3, [&] {
        start = entryNode(*geGraph);
        firstOpen = initialExpansion(geEngine->hierarchy(), start, 40);
    });
    std::shared_ptr<const GraphLayout> first;
    const double firstLayout = bench::timeOnce([&] { first = geEngine->layout(firstOpen); });
    const double firstViewCold = bench::bestOf(3, [&] {
        GraphLayoutEngine e(geGraph);
        e.layout(initialExpansion(e.hierarchy(), entryNode(*geGraph), 40));
    });
    GraphLayoutEngine flatEngine(geGraph, {}, FoldOptions{false});
    std::shared_ptr<const GraphLayout> unfolded;
    const double unfoldedTop = bench::timeOnce([&] { unfolded = flatEngine.layout({}); });
    const auto geTop = geEngine->layout({});
    // As before issue 18: no folds, no split layers - the top level is one line.
    GraphLayoutOptions oneLine;
    oneLine.maxRowWidth = 0;
    const auto flatTop = GraphLayoutEngine(geGraph, oneLine, FoldOptions{false}).layout({});

    if (dotFile) {
        QFile f(QString::fromLocal8Bit(dotFile));
        if (f.open(QIODevice::WriteOnly))
            f.write(dotOfGroup(g, flat));
    }

    bench::Json()
        .add("nodes", int(g.nodes.size()))
        .add("edges", int(g.edges.size()))
        .add("groups", int(g.groups.size()))
        .add("generate_and_build_s", generate)
        .add("build_hierarchy_s", build)
        .add("ge_proto_bytes", (long long)textBytes)
        .add("parse_ge_proto_s", parse)
        .add("parsed_nodes", (long long)parsedNodes)
        .add("layout_top_s", topLayout)
        .add("layout_top_items", int(top->items.size()))
        .add("layout_top_edges", int(top->edges.size()))
        .add("expand_2000_s", flatLayout)
        .add("expand_2000_cold_engine_s", coldFlat)
        .add("expand_2000_items", int(wide->items.size()))
        .add("expand_2000_edges", int(wide->edges.size()))
        .add("expand_block_and_layer_s", nestedLayout)
        .add("expand_block_and_layer_items", int(nested->items.size()))
        .add("cache_hit_s", cacheHit)
        .add("ge_nodes", int(geGraph->nodes.size()))
        .add("ge_hierarchy_s", hierarchy)
        .add("ge_folds", geEngine->hierarchy().foldCount())
        .add("ge_top_items", int(geTop->items.size()))
        .add("ge_top_width", geTop->bounds.width())
        .add("ge_top_unfolded_items", int(unfolded->items.size()))
        .add("ge_top_unfolded_width", unfolded->bounds.width())
        .add("ge_top_unfolded_layout_s", unfoldedTop)
        .add("ge_top_one_line_width", flatTop->bounds.width())
        .add("ge_start_and_groups_s", startAndOpen)
        .add("ge_first_layout_s", firstLayout)
        .add("ge_first_layout_items", int(first->items.size()))
        .add("ge_first_view_cold_s", firstViewCold)
        .print();
    return 0;
}
