// h5::runIsolated: bytes from a forked child (small and larger than a pipe buffer many times),
// progress, a crashing / failing / hanging child, cancellation, no zombies and no leaked fds.
#include "formats/readers.h"
#include "formats/h5/h5isolate.h"
#include "dump/partstream.h"
#include "partcompare.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace ds;

// GCC 12's AddressSanitizer allocator is not fork-safe (glibc's malloc is: it has atfork
// handlers): a child forked while another thread is inside malloc can block for ever on the
// sanitizer's allocator lock. Tests that fork while other threads allocate skip under ASan.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsanBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsanBuild = true;
#else
constexpr bool kAsanBuild = false;
#endif
#else
constexpr bool kAsanBuild = false;
#endif

namespace {

/// True when this process has no child at all (running or zombie).
bool noChildren()
{
    errno = 0;
    return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

qsizetype openFds() { return QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::Files | QDir::System).size(); }

QByteArray pattern(qsizetype size)
{
    QByteArray b(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        b[i] = char((i * 131 + i / 7) & 0xff);
    return b;
}

/// A part with every field away from its default, two ops and a second tensor.
IndexPart fullPart()
{
    TensorFields t;
    t.shape = {2, 3, 0xffffffffffffffffull};
    t.originalShape = {6};
    t.offset = 1234567890123ull;
    t.size = 48;
    t.address = 0xdeadbeefcafeull;
    t.originalOpName = QStringLiteral("orig/op");
    t.name = QStringLiteral("input_args.0");
    t.location = QStringLiteral("/op/1/input/x");
    t.typeName = QStringLiteral("float16 (stored as float32)");
    t.value = QString::fromUtf8("\u00e9t\u00e9 \U0001F600");
    t.checksum = QStringLiteral("0badf00d");
    t.recorded = {1.5, -2.25, 0.125, 1e300, RecordedStats::Max | RecordedStats::Norm};
    t.index = 7;
    t.dataType = 27;
    t.format = 29;
    t.subFormat = 3;
    t.originalOutputIndex = 4;
    t.io = IoKind::Workspace;
    t.storage = TensorStorage::H5Dataset;
    t.complete = false;
    OpRecord op;
    op.relPath = QStringLiteral("a/b.h5/op/1");
    op.dataFile = QStringLiteral("a/b.h5");
    op.opType = QStringLiteral("Conv");
    op.opName = QStringLiteral("conv1");
    op.extra().headerOpName = QStringLiteral("conv1/full");
    op.extra().mappedFrom = QStringLiteral("123.bin");
    op.extra().taskId = -5;
    op.extra().streamId = 9;
    op.timestamp = 1700000000000001ull;
    op.extra().version = QStringLiteral("2.0");
    op.extra().dumpTime = 42;
    op.extra().fileSize = 72480;
    op.extra().headerLen = 96;
    op.tensors = {TensorRecord(t), TensorRecord{}};
    op.extra().warnings = {QStringLiteral("w1"), QString(), QStringLiteral("w3")};
    op.parent = QStringLiteral("Module.layer1");
    op.stack = 1;
    op.source = *sourceFormatByName(u"ptdbg");
    op.opDebug = true;
    op.container = ContainerKind::Legacy;
    IndexPart part;
    part.ops = {op, OpRecord{}};
    part.errors = {{QStringLiteral("a/b.h5"), QStringLiteral("/x: broken"), 17}};
    part.stacks = {{}, {QStringLiteral("File a.py, line 1"), QStringLiteral("File b.py, line 2")}};
    part.task = QStringLiteral("tensor");
    part.level = QStringLiteral("L1");
    part.framework = QStringLiteral("pytorch");
    part.dumpDataDir = QStringLiteral("dump_data");
    part.parentInferred = {0, 3};
    return part;
}

} // namespace

class TestH5Isolate : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (kAsanBuild)
            QSKIP("ASan builds run the work in-process (GCC 12's sanitizer allocator is not fork-safe); "
                  "the normal build tests the child process");
    }

    void cleanup()
    {
        h5::setChildHookForTesting({});
        QVERIFY(noChildren());
    }

    void bytesRoundTrip_data()
    {
        QTest::addColumn<qsizetype>("size");
        QTest::addRow("empty") << qsizetype(0);
        QTest::addRow("small") << qsizetype(5);
        QTest::addRow("one pipe buffer + 1") << qsizetype(65537);
        QTest::addRow("12 MiB") << qsizetype(12 << 20);
    }
    void bytesRoundTrip()
    {
        QFETCH(qsizetype, size);
        const auto r = h5::runIsolated([size](const JobControl &) { return pattern(size); });
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QCOMPARE(r->size(), size);
        QVERIFY(*r == pattern(size));
    }

    void childRunsInAnotherProcess()
    {
        const auto r = h5::runIsolated([](const JobControl &) { return QByteArray::number(qint64(::getpid())); });
        QVERIFY(r.ok());
        QVERIFY(r->toLongLong() > 0);
        QVERIFY(r->toLongLong() != qint64(::getpid()));
    }

    void progressIsForwarded()
    {
        std::vector<int> seen;
        JobControl job;
        job.progress = [&](int p) { seen.push_back(p); };
        const auto r = h5::runIsolated(
            [](const JobControl &child) {
                for (int p : {0, 250, 250, 500, 1000})
                    child.report(p);
                return QByteArray("done");
            },
            &job);
        QVERIFY(r.ok());
        QCOMPARE(*r, QByteArray("done"));
        QCOMPARE(seen, (std::vector<int>{0, 250, 500, 1000})); // repeated values are not sent
    }

    // A child killed by a signal: the error says "crashed" and names the signal; the parent
    // goes on and the next child works.
    void crashingChild_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addColumn<QString>("name");
        QTest::addRow("SIGSEGV") << int(SIGSEGV) << QStringLiteral("signal 11, SIGSEGV");
        QTest::addRow("SIGABRT") << int(SIGABRT) << QStringLiteral("signal 6, SIGABRT");
        QTest::addRow("SIGKILL") << int(SIGKILL) << QStringLiteral("signal 9, SIGKILL");
    }
    void crashingChild()
    {
        QFETCH(int, sig);
        QFETCH(QString, name);
        const auto r = h5::runIsolated([sig](const JobControl &) {
            ::signal(sig, SIG_DFL); // the kernel's action, not a sanitizer's handler
            ::raise(sig);
            return QByteArray("not reached");
        });
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("HDF5 library crashed")), qPrintable(r.errorText()));
        QVERIFY2(r.errorText().contains(name), qPrintable(r.errorText()));
        QVERIFY(noChildren());
        const auto next = h5::runIsolated([](const JobControl &) { return QByteArray("fine"); });
        QVERIFY(next.ok());
        QCOMPARE(*next, QByteArray("fine"));
    }

    void failingChild()
    {
        auto r = h5::runIsolated([](const JobControl &) -> QByteArray { ::_exit(3); });
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("HDF5 library failed")) && r.errorText().contains(QLatin1String("exit code 3")),
                 qPrintable(r.errorText()));
        // An exception thrown by the work: exit code 2.
        r = h5::runIsolated([](const JobControl &) -> QByteArray { throw std::runtime_error("boom"); });
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("exit code 2")), qPrintable(r.errorText()));
    }

    // The child exits 0 but its output is not one well-formed result frame.
    void garbledOutput()
    {
        // Closing the pipe before the result: the write end is the highest fd the child has
        // not inherited from before; closing every fd above 2 surely closes it.
        auto r = h5::runIsolated([](const JobControl &) -> QByteArray {
            for (int fd = 3; fd < 1024; ++fd)
                ::close(fd);
            ::_exit(0);
        });
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("incomplete or garbled")), qPrintable(r.errorText()));
    }

    void testHookRunsInTheChild()
    {
        h5::setChildHookForTesting([] {
            ::signal(SIGSEGV, SIG_DFL);
            ::raise(SIGSEGV);
        });
        const auto r = h5::runIsolated([](const JobControl &) { return QByteArray("x"); });
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("SIGSEGV")), qPrintable(r.errorText()));
        h5::setChildHookForTesting({});
        QVERIFY(h5::runIsolated([](const JobControl &) { return QByteArray("x"); }).ok());
    }

    // A child that never finishes (it sleeps 60 s): cancelling returns long before the child
    // would have (the bound is generous: a loaded machine must not fail it) and reaps it.
    void cancelHangingChild()
    {
        std::atomic<bool> cancel{false};
        JobControl job;
        job.cancelFlag = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        QElapsedTimer timer;
        timer.start();
        const auto r = h5::runIsolated(
            [](const JobControl &) {
                ::sleep(60);
                return QByteArray("late");
            },
            &job);
        const qint64 ms = timer.elapsed();
        canceller.join();
        QVERIFY(!r.ok());
        QCOMPARE(r.errorText(), QStringLiteral("cancelled"));
        QVERIFY2(ms >= 300 && ms < 30000, qPrintable(QString::number(ms))); // not before the cancel
        QVERIFY(noChildren());
        // Cancelled before starting: no child at all.
        const auto early = h5::runIsolated([](const JobControl &) { return QByteArray("x"); }, &job);
        QVERIFY(!early.ok());
        QCOMPARE(early.errorText(), QStringLiteral("cancelled"));
    }

    // A child that goes silent (it sleeps 60 s) is stopped after the stall limit, not before it
    // and long before it would finish (a CLI run has no cancel button); one that keeps
    // reporting progress may run longer than the limit.
    void stalledChildIsStopped()
    {
        h5::setStallTimeout(std::chrono::milliseconds(400));
        QElapsedTimer timer;
        timer.start();
        const auto r = h5::runIsolated([](const JobControl &) {
            ::sleep(60);
            return QByteArray("late");
        });
        const qint64 ms = timer.elapsed();
        const auto busy = h5::runIsolated([](const JobControl &j) {
            for (int i = 1; i <= 10; ++i) {
                ::usleep(100'000);
                j.report(i * 100);
            }
            return QByteArray("done");
        });
        h5::setStallTimeout(std::chrono::seconds(120));
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QStringLiteral("no progress for 0.4 s")), qPrintable(r.errorText()));
        QVERIFY2(ms >= 400 && ms < 30000, qPrintable(QString::number(ms)));
        QVERIFY(noChildren());
        QVERIFY2(busy.ok(), qPrintable(busy.errorText()));
        QCOMPARE(*busy, QByteArray("done"));
    }

    // encodePart/decodePart: every field survives; every truncation and a trailing byte fail.
    void partStreamRoundTrip()
    {
        const IndexPart part = fullPart();
        const QByteArray bytes = encodePart(part);
        const auto back = decodePart(bytes);
        QVERIFY(back);
        testing::compareParts(*back, part, false);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(decodePart(encodePart(IndexPart{})));
        for (qsizetype n = 0; n < bytes.size(); ++n)
            QVERIFY2(!decodePart(bytes.left(n)), qPrintable(QString::number(n)));
        QVERIFY(!decodePart(bytes + 'x'));
        QByteArray huge = bytes;
        huge[6] = char(0x7f); // the op count: far more than the bytes can hold
        QVERIFY(!decodePart(huge));
    }

    // The same through a child.
    void partThroughChild()
    {
        const auto r = h5::runIsolated([](const JobControl &) { return encodePart(fullPart()); });
        QVERIFY(r.ok());
        const auto back = decodePart(*r);
        QVERIFY(back);
        testing::compareParts(*back, fullPart(), false);
    }

    void manyRunsLeakNothing()
    {
        const qsizetype before = openFds();
        for (int i = 0; i < 200; ++i) {
            const auto r = h5::runIsolated([i](const JobControl &) { return QByteArray::number(i); });
            QVERIFY(r.ok());
            QCOMPARE(r->toInt(), i);
        }
        QCOMPARE(openFds(), before);
        QVERIFY(noChildren());
    }

    // Several threads forking at once, while others hold the library lock.
    void concurrentRuns()
    {
        if (kAsanBuild)
            QSKIP("ASan's allocator is not fork-safe while other threads allocate (see kAsanBuild)");
        std::atomic<int> good{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 10; ++i) {
                    {
                        h5::LibraryLock lock; // what an in-process HDF5 user does
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    }
                    const auto r = h5::runIsolated([t, i](const JobControl &) {
                        h5::LibraryLock lock; // the child's work takes it too (no-op there)
                        return QByteArray::number(t * 100 + i);
                    });
                    if (r.ok() && r->toInt() == t * 100 + i)
                        ++good;
                }
            });
        for (auto &th : threads)
            th.join();
        QCOMPARE(good.load(), 40);
    }
};

QTEST_GUILESS_MAIN(TestH5Isolate)
#include "tst_h5isolate.moc"
