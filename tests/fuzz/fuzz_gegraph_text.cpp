// libFuzzer harness: a GE graph dump in protobuf text format (ge_proto_*.txt, ModelDef).
#include "formats/ge/gegraphreader.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray text = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto model = ds::ge::parseGeProtoText(text, QStringLiteral("fuzz.txt"));
    if (model) {
        (void)model->nodeCount();
        (void)model->edgeCount();
    } else if (model.errorText().isEmpty()) {
        __builtin_trap();
    }
    return 0;
}
