// libFuzzer harness: the data-only pickle machine alone (a torch.save `data.pkl`).
#include "formats/torch/pickle.h"

#include <cstddef>
#include <cstdint>

using namespace ds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    // Tighter limits than the defaults so that the limit paths are reached within 64 KiB.
    PickleLimits limits;
    limits.maxMemo = 4096;
    limits.maxStack = 4096;
    limits.maxString = 4096;
    limits.maxObjects = 100000;
    limits.maxNesting = 16;
    limits.maxTensors = 1000;
    const auto descs = unpickleTorchTensors(reinterpret_cast<const std::byte *>(data), size, limits);
    if (!descs) {
        if (descs.errorText().isEmpty())
            __builtin_trap();
        return 0;
    }
    if (descs->size() > limits.maxTensors)
        __builtin_trap();
    for (const TorchTensorDesc &d : *descs)
        if (d.strides.size() != d.shape.size())
            __builtin_trap(); // one stride per dimension

    return 0;
}
