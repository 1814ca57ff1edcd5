// A large dump.json read on several threads (core/formats/msprobe/dumpjsonsplit.*): the "data"
// object cut into chunks at msprobe's entry boundaries, chunks read by worker threads and
// taken in file order. The oracle is the same reader without the split (one thread): every
// record, its order and timestamp, every warning and every error (text, offset, salvage count)
// must be the same, from a file and from memory, whatever the chunk size and thread count, on
// the real msprobe 26 entries replicated, and on files broken inside a worker's chunk.
#include "describepart.h"
#include "formats/msprobe/fastjson.h"
#include "formats/msprobe/msprobereader.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

using namespace ds::msprobe;

namespace {

/// The 31 entries msprobe 26 wrote (statistics, mix level: tensors, ints, null, nested lists,
/// backward, parameters_grad, all_reduce), in its json.dump(indent=1) layout, replicated
/// `copies` times; replica k's names start with "R<k>." so that every name is unique.
std::string replicatedDump(int copies)
{
    QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0/dump.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const std::string text = f.readAll().toStdString();
    const size_t open = text.find("\"data\": {\n");
    const size_t close = text.rfind("\n }");
    if (open == std::string::npos || close == std::string::npos)
        return {};
    const size_t bodyStart = open + 9; // the '\n' before the first entry
    const std::string body = text.substr(bodyStart, close - bodyStart);
    std::string out = text.substr(0, bodyStart);
    for (int k = 0; k < copies; ++k) {
        std::string replica = body;
        const std::string from = "\n  \"", to = "\n  \"R" + std::to_string(k) + '.';
        for (size_t at = replica.find(from); at != std::string::npos; at = replica.find(from, at + to.size()))
            replica.replace(at, from.size(), to);
        out += k ? "," + replica : replica;
    }
    return out + text.substr(close);
}

/// Reads `text` from memory and from a file with these split settings (threads 1: no split).
QStringList readBoth(const std::string &text, const DumpJsonSplitSettings &settings, QString *fromFile = nullptr)
{
    setDumpJsonSplit(settings);
    ds::IndexPart part;
    const bool complete = readDumpJsonText(text, QStringLiteral("step0/rank0"), QStringLiteral("step0/rank0/dump.json"),
                                           ds::DumpLevels{}, part);
    if (fromFile) {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("dump.json"));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly)) {
            f.write(text.data(), qint64(text.size()));
            f.close();
        }
        ds::IndexPart filePart;
        const bool fileComplete = readDumpJson(path, QStringLiteral("step0/rank0"), QStringLiteral("step0/rank0/dump.json"),
                                               ds::DumpLevels{}, filePart);
        *fromFile = describe(filePart, fileComplete).join(QLatin1Char('\n'));
    }
    setDumpJsonSplit(DumpJsonSplitSettings{});
    return describe(part, complete);
}

DumpJsonSplitSettings oneThread()
{
    DumpJsonSplitSettings s;
    s.threads = 1;
    return s;
}

DumpJsonSplitSettings split(std::uint64_t chunkBytes, int threads)
{
    DumpJsonSplitSettings s;
    s.threshold = 0;
    s.chunkBytes = chunkBytes;
    s.threads = threads;
    s.waitForWorkers = true; // every worker chunk read by its worker: the split path is taken
    return s;
}

} // namespace

class TestDumpJsonSplit : public QObject
{
    Q_OBJECT

private slots:
    void cleanup()
    {
        setDumpJsonSplit(DumpJsonSplitSettings{});
        setDirectRead(DirectRead::Auto); // the default (DS_DIRECT_READ unset)
        ds::DirectStream::setBlockBytes(0);
    }
    /// A cold dump.json of a GiB or more is read with O_DIRECT unless DS_DIRECT_READ says otherwise.
    void directReadIsAutoByDefault()
    {
        if (!qEnvironmentVariableIsEmpty("DS_DIRECT_READ"))
            QSKIP("DS_DIRECT_READ is set");
        QCOMPARE(directRead(), DirectRead::Auto);
    }
    void sameAsOneThread_data();
    void sameAsOneThread();
    void brokenChunk_data();
    void brokenChunk();
    void defaultsSplitLargeFilesOnly();
    void takenChunksShareTheFilesLevels();
    void directReadSameAsPageCache_data();
    void directReadSameAsPageCache();
    void oneDirectStream_data();
    void oneDirectStream();
    void streamNeverWaitsForAnotherParser();
};

