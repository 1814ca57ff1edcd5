// Problems of an opened dump (index/problems.h) as `info`, `stats` and the GUI list them:
// unreadable files (errors) and CANN files read with inconsistencies (warnings naming the
// file and the numbers). The CANN files are written here by a small encoder of the public
// DumpData proto (cann-dump.md §4, §5: u64 header length, DumpData, payload); real CANN
// dumps cannot be produced on this machine.
#include "index/buildindex.h"
#include "index/jsonreport.h"
#include "index/problems.h"
#include "index/tensormeasure.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

// --- protobuf wire encoding of DumpData (field numbers of core/formats/cann/dumpdata.proto) ---
QByteArray varint(quint64 v)
{
    QByteArray out;
    do {
        char b = char(v & 0x7F);
        v >>= 7;
        if (v)
            b = char(b | 0x80);
        out += b;
    } while (v);
    return out;
}
QByteArray field(int number, quint64 value) { return varint(quint64(number) << 3) + varint(value); }
QByteArray field(int number, const QByteArray &bytes) { return varint((quint64(number) << 3) | 2) + varint(quint64(bytes.size())) + bytes; }

QByteArray shapeMsg(const QList<quint64> &dims)
{
    QByteArray packed;
    for (quint64 d : dims)
        packed += varint(d);
    return field(1, packed);
}

/// OpOutput (size = field 6) or OpInput (size = field 5): data_type 1, format 2 (ND), shape 3.
QByteArray tensorMsg(bool output, int dataType, const QList<quint64> &dims, quint64 size)
{
    return field(1, quint64(dataType)) + field(2, quint64(2)) + field(3, shapeMsg(dims)) + field(output ? 6 : 5, size);
}

struct Tensor
{
    bool output;
    int dataType; // 1 float32, 2 float16
    QList<quint64> dims;
    quint64 size;
};

/// A big dump file: u64 header length, DumpData {version, dump_time, output*, input*, op_name}, payload.
QByteArray dumpFile(const QByteArray &opName, const std::vector<Tensor> &tensors, const QByteArray &payload)
{
    QByteArray header = field(1, QByteArray("2.0")) + field(2, quint64(1700000000000000));
    for (const auto &t : tensors)
        if (t.output)
            header += field(3, tensorMsg(true, t.dataType, t.dims, t.size));
    for (const auto &t : tensors)
        if (!t.output)
            header += field(4, tensorMsg(false, t.dataType, t.dims, t.size));
    header += field(6, opName);
    const quint64 len = quint64(header.size());
    return QByteArray(reinterpret_cast<const char *>(&len), 8) + header + payload;
}

bool write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray floats(std::initializer_list<float> v)
{
    return QByteArray(reinterpret_cast<const char *>(std::data(v)), qsizetype(v.size() * sizeof(float)));
}

} // namespace

