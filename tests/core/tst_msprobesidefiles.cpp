// The msprobe reader's side files at scale (issue 35, item 3): stack.json and construct.json
// read in one call and parsed once per thread for identical bytes (formats/msprobe/sidefiles.h),
// identical files sharing their parse and different ones not; the UTF-8 twin names against
// forwardTwin (QRegularExpression) and its inverse.
#include "formats/msprobe/msprobereader.h"
#include "formats/msprobe/sidefiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace ds;

namespace {
const QString kRank0 = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe/step0/rank0");

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// A copy of the sample rank's dump.json, with the given stack.json and construct.json.
bool makeRank(const QString &dir, const QByteArray &stack, const QByteArray &construct)
{
    return QDir().mkpath(dir) && writeAll(dir + QStringLiteral("/dump.json"), readAll(kRank0 + QStringLiteral("/dump.json")))
           && writeAll(dir + QStringLiteral("/stack.json"), stack) && writeAll(dir + QStringLiteral("/construct.json"), construct);
}

/// Each operator's name, stack lines and parent.
QStringList described(const IndexPart &part)
{
    QStringList out;
    for (const OpRecord &op : part.ops)
        out << op.opName.toString() + QStringLiteral(" | ")
                   + (op.stack >= 0 ? part.stacks[size_t(op.stack)].join(QLatin1Char(';')) : QStringLiteral("-"))
                   + QStringLiteral(" | ") + op.parent.toString();
    return out;
}
} // namespace

