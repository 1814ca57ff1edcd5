// countSaturated: the elements that sit on a saturating kind's largest finite value (apart
// from stats.cpp: a bit-pattern scan, no statistics).
#include "saturation.h"
#include "stats.h"

#include "io/pagerelease.h"
#include "io/readahead.h"
#include "util/kernelisa.h"
#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace ds {

namespace {

#define DS_KERNEL_BODY [[gnu::always_inline]] inline

/// Elements of [p, p + n) (n < 2^32) equal to pos or neg: a 32-bit count that GCC vectorises
/// at every level of util/kernelisa.h (a 64-bit one made it widen every lane).
template<typename Word>
DS_KERNEL_BODY std::uint32_t countBlockBody(const std::byte *p, size_t n, Word pos, Word neg)
{
    std::uint32_t c = 0;
    for (size_t i = 0; i < n; ++i) { // mapped payloads need not be aligned
        Word v;
        std::memcpy(&v, p + sizeof(Word) * i, sizeof(Word));
        c += std::uint32_t(v == pos) | std::uint32_t(v == neg);
    }
    return c;
}
template<typename Word>
std::uint32_t countBlock(const std::byte *p, size_t n, Word pos, Word neg)
{
    DS_KERNEL_DISPATCH_V4(countBlockBody<Word>(p, n, pos, neg));
}

/// Counts elements of `Width` bytes equal to `pos` or `neg` on the worker threads, in tasks of
/// 8 MiB, each handed back behind the scan when it is a mapped file's (releaseMappedPages): a
/// scan over huge dumps keeps a few MiB of them resident. A cold file is read ahead of the scan
/// (ReadAhead) as the statistics are.
template<typename Word>
std::uint64_t countEqual(const std::byte *data, size_t count, Word pos, Word neg)
{
    const size_t blockElems = (size_t(8) << 20) / sizeof(Word);
    const bool release = count * sizeof(Word) >= (size_t(1) << 20); // small: not worth a system call
    const ReadAhead ahead(data, count * sizeof(Word));
    std::atomic<std::uint64_t> n{0};
    parallelChunks(count, blockElems, [&](size_t, size_t b, size_t e) {
        n += countBlock<Word>(data + sizeof(Word) * b, e - b, pos, neg);
        if (release)
            releaseMappedPages(data + sizeof(Word) * b, sizeof(Word) * (e - b));
        return true;
    });
    return n.load();
}

} // namespace

std::uint64_t countSaturatedIn(const TensorView &t, size_t begin, size_t end)
{
    const SaturationBits sat = saturationBits(t.elem);
    if (!t.data || end <= begin)
        return 0;
    switch (sat.bytes) {
    case 1: return countBlock<std::uint8_t>(t.data + begin, end - begin, std::uint8_t(sat.positive), std::uint8_t(sat.positive | 0x80u));
    case 2: return countBlock<std::uint16_t>(t.data + 2 * begin, end - begin, std::uint16_t(sat.positive), std::uint16_t(sat.positive | 0x8000u));
    case 4: return countBlock<std::uint32_t>(t.data + 4 * begin, end - begin, sat.positive, sat.positive | 0x80000000u);
    default: return 0;
    }
}

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
