#pragma once

#include "compare/compare.h"

#include <vector>

namespace ds {

/// Where the rows of an aligned compare sit among its structure regions (CompareResult::structure,
/// comparematch.h rule 4), as the Compare table shows them: the region of every row, the rows only
/// one side has (an NPU row without a bench tensor inside a region: "NPU only"; a bench row nothing
/// paired inside a region: "bench only", shown as a row of its own after the NPU rows).
struct CompareGaps
{
    enum class Gap : int { None, NpuOnly, BenchOnly };
    struct BenchRow
    {
        DumpIndex::TensorRef bench;
        int region = -1; ///< index into CompareResult::structure
        ReasonCode reason = ReasonCode::UnmatchedBench;
    };
    std::vector<int> rowRegion;      ///< per result row: its region (CompareResult::structure), -1 none
    std::vector<BenchRow> benchRows; ///< bench-only rows inside a region, in bench index order

    /// Empty (no region, no bench row) when the result was not aligned.
    static CompareGaps build(const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result);
    int regionOfRow(size_t row) const { return row < rowRegion.size() ? rowRegion[row] : -1; }
};

} // namespace ds
