#pragma once

#include "tensor/stats.h"
#include "util/cancel.h"

#include <cstdint>
#include <limits>

namespace ds {

/// One side of a tensor pair as seen by the metrics pass.
struct PairSide
{
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t finite = 0, nan = 0, posinf = 0, neginf = 0;
    /// Statistics of the finite values only (msprobe's "NPU max" ... columns); NaN when none.
    double min = kNaN, max = kNaN, mean = kNaN, l2norm = kNaN;
    /// Mean and population std of the compared values (Inf/NaN at equal positions count as 0):
    /// msaccucmp's StandardDeviation.
    double comparedMean = kNaN, comparedStd = kNaN;
};

/// Raw float64 results of the element-wise pass over two equally long tensors, x = NPU and
/// y = bench (compare.md §3.3 and §9). Non-finite values at equal positions (same NaN mask,
/// same Inf mask) are set to 0 on both sides first, as msprobe does; when the masks differ
/// (infNanMismatch > 0) the metrics are not meaningful and callers show N/A. Formatting and
/// the edge cases of the spec (all-zero sides, 0-d, length 1) are left to the caller.
struct PairMetrics
{
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t count = 0;
    std::uint64_t infNanMismatch = 0; ///< positions where the NaN or the Inf masks differ
    std::uint64_t infNanShared = 0;   ///< non-finite positions shared by both sides (set to 0)
    PairSide npu, bench;
    double dot = kNaN, npuNorm = kNaN, benchNorm = kNaN; ///< Σxy, ‖x‖₂, ‖y‖₂ (compared values)
    double eucDist = kNaN;       ///< ‖x − y‖₂
    double maxAbsErr = kNaN;     ///< max |x − y|
    /// msprobe: max RE, RE = |x − y| / |y| with eps (relativeErrorEpsilon) added where y = 0,
    /// computed as msprobe's numpy does: in float32 when both sides are at most 32-bit floats
    /// (each operation rounded to float32), else in float64
    double maxRelErr = kNaN;
    double oneThousandthRatio = kNaN, fiveThousandthsRatio = kNaN; ///< share with RE < 0.001 / 0.005 (float32 limits for float32 RE)
    double meanAbsErr = kNaN, rmse = kNaN;
    double relEuclid = kNaN;     ///< msaccucmp: sqrt(Σ(x − y)² / Σy²), 0 when ‖y‖ <= eps
    double accRelErr = kNaN;     ///< msaccucmp: Σ_{|y|>eps} |x/y − 1|
    double maxRelErrAcc = kNaN;  ///< msaccucmp MaxRelativeError: max_{|y|>eps} |x/y − 1| (0 elsewhere)
    double meanRelErr = kNaN;    ///< msaccucmp: accRelErr / count
    double kl = kNaN;            ///< msaccucmp KL(x ‖ y) after min-max normalisation
};

struct PairMetricOptions
{
    /// msprobe Gen B quirk (compare.md §3.2): when both tensors are float16, RE is inf where
    /// y = 0 and x != 0, and NaN where both are 0 (instead of adding eps in float64).
    bool genBCompat = false;
    /// KL divergence and the compared std need a second pass over the data.
    bool secondPass = true;
    /// Worker threads; 0 = all cores.
    unsigned threads = 0;
};

/// Machine epsilon of float64 and float32 as the spec uses them.
inline constexpr double kEps64 = 2.220446049250313e-16;
inline constexpr double kEps32 = 1.1920928955078125e-07;

/// The epsilon msprobe Gen C adds where the bench is 0 (compare.md §3.2): float32's when both
/// element types are at most 32-bit floats (float16, bfloat16, float32, fp8), else float64's.
double relativeErrorEpsilon(Elem npu, Elem bench);

/// One multi-threaded streaming pass (plus one for KL and std) over both views, decoding
/// elements on the fly and accumulating in float64. The views must have the same count and
/// decodable element kinds. Returns false when cancelled.
bool computePairMetrics(const TensorView &npu, const TensorView &bench, PairMetrics &out,
                        const PairMetricOptions &options = {}, const JobControl *job = nullptr);

} // namespace ds
