// libFuzzer harness: msprobe dump.json / debug.json content (readDumpJsonText over the streaming
// JSON tokenizer), plus the small-document parser and its Python-style serializer. The reading
// is done four times, with simdjson windows (the default), with RapidJSON alone, split into
// chunks read by worker threads, and that split reading from a file with O_DIRECT (one stream
// shared by the threads): every record, warning and error must be the same (a differential
// check of EntryWindow, of the split reading and of the shared O_DIRECT stream).
#include "formats/msprobe/fastjson.h"
#include "formats/msprobe/jsonstream.h"
#include "formats/msprobe/msprobereader.h"
#include "io/directstream.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

using namespace ds;

namespace {

/// Every field of every record, warning and error of a reading, as one text.
QString fingerprint(const IndexPart &part, bool complete)
{
    QString out = QStringLiteral("%1|%2|%3|%4|%5\n").arg(complete).arg(part.task, part.level, part.framework, part.dumpDataDir);
    for (const OpRecord &op : part.ops) {
        out += QStringLiteral("%1|%2|%3|%4\n").arg(op.relPath.toString(), op.opType.toString()).arg(op.timestamp)
                   .arg(op.warnings().join(QLatin1Char('/')));
        for (const TensorRecord &t : op.tensors) {
            const RecordedStats st = t.recorded();
            QString shape;
            for (std::uint64_t d : t.shape())
                shape += QString::number(d) + QLatin1Char(',');
            out += QStringLiteral(" %1|%2|%3|%4|%5|%6|%7|%8|%9").arg(t.name(), t.typeName(), t.value(), shape)
                       .arg(int(t.io())).arg(t.index()).arg(t.dataType()).arg(int(t.storage())).arg(int(st.present));
            for (double v : {st.max, st.min, st.mean, st.norm})
                out += QLatin1Char('|') + QString::number(v, 'g', 17);
            out += QLatin1Char('|') + t.checksum() + QLatin1Char('|') + t.location() + QLatin1Char('\n');
        }
    }
    for (const FileError &e : part.errors)
        out += QStringLiteral("error %1|%2|%3\n").arg(e.file, e.message).arg(e.offset);
    return out;
}

/// A file on a disk that takes O_DIRECT (tmpfs does not: /dev/shm is no use here) in a
/// directory of this process, removed at exit.
QString scratchFile()
{
    static QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/fuzz_dumpjson_XXXXXX"));
    return dir.isValid() ? dir.filePath(QStringLiteral("dump.json")) : QString();
}

} // namespace

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
    IndexPart viaRapidJson;
    const bool completeRapidJson = msprobe::readDumpJsonText(text, QStringLiteral("step0/rank0"),
                                                             QStringLiteral("step0/rank0/dump.json"), levels, viaRapidJson,
                                                             msprobe::JsonEngine::RapidJson);
    if (fingerprint(part, complete) != fingerprint(viaRapidJson, completeRapidJson))
        __builtin_trap(); // simdjson windows read something RapidJSON reads differently

    // The same text cut into chunks read by worker threads (dumpjsonsplit.h), chunks of a
    // seventh of the input on 3 threads: every record, warning and error must be the same.
    msprobe::DumpJsonSplitSettings split;
    split.threshold = 0;
    split.chunkBytes = std::max<std::uint64_t>(1, size / 7);
    split.threads = 3;
    split.waitForWorkers = true;
    msprobe::setDumpJsonSplit(split);
    IndexPart viaSplit;
    const bool completeSplit = msprobe::readDumpJsonText(text, QStringLiteral("step0/rank0"),
                                                         QStringLiteral("step0/rank0/dump.json"), levels, viaSplit);
    if (fingerprint(part, complete) != fingerprint(viaSplit, completeSplit))
        __builtin_trap(); // the split reading differs from the one-thread reading

    // The same split reading from a file with O_DIRECT: one stream shared by the threads
    // (core/io/directstream.h), in blocks of 4-32 KiB so that block boundaries fall anywhere.
    if (const QString file = scratchFile(); !file.isEmpty()) {
        QFile f(file);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            f.write(text.data(), qint64(text.size()));
            f.close();
            msprobe::setDirectRead(msprobe::DirectRead::Always);
            DirectStream::setBlockBytes(4096 * (1 + size % 8));
            msprobe::resetDirectReadPeak();
            IndexPart viaStream;
            const bool completeStream = msprobe::readDumpJson(file, QStringLiteral("step0/rank0"),
                                                              QStringLiteral("step0/rank0/dump.json"), levels, viaStream);
            msprobe::setDirectRead(msprobe::DirectRead::Never);
            DirectStream::setBlockBytes(0);
            if (fingerprint(part, complete) != fingerprint(viaStream, completeStream))
                __builtin_trap(); // the O_DIRECT stream reads something else than the page cache
            if (msprobe::directReadPeak() > 1)
                __builtin_trap(); // more than one O_DIRECT file open at once
        }
    }
    msprobe::setDumpJsonSplit(msprobe::DumpJsonSplitSettings{});

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
