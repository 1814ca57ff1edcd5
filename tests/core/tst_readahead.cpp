// ReadAhead (io/readahead.h) reads a mapped file into the page cache ahead of a streaming pass,
// at most its window ahead of what the pass has released. Page-cache residency is mincore()'s
// answer for a file mapping (the page cache, not this process's resident set): a file whose
// pages were dropped reads 0 % until something reads it.
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

#include <vector>

using namespace ds;

namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;
constexpr std::size_t kFile = 128 * kMiB;

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

/// Writes `path` (kFile bytes of float32 values), makes it durable and drops it from the page
/// cache. False when the file system keeps it cached anyway (the test then has nothing to see).
bool writeUncached(const QString &path)
{
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        std::vector<float> block(kMiB / sizeof(float));
        for (std::size_t i = 0; i < block.size(); ++i)
            block[i] = float(i % 977) * 0.5f;
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
        QCOMPARE(cached(base, ReadAhead::kWindow + ReadAhead::kStep, kFile), 0.0);
        // the pass hands back its first 48 MiB: the read-ahead follows to 48 + 64 MiB
        releaseMappedPages(base, 48 * kMiB);
        QTRY_VERIFY_WITH_TIMEOUT(cached(base, ReadAhead::kWindow, 48 * kMiB + ReadAhead::kWindow) > 0.99, 20000);
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
