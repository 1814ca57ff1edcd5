// The binary container (cann-dump.md §4, §11): byte-exact vectors and corrupted files.
#include "formats/cann/dumpfile.h"
#include "tensor/dtype.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;
using namespace ds::cann;

namespace {

// §11.1 big dump, 122 bytes, and §11.2 legacy inline layout, 66 bytes (hex from the spec).
const char *kBigHex =
    "5a000000000000000a03322e30108080f9c0c1c482031a1b080210021a040a02"
    "020222070a056164645f3130083a040a0202022212080210021a040a02020228"
    "0832040a0202022212080210021a040a020202280832040a0202023205616464"
    "5f31003c0040004200440038003800bc00c0003e004100400040";
const char *kLegacyHex =
    "0a03312e30108080f9c0c1c482031a15080110021a030a01022a080000000000"
    "00004030082215080110021a030a01022208000080bf00000040280832047265"
    "6c75";

QByteArray hex(const char *h) { return QByteArray::fromHex(QByteArray(h)); }

Result<ParsedDump> parse(const QByteArray &b)
{
    return parseDump(reinterpret_cast<const std::byte *>(b.constData()), std::uint64_t(b.size()));
}

double f16At(const QByteArray &file, std::uint64_t offset, int i)
{
    std::uint16_t h;
    std::memcpy(&h, file.constData() + offset + 2 * i, 2);
    return halfToDouble(h);
}

QByteArray varint(std::uint64_t v)
{
    QByteArray out;
    do {
        char b = char(v & 0x7F);
        v >>= 7;
        if (v)
            b |= char(0x80);
        out += b;
    } while (v);
    return out;
}

QByteArray withHeader(const QByteArray &header, const QByteArray &payload)
{
    const std::uint64_t len = std::uint64_t(header.size());
    return QByteArray(reinterpret_cast<const char *>(&len), 8) + header + payload;
}

} // namespace

