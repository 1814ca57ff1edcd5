#include "histkernels.h"

#include "kernelvectors.h"
#include "util/kernelisa.h"

#include <algorithm>
#include <cstring>
#include <limits>


namespace ds::histkernels {

#if DS_KERNEL_LEVELS
namespace {

constexpr std::int32_t kMagnitude = std::numeric_limits<std::int32_t>::max();

/// The order key of a float's bits (-0.0 just below +0.0, NaN beyond ±Inf), as stats.cpp's OrderKey.
std::int32_t orderKey(std::int32_t b) { return b ^ ((b >> 31) & kMagnitude); }
float fromKey(std::int32_t k)
{
    const std::int32_t b = k ^ ((k >> 31) & kMagnitude);
    float x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

/// After the vector loop: the range check (lane keys kl/kh and the tail), then the tail's bins
/// with stats.cpp's scalar formulas (converted only once the block is known to be in range).
bool finish(const std::byte *p, std::size_t whole, std::size_t n, const Float32Certified &c, double lo, double hi,
            bool allInRange, const std::int32_t *kl, const std::int32_t *kh, std::size_t laneCount, std::int32_t *bins)
{
    if (!allInRange) {
        std::int32_t least = std::numeric_limits<std::int32_t>::max(), greatest = std::numeric_limits<std::int32_t>::min();
        for (std::size_t j = 0; j < laneCount; ++j) {
            least = std::min(least, kl[j]);
            greatest = std::max(greatest, kh[j]);
        }
        for (std::size_t i = whole; i < n; ++i) {
            std::int32_t b;
            std::memcpy(&b, p + 4 * i, 4);
            least = std::min(least, orderKey(b));
            greatest = std::max(greatest, orderKey(b));
        }
        if (!(double(fromKey(least)) >= lo) || !(double(fromKey(greatest)) <= hi))
            return false;
    }
    for (std::size_t i = whole; i < n; ++i) {
        float x;
        std::memcpy(&x, p + 4 * i, 4);
        const float t = (x - c.lo) * c.scale;
        const auto j = std::int32_t(t);
        const float frac = t - float(j);
        bins[i] = (frac > c.fracLo) & (frac < c.fracHi) & (j < c.n) ? j : -1;
    }
    return true;
}

// The vector loop, one source for every level: stats.cpp's certifiedBinsBody<float> in GCC
// vector extensions of the level's native width (V512: 16 lanes, one zmm; V256: 8, one ymm),
// built per level by the target lambdas in float32Bins(), the range keys fused into the same
// loop. A lane out of range converts to the hardware's 0x80000000 (GCC compiles the vector
// conversion to vcvttps2dq), and the block's bins are then discarded by finish().

using kernelvectors::V256;
using kernelvectors::V512;

template<typename V>
[[gnu::always_inline]] inline bool binsBody(const std::byte *p, std::size_t n, const Float32Certified &c, double lo,
                                            double hi, bool allInRange, std::int32_t *bins)
{
    using F = typename V::F;
    using I = typename V::I;
    const std::size_t whole = n - n % V::kW;
    const I mag = I{} + kMagnitude, vn = I{} + c.n;
    F vlo, vscale, fracLo, fracHi; // set lane by lane: exact (F{} + c.lo would turn -0.0 into +0.0)
    for (std::size_t j = 0; j < V::kW; ++j)
        vlo[j] = c.lo, vscale[j] = c.scale, fracLo[j] = c.fracLo, fracHi[j] = c.fracHi;
    I kl = I{} + std::numeric_limits<std::int32_t>::max(), kh = I{} + std::numeric_limits<std::int32_t>::min();
    for (std::size_t i = 0; i < whole; i += V::kW) {
        F x;
        std::memcpy(&x, p + 4 * i, sizeof x);
        if (!allInRange) {
            const I b = reinterpret_cast<I>(x); // the bits
            const I k = b ^ ((b >> 31) & mag);
            kl = k < kl ? k : kl;
            kh = k > kh ? k : kh;
        }
        const F t = (x - vlo) * vscale;
        const I j = __builtin_convertvector(t, I); // truncation
        const F frac = t - __builtin_convertvector(j, F);
        // j where all three hold, else -1: each select gives j or -1 (all ones), so their or is j
        // only when all give j. (An and of the compares, or selects in a chain, GCC 12 turns into
        // scalar code.)
        const I minus1 = I{} - 1;
        const I r = (frac > fracLo ? j : minus1) | (frac < fracHi ? j : minus1) | (j < vn ? j : minus1);
        std::memcpy(bins + i, &r, sizeof r);
    }
    alignas(64) std::int32_t lkl[V::kW], lkh[V::kW];
    std::memcpy(lkl, &kl, sizeof kl);
    std::memcpy(lkh, &kh, sizeof kh);
    return finish(p, whole, n, c, lo, hi, allInRange, lkl, lkh, V::kW, bins);
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

bool float32Bins(const std::byte *p, std::size_t n, const Float32Certified &c, double lo, double hi, bool allInRange,
                 std::int32_t *bins)
{
#if DS_KERNEL_LEVELS
    switch (kernelIsa()) {
    case KernelIsa::X86_64_V4:
        return [&]() __attribute__((target("arch=x86-64-v4,prefer-vector-width=512"))) {
            return binsBody<V512>(p, n, c, lo, hi, allInRange, bins);
        }();
    case KernelIsa::Avx2:
        return [&]() __attribute__((target("avx2"))) { return binsBody<V256>(p, n, c, lo, hi, allInRange, bins); }();
    case KernelIsa::Baseline:
        break;
    }
#else
    (void)p; (void)n; (void)c; (void)lo; (void)hi; (void)allInRange; (void)bins;
#endif
    return false;
}

} // namespace ds::histkernels