class TestMsprobeSideFiles : public QObject
{
    Q_OBJECT

private slots:
    void twinsMatchTheRegularExpression_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *n : {"Functional.relu.0.backward", "Functional.relu.0.forward", "Module.fc.Linear.backward.3",
                              "Module.fc.Linear.forward.12", "Module.fc.Linear.parameters_grad.1", "backward", ".backward",
                              ".backward.7", "x.backward.", "x.backward.3a", "x.backward.3\n", "x.backward\n", "xbackward.3",
                              "x.forward.3\n", "x.forwardd.3", "Tensor.add_.0.forward", "", "a.backward.backward.2",
                              "Module.层.backward.4", "Module.层.forward"})
            QTest::newRow(n) << QString::fromUtf8(n);
    }
    void twinsMatchTheRegularExpression()
    {
        QFETCH(QString, name);
        const QByteArray u = name.toUtf8();
        QCOMPARE(QString::fromStdString(msprobe::forwardTwinUtf8(u.toStdString())), msprobe::forwardTwin(name));
        // backwardTwin is forwardTwin with the words swapped.
        QString swapped = name;
        swapped.replace(QStringLiteral("backward"), QStringLiteral("\x01")).replace(QStringLiteral("forward"), QStringLiteral("backward"))
            .replace(QStringLiteral("\x01"), QStringLiteral("forward"));
        QString expected = msprobe::forwardTwin(swapped);
        expected.replace(QStringLiteral("backward"), QStringLiteral("\x01")).replace(QStringLiteral("forward"), QStringLiteral("backward"))
            .replace(QStringLiteral("\x01"), QStringLiteral("forward"));
        QCOMPARE(QString::fromStdString(msprobe::backwardTwinUtf8(u.toStdString())), expected);
    }

    void smallFileReadInOneGo()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::string bytes = "left over";
        QCOMPARE(msprobe::readSmallFile(tmp.filePath(QStringLiteral("none.json")), bytes), msprobe::SmallFile::Missing);
        QVERIFY(bytes.empty());
        QCOMPARE(msprobe::readSmallFile(tmp.path(), bytes), msprobe::SmallFile::Failed); // a folder
        const QByteArray content = readAll(kRank0 + QStringLiteral("/stack.json"));
        QVERIFY(!content.isEmpty());
        QCOMPARE(msprobe::readSmallFile(kRank0 + QStringLiteral("/stack.json"), bytes), msprobe::SmallFile::Read);
        QCOMPARE(QByteArray::fromStdString(bytes), content);
        QVERIFY(writeAll(tmp.filePath(QStringLiteral("empty.json")), {}));
        QCOMPARE(msprobe::readSmallFile(tmp.filePath(QStringLiteral("empty.json")), bytes), msprobe::SmallFile::Read);
        QVERIFY(bytes.empty());
    }

    /// A rank folder's files opened relative to its descriptor (openat: one lookup of a name, not
    /// of the whole path): the same answers as by path, a file over the limit left to the caller.
    void smallFileReadFromItsFolder()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QVERIFY(!msprobe::FolderFd(tmp.filePath(QStringLiteral("none"))));
        const msprobe::FolderFd folder(kRank0);
        QVERIFY(folder);
        std::string bytes = "left over";
        QCOMPARE(msprobe::readSmallFileAt(folder.fd(), "none.json", bytes), msprobe::SmallFile::Missing);
        QVERIFY(bytes.empty());
        const QByteArray content = readAll(kRank0 + QStringLiteral("/stack.json"));
        QCOMPARE(msprobe::readSmallFileAt(folder.fd(), "stack.json", bytes), msprobe::SmallFile::Read);
        QCOMPARE(QByteArray::fromStdString(bytes), content);
        QCOMPARE(msprobe::readSmallFileAt(folder.fd(), "stack.json", bytes, size_t(content.size())), msprobe::SmallFile::Read);
        QCOMPARE(msprobe::readSmallFileAt(folder.fd(), "stack.json", bytes, size_t(content.size() - 1)), msprobe::SmallFile::Failed);
        QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("sub/dump.json"))));
        const msprobe::FolderFd sub(tmp.filePath(QStringLiteral("sub")));
        QCOMPARE(msprobe::readSmallFileAt(sub.fd(), "dump.json", bytes), msprobe::SmallFile::Failed); // a folder
    }

    void fifoIsAnErrorNotAWait_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"dump.json", "stack.json", "construct.json"})
            QTest::addRow("%s", name) << QString::fromLatin1(name);
    }
    /// A FIFO carrying a side file's or dump.json's name: open(2) of it would wait for a writer
    /// for ever (and `info` of the folder with it). It is an error naming the file instead.
    void fifoIsAnErrorNotAWait()
    {
        QFETCH(QString, name);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString dir = tmp.filePath(QStringLiteral("step0/rank0"));
        QVERIFY(makeRank(dir, readAll(kRank0 + QStringLiteral("/stack.json")), readAll(kRank0 + QStringLiteral("/construct.json"))));
        const QString fifo = dir + QLatin1Char('/') + name;
        QVERIFY(QFile::remove(fifo));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        auto read = std::async(std::launch::async, [&] { return msprobe::indexRankDir(tmp.path(), QStringLiteral("step0/rank0"), DumpLevels{}); });
        if (read.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
            do { // a writer coming and going lets each waiting open return (and its read end)
                const int w = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
                if (w >= 0)
                    ::close(w);
            } while (read.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready);
            QFAIL("the reader waited on the FIFO");
        }
        const auto part = read.get();
        QVERIFY(part);
        const QString relFile = QStringLiteral("step0/rank0/") + name;
        QVERIFY2(std::any_of(part->errors.begin(), part->errors.end(),
                             [&](const FileError &e) { return e.file == relFile && e.message.contains(QLatin1String("not a regular file")); }),
                 qPrintable(part->errors.empty() ? QStringLiteral("no error") : part->errors.front().file + QStringLiteral(": ") + part->errors.front().message));
        if (name != QLatin1String("dump.json")) // the operators are read all the same
            QVERIFY(!part->ops.empty());
    }

    /// indexRankDir reads a small dump.json in one call from its folder and parses it in memory:
    /// the same operators, tensors and errors as readDumpJson reading the file by path in blocks,
    /// for every msprobe sample rank folder (truncated and corrupt ones included).
    void rankDirReadInOneGoAsByPath()
    {
        const QString root = QDir(QStringLiteral(DUMPSCOPE_SAMPLES)).canonicalPath();
        int folders = 0, withErrors = 0;
        QDirIterator it(root, {QStringLiteral("dump.json")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const QString dir = QFileInfo(file).canonicalPath();
            if (QFileInfo::exists(dir + QStringLiteral("/debug.json")))
                continue;
            const QString relDir = QDir(root).relativeFilePath(dir);
            auto part = msprobe::indexRankDir(root, relDir, DumpLevels{});
            QVERIFY2(part, qPrintable(relDir));
            IndexPart byPath;
            msprobe::readDumpJson(file, relDir, relDir + QStringLiteral("/dump.json"), DumpLevels{}, byPath);
            QCOMPARE(part->ops.size(), byPath.ops.size());
            for (size_t o = 0; o < part->ops.size(); ++o) {
                const OpRecord &a = part->ops[o], &b = byPath.ops[o];
                QCOMPARE(a.opName.toString(), b.opName.toString());
                QCOMPARE(a.tensors.size(), b.tensors.size());
                for (size_t t = 0; t < a.tensors.size(); ++t) {
                    QCOMPARE(a.tensors[t].name(), b.tensors[t].name());
                    QCOMPARE(a.tensors[t].typeName(), b.tensors[t].typeName());
                    QCOMPARE(a.tensors[t].value(), b.tensors[t].value());
                    // (indexRankDir may point the folder elsewhere: dump_data_dir, tensorDirOf)
                    QCOMPARE(a.tensors[t].location().section(QLatin1Char('/'), -1), b.tensors[t].location().section(QLatin1Char('/'), -1));
                }
            }
            // dump.json's own errors come first in both (side files' errors follow in the part)
            QVERIFY(part->errors.size() >= byPath.errors.size());
            for (size_t e = 0; e < byPath.errors.size(); ++e) {
                QCOMPARE(part->errors[e].file, byPath.errors[e].file);
                QCOMPARE(part->errors[e].message, byPath.errors[e].message);
            }
            ++folders;
            withErrors += byPath.errors.empty() ? 0 : 1;
        }
        QVERIFY(folders > 50);
        QVERIFY(withErrors > 0); // samples/msprobe_truncated and the fixtures' corrupt files
    }

    void cacheSharesIdenticalBytesOnly()
    {
        msprobe::ParsedFileCache<std::string> cache(2, 8);
        int parses = 0;
        auto parse = [&](const std::string &b) {
            ++parses;
            return b + "!";
        };
        const auto a = cache.get("abc", parse);
        const auto a2 = cache.get(std::string("abc"), parse);
        QCOMPARE(parses, 1);
        QCOMPARE(a.get(), a2.get()); // the same parse, shared
        const auto b = cache.get("abd", parse); // same size, one byte differs
        QCOMPARE(parses, 2);
        QCOMPARE(*b, std::string("abd!"));
        QVERIFY(a.get() != b.get());
        const auto big = cache.get("123456789", parse); // above maxFileBytes: parsed, not kept
        QCOMPARE(*big, std::string("123456789!"));
        QCOMPARE(cache.size(), size_t(2));
        cache.get("123456789", parse);
        QCOMPARE(parses, 4);
        cache.get("xyz", parse); // full: emptied, then kept
        QCOMPARE(cache.size(), size_t(1));
        QCOMPARE(*a, std::string("abc!")); // a parse handed out outlives the cache's entry
        QCOMPARE(cache.hits(), size_t(1));
    }

    // Ranks with identical side files read as each alone; a rank whose stack.json or
    // construct.json differs by a few bytes gets its own stacks and parents, whichever order.
    void identicalRanksShareDifferentOnesDoNot()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QByteArray stack = readAll(kRank0 + QStringLiteral("/stack.json"));
        const QByteArray construct = readAll(kRank0 + QStringLiteral("/construct.json"));
        QVERIFY(stack.contains("line 40,"));
        QByteArray otherStack = stack;
        otherStack.replace("line 40,", "line 47,");
        QByteArray otherConstruct = construct;
        // Functional.conv2d.0.forward's parent becomes Module.fc.Linear.forward.0.
        otherConstruct.replace("\"Functional.conv2d.0.forward\": \"Module.conv1.Conv2d.forward.0\"",
                               "\"Functional.conv2d.0.forward\": \"Module.fc.Linear.forward.0\"");
        QVERIFY(otherConstruct != construct);
        const QString root = tmp.path();
        QVERIFY(makeRank(root + QStringLiteral("/rank0"), stack, construct));
        QVERIFY(makeRank(root + QStringLiteral("/rank1"), stack, construct));
        QVERIFY(makeRank(root + QStringLiteral("/rank2"), otherStack, otherConstruct));
        QVERIFY(makeRank(root + QStringLiteral("/rank3"), stack, construct));

        auto read = [&](const QString &rel) {
            auto part = msprobe::indexRankDir(root, rel, DumpLevels{});
            return part ? described(*part) : QStringList{QStringLiteral("failed")};
        };
        const QStringList r0 = read(QStringLiteral("rank0"));
        const QStringList r2 = read(QStringLiteral("rank2"));
        const QStringList r1 = read(QStringLiteral("rank1"));
        const QStringList r3 = read(QStringLiteral("rank3"));
        QVERIFY(r0.size() > 5);
        QCOMPARE(r1, r0);
        QCOMPARE(r3, r0);
        QVERIFY(r2 != r0);
        QCOMPARE(r2.size(), r0.size());
        // What differs is exactly the changed stack line and the changed parent.
        for (qsizetype i = 0; i < r0.size(); ++i) {
            QString expected = r0[i];
            expected.replace(QStringLiteral("line 40,"), QStringLiteral("line 47,"));
            if (expected.startsWith(QStringLiteral("Functional.conv2d.0.forward |")))
                expected.replace(QStringLiteral("| Module.conv1.Conv2d.forward.0"), QStringLiteral("| Module.fc.Linear.forward.0"));
            // and its backward twin's, by the "parent inferred" rule
            if (expected.startsWith(QStringLiteral("Functional.conv2d.0.backward |")))
                expected.replace(QStringLiteral("| Module.conv1.Conv2d.backward.0"), QStringLiteral("| Module.fc.Linear.backward.0"));
            QCOMPARE(r2[i], expected);
        }
        QVERIFY(r2.join(QLatin1Char('\n')).contains(QStringLiteral("line 47,")));
        QVERIFY(!r0.join(QLatin1Char('\n')).contains(QStringLiteral("line 47,")));
    }
};

QTEST_GUILESS_MAIN(TestMsprobeSideFiles)
#include "tst_msprobesidefiles.moc"
