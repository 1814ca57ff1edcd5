#include "statskernels.h"

#include "util/kernelisa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#if DS_KERNEL_LEVELS
#include <immintrin.h>
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on _mm512_undefined_* (a false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

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

// ---- AVX-512: 16 floats per step, two zmm of 8 float64 lanes per sum

template<bool kHeadroom>
__attribute__((target("arch=x86-64-v4"))) bool blockAvx512(const std::byte *p, std::size_t n, double shift,
                                                               std::uint32_t tHigh, std::uint32_t tLow, Float32Block &out)
{
    const std::size_t whole = n - n % kLanes;
    const __m512i mag = _mm512_set1_epi32(kMagnitude), one = _mm512_set1_epi32(1);
    const __m512i vHigh = _mm512_set1_epi32(std::int32_t(tHigh)), vLow = _mm512_set1_epi32(std::int32_t(tLow));
    const __m512d sh = _mm512_set1_pd(shift);
    const __m512 zero = _mm512_setzero_ps();
    __m512i kl = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max());
    __m512i kh = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min());
    __m512i z = _mm512_setzero_si512(), least = _mm512_set1_epi32(-1), ch = z, cl = z;
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, q0 = s0, q1 = s0;
    for (std::size_t i = 0; i < whole; i += kLanes) {
        const __m512 x = _mm512_loadu_ps(p + 4 * i);
        const __m512i b = _mm512_castps_si512(x);
        const __m512i k = _mm512_xor_si512(b, _mm512_and_si512(_mm512_srai_epi32(b, 31), mag));
        kl = _mm512_min_epi32(kl, k);
        kh = _mm512_max_epi32(kh, k);
        z = _mm512_mask_add_epi32(z, _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ), z, one);
        if constexpr (kHeadroom) {
            const __m512i a = _mm512_and_si512(b, mag);
            least = _mm512_min_epu32(least, _mm512_sub_epi32(a, one));
            ch = _mm512_mask_add_epi32(ch, _mm512_cmplt_epi32_mask(a, vHigh), ch, one);
            cl = _mm512_mask_add_epi32(cl, _mm512_cmplt_epi32_mask(a, vLow), cl, one);
        }
        const __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
        const __m512d x1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
        s0 = _mm512_add_pd(s0, _mm512_sub_pd(x0, sh));
        s1 = _mm512_add_pd(s1, _mm512_sub_pd(x1, sh));
        q0 = _mm512_add_pd(q0, _mm512_mul_pd(x0, x0));
        q1 = _mm512_add_pd(q1, _mm512_mul_pd(x1, x1));
    }
    Lanes l;
    _mm512_store_pd(l.s, s0);
    _mm512_store_pd(l.s + 8, s1);
    _mm512_store_pd(l.q, q0);
    _mm512_store_pd(l.q + 8, q1);
    _mm512_store_si512(l.kl, kl);
    _mm512_store_si512(l.kh, kh);
    _mm512_store_si512(l.z, z);
    _mm512_store_si512(l.least, least);
    _mm512_store_si512(l.ch, ch);
    _mm512_store_si512(l.cl, cl);
    if (!finish(p, whole, n, shift, kHeadroom, tHigh, tLow, l, kLanes, out))
        return false;
    const double mean = out.sum / double(n);
    const __m512d mv = _mm512_set1_pd(mean);
    __m512d d0 = _mm512_setzero_pd(), d1 = d0;
    for (std::size_t i = 0; i < whole; i += kLanes) {
        const __m512 x = _mm512_loadu_ps(p + 4 * i);
        const __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
        const __m512d x1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
        const __m512d e0 = _mm512_sub_pd(_mm512_sub_pd(x0, sh), mv), e1 = _mm512_sub_pd(_mm512_sub_pd(x1, sh), mv);
        d0 = _mm512_add_pd(d0, _mm512_mul_pd(e0, e0));
        d1 = _mm512_add_pd(d1, _mm512_mul_pd(e1, e1));
    }
    alignas(64) double d2[kLanes];
    _mm512_store_pd(d2, d0);
    _mm512_store_pd(d2 + 8, d1);
    out.m2 = finishDeviations(p, whole, n, shift, mean, d2);
    return true;
}

// ---- AVX2: 16 floats per step (two ymm), four ymm of 4 float64 lanes per sum

