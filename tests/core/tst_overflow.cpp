// Overflow status decoding against every worked example of the seed documents (overflow.md
// §6.4) and OpDebug payload decoding against the spec's test vector (§3.3) and layouts; the
// one first-overflow rule (firstoverflow.h) on hand-made scopes and on the samples, against
// what samples/generate_overflow.py's own decoder computed.
#include "index/buildindex.h"
#include "run/firstoverflow.h"
#include "overflow/opdebug.h"
#include "overflow/overflowreport.h"
#include "overflow/statusdecode.h"
#include "run/runcompare.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <cstring>

using namespace ds;
Q_DECLARE_METATYPE(ds::StatusKind)

namespace {

std::vector<std::byte> legacyPayload()
{
    // The §3.3 vector: AI Core block model 1, stream 3, task 57, status 272.
    std::vector<std::byte> p(2048);
    auto put = [&](size_t off, std::uint64_t v) { std::memcpy(p.data() + off, &v, 8); };
    put(0x100, 1);
    put(0x108, 3);
    put(0x110, 57);
    put(0x120, 0x1008005b0000);
    put(0x128, 0x100800297000);
    put(0x400, 0x1008005ae000);
    put(0x408, 1);
    put(0x410, 272);
    return p;
}

std::vector<std::byte> magicPayload(std::uint32_t version, std::uint32_t accType, std::vector<std::uint64_t> fields)
{
    std::vector<std::byte> p(2048);
    const std::uint32_t head[6] = {0x5A5A5A5A, version, 1, accType, 0, std::uint32_t(fields.size() * 8)};
    std::memcpy(p.data(), head, sizeof head);
    std::memcpy(p.data() + 24, fields.data(), fields.size() * 8);
    return p;
}

/// One scope of a run (step x rank) for the first-overflow rule: its earliest operator by each
/// source at a position (-1: none), `first` the earlier of the two as summarizeOverflow sets it.
ScopeSummary scope(int step, int rank, int hardwareAt, int softwareAt)
{
    ScopeSummary s;
    s.step = QStringLiteral("step%1").arg(step);
    s.rank = QStringLiteral("rank%1").arg(rank);
    s.id = s.step + QLatin1Char('/') + s.rank;
    s.stepNumber = step;
    s.rankNumber = rank;
    s.ops = 20;
    auto op = [&](int at) { return QStringLiteral("%1.op%2").arg(s.id).arg(at); };
    if (hardwareAt >= 0)
        s.hardware = ScopeFinding{op(hardwareAt), {}, QStringLiteral("overflow record R"), hardwareAt, true, op(hardwareAt),
                                  QStringLiteral("%1/Opdebug.%2").arg(s.id).arg(hardwareAt), hardwareAt == softwareAt ? QStringLiteral("critical") : QString()};
    if (softwareAt >= 0)
        s.software = ScopeFinding{op(softwareAt), {}, QStringLiteral("inputs normal"), softwareAt, true, op(softwareAt),
                                  hardwareAt == softwareAt ? s.hardware->record : QString(), QStringLiteral("critical")};
    if (s.hardware && (!s.software || hardwareAt <= softwareAt))
        s.first = s.hardware;
    else if (s.software)
        s.first = s.software;
    s.anomalies = (hardwareAt >= 0) + (softwareAt >= 0 && softwareAt != hardwareAt);
    return s;
}

QJsonObject manifestSample(const QString &name)
{
    QFile f(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const auto &s : QJsonDocument::fromJson(f.readAll())[QLatin1String("samples")].toArray())
        if (s[QLatin1String("name")].toString() == name)
            return s.toObject();
    return {};
}

QList<qulonglong> codes(const StatusDecoding &d)
{
    QList<qulonglong> out;
    for (const auto &c : d.causes)
        out << c.code;
    return out;
}

} // namespace

