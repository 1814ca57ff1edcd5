// PyTorch .pt reading without Python: the ZIP reader, the data-only pickle machine, the
// tensor checks and the loader. Expected values come from torch/numpy: samples/torch/*.npy
// were written by numpy from tensor.numpy() (samples/generate_torch.py); error rows name the
// damage or attack the generator built into each bad sample.
#include "formats/readers.h"
#include "formats/torch/pickle.h"
#include "formats/torch/ptfile.h"
#include "formats/torch/zipreader.h"
#include "formats/torch/ptloader.h"
#include "index/tensorloader.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

#include <cstring>
#include <zlib.h>

using namespace ds;

namespace {

const QString kDir = QStringLiteral(DUMPSCOPE_SAMPLES "/torch");

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

const std::byte *bytes(const QByteArray &a) { return reinterpret_cast<const std::byte *>(a.constData()); }

/// A minimal, independent .npy reader (format 1.0 as numpy 1.24 writes it).
struct Npy
{
    QByteArray descr;
    Shape shape;
    QByteArray data;
    QString error;
};

Npy readNpy(const QString &path)
{
    Npy n;
    const QByteArray all = readAll(path);
    if (!all.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)) || all.size() < 10) {
        n.error = QStringLiteral("not a version 1.0 .npy: ") + path;
        return n;
    }
    const int len = quint8(all[8]) | (quint8(all[9]) << 8);
    const QByteArray header = all.mid(10, len);
    const auto descr = QRegularExpression(QStringLiteral("'descr': '([^']+)'")).match(QString::fromLatin1(header));
    const auto shape = QRegularExpression(QStringLiteral("'shape': \\(([^)]*)\\)")).match(QString::fromLatin1(header));
    if (!descr.hasMatch() || !shape.hasMatch() || !header.contains("'fortran_order': False")) {
        n.error = QStringLiteral("unexpected .npy header: ") + QString::fromLatin1(header);
        return n;
    }
    n.descr = descr.captured(1).toLatin1();
    for (const QString &d : shape.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts))
        n.shape.push_back(d.trimmed().toULongLong());
    n.data = all.mid(10 + len);
    return n;
}

/// The elements of a loaded tensor as numpy would store them: bfloat16 widened to float32 (the
/// oracle's `.float()`), everything else byte for byte.
QByteArray asNumpyBytes(const TensorView &v)
{
    if (v.elem == Elem::BF16) {
        QByteArray out(qsizetype(v.count * 4), Qt::Uninitialized);
        for (size_t i = 0; i < v.count; ++i) {
            std::uint16_t b;
            std::memcpy(&b, v.data + 2 * i, 2);
            const std::uint32_t f = std::uint32_t(b) << 16;
            std::memcpy(out.data() + 4 * i, &f, 4);
        }
        return out;
    }
    return QByteArray(reinterpret_cast<const char *>(v.data), qsizetype(v.count * elemBytes(v.elem)));
}

/// A one-op index whose only tensor is the .pt file `file` (relative to samples/torch).
std::shared_ptr<DumpIndex> ptIndex(const QString &file, int dataType = 0)
{
    auto index = std::make_shared<DumpIndex>();
    index->rootDir = kDir;
    OpRecord op;
    op.source = *sourceFormatByName(u"msprobe");
    op.relPath = QStringLiteral("step0/rank0/") + file;
    TensorFields rec;
    rec.storage = TensorStorage::PtFile;
    rec.location = file;
    rec.name = QStringLiteral("output.0");
    rec.dataType = dataType;
    op.tensors.push_back(TensorRecord(rec));
    index->ops.push_back(op);
    return index;
}

// ----- hand-assembled pickles (msprobe.md §7.2) ------------------------------------------

QByteArray global(const char *module, const char *name)
{
    return QByteArray("c") + module + '\n' + name + '\n';
}
QByteArray binunicode(const QByteArray &s)
{
    QByteArray out("X");
    const quint32 n = quint32(s.size());
    out.append(char(n & 0xFF)).append(char((n >> 8) & 0xFF)).append(char((n >> 16) & 0xFF)).append(char(n >> 24));
    return out + s;
}
QByteArray binint1(int v) { return QByteArray("K") + char(v); }

/// The stream of the spec's table for a 2x3 float32 tensor, without the BINPUTs after each object.
QByteArray specPickle()
{
    QByteArray p("\x80\x02", 2);
    p += global("torch._utils", "_rebuild_tensor_v2") + QByteArray("q\x00", 2) + "((" + binunicode("storage")
        + global("torch", "FloatStorage") + binunicode("0") + binunicode("cpu") + binint1(6) + "tQ"
        + binint1(0) + binint1(2) + binint1(3) + "\x86" + binint1(3) + binint1(1) + "\x86" + "\x89"
        + global("collections", "OrderedDict") + ")R" + "tR.";
    return p;
}

Result<std::vector<TorchTensorDesc>> unpickle(const QByteArray &p, const PickleLimits &limits = {})
{
    return unpickleTorchTensors(bytes(p), std::uint64_t(p.size()), limits);
}

// ----- a tiny STORED zip writer for container tests --------------------------------------

QByteArray le16(quint16 v) { return QByteArray(1, char(v & 0xFF)) + char(v >> 8); }
QByteArray le32(quint32 v) { return le16(quint16(v & 0xFFFF)) + le16(quint16(v >> 16)); }

QByteArray storedZip(const QList<QPair<QByteArray, QByteArray>> &entries, const QByteArray &comment = {})
{
    QByteArray out, cd;
    for (const auto &[name, data] : entries) {
        const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef *>(data.constData()), uInt(data.size())));
        const quint32 offset = quint32(out.size());
        out += le32(0x04034b50) + le16(20) + le16(0) + le16(0) + le32(0) + le32(crc) + le32(quint32(data.size()))
            + le32(quint32(data.size())) + le16(quint16(name.size())) + le16(0) + name + data;
        cd += le32(0x02014b50) + le16(20) + le16(20) + le16(0) + le16(0) + le32(0) + le32(crc)
            + le32(quint32(data.size())) + le32(quint32(data.size())) + le16(quint16(name.size())) + le16(0)
            + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name;
    }
    const quint32 cdOffset = quint32(out.size());
    out += cd;
    out += le32(0x06054b50) + le16(0) + le16(0) + le16(quint16(entries.size())) + le16(quint16(entries.size()))
        + le32(quint32(cd.size())) + le32(cdOffset) + le16(quint16(comment.size())) + comment;
    return out;
}

} // namespace

