#include "statskernels.h"

#include "kernelvectors.h"
#include "util/kernelisa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ds::statskernels {

#if DS_KERNEL_LEVELS
namespace {

constexpr std::size_t kLanes = 16; // float64 lanes of every sum (as stats.cpp's kLanes)
constexpr std::int32_t kMagnitude = std::numeric_limits<std::int32_t>::max();

std::int32_t orderKey(std::int32_t b) { return b ^ ((b >> 31) & kMagnitude); }
float fromKey(std::int32_t k)
{
    const std::int32_t b = k ^ ((k >> 31) & kMagnitude);
    float x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

/// Lane results of the first pass, reduced in a fixed order (scalar, shared by both builds).
struct Lanes
{
    alignas(64) double s[kLanes], q[kLanes];
    alignas(64) std::int32_t kl[kLanes], kh[kLanes];
    alignas(64) std::uint32_t z[kLanes], least[kLanes], ch[kLanes], cl[kLanes];
};

/// Adds the elements [whole, n) (fewer than 16) to lane 0 in order, as the portable path does,
/// and folds the lanes into out. Returns false when the block is not all finite.
bool finish(const std::byte *p, std::size_t whole, std::size_t n, double shift, bool headroom, std::uint32_t tHigh,
            std::uint32_t tLow, Lanes &l, std::size_t laneCount, Float32Block &out)
{
    std::int32_t kl = std::numeric_limits<std::int32_t>::max(), kh = std::numeric_limits<std::int32_t>::min();
    std::uint64_t z = 0, ch = 0, cl = 0;
    std::uint32_t least = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t j = 0; j < laneCount; ++j) {
        kl = std::min(kl, l.kl[j]);
        kh = std::max(kh, l.kh[j]);
        z += l.z[j];
        if (headroom) {
            least = std::min(least, l.least[j]);
            ch += l.ch[j];
            cl += l.cl[j];
        }
    }
    for (std::size_t i = whole; i < n; ++i) {
        float x;
        std::memcpy(&x, p + 4 * i, 4);
        std::int32_t b;
        std::memcpy(&b, &x, 4);
        kl = std::min(kl, orderKey(b));
        kh = std::max(kh, orderKey(b));
        z += x == 0.0f;
        const double d = double(x);
        l.s[0] += d - shift;
        l.q[0] += d * d;
        if (headroom) {
            const auto a = std::uint32_t(b & kMagnitude);
            least = std::min(least, a - 1);
            ch += a < tHigh;
            cl += a < tLow;
        }
    }
    out.lo = fromKey(kl);
    out.hi = fromKey(kh);
    if (!std::isfinite(out.lo) || !std::isfinite(out.hi))
        return false;
    out.zeros = std::uint32_t(z);
    out.sum = out.sumsq = 0;
    for (std::size_t j = 0; j < kLanes; ++j) {
        out.sum += l.s[j];
        out.sumsq += l.q[j];
    }
    if (headroom) {
        out.minNonzeroBits = least == std::numeric_limits<std::uint32_t>::max() ? ~std::uint64_t(0) : std::uint64_t(least) + 1;
        out.belowHigh = ch;
        out.belowLow = cl;
    }
    return true;
}

/// The deviations' tail (lane 0, in order) and the lanes' sum.
double finishDeviations(const std::byte *p, std::size_t whole, std::size_t n, double shift, double mean, double *d2)
{
    for (std::size_t i = whole; i < n; ++i) {
        float x;
        std::memcpy(&x, p + 4 * i, 4);
        const double d = (double(x) - shift) - mean;
        d2[0] += d * d;
    }
    double total = 0;
    for (std::size_t j = 0; j < kLanes; ++j)
        total += d2[j];
    return total;
}

// ---- the body, one source for every level: GCC vector extensions of the level's native width
// (V512: 16 floats, one zmm; V256: 8 floats, one ymm), built per level by the target lambdas
// in block(). Each step takes 16 floats (one or two vectors); the float64 sums are kLanes / (W
// / 2) vectors of W / 2 lanes, so lane j of Lanes holds the elements i with i % 16 == j at
// every level. The integer keys and counts need no order (any lane count). Written so that
// GCC 12 keeps every operation in vector registers (the zero test compares the bits of |x|:
// a float compare whose mask feeds integer lanes became scalar code); -0.0 is splat lane by
// lane (D{} + shift would make it +0.0).

using kernelvectors::V256;
using kernelvectors::V512;

/// The low (half 0) or high (half 1) W / 2 floats of x as float64 (one cvtps2pd).
template<typename V, int kHalf>
[[gnu::always_inline]] inline typename V::D widen(typename V::F x)
{
    constexpr std::size_t o = kHalf * V::kW / 2;
    if constexpr (V::kW == 16)
        return typename V::D{x[o], x[o + 1], x[o + 2], x[o + 3], x[o + 4], x[o + 5], x[o + 6], x[o + 7]};
    else
        return typename V::D{x[o], x[o + 1], x[o + 2], x[o + 3]};
}

template<typename V>
[[gnu::always_inline]] inline typename V::F loadFloats(const std::byte *p)
{
    typename V::F x;
    std::memcpy(&x, p, sizeof x);
    return x;
}

template<typename V, bool kHeadroom>
[[gnu::always_inline]] inline bool blockBody(const std::byte *p, std::size_t n, double shift, std::uint32_t tHigh,
                                             std::uint32_t tLow, Float32Block &out)
{
    using I = typename V::I;
    using U = typename V::U;
    using D = typename V::D;
    constexpr std::size_t kLoads = kLanes / V::kW, kSums = 2 * kLoads;
    const std::size_t whole = n - n % kLanes;
    const I mag = I{} + kMagnitude, vHigh = I{} + std::int32_t(tHigh), vLow = I{} + std::int32_t(tLow);
    D sh;
    for (std::size_t j = 0; j < V::kW / 2; ++j)
        sh[j] = shift; // exact, -0.0 too
    I kl = I{} + std::numeric_limits<std::int32_t>::max(), kh = I{} + std::numeric_limits<std::int32_t>::min();
    I z{}, ch{}, cl{};
    U least = U{} + std::numeric_limits<std::uint32_t>::max();
    D s[kSums], q[kSums];
    for (std::size_t j = 0; j < kSums; ++j)
        s[j] = q[j] = D{};
    for (std::size_t i = 0; i < whole; i += kLanes) {
#pragma GCC unroll 2
        for (std::size_t h = 0; h < kLoads; ++h) {
            const auto x = loadFloats<V>(p + 4 * (i + V::kW * h));
            const I b = reinterpret_cast<I>(x); // the bits
            const I k = b ^ ((b >> 31) & mag);
            kl = k < kl ? k : kl;
            kh = k > kh ? k : kh;
            const I a = b & mag; // |x|'s bits
            z -= a == 0;         // +-0.0 only; true is -1
            if constexpr (kHeadroom) {
                const U a1 = U(a) - 1u;
                least = a1 < least ? a1 : least;
                ch -= a < vHigh;
                cl -= a < vLow;
            }
            const D x0 = widen<V, 0>(x), x1 = widen<V, 1>(x);
            s[2 * h] += x0 - sh;
            s[2 * h + 1] += x1 - sh;
            q[2 * h] += x0 * x0;
            q[2 * h + 1] += x1 * x1;
        }
    }
    Lanes l;
    std::memcpy(l.s, s, sizeof s);
    std::memcpy(l.q, q, sizeof q);
    std::memcpy(l.kl, &kl, sizeof kl);
    std::memcpy(l.kh, &kh, sizeof kh);
    std::memcpy(l.z, &z, sizeof z);
    std::memcpy(l.least, &least, sizeof least);
    std::memcpy(l.ch, &ch, sizeof ch);
    std::memcpy(l.cl, &cl, sizeof cl);
    if (!finish(p, whole, n, shift, kHeadroom, tHigh, tLow, l, V::kW, out))
        return false;
    const double mean = out.sum / double(n);
    D mv;
    for (std::size_t j = 0; j < V::kW / 2; ++j)
        mv[j] = mean;
    D dev[kSums];
    for (std::size_t j = 0; j < kSums; ++j)
        dev[j] = D{};
    for (std::size_t i = 0; i < whole; i += kLanes) {
#pragma GCC unroll 2
        for (std::size_t h = 0; h < kLoads; ++h) {
            const auto x = loadFloats<V>(p + 4 * (i + V::kW * h));
            const D e0 = (widen<V, 0>(x) - sh) - mv, e1 = (widen<V, 1>(x) - sh) - mv;
            dev[2 * h] += e0 * e0;
            dev[2 * h + 1] += e1 * e1;
        }
    }
    alignas(64) double d2[kLanes];
    std::memcpy(d2, dev, sizeof dev);
    out.m2 = finishDeviations(p, whole, n, shift, mean, d2);
    return true;
}

template<bool kHeadroom>
bool block(const std::byte *p, std::size_t n, double shift, std::uint32_t tHigh, std::uint32_t tLow, Float32Block &out)
{
    switch (kernelIsa()) {
    case KernelIsa::X86_64_V4:
        return [&]() __attribute__((target("arch=x86-64-v4,prefer-vector-width=512"))) {
            return blockBody<V512, kHeadroom>(p, n, shift, tHigh, tLow, out);
        }();
    case KernelIsa::Avx2:
        return [&]() __attribute__((target("avx2"))) {
            return blockBody<V256, kHeadroom>(p, n, shift, tHigh, tLow, out);
        }();
    case KernelIsa::Baseline:
        break;
    }
    return false;
}

} // namespace
#endif

bool available()
{
#if DS_KERNEL_LEVELS
    return kernelIsa() != KernelIsa::Baseline;
#else
    return false;
#endif
}

bool float32Block(const std::byte *p, std::size_t n, double shift, bool headroom, std::uint32_t headroomHigh,
                  std::uint32_t headroomLow, Float32Block &out)
{
#if DS_KERNEL_LEVELS
    return headroom ? block<true>(p, n, shift, headroomHigh, headroomLow, out)
                    : block<false>(p, n, shift, headroomHigh, headroomLow, out);
#else
    (void)p; (void)n; (void)shift; (void)headroom; (void)headroomHigh; (void)headroomLow; (void)out;
#endif
    return false;
}

} // namespace ds::statskernels