class TestOverflow : public QObject
{
    Q_OBJECT
private slots:
    void seedExamples_data()
    {
        QTest::addColumn<StatusKind>("kind");
        QTest::addColumn<qulonglong>("status");
        QTest::addColumn<QList<qulonglong>>("expected");
        QTest::addColumn<bool>("overflow");
        QTest::addColumn<QString>("english");
        // 272 = 0x110 = 0x100 + 0x010 (seed 001 "Status Reference")
        QTest::addRow("AI Core 272") << StatusKind::AiCore << 272ull << QList<qulonglong>{0x10, 0x100} << true << "FP32 to FP16";
        // 32 = 0x20: the guide's JSON example (model 514, stream 563, task 57)
        QTest::addRow("AI Core 32") << StatusKind::AiCore << 32ull << QList<qulonglong>{0x20} << true << "Floating-point computation overflow";
        QTest::addRow("AI Core every flag") << StatusKind::AiCore << qulonglong(0x8 | 0x10 | 0x20 | 0x80 | 0x100 | 0x400)
                                            << QList<qulonglong>{0x8, 0x10, 0x20, 0x80, 0x100, 0x400} << true << "CUBE";
        QTest::addRow("AI Core unknown bit") << StatusKind::AiCore << 0x2000ull << QList<qulonglong>{0x2000} << true << "unknown bit 0x2000";
        // DHA 2546 = 0x9F2: bits 8..15 = 0x09 -> atomic overflow
        QTest::addRow("DHA 2546") << StatusKind::DhaAtomic << 2546ull << QList<qulonglong>{0x9} << true << "atomic overflow";
        QTest::addRow("DHA src nan") << StatusKind::DhaAtomic << 0xB00ull << QList<qulonglong>{0xB} << true << "src nan";
        QTest::addRow("DHA unknown code") << StatusKind::DhaAtomic << 0x700ull << QList<qulonglong>{0x7} << true << "unknown DHA code 0x7";
        // L2 2546: bits 16..18 of 0b1001_1111_0010 are 000 -> no error
        QTest::addRow("L2 2546") << StatusKind::L2Atomic << 2546ull << QList<qulonglong>{0} << false << "no error";
        QTest::addRow("L2 underflow") << StatusKind::L2Atomic << (0b010ull << 16) << QList<qulonglong>{2} << true << "atomic underflow";
        QTest::addRow("L2 both nan") << StatusKind::L2Atomic << (0b101ull << 16) << QList<qulonglong>{5} << true << "both nan";
    }
    void seedExamples()
    {
        QFETCH(StatusKind, kind);
        QFETCH(qulonglong, status);
        QFETCH(QList<qulonglong>, expected);
        QFETCH(bool, overflow);
        QFETCH(QString, english);
        const StatusDecoding d = decodeStatus(kind, status);
        QCOMPARE(codes(d), expected);
        QCOMPARE(d.overflow, overflow);
        QStringList texts;
        for (const auto &c : d.causes)
            texts << c.english;
        QVERIFY2(texts.join(QLatin1Char('|')).contains(english), qPrintable(texts.join(QLatin1Char('|'))));
        for (const auto &c : d.causes)
            QVERIFY(!c.chinese.isEmpty());
    }

    void chineseTexts()
    {
        QCOMPARE(decodeStatus(StatusKind::AiCore, 0x20).causes.front().chinese, QStringLiteral("浮点计算有溢出"));
        QCOMPARE(decodeStatus(StatusKind::DhaAtomic, 0x900).causes.front().chinese, QStringLiteral("[atomic overflow] 向上溢出"));
    }

    void views()
    {
        QCOMPARE(hexString(272), QStringLiteral("0x110"));
        QCOMPARE(binaryString(2546), QStringLiteral("0b1001_1111_0010"));
        QCOMPARE(hexString(0x1008005b0000), QStringLiteral("0x1008005b0000"));
    }

    void legacyVector()
    {
        const auto p = legacyPayload();
        QString error;
        const auto r = decodeOpDebug(p.data(), p.size(), &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->layout, OpDebugRecord::Layout::Legacy);
        const auto t = r->triggered();
        QCOMPARE(t.size(), size_t(1)); // DHA and L2 blocks are all zero: not triggered
        const OverflowBlock &b = *t.front();
        QCOMPARE(b.kind, OverflowBlock::Kind::AiCore);
        QCOMPARE(b.modelId, 1u);
        QCOMPARE(b.streamId, 3u);
        QCOMPARE(b.taskId, 57u);
        QCOMPARE(*b.pcStart, 0x1008005b0000ull);
        QCOMPARE(*b.paraBase, 0x100800297000ull);
        QCOMPARE(*b.kernelCode, 0x1008005ae000ull);
        QCOMPARE(*b.blockIdx, 1u);
        QCOMPARE(b.status.front(), 272u);
        QCOMPARE(codes(b.decoding), (QList<qulonglong>{0x10, 0x100}));
    }

