// countSaturated: the elements that sit on a saturating kind's largest finite value (apart
// from stats.cpp: a bit-pattern scan, no statistics).
#include "stats.h"

#include "io/pagerelease.h"

#include <algorithm>
#include <cstring>

namespace ds {

namespace {

/// Counts elements of `Width` bytes equal to `pos` or `neg`, in blocks of 8 MiB, each handed
/// back behind the scan when it is a mapped file's (releaseMappedPages): a scan over huge
/// dumps keeps a few MiB of them resident.
template<typename Word>
std::uint64_t countEqual(const std::byte *data, size_t count, Word pos, Word neg)
{
    const size_t blockElems = (size_t(8) << 20) / sizeof(Word);
    const bool release = count * sizeof(Word) >= (size_t(1) << 20); // small: not worth a system call
    std::uint64_t n = 0;
    for (size_t b = 0; b < count; b += blockElems) {
        const size_t e = std::min(count, b + blockElems);
        for (size_t i = b; i < e; ++i) { // mapped payloads need not be aligned
            Word v;
            std::memcpy(&v, data + sizeof(Word) * i, sizeof(Word));
            n += (v == pos) | (v == neg);
        }
        if (release)
            releaseMappedPages(data + sizeof(Word) * b, sizeof(Word) * (e - b));
    }
    return n;
}

} // namespace

std::uint64_t countSaturated(const TensorView &t)
{
    const SaturationBits sat = saturationBits(t.elem);
    if (!t.data)
        return 0;
    switch (sat.bytes) {
    case 1: return countEqual<std::uint8_t>(t.data, t.count, std::uint8_t(sat.positive), std::uint8_t(sat.positive | 0x80u));
    case 2: return countEqual<std::uint16_t>(t.data, t.count, std::uint16_t(sat.positive), std::uint16_t(sat.positive | 0x8000u));
    case 4: return countEqual<std::uint32_t>(t.data, t.count, sat.positive, sat.positive | 0x80000000u);
    default: return 0;
    }
}

} // namespace ds
