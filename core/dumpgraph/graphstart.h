#pragma once

#include "graph/graphlayout.h"

namespace ds {

/// Where a person starts reading a graph: its data entry. GE graphs: an iterator
/// (IteratorV2, IteratorGetNext, GetNext ...), else the producer of the first GraphDef input,
/// else a Data/RefData/AippData node, else the first source feeding something; module graphs:
/// the first forward call. Invalid for an empty graph.
NodeId entryNode(const Graph &graph);

/// The groups to open for the first view: the groups holding `focus` (when valid), then,
/// breadth first and the largest groups first, name scopes while the number of boxes shown
/// stays within `budget` (folds stay closed: they are the crowds; groups of one member stay
/// closed: their box names the member's type). Deterministic.
GraphExpansion initialExpansion(const GraphHierarchy &hierarchy, NodeId focus, int budget = 40);

} // namespace ds
