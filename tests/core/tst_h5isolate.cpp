// The HDF5 worker process (h5::Worker, dumpscope-h5worker): bytes both ways (small and many
// times a socket buffer), progress, what the worker is and holds open, reuse of clean workers
// and a fresh worker after a crash, crashing / failing / garbling / hanging / silent workers,
// cancellation, finding the executable, no zombies and no leaked descriptors. The same tests
// run in every build, AddressSanitizer's included: the worker is its own (sanitized) program.
#include "formats/readers.h"
#include "formats/h5/h5isolate.h"
#include "dump/partstream.h"
#include "partcompare.h"
#include "cancelafter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace ds;
using ds::testing::CancelAfter;

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

h5::Request echo(const QByteArray &payload = {}, const QList<qint32> &progress = {}, qint32 stepMs = 0)
{
    h5::Request r;
    r.kind = h5::RequestKind::Echo;
    r.echo.payload = payload;
    r.echo.progress = progress;
    r.echo.stepMs = stepMs;
    return r;
}

/// An echo through a worker; the test fails (and nullopt) when it does not answer.
std::optional<h5::EchoAnswer> echoed(const h5::Request &request, const JobControl *job = nullptr)
{
    const auto r = h5::runWorker(request, 64u << 20, job);
    if (!r.ok()) {
        qWarning().noquote() << "echo failed:" << r.errorText();
        return std::nullopt;
    }
    return h5::decodeEchoAnswer(*r);
}

