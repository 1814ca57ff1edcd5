// ReadAhead (io/readahead.h) reads a mapped file into the page cache ahead of a streaming pass,
// at most its window ahead of what the pass has released. Page-cache residency is mincore()'s
// answer for a file mapping (the page cache, not this process's resident set): a file whose
// pages were dropped reads 0 % until something reads it.
#include "compare/pairmetrics.h"
#include "io/mappedfile.h"
#include "io/pagerelease.h"
#include "io/readahead.h"
#include "tensor/stats.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

using namespace ds;

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kFile = 128 * kMiB;
/// At most what the kernel reads on its own past a faulted page (a device's read_ahead_kb).
constexpr std::size_t kKernelReadAhead = 16 * kMiB;

/// The fraction of [from, to) bytes of the mapping whose pages are in the page cache.
double cached(const std::byte *base, std::size_t from, std::size_t to)
{
    const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> vec((to - from + page - 1) / page);
    if (::mincore(const_cast<std::byte *>(base + from), to - from, vec.data()) != 0)
        return -1;
    std::size_t in = 0;
    for (unsigned char v : vec)
        in += v & 1;
    return double(in) / double(vec.size());
}

/// This process's peak resident set since the last resetPeakResident(), bytes (-1: unknown).
std::int64_t peakResident()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024;
    return -1;
}
bool resetPeakResident()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    return bool(clear.flush());
}

/// Writes `path` (kFile bytes of float32 values), makes it durable and drops it from the page
/// cache. False when the file system keeps it cached anyway (the test then has nothing to see).
bool writeUncached(const QString &path, float scale = 0.5f)
{
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        std::vector<float> block(kMiB / sizeof(float));
        for (std::size_t i = 0; i < block.size(); ++i)
            block[i] = float(i % 977) * scale;
        for (std::size_t m = 0; m < kFile / kMiB; ++m)
            f.write(reinterpret_cast<const char *>(block.data()), qint64(kMiB));
    }
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY);
    if (fd < 0)
        return false;
    ::fsync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    return true;
}

} // namespace

class TestReadAhead : public QObject
{
    Q_OBJECT
private slots:
    void readsAheadOfThePassWithinItsWindow()
    {
        QTemporaryDir dir(QDir::currentPath() + QStringLiteral("/readahead-XXXXXX")); // on disk, not a tmpfs
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.bin"));
        QVERIFY(writeUncached(path));
        auto file = MappedFile::open(path);
        QVERIFY(file);
        const std::byte *base = (*file)->data();
        if (cached(base, 0, kFile) > 0.05)
            QSKIP("this file system keeps the file cached after POSIX_FADV_DONTNEED");
        ReadAhead ahead(base, kFile);
        QVERIFY(ahead.active());
        // nothing released yet: the first window comes in, nothing past a step beyond it
        QTRY_VERIFY_WITH_TIMEOUT(cached(base, 0, ReadAhead::kWindow) > 0.99, 20000);
        QTest::qWait(200);
        // the kernel's own read-ahead behind the last touched page may add up to its device
        // maximum (read_ahead_kb: 8 MiB on this project's virtio disk, seen adding 4 MiB)
        QCOMPARE(cached(base, ReadAhead::kWindow + ReadAhead::kStep + kKernelReadAhead, kFile), 0.0);
        // the pass hands back its first 48 MiB: the read-ahead follows to 48 + 64 MiB
        releaseMappedPages(base, 48 * kMiB);
        QTRY_VERIFY_WITH_TIMEOUT(cached(base, ReadAhead::kWindow, 48 * kMiB + ReadAhead::kWindow) > 0.99, 20000);
        QVERIFY(ahead.touchedBytes() >= ReadAhead::kWindow); // a cold file is read by the touches
    }

