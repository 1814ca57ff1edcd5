#include "graphmatch.h"

#include "compare/compare.h"

#include <algorithm>
#include <map>

namespace ds {

namespace {

size_t nodeCount(const DumpMapping &m, int graph)
{
    return graph >= 0 && size_t(graph) < m.nodeOps.size() ? m.nodeOps[size_t(graph)].size() : 0;
}

/// The node of an op in `graph` (-1 when it has none there).
int nodeOf(const DumpMapping &m, int graph, int op)
{
    if (op < 0 || size_t(op) >= m.opNode.size())
        return -1;
    const GraphNodeRef ref = m.opNode[size_t(op)];
    return ref.graph == graph && ref.node.isValid() ? ref.node.value : -1;
}

} // namespace

GraphMatch matchGraphs(const CompareResult &result, const DumpMapping &npu, int npuGraph, const DumpMapping &bench, int benchGraph)
{
    GraphMatch g;
    const size_t nn = nodeCount(npu, npuGraph), nb = nodeCount(bench, benchGraph);
    g.npuPartner.assign(nn, -1);
    g.benchPartner.assign(nb, -1);
    g.npuUnmatched.assign(nn, 0);
    g.benchUnmatched.assign(nb, 0);
    g.npuVerdict.assign(nn, 0);
    g.benchVerdict.assign(nb, 0);
    std::vector<char> npuHasRows(nn, 0), npuPaired(nn, 0), benchPaired(nb, 0), benchLeft(nb, 0);
    std::map<std::pair<int, int>, int> pairs; // (npu node, bench node) -> rows
    for (const CompareRow &row : result.rows) {
        const int a = nodeOf(npu, npuGraph, row.npu.op);
        if (a < 0)
            continue;
        npuHasRows[size_t(a)] = 1;
        const int b = nodeOf(bench, benchGraph, row.bench.op);
        if (b < 0)
            continue;
        npuPaired[size_t(a)] = 1;
        benchPaired[size_t(b)] = 1;
        ++pairs[{a, b}];
        g.npuVerdict[size_t(a)] = std::max(g.npuVerdict[size_t(a)], int(row.verdict));
        g.benchVerdict[size_t(b)] = std::max(g.benchVerdict[size_t(b)], int(row.verdict));
    }
    for (const BenchOnlyRow &row : result.benchOnly)
        if (const int b = nodeOf(bench, benchGraph, row.bench.op); b >= 0)
            benchLeft[size_t(b)] = 1;
    // Partners: the most rows (ties: the first node).
    std::vector<int> npuBest(nn, 0), benchBest(nb, 0);
    for (const auto &[key, count] : pairs) {
        const auto [a, b] = key;
        if (count > npuBest[size_t(a)]) {
            npuBest[size_t(a)] = count;
            g.npuPartner[size_t(a)] = b;
        }
        if (count > benchBest[size_t(b)]) {
            benchBest[size_t(b)] = count;
            g.benchPartner[size_t(b)] = a;
        }
    }
    for (size_t n = 0; n < nn; ++n) {
        g.npuUnmatched[n] = npuHasRows[n] && !npuPaired[n];
        g.matchedNpu += npuPaired[n];
        g.unmatchedNpu += g.npuUnmatched[n];
    }
    for (size_t n = 0; n < nb; ++n) {
        g.benchUnmatched[n] = benchLeft[n] && !benchPaired[n];
        g.matchedBench += benchPaired[n];
        g.unmatchedBench += g.benchUnmatched[n];
    }
    return g;
}

} // namespace ds
