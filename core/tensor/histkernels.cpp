#include "histkernels.h"

#include "util/kernelisa.h"

#include <algorithm>
#include <cstring>
#include <limits>

#if DS_KERNEL_LEVELS
#include <immintrin.h>
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on _mm512_undefined_* (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ds::histkernels {

#if DS_KERNEL_LEVELS
namespace {

constexpr std::size_t kLanes = 16;
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

// The vector loops: stats.cpp's certifiedBinsBody<float> 16 (AVX-512) or 8 (AVX2) lanes at a
// time, the range keys fused into the same loop. A lane out of range converts to the hardware's
// 0x80000000 (defined), and the block's bins are then discarded by finish().

__attribute__((target("arch=x86-64-v4"))) bool binsAvx512(const std::byte *p, std::size_t n, const Float32Certified &c,
                                                          double lo, double hi, bool allInRange, std::int32_t *bins)
{
    const std::size_t whole = n - n % kLanes;
    const __m512i mag = _mm512_set1_epi32(kMagnitude), vn = _mm512_set1_epi32(c.n), minus1 = _mm512_set1_epi32(-1);
    const __m512 vlo = _mm512_set1_ps(c.lo), vscale = _mm512_set1_ps(c.scale);
    const __m512 fracLo = _mm512_set1_ps(c.fracLo), fracHi = _mm512_set1_ps(c.fracHi);
    __m512i kl = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max());
    __m512i kh = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min());
    for (std::size_t i = 0; i < whole; i += kLanes) {
        const __m512 x = _mm512_loadu_ps(p + 4 * i);
        if (!allInRange) {
            const __m512i b = _mm512_castps_si512(x);
            const __m512i k = _mm512_xor_si512(b, _mm512_and_si512(_mm512_srai_epi32(b, 31), mag));
            kl = _mm512_min_epi32(kl, k);
            kh = _mm512_max_epi32(kh, k);
        }
        const __m512 t = _mm512_mul_ps(_mm512_sub_ps(x, vlo), vscale);
        const __m512i j = _mm512_cvttps_epi32(t);
        const __m512 frac = _mm512_sub_ps(t, _mm512_cvtepi32_ps(j));
        const __mmask16 ok = _mm512_cmp_ps_mask(frac, fracLo, _CMP_GT_OQ) & _mm512_cmp_ps_mask(frac, fracHi, _CMP_LT_OQ)
                             & _mm512_cmplt_epi32_mask(j, vn);
        _mm512_storeu_si512(bins + i, _mm512_mask_mov_epi32(minus1, ok, j));
    }
    alignas(64) std::int32_t lkl[kLanes], lkh[kLanes];
    _mm512_store_si512(lkl, kl);
    _mm512_store_si512(lkh, kh);
    return finish(p, whole, n, c, lo, hi, allInRange, lkl, lkh, kLanes, bins);
}

__attribute__((target("avx2"))) bool binsAvx2(const std::byte *p, std::size_t n, const Float32Certified &c, double lo,
                                              double hi, bool allInRange, std::int32_t *bins)
{
    constexpr std::size_t kStep = 8;
    const std::size_t whole = n - n % kStep;
    const __m256i mag = _mm256_set1_epi32(kMagnitude), vn = _mm256_set1_epi32(c.n), minus1 = _mm256_set1_epi32(-1);
    const __m256 vlo = _mm256_set1_ps(c.lo), vscale = _mm256_set1_ps(c.scale);
    const __m256 fracLo = _mm256_set1_ps(c.fracLo), fracHi = _mm256_set1_ps(c.fracHi);
    __m256i kl = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::max());
    __m256i kh = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::min());
    for (std::size_t i = 0; i < whole; i += kStep) {
        const __m256 x = _mm256_loadu_ps(reinterpret_cast<const float *>(p + 4 * i));
        if (!allInRange) {
            const __m256i b = _mm256_castps_si256(x);
            const __m256i k = _mm256_xor_si256(b, _mm256_and_si256(_mm256_srai_epi32(b, 31), mag));
            kl = _mm256_min_epi32(kl, k);
            kh = _mm256_max_epi32(kh, k);
        }
        const __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, vlo), vscale);
        const __m256i j = _mm256_cvttps_epi32(t);
        const __m256 frac = _mm256_sub_ps(t, _mm256_cvtepi32_ps(j));
        const __m256i ok = _mm256_and_si256(
            _mm256_castps_si256(_mm256_and_ps(_mm256_cmp_ps(frac, fracLo, _CMP_GT_OQ), _mm256_cmp_ps(frac, fracHi, _CMP_LT_OQ))),
            _mm256_cmpgt_epi32(vn, j));
        // certified: j; else -1 (all ones)
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(bins + i), _mm256_or_si256(j, _mm256_andnot_si256(ok, minus1)));
    }
    alignas(32) std::int32_t lkl[kStep], lkh[kStep];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lkl), kl);
    _mm256_store_si256(reinterpret_cast<__m256i *>(lkh), kh);
    return finish(p, whole, n, c, lo, hi, allInRange, lkl, lkh, kStep, bins);
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
        return binsAvx512(p, n, c, lo, hi, allInRange, bins);
    case KernelIsa::Avx2:
        return binsAvx2(p, n, c, lo, hi, allInRange, bins);
    case KernelIsa::Baseline:
        break;
    }
#else
    (void)p; (void)n; (void)c; (void)lo; (void)hi; (void)allInRange; (void)bins;
#endif
    return false;
}

} // namespace ds::histkernels
