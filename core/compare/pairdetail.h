#pragma once

#include "dump/dumpindex.h"
#include "tensor/stats.h"

#include <vector>

namespace ds {

/// One element of a tensor pair.
struct ElementDiff
{
    std::uint64_t index = 0; ///< flat (row-major) index
    Shape position;          ///< multi-dimensional index (empty when the shape is unknown)
    double npu = 0, bench = 0;
    double absErr = 0;       ///< |npu − bench|; +Inf where only one side is NaN/Inf
    double relErr = 0;       ///< |npu − bench| / |bench| (bench = 0: eps added as in msprobe)
};

/// Element-wise detail of one pair for the compare view: the worst elements and where the
/// errors lie.
struct PairDetail
{
    std::vector<ElementDiff> worst; ///< largest absErr first (ties: lower index first)
    /// |npu − bench| over the pairs where both are finite: bins of equal width on [0, max].
    Histogram absErrHistogram;
    std::uint64_t nonFiniteMismatch = 0; ///< pairs where exactly one side (or different classes) is NaN/Inf
    std::uint64_t exactlyEqual = 0;      ///< pairs with npu == bench (NaN == NaN counts)
};

struct PairDetailOptions
{
    int topK = 20;
    int bins = 64;
};

/// Two passes over the views (same count); false when cancelled.
bool computePairDetail(const TensorView &npu, const TensorView &bench, const PairDetailOptions &options,
                       PairDetail &out, const JobControl *job = nullptr);

/// Loads both tensors (logical layout) and computes the detail; positions use the NPU shape.
Result<PairDetail> comparePairDetail(const DumpIndex &npuIndex, const DumpIndex::TensorRef &npu,
                                     const DumpIndex &benchIndex, const DumpIndex::TensorRef &bench,
                                     const PairDetailOptions &options = {}, const JobControl *job = nullptr);

/// Row-major multi-index of a flat index.
Shape unravelIndex(std::uint64_t flat, const Shape &shape);

} // namespace ds
