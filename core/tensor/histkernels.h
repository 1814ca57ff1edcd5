#pragma once

// Histogram bin kernels for float32, one body in GCC vector extensions built for AVX2 and
// AVX-512 (x86-64-v4), chosen at run time by util/kernelisa.h; the baseline level keeps
// stats.cpp's portable loop. They compute binning.h's certified estimate 8 or 16 elements at a
// time: the same float32 operations in the same order ((x - lo) * scale, truncation, the
// fraction), no FMA (-ffp-contract=off), so every element gets the portable path's bin or the
// portable path's -1 ("bin() decides"), and the counts are equal in every build.

#include <cstddef>
#include <cstdint>

namespace ds::histkernels {

/// binning.h's CertifiedBinner<float>, as plain numbers.
struct Float32Certified
{
    float lo = 0, scale = 0;
    float fracLo = 1, fracHi = 0; ///< certified when fracLo < fractional part < fracHi
    std::int32_t n = 0;           ///< bins
};

/// True when the selected kernel level has a build here (not the baseline).
bool available();

/// Certified bins of the block [p, p + n) (1 <= n, p unaligned allowed) into bins[], -1 where
/// bin() must decide. False when the block holds a value outside [lo, hi] (NaN and ±Inf
/// included), unless the caller knows there is none (allInRange); bins[] is then unspecified.
/// Call only when available().
bool float32Bins(const std::byte *p, std::size_t n, const Float32Certified &c, double lo, double hi, bool allInRange,
                 std::int32_t *bins);

} // namespace ds::histkernels
