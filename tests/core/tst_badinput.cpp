// The bad-input corpus (tests/data/bad): every case gives its expected error text, the valid
// files beside the bad ones still load, and nothing crashes, hangs or reads outside a file.
// Cases that cannot be committed (links, names, permissions, files changing) are made here.
#include "formats/ge/gegraphreader.h"
#include "formats/readers.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "overflow/overflowreport.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace ds;

namespace {

const QString kBad = QDir(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/data/bad")).absolutePath();

QJsonObject manifest()
{
    QFile f(kBad + QStringLiteral("/cases.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read cases.json");
    QJsonParseError error{};
    const auto doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("cases.json: %s", qPrintable(error.errorString()));
    return doc.object();
}

/// One index per corpus folder, built once.
std::shared_ptr<DumpIndex> indexOf(const QString &folder)
{
    static QHash<QString, std::shared_ptr<DumpIndex>> cache;
    if (!cache.contains(folder)) {
        auto built = buildIndex(kBad + QLatin1Char('/') + folder);
        if (!built)
            qFatal("%s", qPrintable(built.errorText()));
        cache.insert(folder, *built);
    }
    return cache.value(folder);
}

const OverflowReport &overflowOf(const QString &folder)
{
    static QHash<QString, OverflowReport> cache;
    if (!cache.contains(folder))
        cache.insert(folder, analyzeOverflow(*indexOf(folder), OverflowOptions{false}));
    return *cache.find(folder);
}

/// "cann/x" -> ("cann", "x")
std::pair<QString, QString> split(const QString &file)
{
    const qsizetype slash = file.indexOf(QLatin1Char('/'));
    return {file.left(slash), file.mid(slash + 1)};
}

QString errorOf(const DumpIndex &index, const QString &rel)
{
    for (const auto &e : index.errors)
        if (e.file == rel)
            return e.message;
    return {};
}

QByteArray validDump()
{
    QFile f(kBad + QStringLiteral("/cann/Relu.valid_relu.1.1.1700000000000001"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("valid sample missing");
    return f.readAll();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// Framework corpus (framework/): the tensor record stored in file `rel` (a .pt or .npy), or
/// {-1, -1}.
DumpIndex::TensorRef tensorAt(const DumpIndex &index, const QString &rel)
{
    for (size_t o = 0; o < index.ops.size(); ++o)
        for (size_t t = 0; t < index.ops[o].tensors.size(); ++t)
            if (index.ops[o].tensors[t].location() == rel)
                return {int(o), int(t)};
    return {};
}

/// The operators read from data file `rel` (a dump.json or .h5).
std::vector<int> opsOf(const DumpIndex &index, const QString &rel)
{
    std::vector<int> out;
    for (size_t o = 0; o < index.ops.size(); ++o)
        if (index.ops[o].dataFile == rel)
            out.push_back(int(o));
    return out;
}

/// The capability sets of this thread (index 0: capabilities 0-31), or false.
bool capabilities(__user_cap_data_struct (&data)[2])
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    return ::syscall(SYS_capget, &header, data) == 0;
}

bool hasCapability(int cap)
{
    __user_cap_data_struct data[2]{};
    return capabilities(data) && (data[cap / 32].effective & (1u << (cap % 32)));
}

/// True when permission bits do not stop this process from reading: root, or a process with
/// CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH in its effective set.
bool bypassesPermissionBits() { return hasCapability(CAP_DAC_OVERRIDE) || hasCapability(CAP_DAC_READ_SEARCH); }

/// Runs in the child between fork and exec (async-signal-safe system calls only): removes
/// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding, inheritable, permitted and
/// effective sets. The exec'd program keeps uid 0 (so it still reaches a tree under a mode-700
/// /root) but obeys permission bits: after exec root's permitted set is the bounding set.
void dropDacCapabilities()
{
    if (::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0 || ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0) != 0)
        ::_exit(91);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0)
        ::_exit(92);
    const std::uint32_t dac = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
    data[0].effective &= ~dac;
    data[0].permitted &= ~dac;
    data[0].inheritable &= ~dac;
    if (::syscall(SYS_capset, &header, data) != 0)
        ::_exit(93);
}

/// Loads every input and output of the op; returns the first error.
QString loadAll(const DumpIndex &index, int op)
{
    const auto &tensors = index.ops[size_t(op)].tensors;
    for (size_t t = 0; t < tensors.size(); ++t) {
        if (tensors[t].io() != IoKind::Input && tensors[t].io() != IoKind::Output)
            continue;
        auto loaded = loadTensor(index, {op, int(t)});
        if (!loaded)
            return loaded.errorText();
    }
    return {};
}

} // namespace

class TestBadInput : public QObject
{
    Q_OBJECT

private slots:
    void corpus_data();
    void corpus();
    void validFilesStillLoad_data();
    void validFilesStillLoad();
    void everyFileIsAccountedFor_data();
    void everyFileIsAccountedFor();

    void symlinkLoop();
    void brokenAndSelfLinks();
    void specialFilesAreSkipped();
    void nonUtf8Name();
    void veryLongName();
    void deepDirectoryNesting();
    void unreadableFile();
    void fileShrinksAfterIndexing();
    void filesChangingDuringIndexing();
    void nothingRecognised_data();
    void nothingRecognised();
};

void TestBadInput::corpus_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("check");
    QTest::addColumn<QString>("expect");
    const QJsonArray cases = manifest().value(QLatin1String("cases")).toArray();
    QVERIFY(cases.size() >= 40);
    QHash<QString, int> seen;
    for (const auto &c : cases) {
        const QJsonObject o = c.toObject();
        const QString file = o.value(QLatin1String("file")).toString();
        const QString check = o.value(QLatin1String("check")).toString();
        // A framework data file (dump.json, .h5) can hold several cases: tag them by check and
        // number them.
        QString tag = file;
        if (file.startsWith(QLatin1String("framework/"))) {
            tag += QStringLiteral(" [%1]").arg(check);
            if (const int n = seen[tag]++; n > 0)
                tag += QStringLiteral(" #%1").arg(n + 1);
        }
        QTest::addRow("%s", qPrintable(tag)) << file << check << o.value(QLatin1String("expect")).toString();
    }
}

void TestBadInput::corpus()
{
    QFETCH(QString, file);
    QFETCH(QString, check);
    QFETCH(QString, expect);
    QVERIFY2(QFileInfo::exists(kBad + QLatin1Char('/') + file), qPrintable(file));
    QVERIFY2(!expect.isEmpty(), "every case names the text it must give");
    const auto [folder, rel] = split(file);

    if (check.startsWith(QLatin1String("graph_"))) {
        const auto model = ge::readGraphFile(kBad + QLatin1Char('/') + file);
        if (check == QLatin1String("graph_error")) {
            QVERIFY2(!model, "the graph must not load");
            QVERIFY2(model.errorText().contains(expect), qPrintable(model.errorText()));
        } else if (check == QLatin1String("graph_unresolved")) {
            QVERIFY2(model, qPrintable(model.errorText()));
            QVERIFY(model->root());
            const QString unresolved = model->root()->unresolvedInputs.join(QLatin1Char('\n'));
            QVERIFY2(unresolved.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(unresolved)));
        } else {
            QFAIL(qPrintable(QStringLiteral("unknown check \"%1\"").arg(check)));
        }
        return;
    }