template<bool kHeadroom>
__attribute__((target("avx2"))) bool blockAvx2(const std::byte *p, std::size_t n, double shift, std::uint32_t tHigh,
                                               std::uint32_t tLow, Float32Block &out)
{
    const std::size_t whole = n - n % kLanes;
    const __m256i mag = _mm256_set1_epi32(kMagnitude), one = _mm256_set1_epi32(1);
    const __m256i vHigh = _mm256_set1_epi32(std::int32_t(tHigh)), vLow = _mm256_set1_epi32(std::int32_t(tLow));
    const __m256d sh = _mm256_set1_pd(shift);
    const __m256 zero = _mm256_setzero_ps();
    __m256i kl = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::max());
    __m256i kh = _mm256_set1_epi32(std::numeric_limits<std::int32_t>::min());
    __m256i z = _mm256_setzero_si256(), least = _mm256_set1_epi32(-1), ch = z, cl = z;
    __m256d s[4], q[4];
    for (int j = 0; j < 4; ++j)
        s[j] = q[j] = _mm256_setzero_pd();
    for (std::size_t i = 0; i < whole; i += kLanes) {
        for (int h = 0; h < 2; ++h) {
            const __m256 x = _mm256_loadu_ps(reinterpret_cast<const float *>(p + 4 * (i + 8 * std::size_t(h))));
            const __m256i b = _mm256_castps_si256(x);
            const __m256i k = _mm256_xor_si256(b, _mm256_and_si256(_mm256_srai_epi32(b, 31), mag));
            kl = _mm256_min_epi32(kl, k);
            kh = _mm256_max_epi32(kh, k);
            z = _mm256_sub_epi32(z, _mm256_castps_si256(_mm256_cmp_ps(x, zero, _CMP_EQ_OQ)));
            if constexpr (kHeadroom) {
                const __m256i a = _mm256_and_si256(b, mag);
                least = _mm256_min_epu32(least, _mm256_sub_epi32(a, one));
                ch = _mm256_sub_epi32(ch, _mm256_cmpgt_epi32(vHigh, a));
                cl = _mm256_sub_epi32(cl, _mm256_cmpgt_epi32(vLow, a));
            }
            const __m256d x0 = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
            const __m256d x1 = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
            s[2 * h] = _mm256_add_pd(s[2 * h], _mm256_sub_pd(x0, sh));
            s[2 * h + 1] = _mm256_add_pd(s[2 * h + 1], _mm256_sub_pd(x1, sh));
            q[2 * h] = _mm256_add_pd(q[2 * h], _mm256_mul_pd(x0, x0));
            q[2 * h + 1] = _mm256_add_pd(q[2 * h + 1], _mm256_mul_pd(x1, x1));
        }
    }
    Lanes l;
    for (int j = 0; j < 4; ++j) {
        _mm256_store_pd(l.s + 4 * j, s[j]);
        _mm256_store_pd(l.q + 4 * j, q[j]);
    }
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.kl), kl);
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.kh), kh);
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.z), z);
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.least), least);
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.ch), ch);
    _mm256_store_si256(reinterpret_cast<__m256i *>(l.cl), cl);
    if (!finish(p, whole, n, shift, kHeadroom, tHigh, tLow, l, 8, out))
        return false;
    const double mean = out.sum / double(n);
    const __m256d mv = _mm256_set1_pd(mean);
    __m256d d[4];
    for (int j = 0; j < 4; ++j)
        d[j] = _mm256_setzero_pd();
    for (std::size_t i = 0; i < whole; i += kLanes) {
        for (int h = 0; h < 2; ++h) {
            const __m256 x = _mm256_loadu_ps(reinterpret_cast<const float *>(p + 4 * (i + 8 * std::size_t(h))));
            const __m256d e0 = _mm256_sub_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), sh), mv);
            const __m256d e1 = _mm256_sub_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), sh), mv);
            d[2 * h] = _mm256_add_pd(d[2 * h], _mm256_mul_pd(e0, e0));
            d[2 * h + 1] = _mm256_add_pd(d[2 * h + 1], _mm256_mul_pd(e1, e1));
        }
    }
    alignas(64) double d2[kLanes];
    for (int j = 0; j < 4; ++j)
        _mm256_store_pd(d2 + 4 * j, d[j]);
    out.m2 = finishDeviations(p, whole, n, shift, mean, d2);
    return true;
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
    switch (kernelIsa()) {
    case KernelIsa::X86_64_V4:
        return headroom ? blockAvx512<true>(p, n, shift, headroomHigh, headroomLow, out)
                        : blockAvx512<false>(p, n, shift, headroomHigh, headroomLow, out);
    case KernelIsa::Avx2:
        return headroom ? blockAvx2<true>(p, n, shift, headroomHigh, headroomLow, out)
                        : blockAvx2<false>(p, n, shift, headroomHigh, headroomLow, out);
    case KernelIsa::Baseline:
        break;
    }
#else
    (void)p; (void)n; (void)shift; (void)headroom; (void)headroomHigh; (void)headroomLow; (void)out;
#endif
    return false;
}

} // namespace ds::statskernels
