// .npy reading: the header parser (every descr of msprobe.md §8, versions, strict dict
// literal, refusals), folders of msaccucmp-converted and loose .npy files, and the loader.
// Oracle: samples/h5npy_manifest.json, written by samples/generate_h5npy.py from what numpy
// itself loads (descr, shape, C-order little-endian bytes).
#include "formats/readers.h"
#include "formats/npy/npyheader.h"
#include "formats/npyfolder/npyfolder.h"
#include "index/tensorloader.h"
#include "tensor/dtype.h"
#include "partindex.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

using namespace ds;
using namespace ds::testing;

namespace {

const QString kSamples = QStringLiteral(DUMPSCOPE_SAMPLES);

QJsonObject manifest()
{
    QFile f(kSamples + QStringLiteral("/h5npy_manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// A .npy file in memory: magic, version, little-endian header length, dict padded to 64 and '\n'.
QByteArray npyBytes(const QByteArray &dict, const QByteArray &body, int major = 1)
{
    const int prefix = major == 1 ? 10 : 12;
    QByteArray text = dict;
    while ((prefix + text.size() + 1) % 64)
        text += ' ';
    text += '\n';
    QByteArray out("\x93NUMPY", 6);
    out += char(major);
    out += char(0);
    const quint32 len = quint32(text.size());
    out += char(len & 0xFF);
    out += char((len >> 8) & 0xFF);
    if (major > 1) {
        out += char((len >> 16) & 0xFF);
        out += char((len >> 24) & 0xFF);
    }
    return out + text + body;
}

Result<npy::NpyHeader> parse(const QByteArray &bytes, bool v2AsBf16 = false)
{
    npy::NpyParseOptions o;
    o.v2AsBfloat16 = v2AsBf16;
    return npy::parseNpyHeader(reinterpret_cast<const std::byte *>(bytes.constData()), std::uint64_t(bytes.size()), o);
}

IoKind ioOf(const QString &s) { return s == QLatin1String("input") ? IoKind::Input : IoKind::Output; }

} // namespace

class TestNpyRead : public QObject
{
    Q_OBJECT
private slots:
    void descr_data()
    {
        QTest::addColumn<QByteArray>("descr");
        QTest::addColumn<int>("dataType");
        QTest::addColumn<int>("itemSize");
        QTest::addColumn<bool>("swap");
        using enum DataType;
        const struct { const char *d; DataType t; int size; bool swap; } rows[] = {
            {"|b1", Bool, 1, false}, {"|i1", Int8, 1, false}, {"|u1", UInt8, 1, false},
            {"<i2", Int16, 2, false}, {"<u2", UInt16, 2, false}, {"<i4", Int32, 4, false},
            {"<u4", UInt32, 4, false}, {"<i8", Int64, 8, false}, {"<u8", UInt64, 8, false},
            {"<f2", Float16, 2, false}, {"<f4", Float32, 4, false}, {"<f8", Float64, 8, false},
            {"<c8", Complex64, 8, false}, {"<c16", Complex128, 16, false},
            {">i2", Int16, 2, true}, {">u2", UInt16, 2, true}, {">i4", Int32, 4, true}, {">u4", UInt32, 4, true},
            {">i8", Int64, 8, true}, {">u8", UInt64, 8, true}, {">f2", Float16, 2, true}, {">f4", Float32, 4, true},
            {">f8", Float64, 8, true}, {">c8", Complex64, 8, true}, {">c16", Complex128, 16, true},
            {"|V2", UInt16, 2, false}, {"<U3", String, 12, false}, {">U3", String, 12, true},
        };
        for (const auto &r : rows)
            QTest::addRow("%s", r.d) << QByteArray(r.d) << int(r.t) << r.size << r.swap;
    }
    void descr()
    {
        QFETCH(QByteArray, descr);
        QFETCH(int, dataType);
        QFETCH(int, itemSize);
        QFETCH(bool, swap);
        const QByteArray dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 3), }";
        const auto h = parse(npyBytes(dict, QByteArray(6 * itemSize, '\0')));
        QVERIFY2(h.ok(), qPrintable(h.errorText()));
        QCOMPARE(h->dataType, dataType);
        QCOMPARE(int(h->itemSize), itemSize);
        QCOMPARE(h->byteSwap, swap);
        QCOMPARE(h->shape, (Shape{2, 3}));
        QCOMPARE(h->elementCount, 6u);
        QCOMPARE(h->dataBytes, std::uint64_t(6 * itemSize));
        QCOMPARE(h->dataOffset % 64, 0u);
    }

    void v2IsBfloat16OnlyWhenAsked()
    {
        const QByteArray bytes = npyBytes("{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", QByteArray(2, '\0'));
        QCOMPARE(parse(bytes)->dataType, int(DataType::UInt16));
        QVERIFY(parse(bytes)->voidPair);
        QCOMPARE(parse(bytes, true)->dataType, int(DataType::BFloat16));
    }

    void literalSyntax_data()
    {
        QTest::addColumn<QByteArray>("dict");
        QTest::addColumn<QList<qulonglong>>("shape");
        QTest::addColumn<bool>("fortran");
        QTest::addRow("numpy") << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") << QList<qulonglong>{2, 3} << false;
        QTest::addRow("0-d") << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (), }") << QList<qulonglong>{} << false;
        QTest::addRow("1-d") << QByteArray("{'descr': '<f4', 'fortran_order': True, 'shape': (4,), }") << QList<qulonglong>{4} << true;
        QTest::addRow("key order, double quotes, no trailing comma")
            << QByteArray("{\"shape\": (1,2), \"fortran_order\": True, \"descr\": \"<f4\"}") << QList<qulonglong>{1, 2} << true;
        QTest::addRow("python 2 longs") << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 1L), }") << QList<qulonglong>{2, 1} << false;
        QTest::addRow("zero dim") << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 7), }") << QList<qulonglong>{0, 7} << false;
    }
    void literalSyntax()
    {
        QFETCH(QByteArray, dict);
        QFETCH(QList<qulonglong>, shape);
        QFETCH(bool, fortran);
        const Shape s(shape.begin(), shape.end());
        const auto h = parse(npyBytes(dict, QByteArray(qsizetype(elementCount(s).value() * 4), '\0')));
        QVERIFY2(h.ok(), qPrintable(h.errorText()));
        QCOMPARE(h->shape, s);
        QCOMPARE(h->fortranOrder, fortran);
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const QByteArray f4x2(8, '\0');
        auto row = [&](const char *name, const QByteArray &dict, const char *error, const QByteArray &body = QByteArray(8, '\0')) {
            QTest::addRow("%s", name) << npyBytes(dict, body) << QString::fromLatin1(error);
        };
        row("object", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "object array");
        row("object 8", "{'descr': '<O8', 'fortran_order': False, 'shape': (2,), }", "never loads (security rule)");
        row("structured", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "structured arrays");
        row("call", "{'descr': eval('1'), 'fortran_order': False, 'shape': (2,), }", "'eval' is not a literal");
        row("missing key", "{'descr': '<f4', 'shape': (2,), }", "has no 'fortran_order'");
        row("extra key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "unexpected key 'x'");
        row("duplicate key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "appears twice");
        row("negative dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "non-negative integers");
        row("list shape", "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "'shape' is not a tuple");
        row("int in parentheses", "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", "trailing comma");
        row("fortran not bool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", "not True or False");
        row("unknown descr", "{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }", "unsupported descr '<f3'");
        row("bytes strings", "{'descr': '|S4', 'fortran_order': False, 'shape': (2,), }", "unsupported descr '|S4'");
        row("no byte order", "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", "has no byte order");
        row("text after dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", "unexpected text after the dict");
        row("escape", "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,), }", "escape sequences");
        row("huge integer", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "integer too large");
        row("truncated data", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "needs 12 data bytes but the file holds 8");
        row("overflow", "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", "byte count overflows");
        // Zero-width strings: 10^10 elements in 0 bytes would pass the size check, then be iterated.
        row("zero-width unicode", "{'descr': '<U0', 'fortran_order': True, 'shape': (100000, 100000), }", "descr '<U0' has zero-width items");
        QTest::addRow("bad magic") << QByteArray("\x93NUMPZ\x01\x00\x10\x00", 10) + QByteArray(16, ' ') << QStringLiteral("not a .npy file");
        QTest::addRow("version 4") << QByteArray("\x93NUMPY\x04\x00\x10\x00", 10) + QByteArray(16, ' ') << QStringLiteral("unsupported .npy format version 4.0");
        QTest::addRow("short") << QByteArray("\x93NUM", 4) << QStringLiteral("too short");
        QByteArray longHeader = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", f4x2);
        longHeader[8] = char(0xFF);
        longHeader[9] = char(0x7F);
        QTest::addRow("header length") << longHeader << QStringLiteral("header length 32767 runs past the end of the file");
    }
    void refused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const auto h = parse(bytes);
        QVERIFY(!h.ok());
        QVERIFY2(h.errorText().contains(error), qPrintable(h.errorText()));
    }

    void versions()
    {
        const QByteArray body(8, '\x01');
        for (int major : {1, 2, 3}) {
            const QByteArray bytes = npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", body, major);
            const auto h = parse(bytes);
            QVERIFY2(h.ok(), qPrintable(h.errorText()));
            QCOMPARE(h->major, major);
            QCOMPARE(h->dataOffset % 64, 0u);
            QCOMPARE(h->dataOffset + h->dataBytes, std::uint64_t(bytes.size()));
        }
    }

    void helpers()
    {
        // 2x3 Fortran order holds columns: [a00 a10 a01 a11 a02 a12].
        const std::uint16_t f[] = {0, 10, 1, 11, 2, 12};
        std::uint16_t c[6] = {};
        QVERIFY(npy::fortranToC(reinterpret_cast<const std::byte *>(f), reinterpret_cast<std::byte *>(c), {2, 3}, 2));
        const std::uint16_t expected[] = {0, 1, 2, 10, 11, 12};
        QVERIFY(std::memcmp(c, expected, sizeof c) == 0);
        const std::uint8_t be[] = {0x3F, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00}; // complex64 (1, 2) big-endian
        float le[2];
        npy::byteSwapCopy(reinterpret_cast<const std::byte *>(be), reinterpret_cast<std::byte *>(le), 1, 8, 4);
        QCOMPARE(le[0], 1.0f);
        QCOMPARE(le[1], 2.0f);
        QCOMPARE(npy::npyShapeString({}), QStringLiteral("()"));
        QCOMPARE(npy::npyShapeString({5}), QStringLiteral("(5,)"));
        QCOMPARE(npy::npyShapeString({2, 3}), QStringLiteral("(2, 3)"));
    }

    // Every sample folder: operators, tensors and errors as the manifest says, and every tensor
    // loads to the bytes numpy loads.
    void folder_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addRow("convert") << QStringLiteral("convert");
        QTest::addRow("loose") << QStringLiteral("loose");
    }
    void folder()
    {
        QFETCH(QString, key);
        const QJsonObject m = manifest().value(QStringLiteral("npy")).toObject().value(key).toObject();
        QVERIFY(!m.isEmpty());
        DumpLevels levels;
        levels.step = QStringLiteral("step0");
        auto part = npyfolder::indexDir(kSamples, m.value(QStringLiteral("dir")).toString(), levels);
        QVERIFY2(part.ok(), qPrintable(part.errorText()));

        // Bad files: exactly the expected ones, each with its text.
        const QJsonArray errors = m.value(QStringLiteral("errors")).toArray();
        QCOMPARE(part->errors.size(), size_t(errors.size()));
        for (const auto &ev : errors) {
            const QJsonObject e = ev.toObject();
            const auto it = std::find_if(part->errors.begin(), part->errors.end(), [&](const FileError &fe) {
                return fe.file == e.value(QStringLiteral("file")).toString();
            });
            QVERIFY2(it != part->errors.end(), qPrintable(e.value(QStringLiteral("file")).toString()));
            QVERIFY2(it->message.contains(e.value(QStringLiteral("contains")).toString()), qPrintable(it->message));
        }

        const QJsonArray ops = m.value(QStringLiteral("ops")).toArray();
        QCOMPARE(part->ops.size(), size_t(ops.size()));
        for (qsizetype i = 0; i < ops.size(); ++i) {
            const QJsonObject eo = ops[i].toObject();
            const OpRecord &op = part->ops[size_t(i)]; // same order: timestamp, then path
            QCOMPARE(op.relPath, eo.value(QStringLiteral("relPath")).toString());
            QCOMPARE(op.opType, eo.value(QStringLiteral("opType")).toString());
            QCOMPARE(op.opName, eo.value(QStringLiteral("opName")).toString());
            QCOMPARE(op.taskId(), std::int64_t(eo.value(QStringLiteral("taskId")).toDouble()));
            QCOMPARE(op.streamId(), std::int64_t(eo.value(QStringLiteral("streamId")).toDouble()));
            QCOMPARE(op.timestamp, std::uint64_t(eo.value(QStringLiteral("timestamp")).toDouble()));
            QCOMPARE(op.levels->step, QStringLiteral("step0"));
            const QJsonArray tensors = eo.value(QStringLiteral("tensors")).toArray();
            QCOMPARE(op.tensors.size(), size_t(tensors.size()));
            std::vector<QJsonObject> sorted;
            for (const auto &t : tensors)
                sorted.push_back(t.toObject());
            std::stable_sort(sorted.begin(), sorted.end(), [](const QJsonObject &a, const QJsonObject &b) {
                return a.value(QStringLiteral("io")).toString() < b.value(QStringLiteral("io")).toString(); // input first
            });
            for (size_t j = 0; j < sorted.size(); ++j) {
                const QJsonObject &et = sorted[j];
                const TensorRecord &t = op.tensors[j];
                const QString file = et.value(QStringLiteral("file")).toString();
                QCOMPARE(t.location(), file);
                QCOMPARE(t.io(), ioOf(et.value(QStringLiteral("io")).toString()));
                QCOMPARE(t.index(), std::uint32_t(et.value(QStringLiteral("index")).toInt()));
                QCOMPARE(t.name(), et.value(QStringLiteral("name")).toString());
                QCOMPARE(t.shape(), shapeOf(et.value(QStringLiteral("shape")).toArray()));
                const QString dtype = et.value(QStringLiteral("dtype")).toString();
                QCOMPARE(dataTypeName(t.dataType()), dtype);
                if (dtype == QLatin1String("string")) {
                    QCOMPARE(t.storage(), TensorStorage::Value);
                    QCOMPARE(t.value(), et.value(QStringLiteral("value")).toString());
                    continue;
                }
                QCOMPARE(t.storage(), TensorStorage::NpyFile);
                if (et.contains(QStringLiteral("typeName")))
                    QCOMPARE(t.typeName(), et.value(QStringLiteral("typeName")).toString());
                else
                    QVERIFY2(t.typeName().startsWith(QLatin1String("void16")), qPrintable(t.typeName()));
            }
        }

        // Load every tensor through the public loader and compare with numpy's bytes.
        auto index = indexOfPart(kSamples, std::move(*part), u"npy");
        int loaded = 0;
        for (const auto &ov : ops) {
            const QJsonObject eo = ov.toObject();
            const int o = index->opIndex(eo.value(QStringLiteral("relPath")).toString());
            QVERIFY(o >= 0);
            for (const auto &tv : eo.value(QStringLiteral("tensors")).toArray()) {
                const QJsonObject et = tv.toObject();
                if (!et.contains(QStringLiteral("bytes")))
                    continue;
                const auto &tensors = index->ops[size_t(o)].tensors;
                const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const TensorRecord &t) {
                    return t.location() == et.value(QStringLiteral("file")).toString();
                });
                QVERIFY(it != tensors.end());
                const auto t = loadTensor(*index, {o, int(it - tensors.begin())});
                QVERIFY2(t.ok(), qPrintable(t.errorText()));
                QCOMPARE((*t)->shape, it->shape());
                QCOMPARE(loadedBytes(**t), QByteArray::fromBase64(et.value(QStringLiteral("bytes")).toString().toLatin1()));
                // Zero copy (a view into the mapping) unless bytes had to be swapped or reordered.
                const bool swapped = et.value(QStringLiteral("descr")).toString().startsWith(QLatin1Char('>'));
                const bool reordered = et.value(QStringLiteral("fortran")).toBool() && it->shape().size() > 1;
                QCOMPARE((*t)->owned.empty(), !swapped && !reordered);
                QVERIFY((*t)->file);
                ++loaded;
            }
        }
        QVERIFY(loaded > 5);
    }

    void notesForReorderedData()
    {
        auto part = npyfolder::indexDir(kSamples, QStringLiteral("npy/convert"), {});
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"npy");
        const int add = index->opIndex(QStringLiteral("npy/convert/Add.add_1.13.1589195081588100"));
        QVERIFY(add >= 0);
        const auto *in1 = index->ops[size_t(add)].tensor(IoKind::Input, 1); // >i8, Fortran order
        QVERIFY(in1);
        const auto t = loadTensor(*index, {add, int(in1 - index->ops[size_t(add)].tensors.data())});
        QVERIFY(t.ok());
        QCOMPARE((*t)->notes.size(), 2);
        QVERIFY((*t)->notes.join(QLatin1Char(' ')).contains(QLatin1String("byte-swapped")));
        QVERIFY((*t)->notes.join(QLatin1Char(' ')).contains(QLatin1String("Fortran")));
    }

    void bfloat16WhenAsked()
    {
        npyfolder::NpyFolderOptions options;
        options.v2AsBfloat16 = true;
        auto part = npyfolder::indexDir(kSamples, QStringLiteral("npy/loose"), {}, nullptr, options);
        QVERIFY(part.ok());
        auto index = indexOfPart(kSamples, std::move(*part), u"npy");
        const int o = index->opIndex(QStringLiteral("npy/loose/bf16_bits.npy"));
        QVERIFY(o >= 0);
        QCOMPARE(index->ops[size_t(o)].tensors[0].dataType(), int(DataType::BFloat16));
        const auto t = loadTensor(*index, {o, 0});
        QVERIFY2(t.ok(), qPrintable(t.errorText()));
        QCOMPARE((*t)->view.elem, Elem::BF16);
        // The generator wrote the bit patterns of 1, -2 and 0.5.
        QCOMPARE(elemToDouble(Elem::BF16, (*t)->view.data, 0), 1.0);
        QCOMPARE(elemToDouble(Elem::BF16, (*t)->view.data, 1), -2.0);
        QCOMPARE(elemToDouble(Elem::BF16, (*t)->view.data, 2), 0.5);
    }

    void changedFileIsRefused()
    {
        QTemporaryDir dir;
        const QString src = kSamples + QStringLiteral("/npy/loose/weights.npy");
        QVERIFY(QFile::copy(src, dir.filePath(QStringLiteral("w.npy"))));
        auto part = npyfolder::indexDir(dir.path(), QString(), {});
        QVERIFY(part.ok());
        QCOMPARE(part->ops.size(), size_t(1));
        auto index = indexOfPart(dir.path(), std::move(*part), u"npy");
        QVERIFY(loadTensor(*index, {0, 0}).ok());
        QFile f(dir.filePath(QStringLiteral("w.npy")));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", QByteArray(8, '\0')));
        f.close();
        const auto t = loadTensor(*index, {0, 0});
        QVERIFY(!t.ok());
        QVERIFY2(t.errorText().contains(QLatin1String("changed since it was indexed")), qPrintable(t.errorText()));
    }

    // A record made from other metadata (msprobe dump.json: dtype as recorded, no header sizes):
    // the file decides what is decoded, the differences become notes.
    void recordFromOtherMetadata()
    {
        auto index = std::make_shared<DumpIndex>();
        index->rootDir = kSamples;
        OpRecord op;
        op.source = *sourceFormatByName(u"msprobe");
        op.relPath = QStringLiteral("npy/loose/Functional.gelu.0.forward");
        TensorFields rec;
        rec.storage = TensorStorage::NpyFile;
        rec.location = QStringLiteral("npy/loose/grad_bfloat16_2.npy");
        rec.dataType = int(DataType::BFloat16);
        rec.shape = {3};
        op.tensors.push_back(TensorRecord(rec));
        index->ops.push_back(op);
        index->finalize();
        const auto t = loadTensor(*index, {0, 0});
        QVERIFY2(t.ok(), qPrintable(t.errorText()));
        QCOMPARE((*t)->dataType, int(DataType::Float32));
        QCOMPARE((*t)->view.elem, Elem::F32);
        QCOMPARE((*t)->view.count, size_t(3));
        QCOMPARE((*t)->notes, QStringList{QStringLiteral("recorded as bfloat16, stored as '<f4' (float32)")});
    }

    void sniff()
    {
        QVERIFY(npyfolder::looksLikeNpyFolder(kSamples + QStringLiteral("/npy/convert")));
        QVERIFY(npyfolder::looksLikeNpyFolder(kSamples + QStringLiteral("/npy/loose")));
        QVERIFY(!npyfolder::looksLikeNpyFolder(kSamples + QStringLiteral("/h5")));
        QVERIFY(!npyfolder::looksLikeNpyFolder(kSamples + QStringLiteral("/does-not-exist")));
        // .npy files beside (or below) a dump.json belong to msprobe.
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("dump_tensor_data")));
        const QString data = dir.filePath(QStringLiteral("dump_tensor_data"));
        QVERIFY(QFile::copy(kSamples + QStringLiteral("/npy/loose/weights.npy"), data + QStringLiteral("/a.npy")));
        QVERIFY(npyfolder::looksLikeNpyFolder(data));
        QFile json(dir.filePath(QStringLiteral("dump.json")));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.close();
        QVERIFY(!npyfolder::looksLikeNpyFolder(data));
    }

    void missingDirAndCancel()
    {
        QVERIFY(!npyfolder::indexDir(kSamples, QStringLiteral("npy/nothing-here"), {}).ok());
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        const auto part = npyfolder::indexDir(kSamples, QStringLiteral("npy/convert"), {}, &job);
        QVERIFY(!part.ok());
        QCOMPARE(part.errorText(), QStringLiteral("cancelled"));
    }
};

QTEST_GUILESS_MAIN(TestNpyRead)
#include "tst_npyread.moc"