    if (check.startsWith(QLatin1String("framework_"))) {
        QCOMPARE(folder, QStringLiteral("framework"));
        const auto index = indexOf(folder);
        if (check == QLatin1String("framework_index_error")) {
            const QString error = errorOf(*index, rel);
            QVERIFY2(error.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(error)));
            // Nothing is placed inside the file's bytes past the failure: a tensor file in error
            // is no tensor, and the error is reported once.
            QCOMPARE(tensorAt(*index, rel).op, -1);
            const qsizetype reported = std::count_if(index->errors.begin(), index->errors.end(), [&](const FileError &e) { return e.file == rel; });
            QCOMPARE(reported, qsizetype(1));
        } else if (check == QLatin1String("framework_load_error")) {
            const auto ref = tensorAt(*index, rel);
            QVERIFY2(ref.op >= 0, qPrintable(QStringLiteral("no tensor is stored in %1").arg(rel)));
            QVERIFY(errorOf(*index, rel).isEmpty());
            auto loaded = loadTensor(*index, ref);
            QVERIFY2(!loaded, "the tensor must not load");
            QVERIFY2(loaded.errorText().contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(loaded.errorText())));
        } else if (check == QLatin1String("framework_op_warning")) {
            const auto ops = opsOf(*index, rel);
            QVERIFY2(!ops.empty(), qPrintable(errorOf(*index, rel)));
            QStringList warnings;
            for (const int o : ops)
                warnings << index->ops[size_t(o)].warnings();
            QVERIFY2(warnings.join(QLatin1Char('\n')).contains(expect),
                     qPrintable(QStringLiteral("got \"%1\"").arg(warnings.join(QLatin1Char('\n')))));
        } else if (check == QLatin1String("framework_entry_load_note")) {
            // `expect` is "<entry>: <text>": the first tensor of that dump.json entry loads with
            // this note, and what is shown is what the file holds.
            const qsizetype colon = expect.indexOf(QLatin1String(": "));
            QVERIFY(colon > 0);
            const QString entry = expect.left(colon), text = expect.mid(colon + 2);
            const int op = index->opIndex(rel.section(QLatin1Char('/'), 0, -2) + QLatin1Char('/') + entry);
            QVERIFY2(op >= 0, qPrintable(entry));
            QCOMPARE(index->ops[size_t(op)].dataFile, rel);
            QVERIFY(!index->ops[size_t(op)].tensors.empty());
            auto loaded = loadTensor(*index, {op, 0});
            QVERIFY2(loaded, qPrintable(loaded.errorText()));
            const QString notes = (*loaded)->notes.join(QLatin1Char('\n'));
            QVERIFY2(notes.contains(text), qPrintable(QStringLiteral("got \"%1\"").arg(notes)));
            const auto shown = elementCount((*loaded)->shape);
            QVERIFY(shown.has_value());
            QCOMPARE(*shown, std::uint64_t((*loaded)->view.count));
        } else {
            QFAIL(qPrintable(QStringLiteral("unknown check \"%1\"").arg(check)));
        }
        return;
    }

    const auto index = indexOf(folder);
    const int op = index->opIndex(rel);
    if (check == QLatin1String("index_error")) {
        QCOMPARE(op, -1);
        const QString error = errorOf(*index, rel);
        QVERIFY2(error.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(error)));
        // The same text when the file is opened on its own.
        auto single = buildIndex(kBad + QLatin1Char('/') + file);
        QVERIFY(single);
        QCOMPARE((*single)->ops.size(), size_t(0));
        QCOMPARE((*single)->errors.size(), size_t(1));
        QCOMPARE((*single)->errors[0].message, error);
    } else if (check == QLatin1String("not_dump_name")) {
        QCOMPARE(op, -1);
        QVERIFY(errorOf(*index, rel).isEmpty()); // skipped in a tree, not an error
        auto single = buildIndex(kBad + QLatin1Char('/') + file);
        QVERIFY(single);
        QCOMPARE((*single)->errors.size(), size_t(1));
        QVERIFY((*single)->errors[0].message.contains(expect));
    } else if (check == QLatin1String("op_warning")) {
        QVERIFY2(op >= 0, qPrintable(errorOf(*index, rel)));
        const QString warnings = index->ops[size_t(op)].warnings().join(QLatin1Char('\n'));
        QVERIFY2(warnings.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(warnings)));
    } else if (check == QLatin1String("load_error") || check == QLatin1String("load_note")) {
        QVERIFY2(op >= 0, qPrintable(errorOf(*index, rel)));
        const auto &tensors = index->ops[size_t(op)].tensors;
        QVERIFY(!tensors.empty());
        auto loaded = loadTensor(*index, {op, 0});
        if (check == QLatin1String("load_error")) {
            QVERIFY2(!loaded, "the tensor must not load");
            QVERIFY2(loaded.errorText().contains(expect), qPrintable(loaded.errorText()));
        } else {
            QVERIFY2(loaded, qPrintable(loaded.errorText()));
            const auto &t = **loaded;
            QVERIFY2(t.notes.join(QLatin1Char('\n')).contains(expect), qPrintable(t.notes.join(QLatin1Char('\n'))));
            // Whatever is shown lies inside the file.
            const auto *begin = t.file->data(), *end = begin + t.file->size();
            if (t.owned.empty() && t.view.count)
                QVERIFY(t.view.data >= begin && t.view.data + t.view.count * elemBytes(t.view.elem) <= end);
            const auto shown = elementCount(t.shape);
            QVERIFY(shown.has_value());
            QCOMPARE(*shown, std::uint64_t(t.view.count));
        }
    } else if (check == QLatin1String("overflow_error") || check == QLatin1String("overflow_warning")) {
        QVERIFY2(op >= 0, qPrintable(errorOf(*index, rel)));
        const OverflowEntry *entry = nullptr;
        for (const auto &e : overflowOf(folder).records)
            if (e.op == op)
                entry = &e;
        QVERIFY(entry);
        if (check == QLatin1String("overflow_error")) {
            QVERIFY2(entry->error.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(entry->error)));
        } else {
            QVERIFY2(entry->error.isEmpty(), qPrintable(entry->error));
            const QString warnings = entry->record.warnings.join(QLatin1Char('\n'));
            QVERIFY2(warnings.contains(expect), qPrintable(QStringLiteral("got \"%1\"").arg(warnings)));
        }
    } else {
        QFAIL(qPrintable(QStringLiteral("unknown check \"%1\"").arg(check)));
    }
}

