#pragma once

#include "stats.h"

#include <cstddef>
#include <cstdint>

namespace ds {

/// countSaturated of elements [begin, end) of t on the calling thread: no worker threads, no
/// read-ahead, no page release (for a pass that already streams t, as compare's first pass).
std::uint64_t countSaturatedIn(const TensorView &t, std::size_t begin, std::size_t end);

} // namespace ds