class TestPtFile : public QObject
{
    Q_OBJECT
private:
    QJsonObject m_manifest;

private slots:
    void initTestCase()
    {
        QFile::remove(QStringLiteral("/tmp/dumpscope_pt_pwned"));
        const auto doc = QJsonDocument::fromJson(readAll(kDir + QStringLiteral("/manifest.json")));
        QVERIFY2(doc.isObject(), "samples/torch/manifest.json is missing; run samples/generate_torch.py");
        m_manifest = doc.object();
        QCOMPARE(m_manifest.value(QStringLiteral("marker")).toString(), QStringLiteral("/tmp/dumpscope_pt_pwned"));
    }

    // ----- good samples: every tensor equals its numpy oracle ------------------------------

    void goodSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QList<qulonglong>>("shape");
        QTest::addColumn<QString>("oracle");
        const QJsonArray good = m_manifest.value(QStringLiteral("good")).toArray();
        QVERIFY(good.size() >= 25);
        for (const auto &g : good) {
            const QJsonObject o = g.toObject();
            for (const auto &tv : o.value(QStringLiteral("tensors")).toArray()) {
                const QJsonObject t = tv.toObject();
                QList<qulonglong> shape;
                for (const auto &d : t.value(QStringLiteral("shape")).toArray())
                    shape << qulonglong(d.toInteger());
                const QString file = o.value(QStringLiteral("file")).toString();
                const QString path = t.value(QStringLiteral("path")).toString();
                QTest::addRow("%s%s%s", qPrintable(file), path.isEmpty() ? "" : " ", qPrintable(path))
                    << file << path << t.value(QStringLiteral("dtype")).toString() << shape
                    << t.value(QStringLiteral("oracle")).toString();
            }
        }
    }
    void goodSamples()
    {
        QFETCH(QString, file);
        QFETCH(QString, path);
        QFETCH(QString, dtype);
        QFETCH(QList<qulonglong>, shape);
        QFETCH(QString, oracle);

        auto mapped = MappedFile::open(kDir + QLatin1Char('/') + file);
        QVERIFY2(mapped.ok(), qPrintable(mapped.errorText()));
        auto pt = readPtTensor(**mapped, path);
        QVERIFY2(pt.ok(), qPrintable(pt.errorText()));
        QCOMPARE(dataTypeName(pt->dataType), dtype);
        QCOMPARE(pt->shape, Shape(shape.begin(), shape.end()));
        QCOMPARE(pt->path, path);

        const Npy npy = readNpy(kDir + QLatin1Char('/') + oracle);
        QVERIFY2(npy.error.isEmpty(), qPrintable(npy.error));
        QCOMPARE(npy.shape, pt->shape);

        // Decode through the same code the loader uses, into row-major order.
        std::vector<std::byte> out(size_t(pt->elementCount() * pt->itemSize()));
        QVERIFY(gatherPtElements(*pt, pt->recordData((*mapped)->data()), out.data(), nullptr));
        const TensorView v{dataTypeInfo(pt->dataType).elem, out.data(), size_t(pt->elementCount())};
        QCOMPARE(QByteArray(elemNumpyDescr(exportElem(v.elem))), npy.descr);
        QCOMPARE(asNumpyBytes(v), npy.data);
    }

    /// The loader path (tensorloader.cpp's PtFile case) gives the same values for lone tensors,
    /// without copying where the file allows it.
    void loaderMatchesOracle_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("zeroCopy");
        QTest::addRow("msprobe name") << QStringLiteral("Functional.relu.0.forward.output.0.pt") << true;
        QTest::addRow("bfloat16") << QStringLiteral("bfloat16.pt") << true;
        QTest::addRow("bool") << QStringLiteral("bool.pt") << true;
        QTest::addRow("complex64") << QStringLiteral("complex64.pt") << true;
        QTest::addRow("0-d") << QStringLiteral("scalar_0d.pt") << true;
        QTest::addRow("empty") << QStringLiteral("empty.pt") << true;
        QTest::addRow("parameter") << QStringLiteral("parameter.pt") << true;
        QTest::addRow("protocol 4") << QStringLiteral("protocol4.pt") << true;
        QTest::addRow("zip64 central") << QStringLiteral("zip64_central.pt") << true;
        QTest::addRow("slice view") << QStringLiteral("view_slice.pt") << false;
        QTest::addRow("transposed") << QStringLiteral("view_transposed.pt") << false;
        QTest::addRow("2-d window") << QStringLiteral("view_offset_2d.pt") << false;
        QTest::addRow("deflated") << QStringLiteral("deflated.pt") << false;
        QTest::addRow("big-endian") << QStringLiteral("byteorder_big.pt") << false;
        QTest::addRow("little-endian record") << QStringLiteral("byteorder_little.pt") << true;
    }
    void loaderMatchesOracle()
    {
        QFETCH(QString, file);
        QFETCH(bool, zeroCopy);
        auto index = ptIndex(file);
        auto loaded = loadTensor(*index, DumpIndex::TensorRef{0, 0});
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorText()));
        const LoadedTensor &t = **loaded;
        QCOMPARE(t.owned.empty(), zeroCopy);
        if (zeroCopy && t.view.count > 0) {
            QVERIFY(t.view.data >= t.file->data());
            QVERIFY(t.view.data + t.view.count * elemBytes(t.view.elem) <= t.file->data() + t.file->size());
        }
        const Npy npy = readNpy(kDir + QLatin1Char('/') + file.chopped(3) + QStringLiteral(".npy"));
        QVERIFY2(npy.error.isEmpty(), qPrintable(npy.error));
        QCOMPARE(t.shape, npy.shape);
        QCOMPARE(asNumpyBytes(t.view), npy.data);
    }

    void loaderNotesMismatchAndCancels()
    {
        auto index = ptIndex(QStringLiteral("float64.pt"), int(DataType::Float32));
        {
            TensorFields f = index->ops[0].tensors[0].fields();
            f.shape = {7};
            index->ops[0].tensors[0] = TensorRecord(f);
        }
        auto loaded = loadTensor(*index, DumpIndex::TensorRef{0, 0});
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorText()));
        QCOMPARE((*loaded)->dataType, int(DataType::Float64));
        QVERIFY((*loaded)->notes.join(QLatin1Char('\n')).contains(QStringLiteral("the file holds float64 data, the record says float32")));
        QVERIFY((*loaded)->notes.join(QLatin1Char('\n')).contains(QStringLiteral("the record says [7]")));

        std::atomic<bool> stop{true};
        JobControl job;
        job.cancelFlag = &stop;
        auto strided = ptIndex(QStringLiteral("view_transposed.pt"));
        auto cancelled = loadTensor(*strided, DumpIndex::TensorRef{0, 0}, LayoutChoice::Logical, &job);
        QVERIFY(!cancelled.ok());
        QCOMPARE(cancelled.errorText(), QStringLiteral("cancelled"));

        auto several = ptIndex(QStringLiteral("dict_of_tensors.pt"));
        auto refused = loadTensor(*several, DumpIndex::TensorRef{0, 0});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.errorText(), QStringLiteral("dict_of_tensors.pt: holds 4 tensors; expected one"));

        auto missing = ptIndex(QStringLiteral("no_such_file.pt"));
        auto absent = loadTensor(*missing, DumpIndex::TensorRef{0, 0});
        QVERIFY(!absent.ok());
        QVERIFY(absent.errorText().startsWith(QStringLiteral("no_such_file.pt: cannot open")));
    }

    void containersKeepPaths()
    {
        auto mapped = MappedFile::open(kDir + QStringLiteral("/dict_of_tensors.pt"));
        QVERIFY(mapped.ok());
        auto all = readPtTensors((*mapped)->data(), (*mapped)->size());
        QVERIFY2(all.ok(), qPrintable(all.errorText()));
        QStringList paths;
        for (const PtTensor &t : *all)
            paths << t.path;
        QCOMPARE(paths, (QStringList{QStringLiteral("weight"), QStringLiteral("bias"), QStringLiteral("steps.0"), QStringLiteral("steps.1")}));

        auto shared = MappedFile::open(kDir + QStringLiteral("/shared_storage.pt"));
        QVERIFY(shared.ok());
        auto two = readPtTensors((*shared)->data(), (*shared)->size());
        QVERIFY2(two.ok(), qPrintable(two.errorText()));
        QCOMPARE(two->size(), size_t(2));
        QCOMPARE((*two)[0].recordName, (*two)[1].recordName);
        QCOMPARE((*two)[1].storageOffset, std::uint64_t(2));
        QCOMPARE((*two)[1].strides, (std::vector<std::uint64_t>{2, 1}));

        auto missing = readPtTensor(**mapped, QStringLiteral("nope"));
        QVERIFY(!missing.ok());
        QVERIFY(missing.errorText().endsWith(QStringLiteral("dict_of_tensors.pt: has no tensor `nope`")));
    }

    void viewsKeepOffsetsAndStrides()
    {
        auto mapped = MappedFile::open(kDir + QStringLiteral("/view_slice.pt"));
        QVERIFY(mapped.ok());
        auto t = readPtTensor(**mapped);
        QVERIFY2(t.ok(), qPrintable(t.errorText()));
        // arange(10)[3:7:2]: storage numel 10, offset 3, size (2,), stride (2,) (msprobe.md §7.2).
        QCOMPARE(t->storageOffset, std::uint64_t(3));
        QCOMPARE(t->strides, std::vector<std::uint64_t>{2});
        QCOMPARE(t->storageBytes, std::uint64_t(80));
        QCOMPARE(t->dataType, int(DataType::Int64));
        QVERIFY(!t->isContiguous());
        QVERIFY(t->inPlace);
        // torch aligns record data to 64 bytes.
        QCOMPARE(t->recordOffset % 64, std::uint64_t(0));
    }

    // ----- bad and malicious samples: refused, never executed ------------------------------

    void badSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("error");
        QTest::addRow("os.system") << "mal_os_system.pt" << "data.pkl: unsafe or unsupported global `os.system` at offset 2";
        QTest::addRow("__reduce__ os.system") << "mal_reduce_posix.pt" << "data.pkl: unsafe or unsupported global `posix.system`";
        QTest::addRow("numpy array") << "mal_numpy_global.pt" << "unsafe or unsupported global `numpy.core.multiarray._reconstruct`";
        QTest::addRow("STACK_GLOBAL eval") << "mal_stack_global.pt" << "unsafe or unsupported global `builtins.eval`";
        QTest::addRow("INST") << "mal_inst.pt" << "unsupported pickle opcode 0x69 at offset ";
        QTest::addRow("OBJ") << "mal_obj.pt" << "unsafe or unsupported global `os.system`";
        QTest::addRow("NEWOBJ") << "mal_newobj.pt" << "unsupported pickle opcode 0x81 at offset 28";
        QTest::addRow("EXT1") << "mal_ext1.pt" << "unsupported pickle opcode 0x82 at offset 2";
        QTest::addRow("BUILD on a global") << "mal_build_global.pt" << "BUILD on a global is not allowed";
        QTest::addRow("call a storage class") << "mal_call_storage.pt" << "calling `torch.FloatStorage` is not allowed";
        QTest::addRow("truncated") << "truncated.pt" << "no end of central directory record";
        QTest::addRow("central directory outside") << "cd_outside.pt" << "central directory lies outside the file";
        QTest::addRow("local header outside") << "local_outside.pt" << "local header at offset 16777215 lies outside the file";
        QTest::addRow("legacy format") << "legacy_format.pt" << "legacy torch.save format";
        QTest::addRow("not a tensor") << "not_a_tensor.pt" << "data.pkl: the pickle holds a value of type int, not a tensor";
        QTest::addRow("missing record") << "missing_record.pt" << "record `data/0` of the storage is missing";
        QTest::addRow("storage larger than record") << "storage_too_big.pt" << "storage `0` declares 4000 bytes but its record holds 24";
        QTest::addRow("view past storage") << "view_past_storage.pt" << "extends past its storage of 24 bytes";
        QTest::addRow("broadcast") << "broadcast.pt" << "needs 24000 bytes but its record holds 24";
        QTest::addRow("unknown byteorder") << "unknown_byteorder.pt" << "byteorder record says `middle`";
        QTest::addRow("bomb: declared size") << "bomb_declared.pt" << "more than deflate can produce";
        QTest::addRow("bomb: inflates past declared") << "bomb_overflow.pt" << "inflates to more than its declared 24 bytes";
        QTest::addRow("bomb: huge pickle") << "bomb_pickle.pt" << "data.pkl is 3221225472 bytes, more than the limit of 67108864";
    }
    void badSamples()
    {
        QFETCH(QString, file);
        QFETCH(QString, error);
        auto mapped = MappedFile::open(kDir + QLatin1Char('/') + file);
        QVERIFY2(mapped.ok(), qPrintable(mapped.errorText()));
        auto t = readPtTensor(**mapped);
        QVERIFY2(!t.ok(), "a bad sample was accepted");
        QVERIFY2(t.errorText().startsWith((*mapped)->path() + QStringLiteral(": ")), qPrintable(t.errorText()));
        QVERIFY2(t.errorText().contains(error), qPrintable(t.errorText()));
        // Through the loader as well: same refusal, prefixed with the record's location.
        auto index = ptIndex(file);
        auto loaded = loadTensor(*index, DumpIndex::TensorRef{0, 0});
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.errorText().startsWith(file + QStringLiteral(": ")) && loaded.errorText().contains(error), qPrintable(loaded.errorText()));
        // Refusals of the data-only interpreter are told apart from damaged files.
        const bool refusal = error.contains(QLatin1String("unsafe or unsupported global")) || error.contains(QLatin1String("is not allowed"));
        QCOMPARE(t.error().kind == ErrorKind::Unsafe, refusal);
        QCOMPARE(loaded.error().kind, t.error().kind);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/dumpscope_pt_pwned")));
    }

    void everyListedBadSampleIsRefused()
    {
        QStringList listed;
        for (const auto &b : m_manifest.value(QStringLiteral("bad")).toArray())
            listed << b.toObject().value(QStringLiteral("file")).toString();
        const QStringList files = QDir(kDir).entryList({QStringLiteral("*.pt")}, QDir::Files);
        QStringList goodFiles;
        for (const auto &g : m_manifest.value(QStringLiteral("good")).toArray())
            goodFiles << g.toObject().value(QStringLiteral("file")).toString();
        QCOMPARE(listed.size() + goodFiles.size(), files.size());
        for (const QString &f : listed) {
            auto mapped = MappedFile::open(kDir + QLatin1Char('/') + f);
            QVERIFY(mapped.ok());
            QVERIFY2(!readPtTensors((*mapped)->data(), (*mapped)->size()).ok(), qPrintable(f));
        }
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/dumpscope_pt_pwned")));
    }

    /// Damaged copies of every good sample (bytes overwritten, truncated) are either refused or
    /// read completely without touching memory outside the buffer (run under the asan preset).
    void mutatedSamplesStayInBounds()
    {
        QRandomGenerator rng(6);
        int accepted = 0, refused = 0;
        for (const auto &g : m_manifest.value(QStringLiteral("good")).toArray()) {
            const QString file = g.toObject().value(QStringLiteral("file")).toString();
            const QByteArray original = readAll(kDir + QLatin1Char('/') + file);
            QVERIFY(!original.isEmpty());
            for (int round = 0; round < 200; ++round) {
                QByteArray m = original;
                if (round % 10 == 9) {
                    m.truncate(qsizetype(rng.bounded(quint32(original.size()))));
                } else {
                    for (int k = 0, n = 1 + int(rng.bounded(4)); k < n; ++k) {
                        const qsizetype at = qsizetype(rng.bounded(quint32(m.size())));
                        m[at] = char(rng.bounded(256));
                    }
                }
                // A heap copy of exactly the right size, so ASan sees any overrun.
                std::vector<std::byte> buf(size_t(m.size()));
                if (!buf.empty())
                    std::memcpy(buf.data(), m.constData(), buf.size());
                auto all = readPtTensors(buf.data(), buf.size());
                if (!all.ok()) {
                    QVERIFY(!all.errorText().isEmpty());
                    ++refused;
                    continue;
                }
                ++accepted;
                for (const PtTensor &t : *all) {
                    std::vector<std::byte> out(size_t(t.elementCount() * t.itemSize()));
                    QVERIFY(gatherPtElements(t, t.recordData(buf.data()), out.data(), nullptr));
                }
            }
        }
        qInfo("%d mutated files read, %d refused", accepted, refused);

        // The archive's CRC check stops most pickle damage above, so damage the pickles directly.
        int pickles = 0;
        for (const auto &g : m_manifest.value(QStringLiteral("good")).toArray()) {
            const QByteArray file = readAll(kDir + QLatin1Char('/') + g.toObject().value(QStringLiteral("file")).toString());
            auto zip = ZipReader::open(bytes(file), std::uint64_t(file.size()));
            QVERIFY(zip.ok());
            auto pkl = zip->read(*zip->findSuffix("data.pkl").front());
            QVERIFY(pkl.ok());
            const QByteArray original(reinterpret_cast<const char *>(pkl->data), qsizetype(pkl->size));
            for (int round = 0; round < 300; ++round) {
                QByteArray m = original;
                if (round % 10 == 9) {
                    m.truncate(qsizetype(rng.bounded(quint32(original.size()))));
                } else {
                    for (int k = 0, n = 1 + int(rng.bounded(3)); k < n; ++k)
                        m[qsizetype(rng.bounded(quint32(m.size())))] = char(rng.bounded(256));
                }
                std::vector<std::byte> buf(size_t(m.size()));
                if (!buf.empty())
                    std::memcpy(buf.data(), m.constData(), buf.size());
                auto r = unpickleTorchTensors(buf.data(), buf.size());
                pickles += r.ok() ? 1 : 0;
            }
        }
        qInfo("%d mutated pickles still decoded", pickles);
        QVERIFY(refused > 0);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/dumpscope_pt_pwned")));
    }

    // ----- ZIP reader ------------------------------------------------------------------------

    void zipTorchWritten()
    {
        const QByteArray file = readAll(kDir + QStringLiteral("/Functional.relu.0.forward.output.0.pt"));
        auto zip = ZipReader::open(bytes(file), std::uint64_t(file.size()));
        QVERIFY2(zip.ok(), qPrintable(zip.errorText()));
        QVERIFY(zip->isZip64()); // torch (miniz) always writes the zip64 end records
        const auto pkl = zip->findSuffix("data.pkl");
        QCOMPARE(pkl.size(), size_t(1));
        QCOMPARE(pkl.front()->name, QByteArray("Functional.relu.0.forward.output.0/data.pkl"));
        QVERIFY(zip->findSuffix("a.pkl").empty()); // suffixes match whole name components
        const ZipEntry *data = zip->find("Functional.relu.0.forward.output.0/data/0");
        QVERIFY(data);
        QCOMPARE(data->dataOffset % 64, std::uint64_t(0));
        QCOMPARE(data->uncompressedSize, std::uint64_t(24));
        auto stored = zip->read(*data, ZipReader::kMaxInflated, true);
        QVERIFY2(stored.ok(), qPrintable(stored.errorText()));
        QVERIFY(stored->inPlace);
        QCOMPARE(stored->data, bytes(file) + data->dataOffset);
        const Npy npy = readNpy(kDir + QStringLiteral("/Functional.relu.0.forward.output.0.npy"));
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(stored->data), 24), npy.data);
    }

    void zip64FromPythonZipfile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("zip64End");
        QTest::addRow("zipfile force_zip64 (local extras)") << "zip64_local.pt" << false;
        QTest::addRow("zip64 central directory") << "zip64_central.pt" << true;
    }
    void zip64FromPythonZipfile()
    {
        QFETCH(QString, file);
        QFETCH(bool, zip64End);
        const QByteArray bytesOfFile = readAll(kDir + QLatin1Char('/') + file);
        auto zip = ZipReader::open(bytes(bytesOfFile), std::uint64_t(bytesOfFile.size()));
        QVERIFY2(zip.ok(), qPrintable(zip.errorText()));
        QCOMPARE(zip->isZip64(), zip64End);
        QCOMPARE(zip->entries().size(), size_t(3));
        const ZipEntry *data = zip->find("archive/data/0");
        QVERIFY(data);
        auto read = zip->read(*data, ZipReader::kMaxInflated, true);
        QVERIFY2(read.ok(), qPrintable(read.errorText()));
        const Npy npy = readNpy(kDir + QLatin1Char('/') + file.chopped(3) + QStringLiteral(".npy"));
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(read->data), qsizetype(read->size)), npy.data);
    }

    void zipDeflated()
    {
        const QByteArray file = readAll(kDir + QStringLiteral("/deflated.pt"));
        auto zip = ZipReader::open(bytes(file), std::uint64_t(file.size()));
        QVERIFY2(zip.ok(), qPrintable(zip.errorText()));
        for (const ZipEntry &e : zip->entries())
            QCOMPARE(e.method, std::uint16_t(8));
        const ZipEntry *data = zip->find("archive/data/0");
        QVERIFY(data);
        auto inflated = zip->read(*data);
        QVERIFY2(inflated.ok(), qPrintable(inflated.errorText()));
        QVERIFY(!inflated->inPlace);
        const Npy npy = readNpy(kDir + QStringLiteral("/deflated.npy"));
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(inflated->data), qsizetype(inflated->size)), npy.data);

        // A cap below the declared size refuses before allocating.
        auto capped = zip->read(*data, 8);
        QVERIFY(!capped.ok());
        QVERIFY2(capped.errorText().contains(QStringLiteral("declares 24 bytes uncompressed, more than the limit of 8")), qPrintable(capped.errorText()));

        // Corrupt the compressed bytes: refused (bad stream or CRC), never out of bounds.
        QByteArray damaged = file;
        for (std::uint64_t k = 0; k < data->compressedSize; ++k)
            damaged[qsizetype(data->dataOffset + k)] = char(0xFF);
        auto zip2 = ZipReader::open(bytes(damaged), std::uint64_t(damaged.size()));
        QVERIFY(zip2.ok());
        auto bad = zip2->read(*zip2->find("archive/data/0"));
        QVERIFY(!bad.ok());
        QVERIFY2(bad.errorText().contains(QStringLiteral("corrupt or truncated deflate data")) || bad.errorText().contains(QStringLiteral("CRC")), qPrintable(bad.errorText()));
    }

    void zipRefusals_data()
    {
        QTest::addColumn<QByteArray>("zip");
        QTest::addColumn<QString>("error");
        const QByteArray good = storedZip({{"a/data.pkl", "xyz"}, {"a/version", "3\n"}});
        // Central directory starts at 43 + 38 = 81 (two local headers); method at +10, flags at +8.
        const qsizetype cd = good.indexOf(QByteArray("PK\x01\x02", 4));
        QByteArray method = good;
        method[cd + 10] = 12; // bzip2
        QByteArray encrypted = good;
        encrypted[cd + 8] = 1;
        QByteArray count = good;
        count[good.size() - 22 + 8] = 50; // 50 entries in a 2-entry directory
        count[good.size() - 22 + 10] = 50;
        QByteArray dataPast = good;
        dataPast[cd + 20] = char(0xF0); // compressed size 240: past the file
        QByteArray zeros(100, '\0');
        QTest::addRow("garbage") << zeros << "no end of central directory record";
        QTest::addRow("too short") << QByteArray("PK") << "too short";
        QTest::addRow("bzip2") << method << "uses compression method 12; only STORED and DEFLATE are supported";
        QTest::addRow("encrypted") << encrypted << "is encrypted";
        QTest::addRow("entry count") << count << "claims 50 entries";
        QTest::addRow("data past end") << dataPast << "lies outside the file";
    }
    void zipRefusals()
    {
        QFETCH(QByteArray, zip);
        QFETCH(QString, error);
        auto z = ZipReader::open(bytes(zip), std::uint64_t(zip.size()));
        QString message = z.ok() ? QString() : z.errorText();
        if (z.ok()) {
            for (const ZipEntry &e : z->entries()) {
                auto r = z->read(e);
                if (!r.ok()) {
                    message = r.errorText();
                    break;
                }
            }
        }
        QVERIFY2(message.contains(error), qPrintable(message));
    }

    void zipCommentAndAmbiguity()
    {
        const QByteArray zip = storedZip({{"x/data.pkl", "1"}, {"y/data.pkl", "2"}, {"x/data.pkl", "3"}}, "comment PK\x05\x06 inside");
        auto z = ZipReader::open(bytes(zip), std::uint64_t(zip.size()));
        QVERIFY2(z.ok(), qPrintable(z.errorText()));
        QCOMPARE(z->entries().size(), size_t(3));
        QCOMPARE(z->findSuffix("data.pkl").size(), size_t(3));
        bool ambiguous = false;
        QVERIFY(z->find("x/data.pkl", &ambiguous));
        QVERIFY(ambiguous);
        QVERIFY(z->find("y/data.pkl", &ambiguous));
        QVERIFY(!ambiguous);
        QVERIFY(!z->find("../data.pkl"));

        auto pt = readPtTensors(bytes(zip), std::uint64_t(zip.size()));
        QVERIFY(!pt.ok());
        QCOMPARE(pt.errorText(), QStringLiteral("3 data.pkl records; expected one"));
    }

    // ----- pickle machine --------------------------------------------------------------------

    void pickleSpecStream()
    {
        const QByteArray p = specPickle();
        auto r = unpickle(p);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->size(), size_t(1));
        const TorchTensorDesc &d = r->front();
        QCOMPARE(d.dataType, int(DataType::Float32));
        QCOMPARE(d.shape, (Shape{2, 3}));
        QCOMPARE(d.strides, (std::vector<std::uint64_t>{3, 1}));
        QCOMPARE(d.storageKey, QByteArray("0"));
        QCOMPARE(d.storageBytes, std::uint64_t(24));
        QCOMPARE(d.storageOffset, std::uint64_t(0));
        QVERIFY(d.path.isEmpty());
        QVERIFY(!d.requiresGrad);
    }

    void pickleIntegers()
    {
        // storage numel as LONG1 (2^33 elements), offset as BININT2, a dim as BININT.
        QByteArray p("\x80\x02", 2);
        p += global("torch._utils", "_rebuild_tensor_v2") + "((" + binunicode("storage") + global("torch", "CharStorage")
            + binunicode("k") + binunicode("npu:0") + QByteArray("\x8a\x05\x00\x00\x00\x00\x02", 7) + "tQ"
            + QByteArray("M\x34\x12", 3) + QByteArray("J\x00\x00\x01\x00", 5) + "\x85" + binint1(1) + "\x85" + "\x88"
            + global("collections", "OrderedDict") + ")R" + "tR.";
        auto r = unpickle(p);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->front().storageBytes, std::uint64_t(1) << 33);
        QCOMPARE(r->front().storageOffset, std::uint64_t(0x1234));
        QCOMPARE(r->front().shape, Shape{65536});
        QVERIFY(r->front().requiresGrad);

        // A negative LONG1 offset and a 9-byte LONG1 that does not fit are refused.
        QByteArray negative = p;
        negative.replace(QByteArray("M\x34\x12", 3), QByteArray("\x8a\x01\xff", 3));
        auto n = unpickle(negative);
        QVERIFY(!n.ok());
        QVERIFY2(n.errorText().contains(QStringLiteral("_rebuild_tensor_v2: storage_offset is not a non-negative integer")), qPrintable(n.errorText()));
        QByteArray huge = p;
        huge.replace(QByteArray("\x8a\x05\x00\x00\x00\x00\x02", 7), QByteArray("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11));
        auto h = unpickle(huge);
        QVERIFY(!h.ok());
        QVERIFY2(h.errorText().contains(QStringLiteral("the storage size is not a non-negative integer")), qPrintable(h.errorText()));
    }

    void pickleV3UntypedStorage()
    {
        // _rebuild_tensor_v3(UntypedStorage numel in bytes, ..., dtype=torch.float8_e4m3fn)
        QByteArray p("\x80\x02", 2);
        p += global("torch._utils", "_rebuild_tensor_v3") + "((" + binunicode("storage") + global("torch", "UntypedStorage")
            + binunicode("0") + binunicode("cpu") + binint1(12) + "tQ" + binint1(2) + binint1(2) + binint1(5) + "\x86"
            + binint1(5) + binint1(1) + "\x86" + "\x89" + global("collections", "OrderedDict") + ")R"
            + global("torch", "float8_e4m3fn") + "N" + "tR.";
        auto r = unpickle(p);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->front().dataType, int(DataType::Float8E4M3FN));
        QCOMPARE(r->front().storageBytes, std::uint64_t(12));
        QCOMPARE(r->front().storageOffset, std::uint64_t(2));

        // v2 on an untyped storage has no dtype; a v3 dtype must be a torch dtype.
        QByteArray v2 = p;
        v2.replace("_rebuild_tensor_v3", "_rebuild_tensor_v2");
        auto e2 = unpickle(v2);
        QVERIFY(!e2.ok());
        QVERIFY2(e2.errorText().contains(QStringLiteral("_rebuild_tensor_v2 on an untyped storage has no dtype")), qPrintable(e2.errorText()));
        QByteArray badDtype = p;
        badDtype.replace(global("torch", "float8_e4m3fn"), global("torch", "FloatStorage"));
        auto e3 = unpickle(badDtype);
        QVERIFY(!e3.ok());
        QVERIFY2(e3.errorText().contains(QStringLiteral("not a torch dtype")), qPrintable(e3.errorText()));
    }

    void pickleNpuTensorAndProtocol4()
    {
        // torch_npu's _rebuild_npu_tensor with an extra npu_storage_format argument, written with
        // protocol 4 opcodes: FRAME, SHORT_BINUNICODE, STACK_GLOBAL, MEMOIZE, BINGET.
        QByteArray p("\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00", 11);
        auto shortStr = [](const QByteArray &s) -> QByteArray { return QByteArray("\x8c") + char(s.size()) + s; };
        p += shortStr("torch_npu.utils.storage") + "\x94" + shortStr("_rebuild_npu_tensor") + "\x94\x93\x94";
        p += "((" + shortStr("storage") + "\x94" + shortStr("torch") + shortStr("BFloat16Storage") + "\x93\x94"
            + shortStr("7") + shortStr("npu:0") + binint1(4) + "tQ" + binint1(0) + binint1(4) + "\x85" + binint1(1) + "\x85"
            + "\x89" + shortStr("collections") + shortStr("OrderedDict") + "\x93)R" + binint1(29) + "tR";
        // Memo: 0 module, 1 name, 2 the global, 3 "storage", 4 BFloat16Storage, 5 the tensor.
        p += "\x94h\x05\x86.";
        auto r = unpickle(p);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->front().dataType, int(DataType::BFloat16));
        QCOMPARE(r->front().storageKey, QByteArray("7"));
        QCOMPARE(r->front().storageBytes, std::uint64_t(8));
        QCOMPARE(r->size(), size_t(2));
        QCOMPARE((*r)[1].path, QStringLiteral("1"));
    }

    void pickleContainersAndSharing()
    {
        // [t, t, {'w': t, 1: None}] with t memoised once (BINPUT 2 / BINGET 2): paths 0, 1, 2.w.
        // The dict also receives a BUILD, whose state is ignored.
        QByteArray t = specPickle();
        t.chop(1);      // drop STOP
        t.remove(0, 2); // drop PROTO
        const QByteArray p = QByteArray("\x80\x02]q\x01(", 6) + t + "q\x02h\x02}q\x03(" + binunicode("w") + "h\x02"
                             + binint1(1) + "Nu" + "}b" + "e.";
        auto r = unpickle(p);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->size(), size_t(3));
        QCOMPARE((*r)[0].path, QStringLiteral("0"));
        QCOMPARE((*r)[1].path, QStringLiteral("1"));
        QCOMPARE((*r)[2].path, QStringLiteral("2.w"));
        QCOMPARE((*r)[2].shape, (Shape{2, 3}));

        // A tuple of tensors via TUPLE2.
        const QByteArray tup = QByteArray("\x80\x02", 2) + t + "q\x05" + "h\x05" + "\x86" + ".";
        auto r2 = unpickle(tup);
        QVERIFY2(r2.ok(), qPrintable(r2.errorText()));
        QCOMPARE(r2->size(), size_t(2));
        QCOMPARE((*r2)[1].path, QStringLiteral("1"));

        // Non-tensor leaves (None, a float, True) are skipped.
        auto r3 = unpickle(QByteArray("\x80\x02](NG\x3f\xf0\x00\x00\x00\x00\x00\x00\x88" "e.", 17));
        QVERIFY2(r3.ok(), qPrintable(r3.errorText()));
        QCOMPARE(r3->size(), size_t(0));
    }

    void pickleRefusals_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("error");
        QTest::addRow("os.system") << (QByteArray("\x80\x02") + global("os", "system") + binunicode("true") + "\x85R.")
                                   << "unsafe or unsupported global `os.system` at offset 2";
        QTest::addRow("builtins.eval") << (global("builtins", "eval") + ".") << "unsafe or unsupported global `builtins.eval` at offset 0";
        QTest::addRow("torch.load") << (global("torch", "load") + ".") << "unsafe or unsupported global `torch.load`";
        QTest::addRow("quantized rebuild") << (global("torch._utils", "_rebuild_qtensor") + ".")
                                           << "unsafe or unsupported global `torch._utils._rebuild_qtensor`";
        QTest::addRow("packed storage") << (global("torch", "QUInt4x2Storage") + ".") << "unsafe or unsupported global `torch.QUInt4x2Storage`";
        QTest::addRow("torch.nn module") << (global("torch.nn.modules.linear", "Linear") + ".") << "unsafe or unsupported global";
        QTest::addRow("unterminated global") << QByteArray("cos") << "unterminated GLOBAL name at offset 1";
        QTest::addRow("REDUCE on dtype") << (global("torch", "float32") + ")R.") << "calling `torch.float32` is not allowed";
        QTest::addRow("REDUCE on a string") << (binunicode("x") + ")R.") << "REDUCE on a str is not allowed";
        QTest::addRow("OrderedDict with args") << (global("collections", "OrderedDict") + "]\x85R.") << "OrderedDict with arguments is not supported";
        QTest::addRow("BUILD on a list") << QByteArray("]}b.") << "BUILD on a list is not allowed";
        QTest::addRow("BUILD on a storage class") << (global("torch", "FloatStorage") + "}b.") << "BUILD on a global is not allowed";
        QTest::addRow("persistent id not storage") << (binunicode("module") + "\x85Q.") << "unsupported persistent id at offset";
        QTest::addRow("persistent id with os") << ("(" + binunicode("storage") + global("os", "system") + ")")
                                               << "unsafe or unsupported global `os.system`";
        QTest::addRow("top-level int") << QByteArray("K\x05.") << "the pickle holds a value of type int, not a tensor";
        QTest::addRow("truncated") << QByteArray("\x80\x02X\x10\x00\x00\x00" "abc", 10) << "pickle is truncated at offset 7";
        QTest::addRow("no STOP") << QByteArray("\x80\x02)") << "pickle is truncated at offset 3";
        QTest::addRow("stack underflow") << QByteArray("\x85.") << "pickle stack underflow at offset 0";
        QTest::addRow("pop across MARK") << QByteArray(")(\x85.") << "pickle stack underflow at offset 2";
        QTest::addRow("memo miss") << QByteArray("h\x07.") << "pickle memo has no entry 7";
        QTest::addRow("APPEND on a tuple") << QByteArray(")Na.") << "APPEND on a tuple";
        QTest::addRow("SETITEM on a list") << QByteArray("]NNs.") << "SETITEM on a list";
        QTest::addRow("SETITEMS odd") << QByteArray("}(Nu.") << "SETITEMS with an odd number of items";
        QTest::addRow("TUPLE without MARK") << QByteArray("Nt.") << "no MARK for the opcode at offset 1";
        QTest::addRow("protocol 6") << QByteArray("\x80\x06.") << "unsupported pickle protocol 6";
        QTest::addRow("string over 1 MiB") << QByteArray("X\x01\x00\x10\x00", 5) << "string of 1048577 bytes at offset 0 exceeds the limit of 1048576";
        QTest::addRow("self-containing list") << QByteArray("]q\x00" "h\x00" "a.", 7) << "nests deeper than 64 levels";
        QTest::addRow("rebuild with 3 args") << (global("torch._utils", "_rebuild_tensor_v2") + "(NNNtR.")
                                             << "_rebuild_tensor_v2 called with 3 arguments, expected at least 4";
        QTest::addRow("parameter of a list") << (global("torch._utils", "_rebuild_parameter") + "]\x85R.")
                                             << "_rebuild_parameter needs a tensor argument";
        QByteArray mismatch = specPickle();
        mismatch.replace(QByteArray(binint1(3) + binint1(1) + "\x86"), QByteArray(binint1(1) + "\x85"));
        QTest::addRow("size/stride rank") << mismatch << "size has 2 dimensions but stride has 1";
    }
    void pickleRefusals()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, error);
        auto r = unpickle(pickle);
        QVERIFY2(!r.ok(), "accepted");
        QVERIFY2(r.errorText().contains(error), qPrintable(r.errorText()));
    }

    /// Every opcode outside msprobe.md §7.3 is refused with its byte and offset.
    void pickleOpcodeSubset()
    {
        const QByteArray allowed("\x80\x63\x93\x71\x72\x68\x6a\x94\x58\x8c\x51\x52\x7d\x73\x75\x62\x95"
                                 "\x29\x85\x86\x87\x74\x28\x4b\x4d\x4a\x8a\x47\x4e\x88\x89\x5d\x61\x65\x2e", 35);
        int refused = 0;
        for (int op = 0; op < 256; ++op) {
            if (allowed.contains(char(op)))
                continue;
            const QByteArray p = QByteArray("\x80\x02", 2) + char(op) + QByteArray(16, '\0');
            auto r = unpickle(p);
            QVERIFY(!r.ok());
            QCOMPARE(r.errorText(), QStringLiteral("unsupported pickle opcode 0x%1 at offset 2").arg(op, 2, 16, QLatin1Char('0')));
            ++refused;
        }
        QCOMPARE(refused, 256 - 35);
    }

    void pickleLimits()
    {
        // Stack depth: 100001 pushes.
        QByteArray deep(100001, ')');
        deep += '.';
        auto d = unpickle(deep);
        QVERIFY(!d.ok());
        QVERIFY2(d.errorText().contains(QStringLiteral("pickle stack deeper than 100000 at offset 100000")), qPrintable(d.errorText()));
        // Deep nesting by TUPLE1 chains: refused when walked, no recursion blow-up.
        QByteArray chain = "N" + QByteArray(200000, '\x85') + ".";
        auto c = unpickle(chain);
        QVERIFY(!c.ok());
        QVERIFY2(c.errorText().contains(QStringLiteral("nests deeper than 64 levels")), qPrintable(c.errorText()));
        // Memo entries.
        PickleLimits small;
        small.maxMemo = 3;
        auto m = unpickle(QByteArray("Nq\x00q\x01q\x02q\x01q\x03.", 12), small);
        QVERIFY(!m.ok());
        QCOMPARE(m.errorText(), QStringLiteral("pickle memo exceeds 3 entries"));
        // Pickle size.
        PickleLimits tiny;
        tiny.maxPickleBytes = 100;
        auto s = unpickle(specPickle(), tiny);
        QVERIFY(!s.ok());
        QCOMPARE(s.errorText(), QStringLiteral("pickle is 132 bytes, more than the limit of 100"));
        // Tensors returned: one tensor referenced 3 x 3 times through shared lists.
        QByteArray t = specPickle();
        t.chop(1);
        t.remove(0, 2);
        const QByteArray fan = QByteArray("\x80\x02", 2) + t + "q\x09" + "](" "h\x09" "h\x09" "h\x09" "eq\x0a" + "](" "h\x0a" "h\x0a" "h\x0a" "e.";
        auto all = unpickle(fan);
        QVERIFY2(all.ok(), qPrintable(all.errorText()));
        QCOMPARE(all->size(), size_t(9));
        QCOMPARE(all->back().path, QStringLiteral("2.2"));
        PickleLimits eight;
        eight.maxTensors = 8;
        auto many = unpickle(fan, eight);
        QVERIFY(!many.ok());
        QCOMPARE(many.errorText(), QStringLiteral("the pickled object holds more than 8 tensors"));
        // Objects created.
        PickleLimits few;
        few.maxObjects = 10;
        auto o = unpickle(specPickle(), few);
        QVERIFY(!o.ok());
        QVERIFY2(o.errorText().contains(QStringLiteral("pickle creates more than 10 objects")), qPrintable(o.errorText()));
    }

    void dtypeTables()
    {
        QCOMPARE(torchStorageToDataType("BFloat16Storage"), int(DataType::BFloat16));
        QCOMPARE(torchStorageToDataType("BoolStorage"), int(DataType::Bool));
        QCOMPARE(torchStorageToDataType("ComplexFloatStorage"), int(DataType::Complex64));
        QCOMPARE(torchStorageToDataType("ComplexDoubleStorage"), int(DataType::Complex128));
        QCOMPARE(torchStorageToDataType("ByteStorage"), int(DataType::UInt8));
        QCOMPARE(torchStorageToDataType("CharStorage"), int(DataType::Int8));
        QCOMPARE(torchStorageToDataType("Storage"), 0);
        QCOMPARE(torchDtypeToDataType("float8_e5m2"), int(DataType::Float8E5M2));
        QCOMPARE(torchDtypeToDataType("uint16"), int(DataType::UInt16));
        QCOMPARE(torchDtypeToDataType("half"), int(DataType::Float16));
        QCOMPARE(torchDtypeToDataType("float8_e4m3fnuz"), 0);
    }

    void cleanupTestCase()
    {
        // The os.system payloads would have created this file had anything executed them.
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/dumpscope_pt_pwned")));
    }
};

QTEST_GUILESS_MAIN(TestPtFile)
#include "tst_ptfile.moc"