void TestBadInput::validFilesStillLoad_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("count");
    QTest::addColumn<bool>("indexOnly");
    for (const auto &v : manifest().value(QLatin1String("valid")).toArray()) {
        const QJsonObject o = v.toObject();
        const QString file = o.value(QLatin1String("file")).toString();
        QTest::addRow("%s", qPrintable(file)) << file << o.value(QLatin1String("count")).toInt(-1)
                                              << o.value(QLatin1String("index_only")).toBool();
    }
}

void TestBadInput::validFilesStillLoad()
{
    QFETCH(QString, file);
    QFETCH(int, count);
    QFETCH(bool, indexOnly);
    const auto [folder, rel] = split(file);
    if (folder == QLatin1String("graph")) {
        const auto model = ge::readGraphFile(kBad + QLatin1Char('/') + file);
        QVERIFY2(model, qPrintable(model.errorText()));
        QCOMPARE(model->nodeCount(), count); // nodes
        return;
    }
    if (folder == QLatin1String("framework")) {
        // A data file (dump.json, .h5: its operators) or a tensor file (.pt, .npy): no error,
        // `count` inputs + outputs, every tensor among them loads (unless `index_only`: a
        // dump.json whose entries are cases of their tensor files).
        const auto index = indexOf(folder);
        QVERIFY2(errorOf(*index, rel).isEmpty(), qPrintable(errorOf(*index, rel)));
        std::vector<DumpIndex::TensorRef> refs;
        for (const int o : opsOf(*index, rel))
            for (size_t t = 0; t < index->ops[size_t(o)].tensors.size(); ++t)
                refs.push_back({o, int(t)});
        if (const auto at = tensorAt(*index, rel); at.op >= 0)
            refs.push_back(at);
        int io = 0;
        for (const auto &ref : refs) {
            const TensorRecord &t = index->tensor(ref);
            if (t.io() != IoKind::Input && t.io() != IoKind::Output)
                continue;
            ++io;
            if (indexOnly || t.storage() == TensorStorage::Value || t.storage() == TensorStorage::Absent)
                continue;
            auto loaded = loadTensor(*index, ref);
            QVERIFY2(loaded, qPrintable(loaded.errorText()));
            // What is shown is consistent (the recorded shape may differ; the loader notes it).
            const auto shown = elementCount((*loaded)->shape);
            QVERIFY(shown.has_value());
            QCOMPARE(std::uint64_t((*loaded)->view.count), *shown);
        }
        QCOMPARE(io, count);
        return;
    }
    const auto index = indexOf(folder);
    const int op = index->opIndex(rel);
    QVERIFY2(op >= 0, qPrintable(errorOf(*index, rel)));
    int io = 0;
    for (const auto &t : index->ops[size_t(op)].tensors)
        io += t.io() == IoKind::Input || t.io() == IoKind::Output;
    QCOMPARE(io, count); // inputs + outputs
    const QString error = loadAll(*index, op);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestBadInput::everyFileIsAccountedFor_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("cann") << QStringLiteral("cann");
    QTest::newRow("graph") << QStringLiteral("graph");
    QTest::newRow("framework") << QStringLiteral("framework");
}

