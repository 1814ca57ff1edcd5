// torch.utils.dumper .h5 files: layout, attributes and values as h5py wrote them
// (samples/h5npy_manifest.json from samples/generate_h5npy.py), bad files beside good ones,
// chunked hyperslab reads, and "Export selection as .h5" checked by h5py itself. Indexing,
// loading and exporting run libhdf5 in a dumpscope-h5worker process: the same result as
// in-process, and a library crash (the fuzzer's libhdf5 1.10.8 bug files, an injected SIGSEGV)
// stays an error naming the file, in every build (under ASan the worker is sanitized too).
#include "index/tensorexport.h"
#include "formats/readers.h"
#include "index/buildindex.h"
#include "formats/h5/h5dumper.h"
#include "formats/h5/h5isolate.h"
#include "formats/h5/h5loader.h"
#include "index/tensorloader.h"
#include "tensor/dtype.h"
#include "util/buildflags.h"
#include "partcompare.h"
#include "partindex.h"
#include "cancelafter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <sys/wait.h>
#include <thread>

using namespace ds;
using namespace ds::testing;

namespace {

const QString kSamples = QStringLiteral(DUMPSCOPE_SAMPLES);
const QString kPython = QStringLiteral("/usr/bin/python3");
const QString kLibraryBugs = QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/fuzz/library_bugs/h5dumper");

bool copyInto(const QString &from, const QString &dir, const QString &rel)
{
    const QString to = dir + QLatin1Char('/') + rel;
    return QDir().mkpath(QFileInfo(to).absolutePath()) && QFile::copy(from, to);
}

qsizetype opsFrom(const DumpIndex &index, const QString &dataFile)
{
    return std::count_if(index.ops.begin(), index.ops.end(), [&](const OpRecord &op) { return op.dataFile == dataFile; });
}

QJsonArray manifestFiles()
{
    QFile f(kSamples + QStringLiteral("/h5npy_manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("h5")).toArray();
}

QJsonObject manifestFile(const QString &file)
{
    for (const auto &v : manifestFiles())
        if (v.toObject().value(QStringLiteral("file")).toString() == file)
            return v.toObject();
    return {};
}

/// The worker sleeps `seconds` before answering (a hang).
h5::Fault sleepFor(qint32 seconds)
{
    h5::Fault f;
    f.kind = h5::Fault::Kind::Sleep;
    f.value = seconds;
    return f;
}

h5::Fault segv()
{
    h5::Fault f;
    f.kind = h5::Fault::Kind::Signal;
    f.value = SIGSEGV;
    return f;
}

/// True when this process has no child at all (running or zombie).
bool noChildren()
{
    errno = 0;
    return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

/// The /proc/self/maps name of the mapping holding `p` ("" if none).
QString mappingName(const void *p)
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        return {};
    const auto address = quintptr(p);
    for (const QByteArray &line : maps.readAll().split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        const QList<QByteArray> range = fields.value(0).split('-');
        bool ok1 = false, ok2 = false;
        const quintptr begin = range.value(0).toULongLong(&ok1, 16), end = range.value(1).toULongLong(&ok2, 16);
        if (ok1 && ok2 && address >= begin && address < end)
            return QString::fromUtf8(fields.mid(5).join(' '));
    }
    return {};
}

bool havePythonH5py()
{
    QProcess p;
    p.start(kPython, {QStringLiteral("-c"), QStringLiteral("import h5py, numpy")});
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestH5Dumper : public QObject
{
    Q_OBJECT
private slots:
    // The isolated indexFile gives exactly what the in-process one gives, field by field,
    // with the caller's levels on every operator.
    void isolatedEqualsInProcess_data()
    {
        QTest::addColumn<QString>("file");
        for (const auto &v : manifestFiles())
            QTest::addRow("%s", qPrintable(v.toObject().value(QStringLiteral("file")).toString()))
                << v.toObject().value(QStringLiteral("file")).toString();
        QTest::addRow("missing") << QStringLiteral("h5/none.h5");
    }
    void isolatedEqualsInProcess()
    {
        QFETCH(QString, file);
        DumpLevels levels;
        levels.part = QStringLiteral("h5");
        levels.rank = QStringLiteral("rank0");
        levels.modelName = QFileInfo(file).fileName();
        const auto local = h5dumper::indexFileInProcess(kSamples, file, levels);
        const auto isolated = h5dumper::indexFile(kSamples, file, levels);
        QVERIFY(local.ok() && isolated.ok());
        QVERIFY(!local->ops.empty() || !local->errors.empty());
        testing::compareParts(*isolated, *local, true);
        if (QTest::currentTestFailed())
            return;
        for (const OpRecord &op : isolated->ops)
            QCOMPARE(&*op.levels, &*isolated->ops.front().levels); // one shared copy
    }

    // tests/fuzz/library_bugs/h5dumper: inputs that crash libhdf5 1.10.8 (ASan reports on all
    // of them; "-segv-" ones crash any build, the wild read crashes depending on heap contents).
    // Through the public indexFile and loadH5Tensor our process survives; whatever the library
    // does, errors name the file, and a good file elsewhere in the tree still loads completely.
    // In an ASan build the worker is sanitized too: every one of them must then end in a real
    // sanitizer report inside the worker, and that must come back as the file's error.
    void libraryBugInputIsContained_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("crashesLibrary"); // in every build, not only under ASan
        const QDir dir(kLibraryBugs);
        const QStringList files = dir.entryList({QStringLiteral("*.h5")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 4);
        for (const QString &f : files)
            QTest::addRow("%s", qPrintable(f)) << dir.filePath(f) << f.contains(QLatin1String("-segv-"));
    }
    void libraryBugInputIsContained()
    {
        QFETCH(QString, file);
        QFETCH(bool, crashesLibrary);
        QTemporaryDir dir;
        const QString bad = QStringLiteral("broken/damaged.h5"), good = QStringLiteral("good/model_npu.h5");
        QVERIFY(copyInto(file, dir.path(), bad));
        QVERIFY(copyInto(kSamples + QStringLiteral("/h5/model_npu.h5"), dir.path(), good));

        const auto part = h5dumper::indexFile(dir.path(), bad, {});
        QVERIFY(part.ok());
        for (const FileError &e : part->errors) {
            qInfo().noquote() << e.file << e.message;
            QCOMPARE(e.file, bad);
            QVERIFY(!e.message.isEmpty());
        }
        const bool libraryDied = std::any_of(part->errors.begin(), part->errors.end(), [](const FileError &e) {
            return e.message.startsWith(QLatin1String("HDF5 library crashed")) || e.message.startsWith(QLatin1String("HDF5 library failed"));
        });
        if (crashesLibrary || kAddressSanitizer)
            QVERIFY(libraryDied);
        // Whatever was indexed loads or fails with a message naming the file.
        auto index = indexOfPart(dir.path(), *part, u"h5");
        for (size_t o = 0; o < index->ops.size(); ++o) {
            const OpRecord &op = index->ops[o];
            QCOMPARE(op.dataFile, bad);
            for (const TensorRecord &rec : op.tensors) {
                if (rec.storage() != TensorStorage::H5Dataset)
                    continue;
                const auto t = loadH5Tensor(*index, op, rec, nullptr);
                if (!t.ok())
                    QVERIFY2(t.errorText().startsWith(bad), qPrintable(t.errorText()));
            }
        }

        const auto tree = buildIndex(dir.path());
        QVERIFY2(tree.ok(), qPrintable(tree.errorText()));
        QCOMPARE(opsFrom(**tree, good), manifestFile(QStringLiteral("h5/model_npu.h5")).value(QStringLiteral("ops")).toArray().size());
        for (const FileError &e : (*tree)->errors)
            QVERIFY2(e.file == bad, qPrintable(e.file + QStringLiteral(": ") + e.message));
    }

    // A damaged datatype message made a 1-element value dataset 1.9 GB wide per element: reading
    // it made libhdf5 allocate and fill 2 GB (libFuzzer out-of-memory). Values whose number
    // type is wider than 16 bytes are refused before any read.
    void absurdValueTypeIsNotRead()
    {
        QTemporaryDir dir;
        const QString rel = QStringLiteral("model.h5");
        QVERIFY(copyInto(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/fuzz/regressions/h5dumper/oom-value-type-1929379844-bytes-wide.h5"),
                         dir.path(), rel));
        const auto part = h5dumper::indexFileInProcess(dir.path(), rel, {});
        QVERIFY(part.ok());
        QVERIFY(std::any_of(part->errors.begin(), part->errors.end(), [&](const FileError &e) {
            return e.file == rel && e.message == QLatin1String("/to/7/input/dtype: the value's number type is 1929379844 bytes wide; not read");
        }));
    }

    // A worker that crashes (test fault: SIGSEGV before indexing) is one error naming the .h5
    // file; the .npy files of the same tree still load.
    void crashingWorkerLeavesTheRestOfTheTree()
    {
        QTemporaryDir dir;
        const QString h5 = QStringLiteral("run/model_npu.h5");
        QVERIFY(copyInto(kSamples + QStringLiteral("/h5/model_npu.h5"), dir.path(), h5));
        for (const char *npy : {"Tensor_float32_0.npy", "weights.npy"})
            QVERIFY(copyInto(kSamples + QStringLiteral("/npy/loose/") + QLatin1String(npy), dir.path(),
                             QStringLiteral("tensors/") + QLatin1String(npy)));
        h5::setWorkerFaultForTesting(segv());
        const auto index = buildIndex(dir.path());
        h5::setWorkerFaultForTesting({});
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const auto &errors = (*index)->errors;
        QCOMPARE(errors.size(), size_t(1));
        QCOMPARE(errors[0].file, h5);
        QCOMPARE(errors[0].kind, ErrorKind::ReaderFailed);
        QVERIFY2(errors[0].message.contains(QLatin1String("HDF5 library crashed while reading this file (signal 11, SIGSEGV)")),
                 qPrintable(errors[0].message));
        QCOMPARE(opsFrom(**index, h5), 0);
        QVERIFY(std::any_of((*index)->ops.begin(), (*index)->ops.end(),
                            [](const OpRecord &op) { return sourceFormatName(op.source) == u"npy"; }));
        // Without the fault the same tree loads the .h5 operators.
        const auto again = buildIndex(dir.path());
        QVERIFY(again.ok());
        QVERIFY((*again)->errors.empty());
        QCOMPARE(opsFrom(**again, h5), manifestFile(QStringLiteral("h5/model_npu.h5")).value(QStringLiteral("ops")).toArray().size());
    }

    // Indexing and loading at once from several threads, each through its own worker.
    void indexWhileLoading()
    {
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        std::vector<DumpIndex::TensorRef> datasets;
        for (int o = 0; o < int(index->ops.size()); ++o)
            for (int t = 0; t < int(index->ops[size_t(o)].tensors.size()); ++t)
                if (index->ops[size_t(o)].tensors[size_t(t)].storage() == TensorStorage::H5Dataset)
                    datasets.push_back({o, t});
        QVERIFY(datasets.size() > 20);
        std::atomic<int> loads{0}, failed{0};
        std::thread reader([&] {
            for (int i = 0; i < 3; ++i)
                for (const DumpIndex::TensorRef &id : datasets)
                    ++(loadTensor(*index, id).ok() ? loads : failed);
        });
        int indexed = 0;
        for (int i = 0; i < 20; ++i) {
            const auto again = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
            indexed += again.ok() && again->ops.size() == index->ops.size() && again->errors.empty();
        }
        reader.join();
        QCOMPARE(indexed, 20);
        QCOMPARE(loads.load(), 3 * int(datasets.size()));
        QCOMPARE(failed.load(), 0);
        h5::releaseIdleWorkers();
        QVERIFY(noChildren());
    }

    // Tensor reads run libhdf5 in a worker too: the bytes equal the in-process read and live in
    // the shared memory the worker wrote (no copy); a crash there is an error naming the file
    // and the dataset, a reader that hangs can be cancelled.
    void isolatedTensorLoads()
    {
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const int o = index->opIndex(QStringLiteral("h5/model_npu.h5/NpuConvolutionBackward/5"));
        QVERIFY(o >= 0);
        const OpRecord &op = index->ops[size_t(o)];
        const auto weight = std::find_if(op.tensors.begin(), op.tensors.end(),
                                         [](const TensorRecord &r) { return r.name() == QLatin1String("weight"); });
        QVERIFY(weight != op.tensors.end());
        const auto local = loadH5TensorInProcess(*index, op, *weight, nullptr, 64);
        const auto isolated = loadH5Tensor(*index, op, *weight, nullptr, 64);
        QVERIFY(local.ok() && isolated.ok());
        QVERIFY((*local)->view.count > 0);
        QCOMPARE((*isolated)->view.count, (*local)->view.count);
        QCOMPARE((*isolated)->view.elem, (*local)->view.elem);
        QCOMPARE(loadedBytes(**isolated), loadedBytes(**local));
        QCOMPARE((*isolated)->notes, (*local)->notes);
        QVERIFY((*isolated)->keepAlive);
        QVERIFY((*isolated)->owned.empty());
        QVERIFY2(mappingName((*isolated)->view.data).contains(QLatin1String("memfd:dumpscope-h5-tensor")),
                 qPrintable(mappingName((*isolated)->view.data)));

        h5::setWorkerFaultForTesting(segv());
        const auto crashed = loadH5Tensor(*index, op, *weight, nullptr);
        QVERIFY(!crashed.ok());
        QCOMPARE(crashed.error().kind, ErrorKind::ReaderFailed);
        QVERIFY2(crashed.errorText().startsWith(QStringLiteral("h5/model_npu.h5: ") + weight->location() + QStringLiteral(": HDF5 library crashed")),
                 qPrintable(crashed.errorText()));
        // The same during the read, after the size was agreed.
        h5::Fault atGo = segv();
        atGo.atGo = true;
        h5::setWorkerFaultForTesting(atGo);
        const auto crashedReading = loadH5Tensor(*index, op, *weight, nullptr);
        QVERIFY(!crashedReading.ok());
        QVERIFY2(crashedReading.errorText().contains(QLatin1String("HDF5 library crashed")), qPrintable(crashedReading.errorText()));

        h5::setWorkerFaultForTesting(sleepFor(600));
        CancelAfter canceller(std::chrono::milliseconds(300));
        QElapsedTimer timer;
        timer.start();
        const auto cancelled = loadH5Tensor(*index, op, *weight, canceller.job());
        const qint64 ms = timer.elapsed();
        canceller.join();
        h5::setWorkerFaultForTesting({});
        QVERIFY(cancelled.isCancelled());
        QCOMPARE(cancelled.errorText(), QStringLiteral("cancelled"));
        QVERIFY2(ms < 120'000, qPrintable(QString::number(ms))); // not the worker's 600 s
        h5::releaseIdleWorkers();
        QVERIFY(noChildren());
    }

    // The parent believes no size the worker did not check against the record: a worker that
    // answers another byte count is refused before any memory is made for it, and the memory
    // it gets is sealed (it can neither shrink it under our mapping nor grow it).
    void workerSizesAreChecked_data()
    {
        QTest::addColumn<int>("extra");
        QTest::addRow("one byte more") << 1;
        QTest::addRow("2^62 bytes") << 0;
    }
    void workerSizesAreChecked()
    {
        QFETCH(int, extra);
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const int o = index->opIndex(QStringLiteral("h5/model_npu.h5/NpuConvolutionBackward/5"));
        QVERIFY(o >= 0);
        const OpRecord &op = index->ops[size_t(o)];
        const auto weight = std::find_if(op.tensors.begin(), op.tensors.end(),
                                         [](const TensorRecord &r) { return r.name() == QLatin1String("weight"); });
        QVERIFY(weight != op.tensors.end());
        const TensorRecord &rec = *weight;
        h5::Fault lie;
        lie.kind = h5::Fault::Kind::LieSize;
        lie.value = extra;
        h5::setWorkerFaultForTesting(lie);
        const auto r = loadH5Tensor(*index, op, rec, nullptr);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::ReaderFailed);
        QCOMPARE(r.errorText(), QStringLiteral("h5/model_npu.h5: %1: the HDF5 reader process sent a garbled answer").arg(rec.location()));
        QCOMPARE(h5::idleWorkers(), 0); // a worker that lied is not used again

        h5::Fault resize;
        resize.kind = h5::Fault::Kind::ResizeData;
        resize.atGo = true;
        h5::setWorkerFaultForTesting(resize);
        const auto sealed = loadH5Tensor(*index, op, rec, nullptr);
        h5::setWorkerFaultForTesting({});
        QVERIFY2(sealed.ok(), qPrintable(sealed.errorText()));
        const auto local = loadH5TensorInProcess(*index, op, rec, nullptr);
        QVERIFY(local.ok());
        QCOMPARE(loadedBytes(**sealed), loadedBytes(**local));
    }

    // Export copies with libhdf5 in a worker: a crash there or a cancel leaves no file behind,
    // and the error names the source file.
    void exportThroughWorker()
    {
        const QString file = QStringLiteral("h5/model_npu.h5");
        auto part = h5dumper::indexFile(kSamples, file, {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const std::vector<int> one{index->opIndex(file + QStringLiteral("/cat/2"))};
        QVERIFY(one[0] >= 0);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("x.h5"));
        h5::setWorkerFaultForTesting(segv());
        auto r = h5dumper::exportOps(*index, one, out);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::ReaderFailed);
        QVERIFY2(r.errorText().startsWith(file + QStringLiteral(": HDF5 library crashed")), qPrintable(r.errorText()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());

        h5::setWorkerFaultForTesting(sleepFor(600));
        CancelAfter canceller(std::chrono::milliseconds(300));
        r = h5dumper::exportOps(*index, one, out, {}, canceller.job());
        canceller.join();
        h5::setWorkerFaultForTesting({});
        QVERIFY(r.isCancelled());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
        r = h5dumper::exportOps(*index, one, out);
        QVERIFY2(r.ok() && *r == 1, qPrintable(r.ok() ? QString::number(*r) : r.errorText()));
        h5::releaseIdleWorkers();
        QVERIFY(noChildren());
    }

    void decoders()
    {
        using enum DataType;
        const std::pair<int, DataType> codes[] = {{1, Float32}, {2, UInt8}, {3, Int8}, {5, Int16}, {6, Int32},
                                                  {7, Int64}, {9, Bool}, {10, Float16}, {11, Float64}};
        for (const auto &[code, type] : codes)
            QCOMPARE(h5dumper::dataTypeFromCode(code), int(type));
        QCOMPARE(h5dumper::dataTypeFromCode(4), -1);
        QCOMPARE(h5dumper::dataTypeCodeName(8), QStringLiteral("code 8"));
        QCOMPARE(h5dumper::deviceTypeName(0), QStringLiteral("CPU"));
        QCOMPARE(h5dumper::deviceTypeName(1), QStringLiteral("CUDA"));
        QCOMPARE(h5dumper::deviceTypeName(10), QStringLiteral("NPU"));
        QCOMPARE(h5dumper::saveTypeName(0), QStringLiteral("TENSOR"));
        QCOMPARE(h5dumper::saveTypeName(18), QStringLiteral("TENSOR_OPTS"));
        QCOMPARE(h5dumper::saveTypeName(19), QStringLiteral("SaveType 19"));
    }

    // Every sample .h5 (good and bad): operators in seqId order, tensors and values with their
    // attributes decoded, warnings, and the expected errors for the bad objects.
    void indexSamples_data()
    {
        QTest::addColumn<QJsonObject>("expected");
        const QJsonArray files = manifestFiles();
        QVERIFY(files.size() >= 4);
        for (const auto &v : files)
            QTest::addRow("%s", qPrintable(v.toObject().value(QStringLiteral("file")).toString())) << v.toObject();
    }
    void indexSamples()
    {
        QFETCH(QJsonObject, expected);
        const QString file = expected.value(QStringLiteral("file")).toString();
        DumpLevels levels;
        levels.part = QStringLiteral("h5");
        auto part = h5dumper::indexFile(kSamples, file, levels);
        QVERIFY2(part.ok(), qPrintable(part.errorText()));

        const QJsonArray errors = expected.value(QStringLiteral("errors")).toArray();
        for (const auto &e : part->errors)
            qInfo().noquote() << e.file << e.message;
        QCOMPARE(part->errors.size(), size_t(errors.size()));
        for (const auto &ev : errors) {
            const QString text = ev.toObject().value(QStringLiteral("contains")).toString();
            const bool found = std::any_of(part->errors.begin(), part->errors.end(), [&](const FileError &e) {
                return e.file == file && e.message.contains(text);
            });
            QVERIFY2(found, qPrintable(text));
        }

        const QJsonArray ops = expected.value(QStringLiteral("ops")).toArray();
        QCOMPARE(part->ops.size(), size_t(ops.size()));
        for (qsizetype i = 0; i < ops.size(); ++i) {
            const QJsonObject eo = ops[i].toObject();
            const OpRecord &op = part->ops[size_t(i)];
            QCOMPARE(op.relPath, eo.value(QStringLiteral("relPath")).toString());
            QCOMPARE(op.dataFile, file);
            QCOMPARE(op.opName, eo.value(QStringLiteral("opName")).toString());
            QCOMPARE(op.opType, op.opName);
            QCOMPARE(op.timestamp, std::uint64_t(eo.value(QStringLiteral("seqId")).toInt()));
            QCOMPARE(op.levels->part, QStringLiteral("h5"));
            const QJsonArray warnings = eo.value(QStringLiteral("warnings")).toArray();
            QCOMPARE(op.warnings().size(), warnings.size());
            for (const auto &w : warnings)
                QVERIFY2(op.warnings().join(QLatin1Char('\n')).contains(w.toString()), qPrintable(op.warnings().join(QLatin1Char('\n'))));
            const QJsonArray tensors = eo.value(QStringLiteral("tensors")).toArray();
            QCOMPARE(op.tensors.size(), size_t(tensors.size()));
            for (qsizetype j = 0; j < tensors.size(); ++j) {
                const QJsonObject et = tensors[j].toObject();
                const TensorRecord &t = op.tensors[size_t(j)];
                const QString where = op.relPath + QLatin1Char(' ') + t.location();
                QCOMPARE(t.location(), et.value(QStringLiteral("path")).toString());
                QCOMPARE(t.name(), et.value(QStringLiteral("name")).toString());
                QCOMPARE(t.io(), et.value(QStringLiteral("io")).toString() == QLatin1String("input") ? IoKind::Input : IoKind::Output);
                QCOMPARE(t.index(), std::uint32_t(et.value(QStringLiteral("index")).toInt()));
                QVERIFY2(t.typeName() == et.value(QStringLiteral("typeName")).toString(), qPrintable(where + QLatin1Char(' ') + t.typeName()));
                if (et.value(QStringLiteral("storage")).toString() == QLatin1String("value")) {
                    QCOMPARE(t.storage(), TensorStorage::Value);
                    QVERIFY2(t.value() == et.value(QStringLiteral("value")).toString(), qPrintable(where + QLatin1Char(' ') + t.value()));
                } else {
                    QCOMPARE(t.storage(), TensorStorage::H5Dataset);
                    QCOMPARE(dataTypeName(t.dataType()), et.value(QStringLiteral("dtype")).toString());
                    QCOMPARE(t.shape(), shapeOf(et.value(QStringLiteral("shape")).toArray()));
                    QCOMPARE(t.format(), et.value(QStringLiteral("format")).toInt());
                }
            }
        }
    }

    // Every tensor dataset loads to the bytes h5py read, through loadTensor and through
    // hyperslab reads of a few bytes (exercising the tiling over several dimensions).
    void loadSamples_data()
    {
        QTest::addColumn<quint64>("chunkBytes");
        QTest::addRow("default") << quint64(8u << 20);
        QTest::addRow("64 bytes") << quint64(64);
        QTest::addRow("1 byte") << quint64(1);
    }
    void loadSamples()
    {
        QFETCH(quint64, chunkBytes);
        int loaded = 0;
        for (const auto &fv : manifestFiles()) {
            const QJsonObject f = fv.toObject();
            const QString file = f.value(QStringLiteral("file")).toString();
            auto part = h5dumper::indexFile(kSamples, file, {});
            QVERIFY(part.ok());
            auto index = indexOfPart(kSamples, std::move(*part), u"h5");
            for (const auto &ov : f.value(QStringLiteral("ops")).toArray()) {
                const QJsonObject eo = ov.toObject();
                const int o = index->opIndex(eo.value(QStringLiteral("relPath")).toString());
                QVERIFY(o >= 0);
                const OpRecord &op = index->ops[size_t(o)];
                const QJsonArray tensors = eo.value(QStringLiteral("tensors")).toArray();
                for (qsizetype j = 0; j < tensors.size(); ++j) {
                    const QJsonObject et = tensors[j].toObject();
                    if (et.value(QStringLiteral("storage")).toString() != QLatin1String("h5"))
                        continue;
                    const auto t = chunkBytes == (8u << 20) ? loadTensor(*index, {o, int(j)})
                                                            : loadH5Tensor(*index, op, op.tensors[size_t(j)], nullptr, chunkBytes);
                    QVERIFY2(t.ok(), qPrintable(t.errorText()));
                    QCOMPARE((*t)->shape, op.tensors[size_t(j)].shape());
                    QCOMPARE((*t)->view.elem, dataTypeInfo(op.tensors[size_t(j)].dataType()).elem);
                    QVERIFY2(loadedBytes(**t) == QByteArray::fromBase64(et.value(QStringLiteral("bytes")).toString().toLatin1()),
                             qPrintable(op.relPath + QLatin1Char(' ') + op.tensors[size_t(j)].location()));
                    ++loaded;
                }
            }
        }
        QVERIFY(loaded > 40);
    }

    void decodedValues()
    {
        // uint8 written with a signed file type, and bool: decoded as the DataType code says.
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const int sum = index->opIndex(QStringLiteral("h5/model_npu.h5/sum/9"));
        QVERIFY(sum >= 0);
        const auto &tensors = index->ops[size_t(sum)].tensors;
        const auto self = std::find_if(tensors.begin(), tensors.end(), [](const TensorRecord &r) {
            return r.io() == IoKind::Input && r.name() == QLatin1String("self");
        });
        QVERIFY(self != tensors.end());
        QCOMPARE(self->typeName(), QStringLiteral("uint8"));
        const auto t = loadTensor(*index, {sum, int(self - tensors.begin())});
        QVERIFY2(t.ok(), qPrintable(t.errorText()));
        QCOMPARE((*t)->view.elem, Elem::U8);
        QCOMPARE(elemToDouble(Elem::U8, (*t)->view.data, 2), 200.0);
        QCOMPARE(elemToDouble(Elem::U8, (*t)->view.data, 4), 255.0);
        const int numpyT = index->opIndex(QStringLiteral("h5/model_npu.h5/numpy_T/1"));
        const auto half = loadTensor(*index, {numpyT, 0});
        QVERIFY(half.ok());
        QCOMPARE((*half)->view.elem, Elem::F32);
        QVERIFY((*half)->notes.join(QLatin1Char(' ')).contains(QLatin1String("float16 (stored as float32)")));
    }

    void cancelBetweenChunks()
    {
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const int o = index->opIndex(QStringLiteral("h5/model_npu.h5/NpuConvolutionBackward/5"));
        QVERIFY(o >= 0);
        const OpRecord &op = index->ops[size_t(o)];
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        const auto weight = std::find_if(op.tensors.begin(), op.tensors.end(),
                                         [](const TensorRecord &r) { return r.name() == QLatin1String("weight"); });
        QVERIFY(weight != op.tensors.end());
        const auto t = loadH5Tensor(*index, op, *weight, &job, 16);
        QVERIFY(!t.ok());
        QCOMPARE(t.errorText(), QStringLiteral("cancelled"));
        cancel = false;
        QVERIFY(loadH5Tensor(*index, op, *weight, &job, 16).ok());
        // A value leaf is not a dataset to load.
        const auto groups = std::find_if(op.tensors.begin(), op.tensors.end(),
                                         [](const TensorRecord &r) { return r.name() == QLatin1String("groups"); });
        QVERIFY(groups != op.tensors.end());
        const auto value = loadH5Tensor(*index, op, *groups, nullptr);
        QVERIFY(!value.ok());
        QCOMPARE(value.error().kind, ErrorKind::NoData);
        QVERIFY2(value.errorText().contains(QLatin1String("/input/groups: not a tensor dataset")), qPrintable(value.errorText()));
    }

    void sniffAndUserBlock()
    {
        QVERIFY(h5dumper::looksLikeHdf5(kSamples + QStringLiteral("/h5/model_npu.h5")));
        QVERIFY(!h5dumper::looksLikeHdf5(kSamples + QStringLiteral("/h5/bad/not_hdf5.h5")));
        QVERIFY(!h5dumper::looksLikeHdf5(kSamples + QStringLiteral("/npy/loose/weights.npy")));
        QVERIFY(!h5dumper::looksLikeHdf5(kSamples + QStringLiteral("/h5/missing.h5")));
        // A 512-byte user block in front of the superblock (what h5jam writes): the signature is
        // at offset 512 and HDF5 addresses are relative to it.
        QTemporaryDir dir;
        QFile src(kSamples + QStringLiteral("/h5/model_npu.h5"));
        QVERIFY(src.open(QIODevice::ReadOnly));
        QFile dst(dir.filePath(QStringLiteral("ub.h5")));
        QVERIFY(dst.open(QIODevice::WriteOnly));
        dst.write(QByteArray(512, 'u'));
        dst.write(src.readAll());
        dst.close();
        QVERIFY(h5dumper::looksLikeHdf5(dst.fileName()));
        auto part = h5dumper::indexFile(dir.path(), QStringLiteral("ub.h5"), {});
        QVERIFY(part.ok());
        QVERIFY2(part->errors.empty(), qPrintable(part->errors.empty() ? QString() : part->errors[0].message));
        QCOMPARE(part->ops.size(), size_t(manifestFile(QStringLiteral("h5/model_npu.h5")).value(QStringLiteral("ops")).toArray().size()));
    }

    void missingFileAndCancel()
    {
        auto part = h5dumper::indexFile(kSamples, QStringLiteral("h5/none.h5"), {});
        QVERIFY(part.ok());
        QCOMPARE(part->errors.size(), size_t(1));
        QCOMPARE(part->errors[0].message, QStringLiteral("no such file"));
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        const auto cancelled = h5dumper::indexFile(kSamples, QStringLiteral("h5/model_npu.h5"), {}, &job);
        QVERIFY(!cancelled.ok());
        QCOMPARE(cancelled.errorText(), QStringLiteral("cancelled"));
    }

    void changedFileIsRefused()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(kSamples + QStringLiteral("/h5/model_npu.h5"), dir.filePath(QStringLiteral("m.h5"))));
        auto part = h5dumper::indexFile(dir.path(), QStringLiteral("m.h5"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(dir.path(), std::move(*part), u"h5");
        QVERIFY(loadTensor(*index, {0, 0}).ok());
        QFile f(dir.filePath(QStringLiteral("m.h5")));
        QVERIFY(f.open(QIODevice::Append));
        f.write("tail");
        f.close();
        const auto t = loadTensor(*index, {0, 0});
        QVERIFY(!t.ok());
        QVERIFY2(t.errorText().contains(QLatin1String("changed since it was indexed")), qPrintable(t.errorText()));
    }

    // Export two operators; h5py compares the new file with the source (datasets, values,
    // attributes, chunking, compression) and our reader indexes and loads it the same way.
    void exportTwoOps()
    {
        const QString file = QStringLiteral("h5/model_npu.h5");
        auto part = h5dumper::indexFile(kSamples, file, {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const QString groups[] = {QStringLiteral("/AddmmBackward/4"), QStringLiteral("/NpuConvolutionBackward/5")};
        std::vector<int> selected;
        for (const QString &g : groups) {
            const int o = index->opIndex(file + g);
            QVERIFY(o >= 0);
            selected.push_back(o);
        }
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("output.h5"));
        const auto written = h5dumper::exportOps(*index, selected, out);
        QVERIFY2(written.ok(), qPrintable(written.errorText()));
        QCOMPARE(*written, 2);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("output.h5")});

        // Our reader: the same operators, tensors and bytes.
        auto back = h5dumper::indexFile(dir.path(), QStringLiteral("output.h5"), {});
        QVERIFY(back.ok());
        QVERIFY(back->errors.empty());
        QCOMPARE(back->ops.size(), size_t(2));
        auto exported = indexOfPart(dir.path(), std::move(*back), u"h5");
        for (int k = 0; k < 2; ++k) {
            const OpRecord &a = index->ops[size_t(selected[size_t(k)])];
            const int o = exported->opIndex(QStringLiteral("output.h5") + groups[k]);
            QVERIFY(o >= 0);
            const OpRecord &b = exported->ops[size_t(o)];
            QCOMPARE(b.tensors.size(), a.tensors.size());
            for (size_t j = 0; j < a.tensors.size(); ++j) {
                QCOMPARE(b.tensors[j].location(), a.tensors[j].location());
                QCOMPARE(b.tensors[j].typeName(), a.tensors[j].typeName());
                QCOMPARE(b.tensors[j].value(), a.tensors[j].value());
                QCOMPARE(b.tensors[j].format(), a.tensors[j].format());
                if (a.tensors[j].storage() != TensorStorage::H5Dataset)
                    continue;
                const auto ta = loadTensor(*index, {selected[size_t(k)], int(j)});
                const auto tb = loadTensor(*exported, {o, int(j)});
                QVERIFY(ta.ok() && tb.ok());
                QCOMPARE(loadedBytes(**tb), loadedBytes(**ta));
            }
        }

        // h5py: exactly these groups, equal to the source.
        if (!havePythonH5py())
            QSKIP("/usr/bin/python3 with h5py is not available for the independent check");
        QProcess py;
        py.setProcessChannelMode(QProcess::MergedChannels);
        py.start(kPython, {QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/core/check_h5export.py"),
                           kSamples + QLatin1Char('/') + file, out, groups[0], groups[1]});
        QVERIFY(py.waitForFinished(120000));
        const QString report = QString::fromUtf8(py.readAll());
        QVERIFY2(py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0, qPrintable(report));
        QVERIFY2(report.contains(QLatin1String("checked 2 groups: OK")), qPrintable(report));
    }

    void exportRefusals()
    {
        const QString file = QStringLiteral("h5/model_npu.h5");
        auto part = h5dumper::indexFile(kSamples, file, {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"h5");
        const std::vector<int> one{index->opIndex(file + QStringLiteral("/cat/2"))};
        QVERIFY(one[0] >= 0);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("x.h5"));
        QFile existing(out);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.write("keep me");
        existing.close();

        auto r = h5dumper::exportOps(*index, one, out);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("exists; not overwritten")), qPrintable(r.errorText()));
        QVERIFY(existing.open(QIODevice::ReadOnly));
        QCOMPARE(existing.readAll(), QByteArray("keep me"));
        existing.close();

        h5dumper::ExportOptions force;
        force.force = true;
        r = h5dumper::exportOps(*index, one, out, force);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QVERIFY(h5dumper::looksLikeHdf5(out));

        r = h5dumper::exportOps(*index, one, kSamples + QStringLiteral("/h5/exported.h5"));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("refusing to write inside the opened dump")), qPrintable(r.errorText()));
        QVERIFY(!QFile::exists(kSamples + QStringLiteral("/h5/exported.h5")));

        r = h5dumper::exportOps(*index, {}, dir.filePath(QStringLiteral("y.h5")));
        QVERIFY(!r.ok());
        r = h5dumper::exportOps(*index, {one[0], one[0]}, dir.filePath(QStringLiteral("twice.h5")));
        QVERIFY2(r.ok() && *r == 1, qPrintable(r.ok() ? QString::number(*r) : r.errorText()));

        // Only .h5 operators can be exported (through their reader), and nothing is left
        // behind on failure.
        r = exportOps(*index, one, dir.filePath(QStringLiteral("ok.h5")), false);
        QVERIFY2(r.ok() && *r == 1, qPrintable(r.ok() ? QString::number(*r) : r.errorText()));
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("ok.h5"))));
        auto npuIndex = std::make_shared<DumpIndex>(*index);
        npuIndex->ops[size_t(one[0])].source = *sourceFormatByName(u"npy");
        r = exportOps(*npuIndex, one, dir.filePath(QStringLiteral("z.h5")), false);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::Usage);
        QVERIFY2(r.errorText().contains(QLatin1String("cannot be written in their own format")), qPrintable(r.errorText()));
        npuIndex->ops[size_t(one[0])].source = *sourceFormatByName(u"h5");
        npuIndex->ops[size_t(one[0])].dataFile = QStringLiteral("not_hdf5.bin");
        r = h5dumper::exportOps(*npuIndex, one, dir.filePath(QStringLiteral("z.h5")));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("is not an operator of a .h5 dump")), qPrintable(r.errorText()));
        const QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
        QCOMPARE(left, (QStringList{QStringLiteral("twice.h5"), QStringLiteral("x.h5")}));
    }
};

QTEST_GUILESS_MAIN(TestH5Dumper)
#include "tst_h5dumper.moc"