class TestProblems : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<DumpIndex> m_index;
    const QString kSize = QStringLiteral("Add.add_size.1.1.1700000000000001");
    const QString kTail = QStringLiteral("Relu.relu_tail.2.1.1700000000000002");
    const QString kHuge = QStringLiteral("MatMul.mm_huge.3.1.1700000000000003");
    const QString kGood = QStringLiteral("Mul.mul_ok.4.1.1700000000000004");
    const QString kBad = QStringLiteral("Sub.sub_truncated.5.1.1700000000000005");

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // input 0 declares shape [4] x float32 (16 bytes) but size 8; its payload is 8 bytes.
        QVERIFY(write(m_dir.filePath(kSize), dumpFile("add_size", {{false, 1, {4}, 8}, {true, 1, {2}, 8}}, floats({1, 2, 3, 4}))));
        // consistent tensors, then 5 bytes nobody declared.
        QVERIFY(write(m_dir.filePath(kTail), dumpFile("relu_tail", {{false, 2, {2, 2}, 8}, {true, 2, {2, 2}, 8}}, QByteArray(16, 0) + QByteArray(5, '\xaa'))));
        // output 0 declares [1000000, 1000] x float16 (2e9 bytes) over an 8-byte payload.
        QVERIFY(write(m_dir.filePath(kHuge), dumpFile("mm_huge", {{true, 2, {1000000, 1000}, 8}}, QByteArray(8, 0))));
        QVERIFY(write(m_dir.filePath(kGood), dumpFile("mul_ok", {{false, 2, {2}, 4}, {true, 2, {2}, 4}}, QByteArray(8, 0))));
        // declares 16 bytes, holds 4: unreadable (an error, not a warning).
        QVERIFY(write(m_dir.filePath(kBad), dumpFile("sub_truncated", {{true, 1, {4}, 16}}, QByteArray(4, 0))));
        auto index = buildIndex(m_dir.path());
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        m_index = *index;
        QCOMPARE(m_index->ops.size(), size_t(4));
        QCOMPARE(m_index->errors.size(), size_t(1));
    }

    void warningsNameTheFileAndTheNumbers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("parts");
        QTest::addRow("size") << kSize << QStringList{"input 0", "shape [4] x float32 is 16 bytes", "declares size 8"};
        QTest::addRow("trailing") << kTail << QStringList{"5 bytes after the declared sizes", "end at byte", "the file has"};
        QTest::addRow("far larger") << kHuge
                                    << QStringList{"output 0", "[1000000, 1000] x float16 needs 2000000000 bytes", "far larger than its 8-byte payload"};
    }
    void warningsNameTheFileAndTheNumbers()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, parts);
        std::vector<Problem> found;
        for (const Problem &p : indexProblems(*m_index))
            if (p.file == file)
                found.push_back(p);
        QCOMPARE(found.size(), size_t(1));
        const Problem &p = found.front();
        QCOMPARE(p.severity, Problem::Severity::Warning);
        QVERIFY(p.entry.isEmpty());
        QCOMPARE(m_index->ops[size_t(p.op)].relPath, file);
        for (const QString &part : parts)
            QVERIFY2(p.message.contains(part), qPrintable(p.message));
        QVERIFY(problemText(p).startsWith(file + QStringLiteral(": ")));
        if (file == kTail) { // the numbers themselves, from the file we wrote
            const qint64 size = QFileInfo(m_dir.filePath(file)).size();
            QVERIFY2(p.message.contains(QStringLiteral("end at byte %1, the file has %2 bytes").arg(size - 5).arg(size)), qPrintable(p.message));
        }
    }

    void consistentFileHasNoWarning()
    {
        for (const Problem &p : indexProblems(*m_index))
            QVERIFY2(p.file != kGood, qPrintable(p.message));
        const std::vector<Problem> all = indexProblems(*m_index);
        QCOMPARE(all.size(), size_t(4));
        QCOMPARE(all.front().severity, Problem::Severity::Error); // errors first
        QCOMPARE(all.front().file, kBad);
    }

    void infoJsonListsWarnings()
    {
        const QJsonObject info = QJsonDocument::fromJson(infoJson(*m_index)).object();
        QCOMPARE(info[QLatin1String("errors")].toInt(), 1);
        QCOMPARE(info[QLatin1String("warnings")].toInt(), 3);
        QStringList files;
        for (const auto &w : info[QLatin1String("warning_files")].toArray()) {
            files << w[QLatin1String("file")].toString();
            QVERIFY(!w[QLatin1String("message")].toString().isEmpty());
        }
        files.sort();
        QStringList expected{kSize, kTail, kHuge};
        expected.sort();
        QCOMPARE(files, expected);
    }

    void statsCarryTheirFileWarnings()
    {
        const int op = m_index->opIndex(kSize);
        QVERIFY(op >= 0);
        std::vector<TensorMeasure> entries;
        for (int t = 0; t < int(m_index->ops[size_t(op)].tensors.size()); ++t)
            entries.push_back(measureTensor(*m_index, {op, t}));
        entries.push_back(measureTensor(*m_index, {m_index->opIndex(kGood), 0}));
        const QJsonObject stats = QJsonDocument::fromJson(statsJson(*m_index, entries)).object();
        const QJsonArray tensors = stats[QLatin1String("tensors")].toArray();
        QCOMPARE(tensors.size(), 3);
        for (const auto &t : tensors) {
            const QJsonArray warnings = t[QLatin1String("warnings")].toArray();
            if (t[QLatin1String("id")].toString().startsWith(kGood)) {
                QVERIFY(warnings.isEmpty());
                continue;
            }
            QCOMPARE(warnings.size(), 1);
            QCOMPARE(warnings.first()[QLatin1String("file")].toString(), kSize);
            QVERIFY(warnings.first()[QLatin1String("message")].toString().contains(QLatin1String("is 16 bytes but the header declares size 8")));
        }
        // The short input is still measured: the 2 elements the payload holds.
        QCOMPARE(tensors.first()[QLatin1String("count")].toInt(), 2);
        QCOMPARE(tensors.first()[QLatin1String("max")].toDouble(), 2.0);
    }

    void frameworkWarningsNameTheEntry()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("step0/rank0"))));
        QVERIFY(write(dir.filePath(QStringLiteral("step0/rank0/dump.json")),
                      "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {"
                      "\"Torch.add.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
                      "\"shape\": [2, 1e20], \"Max\": 1, \"Min\": 0, \"Mean\": 0.5, \"Norm\": 1}], \"input_kwargs\": {}, \"output\": []}}}"));
        auto index = buildIndex(dir.path());
        QVERIFY(index.ok());
        const auto problems = indexProblems(**index);
        QCOMPARE(problems.size(), size_t(1));
        QCOMPARE(problems.front().file, QStringLiteral("step0/rank0/dump.json"));
        QCOMPARE(problems.front().entry, QStringLiteral("Torch.add.0.forward"));
        QVERIFY(problemText(problems.front()).startsWith(QStringLiteral("step0/rank0/dump.json (Torch.add.0.forward): ")));
    }
};

QTEST_GUILESS_MAIN(TestProblems)
#include "tst_problems.moc"
