#pragma once

// GCC vector-extension types of one kernel level's register width, for the statistics kernels
// written once and built per level (statskernels.cpp, histkernels.cpp): Vectors<64> for
// x86-64-v4 (zmm), Vectors<32> for AVX2 (ymm). Only with DS_KERNEL_LEVELS (GCC).

#include <cstddef>
#include <cstdint>

namespace ds::kernelvectors {

/// T's GCC vector of kBytes (a typedef: GCC drops vector_size from a dependent alias).
template<typename T, std::size_t kBytes>
struct VectorOf
{
    typedef T type __attribute__((vector_size(kBytes)));
};

/// The vector types of a level whose registers hold kBytes.
template<std::size_t kBytes>
struct Vectors
{
    static constexpr std::size_t kW = kBytes / 4; ///< floats (and 32-bit integers) per vector
    using F = typename VectorOf<float, kBytes>::type;
    using I = typename VectorOf<std::int32_t, kBytes>::type;
    using U = typename VectorOf<std::uint32_t, kBytes>::type;
    using D = typename VectorOf<double, kBytes>::type; ///< kW / 2 lanes
};
using V512 = Vectors<64>;
using V256 = Vectors<32>;

} // namespace ds::kernelvectors
