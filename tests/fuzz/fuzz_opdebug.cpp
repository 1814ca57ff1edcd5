// libFuzzer harness: an OpDebug overflow payload (legacy 2048-byte or 0x5A5A5A5A layout).
#include "overflow/opdebug.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    QString error;
    const auto record = ds::decodeOpDebug(reinterpret_cast<const std::byte *>(data), size, &error);
    if (!record) {
        if (error.isEmpty())
            __builtin_trap(); // a failure always says why
        return 0;
    }
    for (const auto &b : record->blocks) {
        if (b.status.empty())
            __builtin_trap();
        (void)b.kindName();
    }
    (void)record->triggered();
    return 0;
}
