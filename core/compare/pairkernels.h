#pragma once

// Building blocks shared by the pair-metrics and pair-detail passes: decoding a block of
// elements to float64 and ordering keys for vectorisable min/max loops.

#include "tensor/dtype.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ds::pairkernels {

/// Elements per block: two float64 blocks fit in L1.
inline constexpr size_t kBlock = 2048;

/// Decodes elements [b, b + n) of kind e to float64 (float32/float16/bf16 fast paths); true when
/// every decoded value is finite.
bool loadBlock(Elem e, const std::byte *data, size_t b, size_t n, double *out);

/// An int64 with the order of the doubles (NaN beyond ±Inf); orderValue() is its inverse.
inline std::int64_t orderKey(double x)
{
    std::int64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b ^ ((b >> 63) & INT64_MAX);
}
inline double orderValue(std::int64_t k)
{
    const std::int64_t b = k ^ ((k >> 63) & INT64_MAX);
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

} // namespace ds::pairkernels
