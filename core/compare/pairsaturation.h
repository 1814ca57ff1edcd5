#pragma once

#include "pairmetrics.h"

#include <cstdint>

namespace ds {

/// computePairMetrics that also sets npuSaturated to countSaturated(npu), counted by the first
/// pass as it reads each block of the NPU tensor (compare: one pass over it less than a scan
/// of its own; docs/scale/files.md, item 4).
bool computePairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out,
                        const PairMetricOptions &options, std::uint64_t &npuSaturated, const JobControl *job = nullptr);

} // namespace ds