void TestDumpJsonSplit::sameAsOneThread_data()
{
    QTest::addColumn<int>("chunkDivisor"); // chunk size = the file's size / this
    QTest::addColumn<int>("threads");
    QTest::addRow("2 threads, 8 chunks") << 8 << 2;
    QTest::addRow("2 threads, 40 chunks") << 40 << 2;
    QTest::addRow("3 threads, 25 chunks") << 25 << 3;
    QTest::addRow("4 threads, 1000 chunks (smaller than an entry)") << 1000 << 4;
}

void TestDumpJsonSplit::sameAsOneThread()
{
    QFETCH(int, chunkDivisor);
    QFETCH(int, threads);
    const std::string doc = replicatedDump(60);
    QVERIFY(doc.size() > size_t(1) << 20);
    QString expectedFile;
    const QStringList expected = readBoth(doc, oneThread(), &expectedFile);
    QCOMPARE(expected.filter(QRegularExpression(QStringLiteral("^op "))).size(), 60 * 31);
    QVERIFY(expected.first().startsWith(QLatin1String("complete=1 task=statistics level=mix framework=pytorch")));
    QVERIFY(expected.filter(QStringLiteral("error ")).isEmpty());
    const std::uint64_t before = splitChunksTaken();
    QString splitFile;
    const QStringList splitRead = readBoth(doc, split(doc.size() / std::uint64_t(chunkDivisor), threads), &splitFile);
    QCOMPARE(splitRead, expected);
    QCOMPARE(splitFile, expectedFile);
    QCOMPARE(splitFile, expected.join(QLatin1Char('\n')));
    // Chunks were read by workers and taken (memory and file: at least one each; 2 threads
    // and 8 chunks: chunks 1, 3 and 5, as 7 is the last).
    QVERIFY2(splitChunksTaken() - before >= 2, qPrintable(QString::number(splitChunksTaken() - before)));
    if (chunkDivisor == 8 && threads == 2)
        QCOMPARE(splitChunksTaken() - before, std::uint64_t(6));
}

void TestDumpJsonSplit::brokenChunk_data()
{
    // Each row changes the replicated document at `where` (a fraction of its size, inside a
    // worker's chunk: with 8 chunks and 2 threads chunk 1 spans 1/8 to 2/8, chunk 3 3/8 to 4/8):
    // the first `find` after it becomes `replace` (in the odd-layout row followed by 5,000 more
    // members), and with `cut` the file ends right after that.
    QTest::addColumn<double>("where");
    QTest::addColumn<QString>("find");
    QTest::addColumn<QString>("replace");
    QTest::addColumn<bool>("cut");
    QTest::addColumn<QString>("error"); // a part of the expected error; empty: complete
    QTest::addRow("syntax error in chunk 1") << 0.19 << "\"Max\": " << "\"Max\" " << false << "syntax error inside entry";
    QTest::addRow("syntax error in chunk 3") << 0.44 << "\"Min\": " << "\"Min\": ," << false << "syntax error inside entry";
    QTest::addRow("truncated inside an entry in chunk 1") << 0.19 << "\"Max\": " << "\"Ma" << true << "file ends inside entry";
    QTest::addRow("truncated after an entry in chunk 1") << 0.19 << "\n  }," << "\n  }" << true << "file ends after entry";
    QTest::addRow("truncated in chunk 3") << 0.44 << "\"dtype\": " << "\"dty" << true << "file ends inside entry";
    QTest::addRow("raw newline in a string (a split inside it)")
        << 0.19 << "\"torch.float32\"" << "\"torch.\n  },\n  \"float32\"" << false << "syntax error inside entry";
    QTest::addRow("data ends early, keys after it at the entries' indentation")
        << 0.19 << "\n  },\n  \"" << "\n  }\n },\n \"extra\": {\n  \"" << false << "";
    // One entry of 200 KB (more than a chunk) full of "\n  },\n  \"" that are not entry
    // boundaries: the split points found in it are wrong and must be caught.
    QTest::addRow("entry-level '},' inside an entry (odd layout)")
        << 0.19 << "\n   ]" << QStringLiteral("\n   ]") + QStringLiteral(",\n   \"odd\": {\n    \"k\": 1\n  },\n  \"x\": {}").repeated(5000) << false << "";
    QTest::addRow("a name with an escape") << 0.19 << "\n  \"R" << "\n  \"\\u0052" << false << "";
    QTest::addRow("NaN statistic") << 0.19 << "\"Max\": " << "\"Max\": NaN, \"x\": " << false << "";
}

