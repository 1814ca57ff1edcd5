// libFuzzer harness: a mapping.csv (short name -> original dump file name).
#include "formats/cann/mappingcsv.h"

#include <QBuffer>
#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::ReadOnly))
        __builtin_trap();
    const auto map = ds::cann::readMappingCsv(buffer);
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        if (it.key().isEmpty() || it.value().isEmpty())
            __builtin_trap(); // empty names are never recorded
    return 0;
}