h5::Fault fault(h5::Fault::Kind kind, qint32 value = 0)
{
    h5::Fault f;
    f.kind = kind;
    f.value = value;
    return f;
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
    void cleanup()
    {
        h5::setWorkerFaultForTesting({});
        h5::setStallTimeout(std::chrono::seconds(120));
        qunsetenv("DUMPSCOPE_H5WORKER");
        h5::releaseIdleWorkers();
        QCOMPARE(h5::idleWorkers(), 0);
        QVERIFY(noChildren());
    }

    // Bytes go to the worker in the request and come back in the answer, unchanged.
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
        const auto a = echoed(echo(pattern(size)));
        QVERIFY(a);
        QCOMPARE(a->payload.size(), size);
        QVERIFY(a->payload == pattern(size));
    }

    // The worker is the dumpscope-h5worker program in another process, and holds nothing of
    // ours open: not even a descriptor this process opened without close-on-exec.
    void workerIsAnotherProgram()
    {
        const int leaky = ::open("/dev/null", O_RDONLY); // no O_CLOEXEC on purpose
        QVERIFY(leaky >= 0);
        const auto a = echoed(echo());
        ::close(leaky);
        QVERIFY(a);
        QVERIFY(a->pid > 0);
        QVERIFY(a->pid != qint64(::getpid()));
        QCOMPARE(QFileInfo(a->executable).canonicalFilePath(), QFileInfo(h5::workerExecutable()).canonicalFilePath());
        QCOMPARE(QFileInfo(a->executable).fileName(), QStringLiteral("dumpscope-h5worker"));
        QCOMPARE(a->openFds, (QList<qint32>{0, 1, 2, h5::kChannelFd}));
    }

    // Progress reaches the job, without repeated values and at most one frame per 50 ms (a
    // frame wakes this process; a small file's progress is not worth it).
    void progressIsForwarded()
    {
        std::vector<int> seen;
        JobControl job;
        job.progress = [&](int p) { seen.push_back(p); };
        auto a = echoed(echo("done", {0, 250, 250, 500, 1000}, 80), &job);
        QVERIFY(a);
        QCOMPARE(a->payload, QByteArray("done"));
        QCOMPARE(seen, (std::vector<int>{0, 250, 500, 1000}));
        seen.clear();
        QList<qint32> fast;
        for (int i = 1; i <= 1000; ++i)
            fast << i;
        a = echoed(echo("fast", fast), &job);
        QVERIFY(a);
        QVERIFY2(seen.size() < 10, qPrintable(QString::number(seen.size())));
    }

    // A worker that answered cleanly serves the next job; releaseIdleWorkers() ends it.
    void cleanWorkersAreReused()
    {
        const auto first = echoed(echo("1"));
        const auto second = echoed(echo("2"));
        QVERIFY(first && second);
        QCOMPARE(first->served, 0);
        QCOMPARE(second->pid, first->pid);
        QCOMPARE(second->served, 1);
        QCOMPARE(second->payload, QByteArray("2"));
        QCOMPARE(h5::idleWorkers(), 1);
        QVERIFY(!noChildren()); // it waits for work
        h5::releaseIdleWorkers();
        QVERIFY(noChildren());
        const auto third = echoed(echo("3"));
        QVERIFY(third);
        QCOMPARE(third->served, 0);
        QVERIFY(third->pid != first->pid);
    }

    // A worker killed by a signal: the error says "crashed" and names the signal; the worker is
    // gone (not reused) and the next job works in a new one.
    void crashingWorker_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addColumn<QString>("name");
        QTest::addRow("SIGSEGV") << int(SIGSEGV) << QStringLiteral("signal 11, SIGSEGV");
        QTest::addRow("SIGABRT") << int(SIGABRT) << QStringLiteral("signal 6, SIGABRT");
        QTest::addRow("SIGKILL") << int(SIGKILL) << QStringLiteral("signal 9, SIGKILL");
        QTest::addRow("SIGBUS") << int(SIGBUS) << QStringLiteral("signal 7, SIGBUS");
    }
    void crashingWorker()
    {
        QFETCH(int, sig);
        QFETCH(QString, name);
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Signal, sig));
        const auto r = h5::runWorker(echo("not reached"), 1 << 20);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::ReaderFailed);
        QVERIFY2(r.errorText().startsWith(QLatin1String("HDF5 library crashed while reading this file")), qPrintable(r.errorText()));
        QVERIFY2(r.errorText().contains(name), qPrintable(r.errorText()));
        QCOMPARE(h5::idleWorkers(), 0);
        QVERIFY(noChildren());
        h5::setWorkerFaultForTesting({});
        const auto next = echoed(echo("fine"));
        QVERIFY(next);
        QCOMPARE(next->payload, QByteArray("fine"));
        QCOMPARE(next->served, 0);
    }

    void failingWorker()
    {
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Exit, 3));
        auto r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("HDF5 library failed")) && r.errorText().contains(QLatin1String("exit code 3")),
                 qPrintable(r.errorText()));
        // An exception in the worker: exit code 2.
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Throw));
        r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("exit code 2")), qPrintable(r.errorText()));
        QCOMPARE(h5::idleWorkers(), 0);
    }

    // The worker exits 0 but what it sent is not one well-formed answer; an answer that
    // announces 2^62 bytes is refused on its header (nothing is allocated for it).
    void garbledOutput_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addRow("unknown frame tag") << int(h5::Fault::Kind::Garble);
        QTest::addRow("no answer, exit 0") << int(h5::Fault::Kind::Exit);
        QTest::addRow("2^62-byte answer") << int(h5::Fault::Kind::HugeAnswer);
    }
    void garbledOutput()
    {
        QFETCH(int, kind);
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind(kind)));
        const auto r = h5::runWorker(echo("x"), 1 << 20);
        QVERIFY(!r.ok());
        QCOMPARE(r.errorText(), QStringLiteral("the HDF5 reader process sent an incomplete or garbled result"));
        QCOMPARE(h5::idleWorkers(), 0);
        QVERIFY(noChildren());
    }

    // A crash in a worker that had served other jobs is not blamed on this job at once: it is
    // repeated in a new worker. When the new one crashes too, that is the error.
    void reusedWorkerCrashIsRetried()
    {
        const auto primed = echoed(echo());
        QVERIFY(primed);
        QCOMPARE(h5::idleWorkers(), 1);
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Signal, SIGSEGV), 1); // this request only
        const auto again = echoed(echo("again"));
        QVERIFY(again);
        QCOMPARE(again->payload, QByteArray("again"));
        QCOMPARE(again->served, 0);
        QVERIFY(again->pid != primed->pid);

        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Signal, SIGSEGV)); // every request
        const auto r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("signal 11, SIGSEGV")), qPrintable(r.errorText()));
    }

    // A worker that never answers: cancelling returns promptly and reaps it.
    void cancelHangingWorker()
    {
        CancelAfter canceller(std::chrono::milliseconds(300));
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Sleep, 600));
        QElapsedTimer timer;
        timer.start();
        const auto r = h5::runWorker(echo(), 1 << 20, canceller.job());
        const qint64 ms = timer.elapsed();
        canceller.join();
        QVERIFY(!r.ok());
        QVERIFY(r.isCancelled());
        QCOMPARE(r.errorText(), QStringLiteral("cancelled"));
        QVERIFY2(ms < 120'000, qPrintable(QString::number(ms))); // not the worker's 600 s
        QVERIFY(noChildren());
        // Cancelled before starting: no worker at all.
        const auto early = h5::runWorker(echo(), 1 << 20, canceller.job());
        QVERIFY(early.isCancelled());
        QVERIFY(noChildren());
    }

    // A worker that goes silent is stopped after the stall limit (a CLI run has no cancel
    // button); one that keeps reporting progress may run longer than the limit.
    void stalledWorkerIsStopped()
    {
        h5::setStallTimeout(std::chrono::milliseconds(1000));
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Sleep, 600));
        const auto r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QStringLiteral("no progress for 1 s")), qPrintable(r.errorText()));
        QVERIFY(noChildren());
        h5::setWorkerFaultForTesting({});
        QList<qint32> steps;
        for (int i = 1; i <= 30; ++i)
            steps << i * 30;
        QElapsedTimer timer;
        timer.start();
        const auto busy = echoed(echo("done", steps, 100)); // 3 s in all, a word every 0.1 s
        QVERIFY(busy);
        QCOMPARE(busy->payload, QByteArray("done"));
        QVERIFY(timer.elapsed() > 1000); // it did outlast the limit
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

    // The same through a worker and back.
    void partThroughWorker()
    {
        const auto a = echoed(echo(encodePart(fullPart())));
        QVERIFY(a);
        const auto back = decodePart(a->payload);
        QVERIFY(back);
        testing::compareParts(*back, fullPart(), false);
    }

    // The request and answer frames: every truncation waits for more, a wrong tag or an
    // announced size over the limit is garbage on the header alone.
    void frameReader()
    {
        const QByteArray request = h5::frame(h5::FrameTag::Request, h5::encodeRequest(echo("abc")));
        for (qsizetype n = 0; n < request.size(); ++n) {
            h5::FrameReader reader;
            reader.append(request.constData(), n);
            h5::FrameReader::Frame f;
            QCOMPARE(reader.next(f, h5::FrameReader::Direction::ToWorker, 1 << 20), h5::FrameReader::Status::NeedMore);
        }
        h5::FrameReader reader;
        reader.append(request.constData(), request.size());
        h5::FrameReader::Frame f;
        QCOMPARE(reader.next(f, h5::FrameReader::Direction::ToWorker, 1 << 20), h5::FrameReader::Status::Ready);
        const auto back = h5::decodeRequest(f.payload);
        QVERIFY(back);
        QCOMPARE(back->echo.payload, QByteArray("abc"));
        h5::FrameReader small;
        small.append(request.constData(), qsizetype(h5::kFrameHeaderBytes));
        QCOMPARE(small.next(f, h5::FrameReader::Direction::ToWorker, 8), h5::FrameReader::Status::Garbled);
        h5::FrameReader wrongWay;
        wrongWay.append(request.constData(), request.size());
        QCOMPARE(wrongWay.next(f, h5::FrameReader::Direction::ToParent, 1 << 20), h5::FrameReader::Status::Garbled);
        const QByteArray progress = h5::frame(h5::FrameTag::Progress, QByteArray(5, 0)); // must be 4 bytes
        h5::FrameReader odd;
        odd.append(progress.constData(), progress.size());
        QCOMPARE(odd.next(f, h5::FrameReader::Direction::ToParent, 1 << 20), h5::FrameReader::Status::Garbled);
        // Requests: every truncation and a trailing byte fail to decode.
        const QByteArray bytes = h5::encodeRequest(echo("abc", {1, 2}));
        for (qsizetype n = 0; n < bytes.size(); ++n)
            QVERIFY2(!h5::decodeRequest(bytes.left(n)), qPrintable(QString::number(n)));
        QVERIFY(!h5::decodeRequest(bytes + 'x'));
    }

    void manyRunsLeakNothing()
    {
        const qsizetype before = openFds();
        for (int i = 0; i < 200; ++i) {
            const auto a = echoed(echo(QByteArray::number(i)));
            QVERIFY(a);
            QCOMPARE(a->payload.toInt(), i);
        }
        h5::setWorkerFaultForTesting(fault(h5::Fault::Kind::Signal, SIGSEGV));
        for (int i = 0; i < 10; ++i)
            QVERIFY(!h5::runWorker(echo(), 1 << 20).ok());
        h5::setWorkerFaultForTesting({});
        QVERIFY(h5::idleWorkers() <= 1);
        h5::releaseIdleWorkers();
        QCOMPARE(openFds(), before);
        QVERIFY(noChildren());
    }

    // Several threads at once, each with its own worker.
    void concurrentRuns()
    {
        std::atomic<int> good{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 10; ++i) {
                    const auto r = h5::runWorker(echo(QByteArray::number(t * 100 + i)), 1 << 20);
                    const auto a = r ? h5::decodeEchoAnswer(*r) : std::nullopt;
                    if (a && a->payload.toInt() == t * 100 + i)
                        ++good;
                }
            });
        for (auto &th : threads)
            th.join();
        QCOMPARE(good.load(), 40);
        QVERIFY(h5::idleWorkers() >= 1 && h5::idleWorkers() <= 4);
    }

    // Where the product looks for the worker: beside the program, then in the install's
    // libexec/dumpscope seen from bin; an executable file only.
    void findWorker()
    {
        QTemporaryDir prefix;
        const QString bin = prefix.filePath(QStringLiteral("bin")), libexec = prefix.filePath(QStringLiteral("libexec/dumpscope"));
        QVERIFY(QDir().mkpath(bin) && QDir().mkpath(libexec));
        QStringList searched;
        QCOMPARE(h5::findWorkerFrom(bin, &searched), QString());
        QVERIFY2(searched.contains(bin + QStringLiteral("/dumpscope-h5worker")), qPrintable(searched.join(u' ')));
        QVERIFY2(searched.contains(libexec + QStringLiteral("/dumpscope-h5worker")), qPrintable(searched.join(u' ')));
        const QString installed = libexec + QStringLiteral("/dumpscope-h5worker");
        QVERIFY(QFile::copy(h5::workerExecutable(), installed));
        QCOMPARE(h5::findWorkerFrom(bin), installed);
        QFile::setPermissions(installed, QFile::ReadOwner | QFile::WriteOwner); // not executable
        QCOMPARE(h5::findWorkerFrom(bin), QString());
        const QString beside = bin + QStringLiteral("/dumpscope-h5worker");
        QVERIFY(QFile::copy(h5::workerExecutable(), beside));
        QCOMPARE(h5::findWorkerFrom(bin), beside);
        // The installed copy really works when it is the one used.
        QFile::setPermissions(installed, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("DUMPSCOPE_H5WORKER", QFile::encodeName(installed));
        const auto a = echoed(echo("installed"));
        QVERIFY(a);
        QCOMPARE(QFileInfo(a->executable).canonicalFilePath(), QFileInfo(installed).canonicalFilePath());
    }

    // DUMPSCOPE_H5WORKER is used as given: a missing file or another program is an error.
    void overrideIsUsedAsGiven()
    {
        qputenv("DUMPSCOPE_H5WORKER", "/nonexistent/dumpscope-h5worker");
        auto r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QCOMPARE(r.errorText(), QStringLiteral("cannot start the HDF5 reader process /nonexistent/dumpscope-h5worker (No such file or directory)"));
        qputenv("DUMPSCOPE_H5WORKER", "/bin/true"); // exits 0 at once without a word
        r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("incomplete or garbled")), qPrintable(r.errorText()));
        qputenv("DUMPSCOPE_H5WORKER", "/bin/false");
        r = h5::runWorker(echo(), 1 << 20);
        QVERIFY(!r.ok());
        QVERIFY2(r.errorText().contains(QLatin1String("exit code 1")), qPrintable(r.errorText()));
        QVERIFY(noChildren());
    }
};

QTEST_GUILESS_MAIN(TestH5Isolate)
#include "tst_h5isolate.moc"
