// libFuzzer harness: a .npy file (parseNpyHeader), then what the loaders do with its data
// (index/npyloader.cpp, npyfolder.cpp): byte swapping, Fortran-to-C reordering, UCS-4 strings.
#include "formats/npy/npyheader.h"

#include "tensor/dtype.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

using namespace ds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const auto *bytes = reinterpret_cast<const std::byte *>(data);
    for (const bool v2 : {false, true}) {
        const auto h = npy::parseNpyHeader(bytes, size, npy::NpyParseOptions{v2});
        if (!h) {
            if (h.errorText().isEmpty())
                __builtin_trap();
            continue;
        }
        // Every size was checked against the file.
        if (h->dataOffset > size || h->dataBytes > size - h->dataOffset)
            __builtin_trap();
        const auto count = elementCount(h->shape);
        if (!count || *count != h->elementCount || h->elementCount * h->itemSize != h->dataBytes)
            __builtin_trap();
        if (v2)
            continue; // the decoders do not depend on the option
        const std::byte *payload = bytes + h->dataOffset;
        if (h->unicode) {
            // npyfolder shows at most 100 strings of a unicode array.
            const std::uint64_t shown = std::min<std::uint64_t>(h->elementCount, 100);
            const QStringList strings = npy::decodeNpyUnicode(payload, shown, h->itemSize / 4, h->byteSwap);
            if (std::uint64_t(strings.size()) != shown)
                __builtin_trap();
        }
        // As npyloader.cpp: swap, then reorder a Fortran array of more than one dimension.
        std::vector<std::byte> swapped(size_t(h->dataBytes)), reordered(size_t(h->dataBytes));
        const std::byte *src = payload;
        if (h->byteSwap) {
            const bool complex = h->dataType == int(DataType::Complex64) || h->dataType == int(DataType::Complex128);
            const std::uint32_t part = h->unicode ? 4 : complex ? h->itemSize / 2 : h->itemSize;
            npy::byteSwapCopy(src, swapped.data(), h->elementCount, h->itemSize, part);
            src = swapped.data();
        }
        if (h->fortranOrder && h->shape.size() > 1 && !npy::fortranToC(src, reordered.data(), h->shape, h->itemSize))
            __builtin_trap();
    }
    return 0;
}
