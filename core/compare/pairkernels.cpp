#include "pairkernels.h"

#include "util/kernelisa.h"

#include <vector>

namespace ds::pairkernels {

namespace {

template<typename T>
T loadAt(const std::byte *p, size_t i)
{
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return v;
}

const double *halfTable()
{
    static const std::vector<double> table = [] {
        std::vector<double> t(65536);
        for (size_t c = 0; c < t.size(); ++c)
            t[c] = halfToDouble(std::uint16_t(c));
        return t;
    }();
    return table.data();
}

// Built for every level of util/kernelisa.h (an always-inlined body, a dispatcher).
#define DS_KERNEL_BODY [[gnu::always_inline]] inline

/// float32 -> float64 (exact in every clone); true when every value is finite (its exponent
/// field is not all ones), checked on the bits in the same loop.
DS_KERNEL_BODY bool widenFloatsBody(const std::byte *p, size_t n, double *out)
{
    std::uint32_t nonFinite = 0;
    for (size_t i = 0; i < n; ++i) {
        const std::uint32_t bits = loadAt<std::uint32_t>(p, i);
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out[i] = double(f);
        nonFinite |= std::uint32_t((~bits & 0x7F800000u) == 0);
    }
    return nonFinite == 0;
}
bool widenFloats(const std::byte *p, size_t n, double *out) { DS_KERNEL_DISPATCH_V4(widenFloatsBody(p, n, out)); }

/// True when every value is finite (its exponent field is not all ones).
DS_KERNEL_BODY bool finiteDoublesBody(const double *x, size_t n)
{
    std::uint64_t nonFinite = 0;
    for (size_t i = 0; i < n; ++i) {
        std::uint64_t bits;
        std::memcpy(&bits, x + i, sizeof bits);
        nonFinite |= std::uint64_t((~bits & 0x7FF0000000000000u) == 0);
    }
    return nonFinite == 0;
}
bool finiteDoubles(const double *x, size_t n) { DS_KERNEL_DISPATCH_V4(finiteDoublesBody(x, n)); }

} // namespace

bool loadBlock(Elem e, const std::byte *data, size_t b, size_t n, double *out)
{
    switch (e) {
    case Elem::F32:
        return widenFloats(data + b * sizeof(float), n, out);
    case Elem::F64:
        std::memcpy(out, data + b * sizeof(double), n * sizeof(double));
        break;
    case Elem::F16: {
        const double *t = halfTable();
        for (size_t i = 0; i < n; ++i)
            out[i] = t[loadAt<std::uint16_t>(data, b + i)];
        break;
    }
    case Elem::BF16:
        for (size_t i = 0; i < n; ++i) {
            const std::uint32_t bits = std::uint32_t(loadAt<std::uint16_t>(data, b + i)) << 16;
            float f;
            std::memcpy(&f, &bits, sizeof f);
            out[i] = double(f);
        }
        break;
    default:
        for (size_t i = 0; i < n; ++i)
            out[i] = elemToDouble(e, data, b + i);
        break;
    }
    return finiteDoubles(out, n);
}

} // namespace ds::pairkernels