/// Every committed file has a manifest line, and the index puts every dump-named file in
/// exactly one place (an operator or an error).
void TestBadInput::everyFileIsAccountedFor()
{
    QFETCH(QString, folder);
    QSet<QString> listed;
    const QJsonObject m = manifest();
    for (const char *key : {"cases", "valid"})
        for (const auto &v : m.value(QLatin1String(key)).toArray())
            listed.insert(v.toObject().value(QLatin1String("file")).toString());
    QStringList onDisk;
    if (folder == QLatin1String("framework")) {
        // Rank directories and tensor folders: every file below.
        const QDir root(kBad + QLatin1Char('/') + folder);
        QDirIterator it(root.path(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            onDisk << root.relativeFilePath(it.next());
    } else {
        onDisk = QDir(kBad + QLatin1Char('/') + folder).entryList(QDir::Files);
    }
    QVERIFY(!onDisk.isEmpty());
    for (const QString &f : onDisk) {
        if (f == QLatin1String("mapping.csv"))
            continue; // read with its directory; its rows are cases of the numeric files
        QVERIFY2(listed.contains(folder + QLatin1Char('/') + f), qPrintable(QStringLiteral("%1/%2 has no line in cases.json").arg(folder, f)));
    }
    if (folder != QLatin1String("cann"))
        return;
    const auto index = indexOf(folder);
    QStringList placed;
    for (const auto &op : index->ops)
        placed << op.relPath;
    for (const auto &e : index->errors)
        placed << e.file;
    const qsizetype placements = placed.size();
    placed.removeDuplicates();
    QCOMPARE(placed.size(), placements); // no file is both an operator and an error
    QCOMPARE(placed.size() + qsizetype(index->otherFiles), onDisk.size());
}

void TestBadInput::symlinkLoop()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("a/b")));
    QVERIFY(writeFile(dir.filePath(QStringLiteral("a/b/Relu.r.1.1.1700000000000001")), validDump()));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("a")), dir.filePath(QStringLiteral("a/b/up"))));
    QVERIFY(QFile::link(dir.path(), dir.filePath(QStringLiteral("a/root"))));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(1)); // linked directories are not followed
    QCOMPARE((*index)->ops[0].relPath, QStringLiteral("a/b/Relu.r.1.1.1700000000000001"));
    QVERIFY((*index)->errors.empty());
}

