// libFuzzer harness: file names (CANN dump names, mapping targets, GE graph file names).
#include "dump/dumpname.h"
#include "formats/ge/gegraphreader.h"

#include <QString>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QString name = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    if (const auto parsed = ds::cann::parseDumpName(name)) {
        if (parsed->opType.isEmpty() || parsed->opName.isEmpty())
            __builtin_trap(); // the parser promises both
    }
    (void)ds::cann::isNumericName(name);
    if (ds::cann::sanitizeName(name).size() != name.size())
        __builtin_trap();
    (void)ds::ge::parseGraphFileName(name);
    return 0;
}
