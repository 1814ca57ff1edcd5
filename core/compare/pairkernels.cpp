#include "pairkernels.h"

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

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define DS_VECTOR_CLONES [[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]
#else
#define DS_VECTOR_CLONES
#endif

/// float32 -> float64 (exact in every clone).
DS_VECTOR_CLONES void widenFloats(const std::byte *p, size_t n, double *out)
{
    for (size_t i = 0; i < n; ++i)
        out[i] = double(loadAt<float>(p, i));
}

} // namespace

void loadBlock(Elem e, const std::byte *data, size_t b, size_t n, double *out)
{
    switch (e) {
    case Elem::F32:
        widenFloats(data + b * sizeof(float), n, out);
        break;
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
}

} // namespace ds::pairkernels
