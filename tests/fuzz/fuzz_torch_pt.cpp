// libFuzzer harness: a torch.save `.pt` file — the ZIP container (every entry read, DEFLATE
// inflated and CRC-checked) and the whole tensor read (data.pkl, byteorder, storage records).
#include "formats/torch/ptfile.h"
#include "formats/torch/zipreader.h"

#include <cstddef>
#include <cstdint>

using namespace ds;

namespace {

bool inside(const std::byte *p, std::uint64_t n, const std::byte *begin, std::uint64_t size)
{
    return p >= begin && std::uint64_t(p - begin) <= size && n <= size - std::uint64_t(p - begin);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const auto *bytes = reinterpret_cast<const std::byte *>(data);

    if (auto zip = ZipReader::open(bytes, size)) {
        for (const ZipEntry &e : zip->entries()) {
            if (e.dataOffset > size || e.compressedSize > size - e.dataOffset)
                __builtin_trap(); // the directory was checked against the buffer
            auto read = zip->read(e, std::uint64_t(64) << 20, true);
            if (!read) {
                if (read.errorText().isEmpty())
                    __builtin_trap();
                continue;
            }
            if (read->size != e.uncompressedSize)
                __builtin_trap();
            if (read->inPlace ? !inside(read->data, read->size, bytes, size)
                              : read->data != read->owned.data() || read->owned.size() != read->size)
                __builtin_trap();
        }
    } else if (zip.errorText().isEmpty()) {
        __builtin_trap();
    }

    auto tensors = readPtTensors(bytes, size);
    if (!tensors) {
        if (tensors.errorText().isEmpty())
            __builtin_trap();
        return 0;
    }
    for (const PtTensor &t : *tensors) {
        if (t.strides.size() != t.shape.size() || t.storageBytes > t.recordSize || t.itemSize() == 0)
            __builtin_trap();
        const std::byte *record = t.recordData(bytes);
        if (t.inPlace ? !inside(record, t.recordSize, bytes, size)
                      : !t.inflated || t.inflated->size() != t.recordSize)
            __builtin_trap();
        if (t.elementCount() == 0)
            continue;
        // The promise of readPtTensors: the last element of the strided view lies in the storage.
        std::uint64_t last = t.storageOffset;
        for (size_t k = 0; k < t.shape.size(); ++k)
            last += (t.shape[k] - 1) * t.strides[k];
        if ((last + 1) * t.itemSize() > t.storageBytes)
            __builtin_trap();
        // Touch the first and the last element (ASan checks the reads).
        volatile std::byte sink = record[t.storageOffset * t.itemSize()];
        sink = record[(last + 1) * t.itemSize() - 1];
        (void)sink;
    }
    return 0;
}
