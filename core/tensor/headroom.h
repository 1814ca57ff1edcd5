#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

namespace ds {

/// Precision headroom (issue 34): how the finite values of a tensor would fare in a narrower
/// floating type. For each target dtype, counts of the FINITE values x with
///   overflow:  |x| > maxFinite                                (they become Inf or saturate)
///   underflow: 0 < |x| < minSubnormal / 2                     (they become zero)
///   subnormal: minSubnormal / 2 <= |x| < minNormal            (they lose precision)
/// Boundaries: |x| == maxFinite is not overflow; |x| == minSubnormal / 2 counts as subnormal
/// (round-to-nearest-even would turn that exact tie into zero: the definition, not the
/// rounding, decides here); |x| == minNormal is normal. NaN and ±Inf are never counted.
enum class HeadroomTarget : std::uint8_t { Float16, BFloat16, Float8E4M3FN, Float8E5M2, HiFloat8 };
constexpr int kHeadroomTargets = 5;

struct HeadroomLimits
{
    HeadroomTarget target;
    const char *name;     ///< the dtype name in the JSON ("float16")
    double maxFinite;     ///< largest finite value
    double minNormal;     ///< smallest positive normal value
    double minSubnormal;  ///< smallest positive subnormal value
    /// Which of the three limits the spec marks UNCONFIRMED against hardware (hifloat8: the
    /// whole layout, cann-dump.md §6.2 "HiFloat8"); empty when all are confirmed.
    const char *unconfirmed;
};

/// The five targets in HeadroomTarget order. float16 / bfloat16 / float8 by IEEE / OCP formula;
/// hifloat8 derived from cann-dump.md §6.2: max finite 0x6E = 2^15, smallest normal D = 4 with
/// exp = -15 (2^-15), smallest denormal 2^(1-23) = 2^-22.
const std::array<HeadroomLimits, kHeadroomTargets> &headroomLimits();
const HeadroomLimits &headroomLimits(HeadroomTarget t);

struct HeadroomCounts
{
    std::uint64_t overflow = 0, underflow = 0, subnormal = 0;
    bool operator==(const HeadroomCounts &) const = default;
};

/// The headroom of one tensor. valid: measured (a real floating tensor whose values were read);
/// integer, bool and complex tensors have none.
struct Headroom
{
    bool valid = false;
    std::array<HeadroomCounts, kHeadroomTargets> targets{};
    double maxAbs = std::numeric_limits<double>::quiet_NaN();        ///< largest finite |x|
    double minNonzeroAbs = std::numeric_limits<double>::quiet_NaN(); ///< smallest finite nonzero |x|
    /// log2(maxAbs / minNonzeroAbs); NaN when no finite value is nonzero.
    double dynamicRangeLog2() const;
    const HeadroomCounts &at(HeadroomTarget t) const { return targets[size_t(t)]; }
};

/// What statistics recorded without the values (msprobe statistics mode: max, min, norm) tell
/// about the headroom, and nothing more. Per target, each answer is true (some finite value
/// does), false (none does) or empty (cannot tell):
/// - overflow: a finite recorded max > maxFinite (or min < -maxFinite) is true; with both max and
///   min finite, max|x| = max(|max|, |min|) <= maxFinite is false; else the L2 norm, which
///   bounds max|x| from above, gives false when norm <= maxFinite.
/// - underflow / subnormal: the smallest nonzero |x| is known only when every value has one sign
///   (min > 0: it is min; max < 0: it is |max|); otherwise, and with zeros possible, empty.
struct RecordedHeadroom
{
    struct Answer
    {
        std::optional<bool> overflow, underflow, subnormal;
    };
    std::array<Answer, kHeadroomTargets> targets{};
    double maxAbs = std::numeric_limits<double>::quiet_NaN(); ///< when known from max and min
};
/// NaN for a statistic that was not recorded.
RecordedHeadroom headroomFromRecorded(double max, double min, double norm);

namespace headroom {

/// The distinct small thresholds (every target's minSubnormal / 2 and minNormal, all powers of
/// two), ascending: the accumulator counts the nonzero values below each one.
constexpr int kSmall = 9;
const std::array<double, kSmall> &smallThresholds();

/// Running counts, merged across tasks (integer sums and min/max: order does not matter).
struct Accumulator
{
    std::array<std::uint64_t, kSmall> below{};              ///< finite 0 < |x| < smallThresholds()[k]
    std::array<std::uint64_t, kHeadroomTargets> over{};     ///< finite |x| > maxFinite
    double minNonzero = std::numeric_limits<double>::infinity();
    double maxAbs = -1; ///< < 0: no finite value yet

    /// Adds w copies of x (NaN and ±Inf are ignored).
    void add(double x, std::uint64_t w = 1);
    void addDoubles(const double *v, size_t n);
    void merge(const Accumulator &o);
    Headroom result() const;
};

/// Adds the block [p, p + n) of float32 (every element finite) whose range pass found `zeros`
/// zeros and the largest |x| (maxAbsBits: the bits of |x|). One vectorised pass finds the
/// smallest nonzero |x|; only the thresholds between the two are counted, two per pass, by
/// integer compares of the bits of |x| (baseline + AVX2 builds).
void addFloatBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint32_t maxAbsBits, Accumulator &acc);
/// What the range pass of a float64 block (stats.cpp) also finds for the headroom, in the
/// same pass over the elements: the bits of the smallest nonzero |x| (all ones when every
/// element is zero) and how many elements have |x| below the two largest small thresholds
/// (float8_e4m3fn's 2^-6 and 2^-10, the ones ordinary data reaches), zeros included.
struct DoubleRangeCounts
{
    std::uint64_t minNonzeroBits = ~std::uint64_t(0);
    std::uint64_t belowHigh = 0, belowLow = 0; ///< |x| < smallThresholds()[kSmall - 1], [kSmall - 2]
};
/// The bits of smallThresholds()[kSmall - 1] and [kSmall - 2] as float64 (the range pass compares them).
std::int64_t doubleHighThresholdBits();
std::int64_t doubleLowThresholdBits();
/// The same two thresholds as float32 bits (the fused float32 kernels, tensor/statskernels.h).
std::uint32_t floatHighThresholdBits();
std::uint32_t floatLowThresholdBits();
/// addFloatBlock when the range pass also found `range` (the fused float32 kernels): no pass
/// of its own for the smallest nonzero |x| and the two largest small thresholds.
void addFloatBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint32_t maxAbsBits,
                   const DoubleRangeCounts &range, Accumulator &acc);
/// The same as addFloatBlock for float64, from what the range pass found.
void addDoubleBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint64_t maxAbsBits, const DoubleRangeCounts &range,
                    Accumulator &acc);

} // namespace headroom

} // namespace ds
