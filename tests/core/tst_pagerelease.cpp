// Streaming passes over a mapped tensor hand its pages back (io/pagerelease.h): after the
// pass, and at every moment during it, only a bounded part of the mapping is resident in
// this process. Residency is the mapping's "Rss" in /proc/self/smaps (mincore() cannot tell:
// it reports the page cache, which keeps the pages).
#include "compare/pairmetrics.h"
#include "tensor/exportwriter.h"
#include "io/mappedfile.h"
#include "io/pagerelease.h"
#include "models/tensorvaluesmodel.h"
#include "overflow/overflowreport.h"
#include "tensor/stats.h"
#include "util/parallel.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

using namespace ds;

namespace {

constexpr std::int64_t kMiB = 1 << 20;

/// Samples the mapping's resident bytes every millisecond while `pass` runs; returns the peak.
template<typename Pass>
std::int64_t peakDuring(const MappedFile &f, Pass &&pass)
{
    std::atomic<bool> done{false};
    std::atomic<std::int64_t> peak{0};
    std::thread sampler([&] {
        while (!done.load()) {
            peak = std::max(peak.load(), mappedResidentBytes(f.data()));
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    pass();
    done = true;
    sampler.join();
    return std::max(peak.load(), mappedResidentBytes(f.data()));
}

/// Touches every page (what a pass without release leaves behind).
std::uint64_t touchAll(const MappedFile &f)
{
    const volatile std::uint8_t *p = reinterpret_cast<const volatile std::uint8_t *>(f.data());
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < f.size(); i += 4096)
        sum += p[i]; // volatile: the reads happen even when the sum is not used
    return sum;
}

} // namespace

class TestPageRelease : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;
    std::int64_t m_size = 0;
    std::int64_t m_bound = 0; ///< what a pass may keep resident: its tasks in flight and slack

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // float32 values i % 1000: large enough that a pass holding everything stands out
        // from the in-flight tasks of every worker thread.
        m_bound = 24 * kMiB + std::int64_t(workerCount()) * 8 * kMiB;
        m_size = std::max<std::int64_t>(128 * kMiB, 4 * m_bound);
        m_path = m_dir.filePath(QStringLiteral("big.bin"));
        QFile out(m_path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        std::vector<float> block(1 << 20);
        for (std::int64_t written = 0, i = 0; written < m_size; written += std::int64_t(block.size() * 4)) {
            for (float &v : block)
                v = float(i++ % 1000);
            QCOMPARE(out.write(reinterpret_cast<const char *>(block.data()), qint64(block.size() * 4)), qint64(block.size() * 4));
        }
        out.close();
    }

    void residencyIsMeasured()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        QCOMPARE(mappedResidentBytes(m.data()), std::int64_t(0));
        touchAll(m);
        QVERIFY2(mappedResidentBytes(m.data()) >= m_size * 9 / 10, "touching every page must show in Rss");
        releaseMappedPages(m.data(), size_t(m.size()));
        QVERIFY(mappedResidentBytes(m.data()) <= 4096);
    }