class TestDumpFile : public QObject
{
    Q_OBJECT
private slots:
    void bigDumpVector()
    {
        const QByteArray file = hex(kBigHex);
        QCOMPARE(file.size(), 122);
        auto d = parse(file);
        QVERIFY2(d.ok(), qPrintable(d.errorText()));
        QCOMPARE(d->container, ContainerKind::BigDump);
        QCOMPARE(d->version, QStringLiteral("2.0"));
        QCOMPARE(d->dumpTime, 1700000000000000ull);
        QCOMPARE(d->opName, QStringLiteral("add_1"));
        QCOMPARE(d->headerLen, 90ull);
        QCOMPARE(d->tensors.size(), size_t(3));
        // Payload order is inputs first although the header lists the output first.
        const auto &in0 = d->tensors[0], &in1 = d->tensors[1], &out0 = d->tensors[2];
        QCOMPARE(in0.io, IoKind::Input);
        QCOMPARE(in1.io, IoKind::Input);
        QCOMPARE(out0.io, IoKind::Output);
        QCOMPARE(in0.offset, 98ull);
        QCOMPARE(out0.offset, 114ull);
        QCOMPARE(out0.originalOpName, QStringLiteral("add_1"));
        QCOMPARE(out0.shape, (Shape{2, 2}));
        QCOMPARE(out0.dataType, int(DataType::Float16));
        const double expectedOut[] = {1.5, 2.5, 2, 2}, expectedIn1[] = {0.5, 0.5, -1, -2};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(f16At(file, out0.offset, i), expectedOut[i]);
            QCOMPARE(f16At(file, in1.offset, i), expectedIn1[i]);
            QCOMPARE(f16At(file, in0.offset, i), double(i + 1));
        }
        QVERIFY(d->warnings.isEmpty());
    }

    void legacyVector()
    {
        const QByteArray file = hex(kLegacyHex);
        QCOMPARE(file.size(), 66);
        auto d = parse(file);
        QVERIFY2(d.ok(), qPrintable(d.errorText()));
        QCOMPARE(d->container, ContainerKind::Legacy);
        QCOMPARE(d->opName, QStringLiteral("relu"));
        QCOMPARE(d->tensors.size(), size_t(2));
        const auto &in0 = d->tensors[0], &out0 = d->tensors[1];
        float in[2], out[2];
        std::memcpy(in, file.constData() + in0.offset, 8);
        std::memcpy(out, file.constData() + out0.offset, 8);
        QCOMPARE(in[0], -1.0f);
        QCOMPARE(in[1], 2.0f);
        QCOMPARE(out[0], 0.0f);
        QCOMPARE(out[1], 2.0f);
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const QByteArray big = hex(kBigHex);
        QTest::addRow("zero bytes") << QByteArray() << "empty file";
        QTest::addRow("five bytes") << QByteArray("\x01\x02\x03\x04\x05", 5) << "not a dump file";
        QTest::addRow("truncated payload") << big.left(118) << "truncated";
        QTest::addRow("header only") << big.left(98) << "truncated";
        QByteArray huge = big;
        huge[4] = char(0x7F); // header_len far beyond the file
        QTest::addRow("header longer than file") << huge << "header length";
        QTest::addRow("garbage") << QByteArray("\xde\xad\xbe\xef\x12\x34\x56\x78 this is not protobuf at all \xff\xff\xff", 40) << "unrecognised";
        // An input whose size is 2^64-1: the running total must not wrap around.
        const QByteArray input = "\x28" + varint(~0ull);
        QTest::addRow("size overflows 64 bits") << withHeader("\x22" + varint(quint64(input.size())) + input, QByteArray(16, 0)) << "corrupt size";
        QTest::addRow("nano magic") << QByteArray("\x10\0\0\0\0\0\0\0\x5a\x5a\x5a\x5a\0\0\0\0", 16) << "nano";
    }
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        auto d = parse(bytes);
        QVERIFY(!d.ok());
        QVERIFY2(d.errorText().contains(error), qPrintable(d.errorText()));
        // The on-disk path gives the same answer as the in-memory one.
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("Add.add.1.2.1700000000000000")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        auto fromDisk = parseDumpFile(f.fileName());
        QVERIFY(!fromDisk.ok());
        QCOMPARE(fromDisk.errorText(), d.errorText());
    }

    void trailingBytesWarn()
    {
        // The §11.1 vector (122 bytes: header and tensors end there) with 3 bytes appended.
        auto d = parse(hex(kBigHex) + QByteArray(3, 'x'));
        QVERIFY(d.ok());
        QCOMPARE(d->warnings, QStringList{QStringLiteral("3 bytes after the declared sizes: the header and the tensors end at byte 122, the file has 125 bytes")});
    }

    void inconsistentShapesWarn_data()
    {
        QTest::addColumn<QByteArray>("input");   // an OpInput message (field 4 of DumpData)
        QTest::addColumn<int>("payload");
        QTest::addColumn<QString>("warning");
        // data_type 1 (float32), shape {dim [4]} = 16 bytes, size (field 5) 8
        QTest::addRow("size smaller than shape") << QByteArray("\x08\x01\x1a\x03\x0a\x01\x04\x28\x08", 9) << 8
                                                 << "input 0: shape [4] x float32 is 16 bytes but the header declares size 8";
        // float32 [2] = 8 bytes, size 12: the payload is longer than the shape
        QTest::addRow("size larger than shape") << QByteArray("\x08\x01\x1a\x03\x0a\x01\x02\x28\x0c", 9) << 12
                                                << "input 0: shape [2] x float32 is 8 bytes but the header declares size 12";
        // float16 [1000000] = 2,000,000 bytes over an 8-byte payload (%1: the file size)
        QTest::addRow("far larger than the file") << QByteArray("\x08\x02\x1a\x05\x0a\x03\xc0\x84\x3d\x28\x08", 11) << 8
                                                  << "input 0: shape [1000000] x float16 needs 2000000 bytes, far larger than its 8-byte payload "
                                                     "(the whole file has %1 bytes); only the payload is shown, flat";
        // float32 [2^40, 2^40]: the byte count does not fit in 64 bits
        QTest::addRow("beyond 64 bits") << QByteArray("\x08\x01\x1a\x0e\x0a\x0c", 6) + varint(1ull << 40) + varint(1ull << 40) + QByteArray("\x28\x08", 2)
                                        << 8 << "input 0: shape [1099511627776, 1099511627776] x float32 needs more bytes than 64 bits can count";
    }
    void inconsistentShapesWarn()
    {
        QFETCH(QByteArray, input);
        QFETCH(int, payload);
        QFETCH(QString, warning);
        const QByteArray file = withHeader("\x22" + varint(quint64(input.size())) + input, QByteArray(payload, 0));
        auto d = parse(file);
        QVERIFY2(d.ok(), qPrintable(d.errorText()));
        QCOMPARE(d->warnings.size(), 1);
        if (warning.contains(QLatin1String("%1")))
            warning = warning.arg(file.size());
        QVERIFY2(d->warnings.front().startsWith(warning), qPrintable(d->warnings.front()));
    }

    void consistentFilesDoNotWarn()
    {
        QVERIFY(parse(hex(kBigHex))->warnings.isEmpty());
        QVERIFY(parse(hex(kLegacyHex))->warnings.isEmpty());
    }

    void unpackedShapeDimsAccepted()
    {
        // Shape.dim written unpacked (two varint fields 0x08) instead of packed.
        const QByteArray input = QByteArray("\x08\x01\x1a\x04\x08\x02\x08\x02\x28\x10", 10);
        auto d = parse(withHeader("\x22" + varint(quint64(input.size())) + input, QByteArray(16, 0)));
        QVERIFY2(d.ok(), qPrintable(d.errorText()));
        QCOMPARE(d->tensors[0].shape, (Shape{2, 2}));
    }
};

QTEST_GUILESS_MAIN(TestDumpFile)
#include "tst_dumpfile.moc"
