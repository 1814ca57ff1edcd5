#pragma once

// Fused float32 statistics kernels, one body in GCC vector extensions built for AVX2 and for
// AVX-512 (x86-64-v4), chosen at run time.
//
// stats.cpp's portable block path reads an L1-sized float32 block three or four times (range
// and zeros; sums; squared deviations; the headroom's smallest nonzero |x|), each loop
// vectorised by the compiler. The kernels here read the block once for everything but the
// squared deviations (range keys, zeros, the headroom's smallest nonzero |x| and its two
// fused threshold counts, the sum of x - shift and of x^2), then once more from L1 for the
// deviations. They give the same bits as the portable path: every sum keeps its 16 float64
// lanes (lane j takes the elements i with i % 16 == j, the tail goes to lane 0 after the main
// loop, the lanes are added in order), each float converts to float64 exactly, and the file is
// built with -ffp-contract=off (no FMA), so bench/check_kernels's bit-for-bit comparison
// with the baseline build holds.

#include <cstddef>
#include <cstdint>

namespace ds::statskernels {

/// What one block of float32 gives (all elements finite, else the kernel returns false).
struct Float32Block
{
    float lo = 0, hi = 0;   ///< least and greatest element (-0.0 below +0.0)
    std::uint32_t zeros = 0;
    double sum = 0;         ///< sum of double(x) - shift
    double sumsq = 0;       ///< sum of double(x)^2
    double m2 = 0;          ///< sum of ((double(x) - shift) - sum / n)^2
    // the headroom's part (headroom::DoubleRangeCounts), when asked for
    std::uint64_t minNonzeroBits = ~std::uint64_t(0); ///< bits of the smallest nonzero |x|; all ones: none
    std::uint64_t belowHigh = 0, belowLow = 0;          ///< |x| below the two thresholds, zeros included
};

/// True when the selected kernel level (util/kernelisa.h) has a fused build here.
bool available();

/// The block [p, p + n), 1 <= n, p unaligned allowed. False when it holds a NaN or an Inf (out
/// is then unspecified). headroomHigh/Low: float32 bits of the two thresholds, used when
/// `headroom` is set.
bool float32Block(const std::byte *p, std::size_t n, double shift, bool headroom, std::uint32_t headroomHigh,
                  std::uint32_t headroomLow, Float32Block &out);

} // namespace ds::statskernels