void TestBadInput::brokenAndSelfLinks()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath(QStringLiteral("Relu.ok.1.1.1700000000000001")), validDump()));
    QVERIFY(QFile::link(QStringLiteral("Relu.self.2.1.1700000000000002"), dir.filePath(QStringLiteral("Relu.self.2.1.1700000000000002"))));
    QVERIFY(QFile::link(QStringLiteral("nowhere"), dir.filePath(QStringLiteral("Relu.dangling.3.1.1700000000000003"))));
    QVERIFY(QFile::link(QStringLiteral("Relu.ok.1.1.1700000000000001"), dir.filePath(QStringLiteral("Relu.alias.4.1.1700000000000004"))));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(2)); // the file and the link to it
    QCOMPARE(errorOf(**index, QStringLiteral("Relu.self.2.1.1700000000000002")), QStringLiteral("broken symbolic link"));
    QCOMPARE(errorOf(**index, QStringLiteral("Relu.dangling.3.1.1700000000000003")), QStringLiteral("broken symbolic link"));
}

void TestBadInput::specialFilesAreSkipped()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath(QStringLiteral("Relu.ok.1.1.1700000000000001")), validDump()));
    // A FIFO would block a reader forever; a link to /dev/zero never ends.
    QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("Relu.fifo.2.1.1700000000000002"))).constData(), 0600), 0);
    QVERIFY(QFile::link(QStringLiteral("/dev/zero"), dir.filePath(QStringLiteral("Relu.zero.3.1.1700000000000003"))));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(1));
    QVERIFY((*index)->errors.empty());
    // Opened directly, they are refused without reading.
    auto fifo = buildIndex(dir.filePath(QStringLiteral("Relu.fifo.2.1.1700000000000002")));
    QVERIFY(fifo);
    QCOMPARE((*fifo)->errors.size(), size_t(1));
    QCOMPARE((*fifo)->errors[0].message, QStringLiteral("not a regular file"));
}

