#pragma once

#include "dtype.h"
#include "shape.h"
#include "util/error.h"

#include <cstddef>

namespace ds {

/// A validated conversion of a private device layout to the logical (host) layout
/// (cann-dump.md §8). Plain data: plan once, convert any number of times.
struct LayoutPlan
{
    enum class Kind { Identity, NC1HWC0, NDC1HWC0, FractalZ, FractalZGroups, FractalZ3D, FractalNZ, C1HWNCoC0 };
    Kind kind = Kind::Identity;
    Shape hostShape;   ///< the original_shape (what the user sees)
    size_t hostCount = 0;
    size_t deviceCount = 0;
    // Dimensions used by the kernels (meaning depends on kind).
    size_t N = 1, C = 1, D = 1, H = 1, W = 1, B = 1;
    size_t C1 = 1, C0 = 1, N1 = 1, Ni = 16, H1 = 1, H0 = 16, W1 = 1, W0 = 16, Co = 1;
    size_t groups = 1, eMult = 1, cubeC = 16, coutOpt = 16;
};

/// Validates device shape against original shape and plans the conversion. Fails (with the
/// reason) when the format is not convertible or the shapes disagree; the caller then shows
/// the raw device layout.
Result<LayoutPlan> planLayout(int format, int subFormat, DataType dtype, const Shape &device, const Shape &original);

/// Converts `plan.deviceCount` elements of `elemSize` bytes from src into plan.hostCount
/// elements at dst. Padding is dropped. elemSize is 1, 2, 4, 8 or 16.
void convertLayout(const LayoutPlan &plan, const std::byte *src, std::byte *dst, size_t elemSize);

} // namespace ds
