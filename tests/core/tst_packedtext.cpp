// PackedText and TextArena (core/util/packedtext.*): texts in shared 64 KiB blocks or blocks of
// their own, reference-counted handles that keep their block alive after the arena (and the
// thread of the msprobe reader's per-thread arena) is gone, and the msprobe reader's names of many small
// files sharing blocks instead of starting a 64 KiB block per file (issue 35, the per-scope
// fixed cost of docs/scale/graphs-runs.md).
#include "formats/msprobe/dumpjsonentries.h"
#include "formats/msprobe/msprobereader.h"
#include "util/packedtext.h"

#include <QTest>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace ds;

namespace {

/// The 64 KiB block a text's bytes are in.
std::uintptr_t blockOf(const PackedText &t) { return reinterpret_cast<std::uintptr_t>(t.utf8().data()) >> 16; }

/// A small dump.json whose entry names carry `tag`.
std::string smallDump(const std::string &tag)
{
    return "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"data\": {\n  \"Functional." + tag
           + ".0.forward\": {\n   \"input_args\": [\n    {\n     \"type\": \"int\",\n     \"value\": 1\n    }\n   ]\n  },\n"
             "  \"Functional."
           + tag + ".1.forward\": {\n   \"output\": [\n    null\n   ]\n  }\n }\n}";
}

} // namespace

class TestPackedText : public QObject
{
    Q_OBJECT

private slots:
    void arenaTexts();
    void handlesOutliveArenaAndThread();
    void smallFilesShareBlocks();
};

void TestPackedText::arenaTexts()
{
    std::vector<PackedText> texts;
    {
        TextArena arena;
        for (int i = 0; i < 5000; ++i) // several blocks' worth
            texts.push_back(arena.add(std::string("step0/rank0/Functional.conv2d.") + std::to_string(i) + ".forward"));
        texts.push_back(arena.add(std::string(20000, 'x'))); // longer than an eighth of a block: its own
    }
    for (int i = 0; i < 5000; ++i)
        QCOMPARE(texts[size_t(i)].toString(), QStringLiteral("step0/rank0/Functional.conv2d.%1.forward").arg(i));
    QCOMPARE(texts.back().toString(), QString(20000, QLatin1Char('x')));
    const PackedText name = texts[7].substr(12);
    QCOMPARE(name.toString(), QStringLiteral("Functional.conv2d.7.forward"));
    QCOMPARE(blockOf(name), blockOf(texts[7])); // a substring shares the bytes
    QVERIFY(blockOf(texts[0]) != blockOf(texts[4999]));
    QVERIFY(texts[1] < texts[2]);
    QVERIFY(texts[3] == QStringLiteral("step0/rank0/Functional.conv2d.3.forward"));
}

void TestPackedText::handlesOutliveArenaAndThread()
{
    // threadTextArena() dies with its thread (a split dump.json's worker): the handles
    // made there keep their block (ASan builds check the bytes are not freed).
    std::vector<PackedText> texts;
    std::thread worker([&texts] {
        for (int i = 0; i < 3000; ++i)
            texts.push_back(msprobe::dumpjson::threadTextArena().add(std::string("worker.") + std::to_string(i)));
    });
    worker.join();
    for (int i = 0; i < 3000; ++i)
        QCOMPARE(texts[size_t(i)].toString(), QStringLiteral("worker.%1").arg(i));
    std::vector<PackedText> copies(texts.begin(), texts.begin() + 10);
    texts.clear();
    QCOMPARE(copies[9].toString(), QStringLiteral("worker.9"));
}

void TestPackedText::smallFilesShareBlocks()
{
    // Three dump.json files of two entries each, read one after another on one thread (as an
    // indexing thread reads rank directories): their names share the thread's arena block
    // (at most one of the two steps can cross into a new block). Each file started a 64 KiB
    // block of its own before.
    std::vector<IndexPart> parts(3);
    for (size_t i = 0; i < parts.size(); ++i) {
        const QString dir = QStringLiteral("step0/rank%1").arg(i);
        QVERIFY(msprobe::readDumpJsonText(smallDump("f" + std::to_string(i)), dir, dir + QStringLiteral("/dump.json"),
                                          DumpLevels{}, parts[i]));
        QCOMPARE(parts[i].ops.size(), size_t(2));
        QCOMPARE(parts[i].ops[1].relPath.toString(), dir + QStringLiteral("/Functional.f%1.1.forward").arg(i));
        QCOMPARE(parts[i].ops[1].opType.toString(), QStringLiteral("Functional.f%1").arg(i));
    }
    int shared = 0;
    for (size_t i = 1; i < parts.size(); ++i)
        shared += blockOf(parts[i].ops[0].relPath) == blockOf(parts[i - 1].ops[1].relPath) ? 1 : 0;
    QVERIFY2(shared >= 1, "every file's names started a block of their own");
    // The texts stay valid when the parts before them are gone.
    parts.erase(parts.begin(), parts.begin() + 2);
    QCOMPARE(parts[0].ops[0].opName.toString(), QStringLiteral("Functional.f2.0.forward"));
}

QTEST_GUILESS_MAIN(TestPackedText)
#include "tst_packedtext.moc"