    void magicLayouts_data()
    {
        QTest::addColumn<uint>("version");
        QTest::addColumn<uint>("accType");
        QTest::addColumn<QList<qulonglong>>("fields");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("statusWords");
        QTest::addColumn<bool>("documented");
        QTest::addColumn<QList<qulonglong>>("causes");  // documented units: decoded causes
        QTest::addColumn<QList<qulonglong>>("hint");    // undocumented units: the AI Core reading of status[0]
        QTest::addColumn<QString>("hintText");
        // AIC: model, stream, task, type, context, thread, pc, para, core, block, status
        QTest::addRow("AIC v0") << 0u << 0u << QList<qulonglong>{2, 5, 77, 0, 0, 0, 0x100, 0x200, 3, 1, 0x20} << "AIC" << 1 << true
                                << QList<qulonglong>{0x20} << QList<qulonglong>{} << QString();
        QTest::addRow("AIV v1") << 1u << 1u << QList<qulonglong>{2, 5, 78, 0, 0, 0, 0x100, 0x200, 3, 1, 0x10, 7, 8, 9} << "AIV" << 4 << false
                                << QList<qulonglong>{} << QList<qulonglong>{0x10} << "Integer addition";
        QTest::addRow("AIV two bits") << 0u << 1u << QList<qulonglong>{2, 5, 78, 0, 0, 0, 0x100, 0x200, 3, 1, 0x120} << "AIV" << 1 << false
                                      << QList<qulonglong>{} << QList<qulonglong>{0x20, 0x100} << "FP32 to FP16";
        QTest::addRow("AICPU") << 0u << 2u << QList<qulonglong>{2, 5, 79, 0, 0, 1, 2, 0x1} << "AICPU" << 1 << false
                               << QList<qulonglong>{} << QList<qulonglong>{0x1} << "unknown bit 0x1";
        QTest::addRow("SDMA") << 0u << 3u << QList<qulonglong>{2, 5, 80, 0, 0, 0, 0xA000, 0xB000, 4, 0x20} << "SDMA" << 1 << false
                              << QList<qulonglong>{} << QList<qulonglong>{0x20} << "Floating-point computation overflow";
    }
    void magicLayouts()
    {
        QFETCH(uint, version);
        QFETCH(uint, accType);
        QFETCH(QList<qulonglong>, fields);
        QFETCH(QString, kind);
        QFETCH(int, statusWords);
        const auto p = magicPayload(version, accType, std::vector<std::uint64_t>(fields.begin(), fields.end()));
        QString error;
        const auto r = decodeOpDebug(p.data(), p.size(), &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->layout, OpDebugRecord::Layout::Magic);
        QVERIFY(r->warnings.isEmpty());
        const OverflowBlock &b = r->blocks.front();
        QCOMPARE(b.kindName(), kind);
        QCOMPARE(b.streamId, 5u);
        QCOMPARE(b.taskId, fields[2]);
        QCOMPARE(int(b.status.size()), statusWords);
        QCOMPARE(b.status.front(), fields[fields.size() - qsizetype(statusWords)]);
        QFETCH(bool, documented);
        QFETCH(QList<qulonglong>, causes);
        QFETCH(QList<qulonglong>, hint);
        QFETCH(QString, hintText);
        QCOMPARE(b.statusDocumented, documented);
        QCOMPARE(codes(b.decoding), causes);
        QCOMPARE(codes(b.aiCoreHint), hint);
        QVERIFY(b.decoding.overflow);
        if (documented) {
            QVERIFY(b.undocumentedNote().isEmpty());
        } else {
            QVERIFY2(b.undocumentedNote().startsWith(QStringLiteral("meaning not documented for this unit (%1)").arg(kind)),
                     qPrintable(b.undocumentedNote()));
            QStringList texts;
            for (const auto &c : b.aiCoreHint.causes)
                texts << c.english;
            QVERIFY2(texts.join(QLatin1Char('|')).contains(hintText), qPrintable(texts.join(QLatin1Char('|'))));
        }
    }

