#include "headroom.h"

#include "util/kernelisa.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ds {

namespace {

constexpr double pow2(int k)
{
    double r = 1;
    for (; k > 0; --k) r *= 2;
    for (; k < 0; ++k) r /= 2;
    return r;
}

/// Exponents of the limits (minNormal = 2^normalExp, minSubnormal = 2^subnormalExp).
struct TargetExps
{
    int normalExp, subnormalExp;
};
constexpr std::array<TargetExps, kHeadroomTargets> kExps{{
    {-14, -24},   // float16: IEEE binary16
    {-126, -133}, // bfloat16: binary32's exponent, 7 mantissa bits
    {-6, -9},     // float8 E4M3FN (OCP): bias 7, 3 mantissa bits
    {-14, -16},   // float8 E5M2 (OCP): bias 15, 2 mantissa bits
    {-15, -22},   // HiFloat8: D = 4, exp = -(8 + 7); denormal 2^(m - 23), m = 1
}};

const std::array<HeadroomLimits, kHeadroomTargets> kLimits{{
    {HeadroomTarget::Float16, "float16", 65504.0, pow2(-14), pow2(-24), ""},
    {HeadroomTarget::BFloat16, "bfloat16", (2.0 - pow2(-7)) * pow2(127), pow2(-126), pow2(-133), ""},
    {HeadroomTarget::Float8E4M3FN, "float8_e4m3fn", 448.0, pow2(-6), pow2(-9), ""},
    {HeadroomTarget::Float8E5M2, "float8_e5m2", 57344.0, pow2(-14), pow2(-16), ""},
    // cann-dump.md §6.2: the layout is UNCONFIRMED against hardware. maxFinite and minNormal
    // come from D = 4 codes, where the spec's bit accounting and msaccucmp's decoder agree;
    // minSubnormal is the spec's denormal rule alone.
    {HeadroomTarget::HiFloat8, "hifloat8", 32768.0, pow2(-15), pow2(-22), "max_finite,min_normal,min_subnormal"},
}};

/// The small thresholds as exponents: each target's subnormalExp - 1 and normalExp, distinct, ascending.
constexpr std::array<int, headroom::kSmall> smallExps()
{
    std::array<int, 2 * kHeadroomTargets> all{};
    for (int t = 0; t < kHeadroomTargets; ++t) {
        all[size_t(2 * t)] = kExps[size_t(t)].subnormalExp - 1;
        all[size_t(2 * t + 1)] = kExps[size_t(t)].normalExp;
    }
    std::sort(all.begin(), all.end());
    std::array<int, headroom::kSmall> out{};
    size_t n = 0;
    for (size_t i = 0; i < all.size(); ++i)
        if (i == 0 || all[i] != all[i - 1])
            out[n++] = all[i];
    return out;
}
constexpr std::array<int, headroom::kSmall> kSmallExps = smallExps();
static_assert(kSmallExps[0] == -134 && kSmallExps[headroom::kSmall - 1] == -6, "kSmall must match the targets");

constexpr int smallIndex(int exp)
{
    for (int k = 0; k < headroom::kSmall; ++k)
        if (kSmallExps[size_t(k)] == exp)
            return k;
    return -1;
}

// The float32 / float64 block kernel. The bits of |x| (sign cleared) order like |x|, so every
// threshold is one integer compare, float32 subnormals included. The range pass (stats.cpp)
// already found the block's zeros and largest |x| (float64: also its smallest nonzero |x| and
// the counts below float8_e4m3fn's two thresholds), one pass here float32's smallest nonzero |x|: a threshold at
// or below the smallest nonzero |x| has no nonzero value below it, one above the largest |x|
// has all of them, and only those in between (typically two or three) are counted here, two
// per pass over the L1-resident block.

template<typename F> struct FloatBits;
template<> struct FloatBits<float> { using S = std::int32_t; using U = std::uint32_t; };
template<> struct FloatBits<double> { using S = std::int64_t; using U = std::uint64_t; };

template<typename F>
typename FloatBits<F>::U bitsOf(F x)
{
    typename FloatBits<F>::U b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
template<typename F>
F fromBits(typename FloatBits<F>::U b)
{
    F x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

/// The thresholds as bits of F: kSmallExps' powers of two, and each target's largest finite
/// value (all exactly representable in float32).
template<typename F>
struct BitLimits
{
    std::array<typename FloatBits<F>::U, headroom::kSmall> small;
    std::array<typename FloatBits<F>::U, kHeadroomTargets> maxFinite;
};
template<typename F>
const BitLimits<F> &bitLimits()
{
    static const BitLimits<F> l = [] {
        BitLimits<F> b{};
        for (int k = 0; k < headroom::kSmall; ++k)
            b.small[size_t(k)] = bitsOf(F(std::ldexp(1.0, kSmallExps[size_t(k)])));
        for (int t = 0; t < kHeadroomTargets; ++t)
            b.maxFinite[size_t(t)] = bitsOf(F(kLimits[size_t(t)].maxFinite));
        return b;
    }();
    return l;
}

#define DS_KERNEL_BODY [[gnu::always_inline]] inline

// Both kernels keep kLanes independent accumulators: GCC at -O2 vectorises that form (like the
// sums in stats.cpp), not a loop with one scalar accumulator.
constexpr size_t kLanes = 8;

/// The elements of [p, p + n) whose |x| bits are below l0, and below l1 (zeros included).
template<typename F>
DS_KERNEL_BODY void countBelowBody(const std::byte *p, size_t n, typename FloatBits<F>::S l0,
                                   typename FloatBits<F>::S l1, std::uint64_t &c0, std::uint64_t &c1)
{
    using S = typename FloatBits<F>::S;
    constexpr S kMagnitude = std::numeric_limits<S>::max();
    S k0[kLanes] = {}, k1[kLanes] = {}; // as wide as the elements: no widening in the loop
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            S b;
            std::memcpy(&b, p + sizeof(F) * (i + j), sizeof b);
            const S a = b & kMagnitude;
            k0[j] += a < l0;
            k1[j] += a < l1;
        }
    for (size_t i = whole; i < n; ++i) {
        S b;
        std::memcpy(&b, p + sizeof(F) * i, sizeof b);
        const S a = b & kMagnitude;
        k0[0] += a < l0;
        k1[0] += a < l1;
    }
    c0 = c1 = 0;
    for (size_t j = 0; j < kLanes; ++j) {
        c0 += std::uint64_t(k0[j]);
        c1 += std::uint64_t(k1[j]);
    }
}
template<typename F>
void countBelow(const std::byte *p, size_t n, typename FloatBits<F>::S l0, typename FloatBits<F>::S l1,
                std::uint64_t &c0, std::uint64_t &c1)
{
    DS_KERNEL_DISPATCH(countBelowBody<F>(p, n, l0, l1, c0, c1));
}

/// The least bits of a nonzero |x| in [p, p + n); all ones when every element is zero.
template<typename F>
DS_KERNEL_BODY typename FloatBits<F>::U minNonzeroBitsBody(const std::byte *p, size_t n)
{
    using U = typename FloatBits<F>::U;
    constexpr U kMagnitude = std::numeric_limits<U>::max() >> 1, kNone = std::numeric_limits<U>::max();
    U least[kLanes]; // min of |x| bits - 1: a zero wraps to kNone
    for (size_t j = 0; j < kLanes; ++j)
        least[j] = kNone;
    const size_t whole = n - n % kLanes;
    for (size_t i = 0; i < whole; i += kLanes)
        for (size_t j = 0; j < kLanes; ++j) {
            U b;
            std::memcpy(&b, p + sizeof(F) * (i + j), sizeof b);
            least[j] = std::min(least[j], U((b & kMagnitude) - 1));
        }
    for (size_t i = whole; i < n; ++i) {
        U b;
        std::memcpy(&b, p + sizeof(F) * i, sizeof b);
        least[0] = std::min(least[0], U((b & kMagnitude) - 1));
    }
    U m = kNone;
    for (size_t j = 0; j < kLanes; ++j)
        m = std::min(m, least[j]);
    return m == kNone ? m : m + 1;
}
template<typename F>
typename FloatBits<F>::U leastNonzeroBits(const std::byte *p, size_t n)
{
    DS_KERNEL_DISPATCH(minNonzeroBitsBody<F>(p, n));
}

/// `range`: float64's range pass results (null for float32, whose smallest nonzero |x| is
/// found in a pass here: its unsigned 32-bit min is native and folding it into the range pass
/// measured no faster).
template<typename F>
void addBlock(const std::byte *p, size_t n, std::uint64_t zeros, typename FloatBits<F>::U maxAbsBits, const headroom::DoubleRangeCounts *range,
              headroom::Accumulator &acc)
{
    using S = typename FloatBits<F>::S;
    const BitLimits<F> &lim = bitLimits<F>();
    const std::uint64_t nonzero = n - zeros;
    // float64: the range pass found the smallest nonzero |x| and counted below the two largest
    // small thresholds (float8_e4m3fn's: for standard-normal blocks the only ones between the
    // smallest nonzero |x| and the largest); passes here only for other thresholds in between.
    // float32: the minimum pass, then the thresholds in between, two per pass.
    const int fused0 = range ? headroom::kSmall - 1 : -1, fused1 = range ? headroom::kSmall - 2 : -1;
    const std::uint64_t fusedBelow0 = range ? range->belowHigh : 0, fusedBelow1 = range ? range->belowLow : 0;
    auto minNonzeroBits = std::numeric_limits<typename FloatBits<F>::U>::max();
    if (range)
        minNonzeroBits = typename FloatBits<F>::U(range->minNonzeroBits);
    else if (nonzero)
        minNonzeroBits = leastNonzeroBits<F>(p, n);
    // The thresholds this block must count: the limit (count |x| bits below it), where the
    // count goes, and whether it counts values above (overflow: n minus those <= maxFinite).
    std::array<S, headroom::kSmall + kHeadroomTargets> limits{};
    std::array<std::uint64_t *, headroom::kSmall + kHeadroomTargets> into{};
    std::array<bool, headroom::kSmall + kHeadroomTargets> above{};
    int m = 0;
    for (int k = 0; k < headroom::kSmall && nonzero; ++k) {
        const auto t = lim.small[size_t(k)];
        if (t <= minNonzeroBits)
            continue; // no nonzero |x| below it
        if (t > maxAbsBits) {
            acc.below[size_t(k)] += nonzero; // every nonzero |x| below it
            continue;
        }
        if (k == fused0 || k == fused1) { // counted in the first pass (zeros included)
            acc.below[size_t(k)] += (k == fused0 ? fusedBelow0 : fusedBelow1) - zeros;
            continue;
        }
        limits[size_t(m)] = S(t);
        into[size_t(m)] = &acc.below[size_t(k)];
        above[size_t(m++)] = false;
    }
    for (int t = 0; t < kHeadroomTargets; ++t) {
        const auto top = lim.maxFinite[size_t(t)];
        if (maxAbsBits <= top)
            continue; // nothing beyond this target's range (the usual case)
        limits[size_t(m)] = S(top + 1);
        into[size_t(m)] = &acc.over[size_t(t)];
        above[size_t(m++)] = true;
    }
    auto apply = [&](int i, std::uint64_t below) { *into[size_t(i)] += above[size_t(i)] ? n - below : below - zeros; };
    for (int i = 0; i < m; i += 2) {
        const int j = std::min(i + 1, m - 1);
        std::uint64_t c0 = 0, c1 = 0;
        countBelow<F>(p, n, limits[size_t(i)], limits[size_t(j)], c0, c1);
        apply(i, c0);
        if (j != i)
            apply(j, c1);
    }
    if (nonzero)
        acc.minNonzero = std::min(acc.minNonzero, double(fromBits<F>(minNonzeroBits)));
    acc.maxAbs = std::max(acc.maxAbs, double(fromBits<F>(maxAbsBits)));
}

} // namespace

const std::array<HeadroomLimits, kHeadroomTargets> &headroomLimits() { return kLimits; }
const HeadroomLimits &headroomLimits(HeadroomTarget t) { return kLimits[size_t(t)]; }

double Headroom::dynamicRangeLog2() const
{
    if (!(minNonzeroAbs > 0) || !std::isfinite(maxAbs))
        return std::numeric_limits<double>::quiet_NaN();
    return std::log2(maxAbs) - std::log2(minNonzeroAbs); // no overflow of the ratio itself
}

RecordedHeadroom headroomFromRecorded(double max, double min, double norm)
{
    RecordedHeadroom r;
    const bool range = std::isfinite(max) && std::isfinite(min) && min <= max;
    if (range)
        r.maxAbs = std::max(std::abs(max), std::abs(min));
    // The smallest |x| when all values share a sign (min > 0 or max < 0); it is nonzero then.
    double least = std::numeric_limits<double>::quiet_NaN();
    if (range && min > 0)
        least = min;
    else if (range && max < 0)
        least = -max;
    for (const auto &l : kLimits) {
        auto &a = r.targets[size_t(l.target)];
        if ((std::isfinite(max) && max > l.maxFinite) || (std::isfinite(min) && -min > l.maxFinite))
            a.overflow = true; // a recorded extreme is itself a finite value beyond the range
        else if (range)
            a.overflow = false;
        else if (std::isfinite(norm) && norm <= l.maxFinite)
            a.overflow = false;
        if (!std::isnan(least)) {
            const double half = l.minSubnormal / 2;
            a.underflow = least < half;
            if (least >= l.minNormal)
                a.subnormal = false; // every |x| is normal or above
            else if (least >= half)
                a.subnormal = true;  // the smallest one lands there
            // least < half: something underflows; whether another value is subnormal: unknown
        }
    }
    return r;
}

namespace headroom {

const std::array<double, kSmall> &smallThresholds()
{
    static const std::array<double, kSmall> t = [] {
        std::array<double, kSmall> v{};
        for (int k = 0; k < kSmall; ++k)
            v[size_t(k)] = pow2(kSmallExps[size_t(k)]);
        return v;
    }();
    return t;
}

void Accumulator::add(double x, std::uint64_t w)
{
    if (!std::isfinite(x))
        return;
    const double a = std::abs(x);
    maxAbs = std::max(maxAbs, a);
    if (a == 0)
        return;
    minNonzero = std::min(minNonzero, a);
    const auto &t = smallThresholds();
    for (int k = 0; k < kSmall; ++k)
        below[size_t(k)] += a < t[size_t(k)] ? w : 0;
    for (int k = 0; k < kHeadroomTargets; ++k)
        over[size_t(k)] += a > kLimits[size_t(k)].maxFinite ? w : 0;
}

void Accumulator::addDoubles(const double *v, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        add(v[i]);
}

void Accumulator::merge(const Accumulator &o)
{
    for (int k = 0; k < kSmall; ++k)
        below[size_t(k)] += o.below[size_t(k)];
    for (int k = 0; k < kHeadroomTargets; ++k)
        over[size_t(k)] += o.over[size_t(k)];
    minNonzero = std::min(minNonzero, o.minNonzero);
    maxAbs = std::max(maxAbs, o.maxAbs);
}

Headroom Accumulator::result() const
{
    Headroom h;
    h.valid = true;
    for (int t = 0; t < kHeadroomTargets; ++t) {
        const int u = smallIndex(kExps[size_t(t)].subnormalExp - 1), s = smallIndex(kExps[size_t(t)].normalExp);
        auto &c = h.targets[size_t(t)];
        c.overflow = over[size_t(t)];
        c.underflow = below[size_t(u)];
        c.subnormal = below[size_t(s)] - below[size_t(u)];
    }
    if (maxAbs >= 0)
        h.maxAbs = maxAbs;
    if (std::isfinite(minNonzero))
        h.minNonzeroAbs = minNonzero;
    return h;
}

void addFloatBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint32_t maxAbsBits, Accumulator &acc)
{
    addBlock<float>(p, n, zeros, maxAbsBits, nullptr, acc);
}

std::int64_t doubleHighThresholdBits() { return std::int64_t(bitLimits<double>().small[size_t(kSmall - 1)]); }
std::int64_t doubleLowThresholdBits() { return std::int64_t(bitLimits<double>().small[size_t(kSmall - 2)]); }

std::uint32_t floatHighThresholdBits() { return bitLimits<float>().small[size_t(kSmall - 1)]; }
std::uint32_t floatLowThresholdBits() { return bitLimits<float>().small[size_t(kSmall - 2)]; }

void addFloatBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint32_t maxAbsBits, const DoubleRangeCounts &range,
                   Accumulator &acc)
{
    addBlock<float>(p, n, zeros, maxAbsBits, &range, acc);
}

void addDoubleBlock(const std::byte *p, size_t n, std::uint64_t zeros, std::uint64_t maxAbsBits, const DoubleRangeCounts &range, Accumulator &acc)
{
    addBlock<double>(p, n, zeros, maxAbsBits, &range, acc);
}

} // namespace headroom

} // namespace ds
