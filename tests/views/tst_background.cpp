// views/background.h: the GUI's jobs run on their own pool at background priority. Qt 6.4's
// raster engine and image scaling spread their work over Qt's global pool and the GUI thread
// waits for it; jobs holding the global pool's threads stalled painting for seconds. Here
// jobs fill every thread of the job pool (and more wait in its queue) while the GUI thread
// scales a large image smoothly: it must not wait for them.
#include "background.h"

#include <QElapsedTimer>
#include <QImage>
#include <QSemaphore>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent>

#include <sys/resource.h>
#include <thread>

using namespace ds;

class TestBackground : public QObject
{
    Q_OBJECT
private slots:
    void jobsDoNotHoldQtsPool()
    {
        QThreadPool *pool = backgroundPool();
        QVERIFY(pool && pool != QThreadPool::globalInstance());
        QSemaphore release, started;
        const int jobs = pool->maxThreadCount() + 2; // every thread busy, two queued
        QList<QFuture<void>> futures;
        for (int i = 0; i < jobs; ++i)
            futures << QtConcurrent::run(pool, [&] {
                started.release();
                release.acquire();
            });
        QVERIFY(started.tryAcquire(pool->maxThreadCount(), 10000));
        // The jobs go on after 3 s whatever happens, so that a failure does not hang the test.
        std::thread opener([&] {
            QThread::msleep(3000);
            release.release(jobs);
        });
        QImage big(4000, 3000, QImage::Format_ARGB32_Premultiplied);
        big.fill(Qt::darkCyan);
        QElapsedTimer t;
        t.start();
        const QImage small = big.scaled(1999, 1499, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
        const qint64 ms = t.elapsed();
        release.release(jobs);
        opener.join();
        for (auto &f : futures)
            f.waitForFinished();
        QCOMPARE(small.size(), QSize(1999, 1499));
        QVERIFY2(ms < 1500, qPrintable(QStringLiteral("the scaling waited %1 ms for the jobs").arg(ms)));
    }

    void priorityLoweredWhileHeld()
    {
        const int before = ::getpriority(PRIO_PROCESS, 0);
        int during = before;
        std::thread([&] { // a thread of its own: the test's main thread keeps its priority
            {
                const BackgroundPriority background;
                during = ::getpriority(PRIO_PROCESS, 0);
                int child = 0;
                std::thread([&] { child = ::getpriority(PRIO_PROCESS, 0); }).join();
                QCOMPARE(child, during); // threads it starts inherit it
            }
        }).join();
        QCOMPARE(during, std::max(before, BackgroundPriority::kNice));
        QCOMPARE(::getpriority(PRIO_PROCESS, 0), before);
    }
};

QTEST_MAIN(TestBackground)
#include "tst_background.moc"