    void setBitsOfAStatus()
    {
        QCOMPARE(setBits(0), std::vector<std::uint64_t>{});
        QCOMPARE(setBits(272), (std::vector<std::uint64_t>{0x10, 0x100}));
        QCOMPARE(setBits(1ull << 63), std::vector<std::uint64_t>{1ull << 63});
    }


    /// The one first-overflow rule over hand-made scopes: the earlier source wins in a scope,
    /// the earliest step and the communication-op clock across scopes, and the note says what
    /// the other source names and why it is not first.
    void firstOverflowRule_data()
    {
        QTest::addColumn<std::vector<ScopeSummary>>("scopes");
        QTest::addColumn<bool>("scanned");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QStringList>("note"); // the note contains each of these
        QTest::addRow("software first in the scope")
            << std::vector{scope(0, 0, 7, 4)} << true << "step0/rank0.op4" << "software"
            << QStringList{"no OpDebug record names step0/rank0.op4", "the first OpDebug record (hardware), Opdebug.7,", "names step0/rank0.op7", "runs later in step0/rank0"};
        QTest::addRow("hardware first in the scope")
            << std::vector{scope(0, 0, 2, 5)} << true << "step0/rank0.op2" << "opdebug"
            << QStringList{"the software scan finds no NaN, Inf or saturated value in the tensors of step0/rank0.op2",
                           "its first anomaly, step0/rank0.op5 [critical], runs later in step0/rank0"};
        QTest::addRow("both name it") << std::vector{scope(0, 0, 3, 3)} << true << "step0/rank0.op3" << "both"
                                      << QStringList{"Opdebug.3 (hardware) and the software scan (critical) name the same operator"};
        QTest::addRow("records only, not scanned") << std::vector{scope(0, 0, 6, -1)} << false << "step0/rank0.op6" << "opdebug"
                                                   << QStringList{"the software scan was not run"};
        QTest::addRow("hardware only, scanned") << std::vector{scope(0, 0, 6, -1)} << true << "step0/rank0.op6" << "opdebug"
                                                << QStringList{"stayed inside the operator"};
        QTest::addRow("software only") << std::vector{scope(1, 0, -1, 9)} << true << "step1/rank0.op9" << "software" << QStringList{};
        QTest::addRow("record in a later step")
            << std::vector{scope(0, 0, -1, 12), scope(1, 0, 1, -1)} << true << "step0/rank0.op12" << "software"
            << QStringList{"names step1/rank0.op1, which is in a later step (step1/rank0)"};
        // no communication op: the clock offset is the position; rank 1's record at 1 beats rank 0's scan at 3
        QTest::addRow("across ranks on the clock")
            << std::vector{scope(0, 0, -1, 3), scope(0, 1, 1, -1)} << true << "step0/rank1.op1" << "opdebug"
            << QStringList{"its first anomaly, step0/rank0.op3 [critical], is in step0/rank0, later on the communication-op clock"};
        QTest::addRow("nothing") << std::vector{scope(0, 0, -1, -1), scope(1, 0, -1, -1)} << true << QString() << QString() << QStringList{};
    }
    void firstOverflowRule()
    {
        QFETCH(std::vector<ScopeSummary>, scopes);
        QFETCH(bool, scanned);
        QFETCH(QString, op);
        QFETCH(QString, source);
        QFETCH(QStringList, note);
        const std::vector<FirstOverflow> first = firstOverflows(scopes, scanned);
        if (op.isEmpty()) {
            QVERIFY(first.empty());
            return;
        }
        QCOMPARE(first.size(), size_t(1));
        const FirstOverflow &f = first.front();
        QCOMPARE(f.finding.op, op);
        QCOMPARE(QString::fromLatin1(firstOverflowSourceName(f.source)), source);
        for (const QString &part : note)
            QVERIFY2(f.note.contains(part), qPrintable(f.note));
        if (note.isEmpty())
            QVERIFY2(f.note.isEmpty(), qPrintable(f.note));
        QVERIFY(f.line().startsWith(op + QStringLiteral(" (")));
        // the order the summaries come in does not matter
        std::vector<ScopeSummary> reversed(scopes.rbegin(), scopes.rend());
        QCOMPARE(firstOverflows(reversed, scanned), first);
        // the JSON names the same operator and source
        const QJsonObject json = QJsonDocument::fromJson(f.toJson()).object();
        QCOMPARE(json.value(QStringLiteral("op")).toString(), op);
        QCOMPARE(json.value(QStringLiteral("source")).toString(), source);
        QCOMPARE(json.value(QStringLiteral("note")).toString(), f.note);
    }