void TestDumpJsonSplit::brokenChunk()
{
    QFETCH(double, where);
    QFETCH(QString, find);
    QFETCH(QString, replace);
    QFETCH(bool, cut);
    QFETCH(QString, error);
    std::string doc = replicatedDump(40);
    const size_t hit = doc.find(find.toStdString(), size_t(double(doc.size()) * where));
    QVERIFY(hit != std::string::npos);
    const std::string with = replace.toStdString();
    doc.replace(hit, size_t(find.toUtf8().size()), with);
    if (cut)
        doc.resize(hit + with.size());
    QString expectedFile;
    const QStringList expected = readBoth(doc, oneThread(), &expectedFile);
    if (error.isEmpty())
        QVERIFY2(expected.first().startsWith(QLatin1String("complete=1")), qPrintable(expected.last()));
    else
        QVERIFY2(expected.last().contains(error), qPrintable(expected.last()));
    QString splitFile;
    QCOMPARE(readBoth(doc, split(doc.size() / 8, 2), &splitFile), expected);
    QCOMPARE(splitFile, expectedFile);
    QCOMPARE(readBoth(doc, split(doc.size() / 50, 3)), expected);
}

void TestDumpJsonSplit::defaultsSplitLargeFilesOnly()
{
    // The defaults: files above 64 MiB of "data", chunks of 32 MiB, every core.
    const DumpJsonSplitSettings d = dumpJsonSplit();
    QCOMPARE(d.threshold, std::uint64_t(64) << 20);
    QCOMPARE(d.chunkBytes, std::uint64_t(32) << 20);
    QCOMPARE(d.threads, 0);
    const std::uint64_t before = splitChunksTaken();
    readBoth(replicatedDump(10), DumpJsonSplitSettings{});
    QCOMPARE(splitChunksTaken(), before);
}

void TestDumpJsonSplit::takenChunksShareTheFilesLevels()
{
    // A worker's records come without levels and file name (no reference counts written by
    // two threads at once); the reading thread gives every record taken the file's own: the
    // same levels object (the dump tree groups operators by it) and file name as its own.
    const std::string doc = replicatedDump(60);
    ds::DumpLevels levels;
    levels.step = QStringLiteral("0");
    levels.rank = QStringLiteral("3");
    setDumpJsonSplit(split(doc.size() / 8, 2));
    const std::uint64_t before = splitChunksTaken();
    ds::IndexPart part;
    QVERIFY(readDumpJsonText(doc, QStringLiteral("step0/rank3"), QStringLiteral("step0/rank3/dump.json"), levels, part));
    setDumpJsonSplit(DumpJsonSplitSettings{});
    QCOMPARE(splitChunksTaken() - before, std::uint64_t(3));
    QCOMPARE(part.ops.size(), size_t(60 * 31));
    const ds::DumpLevels *shared = &*part.ops.front().levels;
    QCOMPARE(shared->rank, QStringLiteral("3"));
    for (const ds::OpRecord &op : part.ops) {
        QVERIFY2(&*op.levels == shared, qPrintable(op.opName.toString()));
        QCOMPARE(op.dataFile, QStringLiteral("step0/rank3/dump.json"));
    }
}

void TestDumpJsonSplit::directReadSameAsPageCache_data()
{
    QTest::addColumn<int>("threads"); // 1: no split
    QTest::addColumn<int>("chunkDivisor");
    QTest::addColumn<double>("cutAt"); // < 1: the file ends there (a truncated dump.json)
    QTest::addRow("one thread") << 1 << 1 << 1.0;
    QTest::addRow("2 threads, 8 chunks (seeks between 4 MiB reads)") << 2 << 8 << 1.0;
    QTest::addRow("3 threads, 40 chunks") << 3 << 40 << 1.0;
    QTest::addRow("2 threads, truncated in a worker's chunk") << 2 << 8 << 0.37;
    QTest::addRow("one thread, truncated past the first 4 MiB") << 1 << 1 << 0.81;
}