void TestBadInput::nonUtf8Name()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray name = QFile::encodeName(dir.path()) + "/Relu.bad\xff\xfe_name.1.1.1700000000000001";
    const QByteArray bytes = validDump();
    const int fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    QVERIFY(fd >= 0);
    QCOMPARE(::write(fd, bytes.constData(), size_t(bytes.size())), ssize_t(bytes.size()));
    ::close(fd);
    QVERIFY(writeFile(dir.filePath(QStringLiteral("Relu.ok.2.1.1700000000000002")), bytes));
    auto index = buildIndex(dir.path());
    ::unlink(name.constData()); // QTemporaryDir cannot name it either
    QVERIFY(index);
    // The valid neighbour loads; the undecodable name cannot be opened again through a QString
    // and is reported, never silently dropped.
    QCOMPARE((*index)->ops.size(), size_t(1));
    QCOMPARE((*index)->ops[0].relPath, QStringLiteral("Relu.ok.2.1.1700000000000002"));
    QCOMPARE((*index)->errors.size(), size_t(1));
    QVERIFY2((*index)->errors[0].message.startsWith(QLatin1String("cannot open")), qPrintable((*index)->errors[0].message));
}

void TestBadInput::veryLongName()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // 255 bytes, the longest name Linux file systems allow.
    const QString prefix = QStringLiteral("Relu.");
    const QString suffix = QStringLiteral(".1.1.1700000000000001");
    const QString name = prefix + QString(255 - prefix.size() - suffix.size(), QLatin1Char('n')) + suffix;
    QCOMPARE(name.size(), 255);
    QVERIFY(writeFile(dir.filePath(name), validDump()));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(1));
    QCOMPARE((*index)->ops[0].opName.size(), qsizetype(255 - prefix.size() - suffix.size()));
    QVERIFY(loadAll(**index, 0).isEmpty());
}

void TestBadInput::deepDirectoryNesting()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString rel;
    for (int i = 0; i < 40; ++i)
        rel += QStringLiteral("d/");
    QVERIFY(QDir(dir.path()).mkpath(rel));
    QVERIFY(writeFile(dir.filePath(rel + QStringLiteral("Relu.deep.1.1.1700000000000001")), validDump()));
    QVERIFY(writeFile(dir.filePath(QStringLiteral("d/Relu.shallow.2.1.1700000000000002")), validDump()));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(1));
    QCOMPARE((*index)->errors.size(), size_t(1));
    QVERIFY2((*index)->errors[0].message.contains(QLatin1String("more than 32 nested directories")),
             qPrintable((*index)->errors[0].message));
}