    /// On every overflow sample (and the sub-folders the manifest names): the answer of
    /// analyzeOverflow -> summarizeOverflow -> firstOverflows is the one the generator's own
    /// decoder computed with the rule (samples/generate_overflow.py first_overflow()).
    void firstOverflowOnSamples_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonValue>("expected");
        for (const char *sampleName : {"overflow_legacy", "overflow_magic", "overflow_vector", "overflow_software", "overflow_resnet"}) {
            const QString name = QString::fromLatin1(sampleName);
            const QJsonObject sample = manifestSample(name);
            QVERIFY2(!sample.isEmpty(), qPrintable(name));
            const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/") + sample[QLatin1String("path")].toString();
            const QJsonObject ov = sample[QLatin1String("overflow")].toObject();
            QTest::addRow("%s", qPrintable(name)) << root << QJsonValue(ov[QLatin1String("first")]);
            const QJsonObject in = ov[QLatin1String("first_in")].toObject();
            for (auto it = in.begin(); it != in.end(); ++it)
                QTest::addRow("%s %s", qPrintable(name), qPrintable(it.key())) << root + QLatin1Char('/') + it.key() << QJsonValue(it.value());
        }
        QVERIFY(!manifestSample(QStringLiteral("overflow_resnet"))[QLatin1String("overflow")][QLatin1String("first_in")].toObject().isEmpty());
    }
    void firstOverflowOnSamples()
    {
        QFETCH(QString, path);
        QFETCH(QJsonValue, expected);
        auto index = buildIndex(path);
        QVERIFY2(index, qPrintable(index.errorText()));
        const OverflowReport report = analyzeOverflow(**index);
        const std::vector<FirstOverflow> first = firstOverflows(summarizeOverflow(**index, report), report.scanned);
        if (expected.isNull()) {
            QVERIFY(first.empty());
            return;
        }
        QCOMPARE(first.size(), size_t(1));
        const FirstOverflow &f = first.front();
        const QJsonObject want = expected.toObject();
        QCOMPARE(f.finding.file, want[QLatin1String("file")].toString());
        QCOMPARE(f.finding.op, want[QLatin1String("op")].toString());
        QCOMPARE(QString::fromLatin1(firstOverflowSourceName(f.source)), want[QLatin1String("source")].toString());
        QCOMPARE(f.finding.record, want[QLatin1String("record")].toString());
        QCOMPARE(f.finding.level, want[QLatin1String("level")].toString());
        QCOMPARE(f.hardware ? f.hardware->file : QString(), want[QLatin1String("opdebug_first")][QLatin1String("file")].toString());
        QCOMPARE(f.software ? f.software->file : QString(), want[QLatin1String("software_first")][QLatin1String("file")].toString());
    }

    void rejects()
    {
        std::vector<std::byte> shortPayload(100);
        QString error;
        QVERIFY(!decodeOpDebug(shortPayload.data(), shortPayload.size(), &error));
        QVERIFY(error.contains(QLatin1String("unknown OpDebug payload")));
        const auto p = magicPayload(0, 9, {1, 2, 3});
        QVERIFY(!decodeOpDebug(p.data(), p.size(), &error));
        QVERIFY(error.contains(QLatin1String("acc_type 9")));
        const auto future = magicPayload(7, 0, {2, 5, 77, 0, 0, 0, 0x100, 0x200, 3, 1, 0x20});
        QVERIFY(!decodeOpDebug(future.data(), future.size(), &error));
        QVERIFY2(error.contains(QLatin1String("unknown OpDebug record version 7")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestOverflow)
#include "tst_overflow.moc"
