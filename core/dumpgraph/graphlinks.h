#pragma once

#include "graph/graph.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ds {

/// For graphs that make their edges by node index (module graphs, vis.db's chains) instead of
/// writing and parsing "<producer>:0" inputs. `links` are (consumer, producer) node indices
/// in the order made.

/// Sets `g.edges` to data edges (output 0 of the producer) from `links` as Graph::build()
/// would parse them from inputs: by consumer, then in the order made (`links` is stably sorted
/// by consumer here).
inline void setEdgesFromLinks(Graph &g, std::vector<std::pair<int, int>> &links)
{
    std::stable_sort(links.begin(), links.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    g.edges.clear();
    g.edges.reserve(links.size());
    for (size_t e = 0; e < links.size(); ++e) {
        const int inIndex = e > 0 && links[e - 1].first == links[e].first ? g.edges.back().inIndex + 1 : 0;
        g.edges.push_back({NodeId{links[e].second}, 0, NodeId{links[e].first}, inIndex});
    }
}

/// After Graph::buildWithEdges() with the edges of `links`: when names repeat, an input names
/// the last node of its name, so the links are written as inputs ("<producer>:0") and parsed by
/// Graph::build() as a graph read from text would be; the inputs are cleared again. Nothing to
/// do when the names are unique.
inline void rebuildFromLinksIfNamesRepeat(Graph &g, const std::vector<std::pair<int, int>> &links)
{
    if (g.hasUniqueNames())
        return;
    for (const auto &[to, from] : links)
        g.nodes[size_t(to)].inputs << g.nodes[size_t(from)].name + QStringLiteral(":0");
    g.build();
    for (GraphNode &n : g.nodes)
        n.inputs.clear();
}

} // namespace ds