/// A mode-000 file and a mode-000 directory: the index names both with "Permission denied",
/// the neighbour loads; a file that becomes unreadable after indexing fails to load with the
/// same reason. Permission bits do not stop root (CI runs as root), so a process that bypasses
/// them runs this test again in a child without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (still
/// uid 0) and requires that child to pass it; the child first proves that the read is denied.
void TestBadInput::unreadableFile()
{
    if (bypassesPermissionBits()) {
        QVERIFY2(qEnvironmentVariableIsEmpty("DUMPSCOPE_TEST_NO_DAC"),
                 "the child still bypasses permission bits after dropping its capabilities");
        if (!hasCapability(CAP_SETPCAP))
            QSKIP("permission bits do not stop this process and it lacks CAP_SETPCAP to drop that in a child");
        QProcess child;
        child.setProgram(QCoreApplication::applicationFilePath());
        child.setArguments({QStringLiteral("unreadableFile")});
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("DUMPSCOPE_TEST_NO_DAC"), QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.setChildProcessModifier(dropDacCapabilities);
        child.start();
        QVERIFY2(child.waitForFinished(120000), "the child did not finish");
        const QString output = QString::fromLocal8Bit(child.readAll());
        QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
                 qPrintable(QStringLiteral("child exit %1:\n%2").arg(child.exitCode()).arg(output)));
        // It ran the checks (a skip would also exit 0).
        QVERIFY2(output.contains(QLatin1String("PASS   : TestBadInput::unreadableFile()")) && !output.contains(QLatin1String("SKIP")),
                 qPrintable(output));
        return;
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString locked = dir.filePath(QStringLiteral("Relu.locked.1.1.1700000000000001"));
    const QString later = dir.filePath(QStringLiteral("Relu.later.3.1.1700000000000003"));
    QVERIFY(writeFile(locked, validDump()));
    QVERIFY(writeFile(later, validDump()));
    QVERIFY(writeFile(dir.filePath(QStringLiteral("Relu.ok.2.1.1700000000000002")), validDump()));
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("closed/inner")));
    QVERIFY(writeFile(dir.filePath(QStringLiteral("closed/inner/Relu.hidden.4.1.1700000000000004")), validDump()));
    QVERIFY(QFile::setPermissions(locked, {}));
    QVERIFY(QFile::setPermissions(dir.filePath(QStringLiteral("closed")), {}));
    // The read must really be denied, or this test would prove nothing.
    const int fd = ::open(QFile::encodeName(locked).constData(), O_RDONLY);
    const int openErrno = errno;
    if (fd >= 0)
        ::close(fd);
    QVERIFY2(fd < 0 && openErrno == EACCES, "a mode-000 file could be opened: permission bits are not enforced here");

    auto index = buildIndex(dir.path());
    QFile::setPermissions(dir.filePath(QStringLiteral("closed")), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QVERIFY(index);
    QCOMPARE((*index)->errors.size(), size_t(2));
    QCOMPARE(errorOf(**index, QStringLiteral("Relu.locked.1.1.1700000000000001")), QStringLiteral("cannot open: Permission denied"));
    QCOMPARE(errorOf(**index, QStringLiteral("closed")), QStringLiteral("cannot read directory: Permission denied"));
    // The neighbours are indexed and load.
    QCOMPARE((*index)->ops.size(), size_t(2));
    for (int op = 0; op < int((*index)->ops.size()); ++op)
        QVERIFY2(loadAll(**index, op).isEmpty(), qPrintable(loadAll(**index, op)));

    // A file indexed while readable and locked before its tensors are read.
    int laterOp = -1;
    for (size_t op = 0; op < (*index)->ops.size(); ++op)
        if ((*index)->ops[op].opName == QLatin1String("later"))
            laterOp = int(op);
    QVERIFY(laterOp >= 0);
    QVERIFY(QFile::setPermissions(later, {}));
    const QString error = loadAll(**index, laterOp);
    QVERIFY2(error.contains(QLatin1String("Relu.later.3.1.1700000000000003")) && error.contains(QLatin1String("Permission denied")),
             qPrintable(QStringLiteral("got \"%1\"").arg(error)));
}

void TestBadInput::fileShrinksAfterIndexing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("Relu.r.1.1.1700000000000001"));
    QVERIFY(writeFile(path, validDump()));
    auto index = buildIndex(dir.path());
    QVERIFY(index);
    QCOMPARE((*index)->ops.size(), size_t(1));
    QVERIFY(QFile::resize(path, 20));
    auto loaded = loadTensor(**index, {0, 0});
    QVERIFY(!loaded);
    QVERIFY2(loaded.errorText().contains(QLatin1String("changed since it was indexed")), qPrintable(loaded.errorText()));
}

