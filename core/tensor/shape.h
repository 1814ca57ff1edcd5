#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

namespace ds {

/// Tensor dimensions as stored in dump headers (uint64; values above 2^63-1 are dynamic).
using Shape = std::vector<std::uint64_t>;

/// Product of the dims, or nullopt on overflow or a dynamic dim.
std::optional<std::uint64_t> elementCount(const Shape &s);
bool hasDynamicDim(const Shape &s);
/// "[1, 20, 4, 4]"
QString shapeToString(const Shape &s);

} // namespace ds
