// libFuzzer harness: msprobe dump.json / debug.json content (readDumpJsonText over the streaming
// JSON tokenizer), plus the small-document parser and its Python-style serializer.
#include "formats/msprobe/jsonstream.h"
#include "formats/msprobe/msprobereader.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace ds;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);

    IndexPart part;
    const DumpLevels levels;
    const bool complete = msprobe::readDumpJsonText(text, QStringLiteral("step0/rank0"),
                                                    QStringLiteral("step0/rank0/dump.json"), levels, part);
    if (!complete && part.errors.empty())
        __builtin_trap(); // an incomplete read always leaves an error
    for (const FileError &e : part.errors)
        if (e.message.isEmpty() || e.file != QLatin1String("step0/rank0/dump.json") || e.offset > size)
            __builtin_trap(); // errors name the file, say why and point inside it
    for (const OpRecord &op : part.ops) {
        if (op.dataFile != QLatin1String("step0/rank0/dump.json") || !op.relPath.startsWith(QLatin1String("step0/rank0/")))
            __builtin_trap();
        for (const TensorRecord &t : op.tensors) {
            // A tensor stored in a file names it; values and absent tensors name none.
            const bool file = t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile;
            if (file == t.location().isEmpty())
                __builtin_trap();
        }
    }

    // The same bytes as one small document: what parses must serialize to JSON that parses
    // again and serializes identically (Python json.dumps spelling is a fixed point).
    msprobe::JsonTree tree;
    QString error;
    if (msprobe::parseJsonText(text, tree, &error)) {
        std::string once;
        tree.serialize(0, once);
        msprobe::JsonTree again;
        QString error2;
        if (!msprobe::parseJsonText(once, again, &error2))
            __builtin_trap();
        std::string twice;
        again.serialize(0, twice);
        if (once != twice)
            __builtin_trap();
    } else if (error.isEmpty()) {
        __builtin_trap();
    }
    return 0;
}
