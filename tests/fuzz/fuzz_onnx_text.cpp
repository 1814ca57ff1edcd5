// libFuzzer harness: a GE graph dump as text-format ONNX (ge_onnx_*.pbtxt).
#include "formats/ge/gegraphreader.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray text = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto model = ds::ge::parseGeOnnxText(text, QStringLiteral("fuzz.pbtxt"));
    if (model) {
        (void)model->nodeCount();
        (void)model->edgeCount();
    } else if (model.errorText().isEmpty()) {
        __builtin_trap();
    }
    return 0;
}
