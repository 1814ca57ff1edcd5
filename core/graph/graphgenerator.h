#pragma once

#include "graph/graph.h"

namespace ds {

/// Shape of a synthetic computation graph in name scopes, like a GE Build graph of a deep
/// network: `block{i}/layer{j}/{Type}_{k}` operators, a Const weight per compute op,
/// chains inside a layer, residual and cross-layer inputs, and a few control edges.
struct GeneratedGraphSpec
{
    int topGroups = 48;   ///< "block{i}"
    int subGroups = 20;   ///< "block{i}/layer{j}"
    int opsPerGroup = 50; ///< operators per layer group
    int flatGroupOps = 2000; ///< one more top group "flat" with this many direct operators (0: none)
    /// GE's top-level crowds: `atomic_addr_clean0_{k}` (AtomicAddrClean) nodes, each with a
    /// control edge into an operator of the model's scopes ...
    int atomicCleans = 0;
    /// ... and weight transforms: `Variable_{k}` (Variable) -> `trans_TransData_{k}`
    /// (TransData) -> an operator of the model's scopes.
    int weightTransforms = 0;
    unsigned seed = 1;

    int nodeCount() const { return topGroups * subGroups * opsPerGroup + flatGroupOps + 2 + atomicCleans + 2 * weightTransforms; }
};

/// Builds (Graph::build() called) a deterministic graph for `spec`: also a top-level "input"
/// (IteratorV2, the data entry) and "output" (NetOutput). Every op has an output descriptor
/// with a dtype and shape.
Graph generateScopedGraph(const GeneratedGraphSpec &spec);

/// `g` in GE's ge_proto text format as GE's DumpGraph writes it (a ModelDef with one graph
/// named g.name; each op with its name, type, inputs and output descriptors), for benchmarks
/// and tests of the GE text readers.
QByteArray geProtoText(const Graph &g);

} // namespace ds
