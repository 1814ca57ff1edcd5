// libFuzzer harness: a CANN dump file (big-dump container or legacy whole-protobuf layout).
#include "formats/cann/dumpfile.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const auto parsed = ds::cann::parseDump(reinterpret_cast<const std::byte *>(data), size);
    if (parsed) {
        // Every tensor of a successful parse must lie inside the input.
        for (const auto &t : parsed->tensors)
            if (t.complete && (t.offset > size || t.size > size - t.offset))
                __builtin_trap();
    } else if (parsed.errorText().isEmpty()) {
        __builtin_trap(); // a failure always says why
    }
    return 0;
}
