#pragma once

#include "dumpgraph/dumpmapping.h"

#include <vector>

namespace ds {

struct CompareResult;

/// The nodes of an NPU graph and of a bench graph paired through the rows of a comparison of
/// their dumps (msprobe's graph compare, without a database): a row pairs the node of its
/// NPU operator with the node of its bench operator. Plain data, per node of each graph.
struct GraphMatch
{
    std::vector<int> npuPartner;   ///< per NPU node: the bench node most of its rows pair with, or -1
    std::vector<int> benchPartner; ///< per bench node: the NPU node most of its rows pair with, or -1
    std::vector<char> npuUnmatched;   ///< NPU node with compare rows, none of them paired with a bench tensor
    std::vector<char> benchUnmatched; ///< bench node with tensors that no row paired (compare's bench-only rows)
    std::vector<int> npuVerdict, benchVerdict; ///< worst verdict (int(Verdict)) of the node's paired rows, 0 none
    int matchedNpu = 0, matchedBench = 0, unmatchedNpu = 0, unmatchedBench = 0;

    bool isUnmatchedNpu(NodeId n) const { return n.index() < npuUnmatched.size() && npuUnmatched[n.index()]; }
    bool isUnmatchedBench(NodeId n) const { return n.index() < benchUnmatched.size() && benchUnmatched[n.index()]; }
};

/// Pairs graph `npuGraph` of the NPU mapping with graph `benchGraph` of the bench mapping.
/// Rows whose NPU or bench operator has no node in these graphs are skipped.
GraphMatch matchGraphs(const CompareResult &result, const DumpMapping &npu, int npuGraph, const DumpMapping &bench,
                       int benchGraph);

} // namespace ds