void TestDumpJsonSplit::directReadSameAsPageCache()
{
    // With DS_DIRECT_READ=auto a cold dump.json of a GiB or more is read with O_DIRECT
    // (fastjson.h, DirectRead): aligned reads of up to 16 MiB, the next ones read ahead and
    // stopped just past a split chunk's end, a short read after a seek. The records, their
    // order and every error must be those of the reading through the page cache.
    QFETCH(int, threads);
    QFETCH(int, chunkDivisor);
    QFETCH(double, cutAt);
    std::string doc = replicatedDump(400);
    QVERIFY(doc.size() > size_t(8) << 20); // several 4 MiB reads
    doc.resize(size_t(double(doc.size()) * cutAt));
    {
        // O_DIRECT is used where the file system takes it (not on tmpfs: then read as before).
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("dump.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(doc.data(), qint64(doc.size()));
        f.close();
        FastJsonReader r;
        setDirectRead(DirectRead::Auto);
        QVERIFY(r.open(path));
        QVERIFY(!r.readsDirect()); // under kDirectReadMin
        setDirectRead(DirectRead::Always);
        QVERIFY(r.open(path));
        const bool direct = r.readsDirect();
        setDirectRead(DirectRead::Never);
        if (!direct)
            QSKIP("the temporary directory's file system refuses O_DIRECT");
    }
    const DumpJsonSplitSettings settings = threads == 1 ? oneThread() : split(doc.size() / std::uint64_t(chunkDivisor), threads);
    setDirectRead(DirectRead::Never);
    QString viaCache;
    const QStringList expected = readBoth(doc, settings, &viaCache);
    setDirectRead(DirectRead::Always);
    QString direct;
    readBoth(doc, settings, &direct);
    setDirectRead(DirectRead::Never);
    QVERIFY(viaCache.count(QStringLiteral("\nop ")) > 1000);
    QCOMPARE(direct.split(QLatin1Char('\n')), viaCache.split(QLatin1Char('\n')));
    QCOMPARE(viaCache, expected.join(QLatin1Char('\n')));
    QCOMPARE(viaCache.contains(QStringLiteral("error ")), cutAt < 1);
}

void TestDumpJsonSplit::oneDirectStream_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("chunkDivisor");
    QTest::addColumn<double>("cutAt");      // < 1: the file ends there (a truncated dump.json)
    QTest::addColumn<double>("garbageFrom"); // < 1: random bytes from there on
    QTest::addColumn<int>("blockKiB");      // the stream's blocks (0: the default, 16 MiB)
    QTest::addRow("2 threads, 8 chunks, 64 KiB blocks") << 2 << 8 << 1.0 << 1.0 << 64;
    QTest::addRow("2 threads, 8 chunks, 1 MiB blocks") << 2 << 8 << 1.0 << 1.0 << 1024;
    QTest::addRow("2 threads, 8 chunks, 16 MiB blocks") << 2 << 8 << 1.0 << 1.0 << 0;
    QTest::addRow("3 threads, 40 chunks, 256 KiB blocks") << 3 << 40 << 1.0 << 1.0 << 256;
    QTest::addRow("4 threads, chunks smaller than an entry") << 4 << 2000 << 1.0 << 1.0 << 64;
    QTest::addRow("2 threads, truncated in a worker's chunk") << 2 << 8 << 0.37 << 1.0 << 64;
    QTest::addRow("2 threads, truncated in the reading thread's chunk") << 2 << 8 << 0.81 << 1.0 << 1024;
    QTest::addRow("2 threads, random bytes from 40 percent of the file") << 2 << 8 << 1.0 << 0.4 << 64;
}

