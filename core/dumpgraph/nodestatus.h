#pragma once

#include "dumpgraph/dumpmapping.h"

#include <QCoreApplication>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

namespace ds {

/// What a node status value means: the roles every graph source fills the same way, so that
/// one colouring serves them all (GE graphs and module graphs mapped to a dump now; other
/// sources, such as msprobe's graph databases, fill the same table).
enum class NodeStatusRole : std::uint8_t {
    OverflowLevel,  ///< 0 none, 1 medium, 2 high, 3 critical (produced here), 4 named by an OpDebug record
    CompareVerdict, ///< int(Verdict): 1 pass, 2 warning, 3 error (0: not compared)
    MetricValue,    ///< a number (cosine, an error, a magnitude); NaN = undefined
};

/// One status per node of one graph (NaN: the node has none).
struct NodeStatusColumn
{
    NodeStatusRole role = NodeStatusRole::MetricValue;
    std::vector<double> values; ///< per NodeId

    bool has(NodeId n) const { return n.index() < values.size() && !std::isnan(values[n.index()]); }
};

/// How per-op values combine on a node that stands for several ops (fused nodes) or on a
/// parameter node (its module's op): the worst one.
enum class StatusWorst : std::uint8_t { Highest, Lowest };

/// Per-op values (DumpIndex op -> value; a NaN value is "undefined", worse than any number)
/// lifted to the nodes of graph `graph` of a mapping. Nodes without a valued op get NaN and
/// are reported in `undefined` only when one of their ops had a NaN value.
NodeStatusColumn liftOpStatus(const DumpMapping &mapping, int graph, NodeStatusRole role,
                              const std::unordered_map<int, double> &opValues, StatusWorst worst,
                              std::vector<char> *undefined = nullptr);

/// Colour bands over a status: a value falls in band 1 ... edges.size() + 1 (band 1 below the
/// first edge when ascending); `descending` numbers the bands from the top (cosine: high is
/// good, band 1). NaN values ("undefined") go into the last band; missing values into 0.
struct StatusBands
{
    std::vector<double> edges; ///< ascending
    bool descending = false;
    int level(double value, bool undefined = false) const;
};

} // namespace ds