    /// A warm file (every page in the page cache): the thread comes past every step without
    /// touching a page (a touch would cost the pass a fault and a third thread on its cores).
    void warmFileIsNotTouched()
    {
        QTemporaryDir dir(QDir::currentPath() + QStringLiteral("/readahead-XXXXXX"));
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.bin"));
        QVERIFY(writeUncached(path));
        auto file = MappedFile::open(path);
        QVERIFY(file);
        const std::byte *base = (*file)->data();
        // warm it by reading (then nothing of it is resident in this process); again if the
        // page cache of a machine short of memory let a page go meanwhile
        for (int attempt = 0; attempt < 5 && !isCachedRange(base, kFile); ++attempt) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            while (!f.read(qint64(kMiB)).isEmpty()) {
            }
        }
        QVERIFY(isCachedRange(base, kFile));
        ReadAhead ahead(base, kFile);
        QVERIFY(ahead.active());
        releaseMappedPages(base, kFile); // the pass is done: nothing holds the thread back
        QTRY_COMPARE_WITH_TIMEOUT(ahead.coveredBytes(), kFile, 20000);
        QCOMPARE(ahead.touchedBytes(), std::size_t(0));
    }

    /// Two files at once (compare's metric passes): both first windows come in, in turn, and
    /// each file's window then follows what the pass released of that file alone.
    void readsTwoFilesAheadInTurn()
    {
        QTemporaryDir dir(QDir::currentPath() + QStringLiteral("/readahead-XXXXXX"));
        QVERIFY(dir.isValid());
        const QString pathA = dir.filePath(QStringLiteral("a.bin")), pathB = dir.filePath(QStringLiteral("b.bin"));
        QVERIFY(writeUncached(pathA));
        QVERIFY(writeUncached(pathB, 0.25f));
        auto a = MappedFile::open(pathA), b = MappedFile::open(pathB);
        QVERIFY(a && b);
        const std::byte *baseA = (*a)->data(), *baseB = (*b)->data();
        if (cached(baseA, 0, kFile) > 0.05 || cached(baseB, 0, kFile) > 0.05)
            QSKIP("this file system keeps the files cached after POSIX_FADV_DONTNEED");
        ReadAhead ahead(baseA, kFile, baseB, kFile);
        QVERIFY(ahead.active());
        QTRY_VERIFY_WITH_TIMEOUT(cached(baseA, 0, ReadAhead::kWindow) > 0.99 && cached(baseB, 0, ReadAhead::kWindow) > 0.99,
                                 20000);
        QTest::qWait(200);
        // (a step and the kernel's own read-ahead of slack, as above)
        QCOMPARE(cached(baseA, ReadAhead::kWindow + ReadAhead::kStep + kKernelReadAhead, kFile), 0.0);
        QCOMPARE(cached(baseB, ReadAhead::kWindow + ReadAhead::kStep + kKernelReadAhead, kFile), 0.0);
        releaseMappedPages(baseA, 48 * kMiB); // the pass is done with A's first 48 MiB only
        QTRY_VERIFY_WITH_TIMEOUT(cached(baseA, ReadAhead::kWindow, 48 * kMiB + ReadAhead::kWindow) > 0.99, 20000);
        QTest::qWait(200);
        QCOMPARE(cached(baseB, ReadAhead::kWindow + ReadAhead::kStep + kKernelReadAhead, kFile), 0.0);
    }

    /// The compare metrics of two cold mapped files: the pass streams both (read ahead in turn,
    /// pages handed back behind it, so the peak resident set stays far below the two files;
    /// it held both whole before) and the metrics are those of the same values in memory.
    void compareOfTwoColdFilesStreamsWithTheSameMetrics()
    {
        QTemporaryDir dir(QDir::currentPath() + QStringLiteral("/readahead-XXXXXX"));
        QVERIFY(dir.isValid());
        const QString pathA = dir.filePath(QStringLiteral("a.bin")), pathB = dir.filePath(QStringLiteral("b.bin"));
        QVERIFY(writeUncached(pathA));
        QVERIFY(writeUncached(pathB, 0.25f));
        auto a = MappedFile::open(pathA), b = MappedFile::open(pathB);
        QVERIFY(a && b);
        const TensorView va{Elem::F32, (*a)->data(), kFile / 4}, vb{Elem::F32, (*b)->data(), kFile / 4};
        PairMetrics mapped, inMemory;
        const bool peakKnown = resetPeakResident() && peakResident() > 0;
        const std::int64_t before = peakResident();
        QVERIFY(computePairMetrics(va, vb, mapped, {}));
        const std::int64_t peak = peakResident() - before;
#if !defined(__SANITIZE_ADDRESS__) // under ASan the shadow memory sets the resident set
        if (peakKnown)
            QVERIFY2(peak < std::int64_t(kFile), qPrintable(QStringLiteral("peak RSS grew by %1 MiB for 2 x %2 MiB")
                                                           .arg(peak >> 20).arg(kFile >> 20)));
#endif
        std::vector<std::byte> copyA((*a)->data(), (*a)->data() + kFile), copyB((*b)->data(), (*b)->data() + kFile);
        QVERIFY(computePairMetrics({Elem::F32, copyA.data(), kFile / 4}, {Elem::F32, copyB.data(), kFile / 4}, inMemory, {}));
        for (auto [x, y] : {std::pair{mapped.dot, inMemory.dot}, {mapped.npuNorm, inMemory.npuNorm},
                            {mapped.benchNorm, inMemory.benchNorm}, {mapped.eucDist, inMemory.eucDist},
                            {mapped.maxAbsErr, inMemory.maxAbsErr}, {mapped.maxRelErr, inMemory.maxRelErr},
                            {mapped.meanAbsErr, inMemory.meanAbsErr}, {mapped.kl, inMemory.kl},
                            {mapped.npu.mean, inMemory.npu.mean}, {mapped.bench.max, inMemory.bench.max},
                            {mapped.npu.comparedStd, inMemory.npu.comparedStd}})
            QCOMPARE(x, y);
        QCOMPARE(mapped.bench.max, 976 * 0.25); // writeUncached's largest value
    }

    void smallOrUnmappedRangesAreLeftAlone()
    {
        std::vector<std::byte> heap(ReadAhead::kMinBytes * 2);
        QVERIFY(!ReadAhead(heap.data(), heap.size()).active()); // not a mapped file
        QVERIFY(!ReadAhead(nullptr, kFile).active());
    }

    /// The statistics of a cold mapped tensor are those of the same values in memory (the
    /// read-ahead reads, it does not change what the pass sees).
    void statisticsOfAColdFileAreUnchanged()
    {
        QTemporaryDir dir(QDir::currentPath() + QStringLiteral("/readahead-XXXXXX"));
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("t.bin"));
        QVERIFY(writeUncached(path));
        auto file = MappedFile::open(path);
        QVERIFY(file);
        TensorStats mapped, inMemory;
        QVERIFY(computeStats(TensorView{Elem::F32, (*file)->data(), kFile / 4}, mapped));
        std::vector<std::byte> copy((*file)->data(), (*file)->data() + kFile);
        QVERIFY(computeStats(TensorView{Elem::F32, copy.data(), kFile / 4}, inMemory));
        QCOMPARE(mapped.min, inMemory.min);
        QCOMPARE(mapped.max, inMemory.max);
        QCOMPARE(mapped.mean, inMemory.mean);
        QCOMPARE(mapped.std, inMemory.std);
        QCOMPARE(mapped.zero, inMemory.zero);
        const std::size_t perMiB = kMiB / sizeof(float);
        QCOMPARE(mapped.zero, std::uint64_t(kFile / kMiB * ((perMiB + 976) / 977))); // the zeros writeUncached wrote
    }
};

QTEST_MAIN(TestReadAhead)
#include "tst_readahead.moc"
