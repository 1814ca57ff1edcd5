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

// The float32 kernel: thresholds at or above 2^-126 compare the exponent byte of |x| (|x| < 2^e
// exactly when the biased exponent is below e + 127); those below (bfloat16's 2^-134) lie among
// float32 subnormals and are counted by the scalar path for nonzero subnormals.
constexpr int kFirstNormal = [] {
    int k = 0;
    while (kSmallExps[size_t(k)] < -126)
        ++k;
    return k;
}();
constexpr int kByteThresholds = headroom::kSmall - kFirstNormal;
constexpr std::array<std::uint8_t, kByteThresholds> kExpBytes = [] {
    std::array<std::uint8_t, kByteThresholds> e{};
    for (int k = 0; k < kByteThresholds; ++k)
        e[size_t(k)] = std::uint8_t(kSmallExps[size_t(k + kFirstNormal)] + 127);
    return e;
}();

constexpr size_t kBlock = 4096; // a lane of the byte counters takes at most kBlock / 32 < 256

struct FloatBlockCounts
{
    std::uint32_t minNonzeroBits; // (|x| bits - 1) minimum: zeros wrap to 0xFFFFFFFF
    std::uint32_t zeroOrSubnormal, zeros;
    std::array<std::uint32_t, kByteThresholds> below; // zeros included
};

#define DS_KERNEL_BODY [[gnu::always_inline]] inline

DS_KERNEL_BODY void floatBlockBody(const std::byte *p, size_t n, FloatBlockCounts &out)
{
    std::uint8_t ex[kBlock];
    std::uint32_t mn = 0xFFFFFFFFu, zs = 0, zeros = 0;
    for (size_t i = 0; i < n; ++i) {
        std::uint32_t b;
        std::memcpy(&b, p + 4 * i, 4);
        const std::uint32_t a = b & 0x7FFFFFFFu;
        mn = std::min(mn, a - 1u);
        ex[i] = std::uint8_t(a >> 23);
        zeros += a == 0;
    }
    std::uint8_t acc[kByteThresholds][32] = {};
    const size_t whole = n - n % 32;
    for (size_t i = 0; i < whole; i += 32)
        for (int k = 0; k < kByteThresholds; ++k)
            for (size_t j = 0; j < 32; ++j)
                acc[k][j] += ex[i + j] < kExpBytes[size_t(k)];
    for (int k = 0; k < kByteThresholds; ++k) {
        std::uint32_t c = 0;
        for (size_t j = 0; j < 32; ++j)
            c += acc[k][j];
        for (size_t i = whole; i < n; ++i)
            c += ex[i] < kExpBytes[size_t(k)];
        out.below[size_t(k)] = c;
    }
    for (size_t i = 0; i < n; ++i)
        zs += ex[i] == 0;
    out.minNonzeroBits = mn;
    out.zeroOrSubnormal = zs;
    out.zeros = zeros;
}

void floatBlock(const std::byte *p, size_t n, FloatBlockCounts &out)
{
    DS_KERNEL_DISPATCH(floatBlockBody(p, n, out));
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

void addFloatBlock(const std::byte *p, size_t n, double blockMaxAbs, Accumulator &acc)
{
    for (size_t b = 0; b < n; b += kBlock) {
        const size_t m = std::min(n - b, kBlock);
        const std::byte *q = p + 4 * b;
        FloatBlockCounts c;
        floatBlock(q, m, c);
        for (int k = 0; k < kByteThresholds; ++k)
            acc.below[size_t(k + kFirstNormal)] += c.below[size_t(k)] - c.zeros;
        if (c.minNonzeroBits != 0xFFFFFFFFu) {
            const std::uint32_t bits = c.minNonzeroBits + 1;
            float f;
            std::memcpy(&f, &bits, 4);
            acc.minNonzero = std::min(acc.minNonzero, double(f));
        }
        if (c.zeroOrSubnormal > c.zeros) { // float32 subnormals: the thresholds below 2^-126
            for (size_t i = 0; i < m; ++i) {
                std::uint32_t bits;
                std::memcpy(&bits, q + 4 * i, 4);
                const std::uint32_t a = bits & 0x7FFFFFFFu;
                if (a == 0 || a >= 0x00800000u)
                    continue;
                float f;
                std::memcpy(&f, &a, 4);
                for (int k = 0; k < kFirstNormal; ++k)
                    acc.below[size_t(k)] += double(f) < smallThresholds()[size_t(k)];
            }
        }
    }
    acc.maxAbs = std::max(acc.maxAbs, blockMaxAbs);
    double leastMax = kLimits[0].maxFinite;
    for (const auto &l : kLimits)
        leastMax = std::min(leastMax, l.maxFinite);
    if (blockMaxAbs > leastMax) { // rare: a block with values beyond some target's range
        for (size_t i = 0; i < n; ++i) {
            float f;
            std::memcpy(&f, p + 4 * i, 4);
            const double a = std::abs(double(f));
            for (int t = 0; t < kHeadroomTargets; ++t)
                acc.over[size_t(t)] += a > kLimits[size_t(t)].maxFinite;
        }
    }
}

void addDoubleBlock(const std::byte *p, size_t n, Accumulator &acc)
{
    for (size_t i = 0; i < n; ++i) {
        double x;
        std::memcpy(&x, p + 8 * i, 8);
        acc.add(x);
    }
}

} // namespace headroom

} // namespace ds
