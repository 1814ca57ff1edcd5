#pragma once

#include "dump/dumpindex.h"

#include <QString>
#include <vector>

namespace ds {

/// Where the two op streams of a scope differ in structure: a run of operators only one side
/// has, or a run each side computes differently ("blocks.0.mlp.fc1: bench Functional.linear.1
/// vs NPU Tensor.t.0 + Torch.matmul.0 + Tensor.__add__.0"), between two aligned operators.
struct StructureRegion
{
    int scope = 0;             ///< matchIndexes' scope id (equal on both sides)
    QString module;            ///< the enclosing module entry (construct.json parent), empty: top level
    std::vector<int> npuOps;   ///< NPU operators of the run, in order (may be empty)
    std::vector<int> benchOps; ///< bench operators of the run, in order (may be empty)
};

/// The operators of two op streams paired as a text diff pairs lines (comparematch.h rule 4).
struct OpAlignment
{
    bool active = false;       ///< false: the streams line up by name (exact names decide)
    std::vector<int> benchOf;  ///< per NPU operator: its aligned bench operator, -1 none
    std::vector<StructureRegion> regions;
};

/// Aligns the NPU and bench operators of each scope (`npuScope[o]`, `benchScope[o]`: ids that
/// are equal for the same scope on both sides) by signature: an operator's name without its
/// call counter (fuzzyOpName) and the kinds of its rows, in order; module and cell entries by
/// their whole name (their path is the structure both sides record). Unique signatures anchor
/// the alignment (patience diff), the runs between anchors take their longest common
/// subsequence. Runs of a scope larger than 2,000 x 2,000 operators between two anchors are
/// left unaligned (their rows pair nothing rather than the wrong calls).
OpAlignment alignOpStreams(const DumpIndex &npu, const DumpIndex &bench, const std::vector<int> &npuScope,
                           const std::vector<int> &benchScope);

} // namespace ds