    void releaseDropsPagesAndKeepsData()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        const std::uint64_t before = touchAll(m);
        releaseMappedPages(m.data(), size_t(m.size()));
        QVERIFY(mappedResidentBytes(m.data()) <= 4096);
        QCOMPARE(touchAll(m), before); // read again from the page cache
        // A range only partly in the mapping is clipped; a middle range drops its pages and
        // little more: the kernel may map the page cache's large folios with 2 MiB entries,
        // and dropping part of one unmaps all of it (read again on the next touch).
        releaseMappedPages(m.data() + m.size() - 4096, size_t(1) << 40);
        releaseMappedPages(m.data() + 16 * kMiB, size_t(16 * kMiB));
        const std::int64_t left = mappedResidentBytes(m.data());
        QVERIFY2(left <= m_size - 16 * kMiB && left >= m_size - 16 * kMiB - 3 * 2 * kMiB,
                 qPrintable(QStringLiteral("%1 bytes resident of %2").arg(left).arg(m_size)));
    }

    void otherMemoryIsNeverTouched()
    {
        // MADV_DONTNEED would zero anonymous memory: releasing a heap buffer must be a no-op.
        std::vector<float> heap(size_t(8 * kMiB / 4), 1.5f);
        releaseMappedPages(heap.data(), heap.size() * sizeof(float));
        QVERIFY(std::all_of(heap.begin(), heap.end(), [](float v) { return v == 1.5f; }));
        float stack[4096];
        std::fill(std::begin(stack), std::end(stack), 2.5f);
        releaseMappedPages(stack, sizeof stack);
        QVERIFY(std::all_of(std::begin(stack), std::end(stack), [](float v) { return v == 2.5f; }));
        releaseMappedPages(nullptr, 4096);
    }

    void statisticsReleaseAsTheyGo()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        const TensorView v{Elem::F32, m.data(), size_t(m.size() / 4)};
        TensorStats s;
        const std::int64_t peak = peakDuring(m, [&] { QVERIFY(computeStats(v, s)); });
        QCOMPARE(s.count, std::uint64_t(m.size() / 4));
        QCOMPARE(s.min, 0.0);
        QCOMPARE(s.max, 999.0);
        QVERIFY2(mappedResidentBytes(m.data()) <= 4096 * 64, "pages left resident after statistics");
        QVERIFY2(peak <= m_bound, qPrintable(QStringLiteral("peak %1 MiB > %2 MiB").arg(peak / kMiB).arg(m_bound / kMiB)));

        Histogram h;
        const std::int64_t peakHist = peakDuring(m, [&] { QVERIFY(computeHistogram(v, 10, 0, 1000, h)); });
        const std::uint64_t n = std::uint64_t(m.size() / 4);
        QCOMPARE(h.counts[0], n / 1000 * 100 + std::min<std::uint64_t>(n % 1000, 100)); // values 0..99
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
        QVERIFY(peakHist <= m_bound);
    }

    /// Statistics + histogram of a warm tensor that fits StatsOptions::keepMappedBytes read one
    /// mapping for both passes (the whole tensor resident during the call, handed back at the
    /// end) instead of the histogram faulting in again what the statistics released; over the
    /// budget, or cold, both passes stream within the bound (the 20 GiB .npy's peak).
    void statsAndHistogramOfAWarmTensorKeepOneMapping()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        touchAll(m); // every page in the page cache
        releaseMappedPages(m.data(), m.size());
        QVERIFY(isCachedRange(m.data(), m.size()));
        const TensorView v{Elem::F32, m.data(), size_t(m.size() / 4)};
        TensorStats kept, streamed, alone;
        Histogram keptHist, streamedHist, aloneHist;
        const std::int64_t peakKept = peakDuring(m, [&] { QVERIFY(computeStatsAndHistogram(v, 10, kept, keptHist)); });
        QVERIFY2(peakKept >= m_size * 9 / 10, qPrintable(QStringLiteral("peak %1 MiB of %2").arg(peakKept / kMiB).arg(m_size / kMiB)));
        QVERIFY2(mappedResidentBytes(m.data()) <= 4096 * 64, "pages left resident after the call");

        StatsOptions budget;
        budget.keepMappedBytes = std::size_t(m_size - 1); // one byte short: streamed
        const std::int64_t peakStreamed = peakDuring(m, [&] {
            QVERIFY(computeStatsAndHistogram(v, 10, streamed, streamedHist, nullptr, budget));
        });
        QVERIFY2(peakStreamed <= m_bound, qPrintable(QStringLiteral("peak %1 MiB > %2 MiB").arg(peakStreamed / kMiB).arg(m_bound / kMiB)));
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);

        QVERIFY(computeStats(v, alone));
        QVERIFY(computeHistogram(v, 10, alone.min, alone.max, aloneHist));
        for (const TensorStats *s : {&kept, &streamed}) {
            QCOMPARE(s->min, alone.min);
            QCOMPARE(s->max, alone.max);
            QCOMPARE(s->mean, alone.mean);
            QCOMPARE(s->std, alone.std);
            QCOMPARE(s->zero, alone.zero);
        }
        QCOMPARE(keptHist.counts, aloneHist.counts);
        QCOMPARE(streamedHist.counts, aloneHist.counts);

        // cold (dropped from the page cache, where the file system can): streamed too
        const int fd = ::open(QFile::encodeName(m_path).constData(), O_RDONLY);
        QVERIFY(fd >= 0);
        ::fsync(fd);
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        ::close(fd);
        if (isCachedRange(m.data(), m.size()))
            QSKIP("this file system keeps the file cached after POSIX_FADV_DONTNEED");
        TensorStats cold;
        Histogram coldHist;
        const std::int64_t peakCold = peakDuring(m, [&] { QVERIFY(computeStatsAndHistogram(v, 10, cold, coldHist)); });
        QVERIFY2(peakCold <= m_bound, qPrintable(QStringLiteral("peak %1 MiB > %2 MiB").arg(peakCold / kMiB).arg(m_bound / kMiB)));
        QCOMPARE(cold.mean, alone.mean);
        QCOMPARE(coldHist.counts, aloneHist.counts);
        touchAll(m); // warm again for the tests that follow (written for a warm file)
        releaseMappedPages(m.data(), m.size());
    }

    void codeTablePassReleasesAsItGoes()
    {
        // float16 / 8-bit tensors are counted per code in few, large tasks: released within.
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        for (Elem e : {Elem::F16, Elem::U8}) {
            const TensorView v{e, m.data(), size_t(m.size() / std::int64_t(elemBytes(e)))};
            TensorStats s;
            Histogram h;
            const std::int64_t peak = peakDuring(m, [&] { QVERIFY(computeStatsAndHistogram(v, 16, s, h)); });
            QCOMPARE(s.count, std::uint64_t(v.count));
            QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
            QVERIFY2(peak <= m_bound, qPrintable(QStringLiteral("peak %1 MiB").arg(peak / kMiB)));
        }
    }

    void heatmapOverflowAndExportRelease()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        const std::uint64_t cols = 4096, rows = std::uint64_t(m.size()) / 4 / cols;
        const TensorView v{Elem::F32, m.data(), size_t(rows * cols)};
        SliceBlocks blocks;
        std::int64_t peak = peakDuring(m, [&] { QVERIFY(downsampleSlice(v, TensorSlice::defaultFor({rows, cols}), 256, blocks)); });
        QCOMPARE(blocks.cols, 256);
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
        QVERIFY(peak <= m_bound);

        const TensorView half{Elem::F16, m.data(), size_t(m.size() / 2)};
        peak = peakDuring(m, [&] { countSaturated(half); });
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
        QVERIFY(peak <= m_bound);

        WriteOptions options;
        peak = peakDuring(m, [&] {
            QVERIFY(!writeNpy(m_dir.filePath(QStringLiteral("out.npy")), Elem::F32, m.data(), size_t(m.size() / 4),
                              {std::uint64_t(m.size() / 4)}, options));
        });
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
        QVERIFY(peak <= m_bound);
        QFile::remove(m_dir.filePath(QStringLiteral("out.npy")));
    }

    void compareMetricsRelease()
    {
        auto f = MappedFile::open(m_path);
        QVERIFY(f.ok());
        const MappedFile &m = **f;
        const TensorView v{Elem::F32, m.data(), size_t(m.size() / 4)};
        // Both passes: the second hands the pages back behind it (the first keeps them for
        // the second below 1 GiB a side).
        PairMetrics full;
        QVERIFY(computePairMetrics(v, v, full));
        QCOMPARE(full.maxAbsErr, 0.0);
        QCOMPARE(full.kl, 0.0);
        QVERIFY2(mappedResidentBytes(m.data()) <= 4096 * 64, "pages left resident after the compare metrics");
        // First pass alone: it releases as it goes.
        PairMetricOptions firstOnly;
        firstOnly.secondPass = false;
        PairMetrics part;
        const std::int64_t peak = peakDuring(m, [&] { QVERIFY(computePairMetrics(v, v, part, firstOnly)); });
        QCOMPARE(part.dot, full.dot);
        QVERIFY(mappedResidentBytes(m.data()) <= 4096 * 64);
        QVERIFY2(peak <= m_bound, qPrintable(QStringLiteral("peak %1 MiB > %2 MiB").arg(peak / kMiB).arg(m_bound / kMiB)));
    }
};

QTEST_GUILESS_MAIN(TestPageRelease)
#include "tst_pagerelease.moc"
