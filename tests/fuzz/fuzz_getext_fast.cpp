// libFuzzer harness: the hand-written ge_proto text reader against protobuf's TextFormat on the
// same input (differential). Both must agree on success, on the error text, and on the graphs'
// sizes; the fast reader may only give up (fall back), never answer differently, wherever its
// second thread starts.
#include "formats/ge/gegraphreader.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray text = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString label = QStringLiteral("fuzz.txt");
    const auto fast = ds::ge::parseGeProtoText(text, label, ds::ge::GeTextReader::Auto);
    const auto slow = ds::ge::parseGeProtoText(text, label, ds::ge::GeTextReader::TextFormat);
    if (fast.ok() != slow.ok())
        __builtin_trap();
    if (!fast.ok()) {
        if (fast.errorText() != slow.errorText() || fast.errorText().isEmpty())
            __builtin_trap();
        return 0;
    }
    if (fast->graphs.size() != slow->graphs.size() || fast->nodeCount() != slow->nodeCount()
        || fast->edgeCount() != slow->edgeCount() || fast->unknownFields != slow->unknownFields
        || fast->modelName != slow->modelName)
        __builtin_trap();
    for (size_t g = 0; g < fast->graphs.size(); ++g)
        if (!(fast->graphs[g].nodes == slow->graphs[g].nodes) || !(fast->graphs[g].edges == slow->graphs[g].edges))
            __builtin_trap();
    // The fast reader's second thread started in the middle (anywhere: inside a token, a
    // string, a nested graph): the same graphs.
    const auto split = ds::ge::parseGeProtoText(text, label, ds::ge::GeTextReader::Auto, qsizetype(size / 2));
    if (!split.ok() || split->graphs.size() != slow->graphs.size())
        __builtin_trap();
    for (size_t g = 0; g < split->graphs.size(); ++g)
        if (!(split->graphs[g].nodes == slow->graphs[g].nodes) || !(split->graphs[g].edges == slow->graphs[g].edges))
            __builtin_trap();
    return 0;
}