void TestDumpJsonSplit::oneDirectStream()
{
    // A split dump.json read with O_DIRECT is read by ONE sequential stream (core/io/
    // directstream.h) whose blocks go to the thread that parses them: at most one file is
    // open with O_DIRECT at a time, and the records, their order and every error (truncated
    // file, random bytes, a block or chunk boundary inside an entry) are those of the reading
    // through the page cache.
    QFETCH(int, threads);
    QFETCH(int, chunkDivisor);
    QFETCH(double, cutAt);
    QFETCH(double, garbageFrom);
    QFETCH(int, blockKiB);
    std::string doc = replicatedDump(400);
    doc.resize(size_t(double(doc.size()) * cutAt));
    if (garbageFrom < 1) {
        std::uint32_t x = 12345;
        for (size_t i = size_t(double(doc.size()) * garbageFrom); i < doc.size(); ++i) {
            x = x * 1664525u + 1013904223u;
            doc[i] = char(x >> 24);
        }
    }
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("dump.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(doc.data(), qint64(doc.size()));
        f.close();
        FastJsonReader r;
        setDirectRead(DirectRead::Always);
        QVERIFY(r.open(path));
        const bool direct = r.readsDirect();
        setDirectRead(DirectRead::Never);
        if (!direct)
            QSKIP("the temporary directory's file system refuses O_DIRECT");
    }
    const DumpJsonSplitSettings settings = split(doc.size() / std::uint64_t(chunkDivisor), threads);
    setDirectRead(DirectRead::Never);
    QString viaCache;
    const QStringList expected = readBoth(doc, settings, &viaCache);
    QVERIFY(viaCache.count(QStringLiteral("\nop ")) > 100);
    QCOMPARE(viaCache, expected.join(QLatin1Char('\n')));
    QCOMPARE(viaCache.contains(QStringLiteral("error step0/rank0/dump.json: ")), cutAt < 1 || garbageFrom < 1);

    ds::DirectStream::setBlockBytes(size_t(blockKiB) << 10);
    setDirectRead(DirectRead::Always);
    resetDirectReadPeak();
    const std::uint64_t streams = ds::DirectStream::started();
    const std::uint64_t taken = splitChunksTaken();
    QString direct;
    readBoth(doc, settings, &direct);
    setDirectRead(DirectRead::Never);
    QCOMPARE(direct.split(QLatin1Char('\n')), viaCache.split(QLatin1Char('\n')));
    QCOMPARE(directReadPeak(), 1);                          // one O_DIRECT file at a time
    QCOMPARE(ds::DirectStream::started() - streams, std::uint64_t(1)); // shared by the threads
    QVERIFY(splitChunksTaken() > taken);                    // the workers' chunks were taken
}

void TestDumpJsonSplit::streamNeverWaitsForAnotherParser()
{
    // The stream (core/io/directstream.h) waits while a parser's queue is full; a parser that
    // asks for a block behind it gets nullptr at once (it reads the bytes itself) instead of
    // waiting for a parser that may be waiting for it. Blocks hold the file's bytes.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bytes"));
    std::string bytes(size_t(3) << 20, '\0');
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = char(i * 7 + i / 4096);
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), qint64(bytes.size()));
    }
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        QSKIP("the temporary directory's file system refuses O_DIRECT");
    constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;
    ds::DirectStream::setBlockBytes(64 << 10);
    ds::DirectStream stream(fd, bytes.size(), 0, {{0, 2 * kMiB, 0}, {2 * kMiB, 3 * kMiB, 1}}, 2, 0);
    // Parser 0 reads nothing: 4 blocks queue up for it and the stream waits; parser 1 is not served.
    QVERIFY(!stream.block(1, 2 * kMiB + 100));
    // Parser 0 takes its blocks: they hold the file's bytes; then the stream goes on.
    for (std::uint64_t at = 0; at < 2 * kMiB; at += 64 << 10) {
        const ds::DirectStream::BlockPtr b = stream.block(0, at + 5);
        QVERIFY(b);
        QCOMPARE(b->at, at);
        QCOMPARE(b->len, size_t(64 << 10));
        QVERIFY(std::memcmp(b->data, bytes.data() + at, b->len) == 0);
    }
    const ds::DirectStream::BlockPtr b = stream.block(1, 2 * kMiB + 100);
    QVERIFY(b);
    QCOMPARE(b->at, 2 * kMiB);
    QVERIFY(std::memcmp(b->data, bytes.data() + b->at, b->len) == 0);
    QVERIFY(!stream.block(0, 2 * kMiB + 100)); // not parser 0's
    stream.detach(0);
    QVERIFY(stream.block(1, 3 * kMiB - 1)); // the last block
    QVERIFY(!stream.block(1, 3 * kMiB));    // past the end
}

QTEST_GUILESS_MAIN(TestDumpJsonSplit)
#include "tst_dumpjsonsplit.moc"