/// Files truncated, emptied and deleted while the index is being built: every file ends up as
/// an operator (read before the change) or an error naming the problem; nothing crashes.
void TestBadInput::filesChangingDuringIndexing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray bytes = validDump();
    constexpr int kFiles = 600;
    QStringList paths;
    for (int i = 0; i < kFiles; ++i) {
        const QString name = QStringLiteral("Relu.r%1.%1.1.%2").arg(i).arg(1700000000000000ULL + std::uint64_t(i));
        paths << dir.filePath(name);
        QVERIFY(writeFile(paths.last(), bytes));
    }
    std::atomic<bool> changed{false};
    auto sink = [&](std::vector<OpRecord>, std::vector<FileError>) {
        if (changed.exchange(true))
            return;
        for (int i = 0; i < kFiles; ++i) {
            if (i % 3 == 0)
                QFile::resize(paths[i], bytes.size() / 2);
            else if (i % 3 == 1)
                QFile::remove(paths[i]);
        }
    };
    auto index = buildIndex(dir.path(), nullptr, sink);
    QVERIFY(index);
    QVERIFY(changed);
    QCOMPARE(qsizetype((*index)->ops.size() + (*index)->errors.size()), qsizetype(kFiles));
    for (const auto &e : (*index)->errors)
        QVERIFY2(e.message.startsWith(QLatin1String("truncated")) || e.message.startsWith(QLatin1String("cannot open"))
                     || e.message.startsWith(QLatin1String("unrecognised dump file")),
                 qPrintable(e.file + QStringLiteral(": ") + e.message));
    QVERIFY(!(*index)->errors.empty());
}

void TestBadInput::nothingRecognised_data()
{
    // files to write (name -> content), the path to open (relative), whether nothing is
    // recognised there, and what the message must say about the path.
    QTest::addColumn<QStringList>("files");
    QTest::addColumn<QString>("open");
    QTest::addColumn<bool>("nothing");
    QTest::addColumn<QString>("says");
    QTest::addRow("empty folder") << QStringList{} << QString() << true << QStringLiteral("holds no files");
    QTest::addRow("text files") << QStringList{QStringLiteral("notes.txt"), QStringLiteral("sub/readme.md")} << QString() << true
                                << QStringLiteral("none of the 2 file(s) in");
    QTest::addRow("a lone file") << QStringList{QStringLiteral("notes.txt")} << QStringLiteral("notes.txt") << true
                                 << QStringLiteral("is no file DumpScope reads");
    // Recognised: a file a reader took, even unreadable, says what is wrong with it instead.
    QTest::addRow("empty dump.json") << QStringList{QStringLiteral("rank0/dump.json")} << QString() << false << QString();
    QTest::addRow("broken CANN dump") << QStringList{QStringLiteral("Relu.r.1.1.1700000000000001")} << QString() << false << QString();
}

void TestBadInput::nothingRecognised()
{
    QFETCH(QStringList, files);
    QFETCH(QString, open);
    QFETCH(bool, nothing);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QString &f : files) {
        QVERIFY(QDir(dir.path()).mkpath(QFileInfo(dir.filePath(f)).path()));
        QVERIFY(writeFile(dir.filePath(f), f.endsWith(QLatin1String(".json")) ? QByteArray("{}") : QByteArray("hello\n")));
    }
    const QString path = open.isEmpty() ? dir.path() : dir.filePath(open);
    auto index = buildIndex(path);
    QVERIFY(index);
    QCOMPARE(recognisedNothing(**index), nothing);
    if (!nothing) {
        QVERIFY(!(*index)->errors.empty()); // the file that was taken says what is wrong
        return;
    }
    const QString message = nothingRecognisedMessage(**index);
    QVERIFY2(message.startsWith(QStringLiteral("Nothing recognised here: ")), qPrintable(message));
    QVERIFY2(message.contains(QFileInfo(path).absoluteFilePath()), qPrintable(message));
    QVERIFY2(message.contains(says), qPrintable(message));
    for (const DumpReader *reader : dumpReaders()) // what it looked for: every format
        QVERIFY2(message.contains(reader->description()), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("ge_proto_*")) && message.contains(QStringLiteral("*.vis.db")), qPrintable(message));
}

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
