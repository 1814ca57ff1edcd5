// GUI responsiveness probe: opens a dump in the real main window and measures the longest
// gap between ticks of a 2 ms timer on the GUI thread (event-loop latency) while the tree
// indexes and fills; then selects the largest tensor and times its first value page and
// histogram. Probing goes on until what opening starts after the index (overflow analysis,
// runs overview) is done, plus 1.5 s. Prints JSON.
// Usage: bench_gui_latency [--graph] [--after-shown] [--tab runs|trends] PATH [TENSOR_ID]
// With --tab the Runs or Trends tab is shown while the dump opens, and "first_answer_ms" is
// when it first showed an answer: the Runs grid's first read cell (size known), or the Trends'
// first table with points; the probe then also waits for the Trends to finish.
// With --graph the Graph tab is shown first and the probe runs until the tab has shown its
// graph (GraphPanel::graphShown) plus 1.5 s: for a graph file or folder, which indexes nothing.
// The path opens as on the command line (MainWindow::openAfterFirstPaint: once the window has
// painted its first frame), or with --after-shown as from File > Open (200 ms after show(): the
// tree then has no current item yet when indexing ends, and the first level with operators is
// selected and listed). The worst gap counts from the open on (the gap in which indexing
// starts included); the window's first paint before it (an empty window: fonts, style, Qt's
// paint threads started) is reported on its own.
// Every gap is also measured in the GUI thread's own CPU time (CLOCK_THREAD_CPUTIME_ID): a gap
// with little CPU is the thread waiting for a core (load) or blocked, a gap with as much CPU as
// wall time is work on the GUI thread; "worst_gui_gap_cpu_ms" is the CPU time of the worst gap,
// "worst_gui_busy_ms" the most CPU the GUI thread spent between two ticks; with --graph,
// "worst_gui_busy_graph_ms" the most from the tick that saw the graph shown on.
// With DS_BENCH_COMPARE=BENCH set, the opened dump is compared with BENCH once it is open
// (MainWindow::compareWith; a run opened scope by scope compares pair by pair on a worker) and
// the probe runs until the compare is done: "compare_first_ms" (first pairs' verdicts shown) and
// "compare_done_ms" (from the open's start); the worst gap then covers the compare too.
// With DS_BENCH_OVERFLOW=LANES set, Go to First Overflow is run once the dump is open and the
// Runs overview settled; a run opened scope by scope is then scanned rank by rank on LANES
// threads (RunsPanel::setScanLanes; 0: the default, a lane per core; 1: one rank after another,
// as before issue 35's sixth session), and the probe runs until the scan is done:
// "scan_ms" (its wall time), "scan_cpu_ms" (the process's user + system CPU during it).
// With DS_STALL_TRACE=MS set, a watchdog thread prints the GUI thread's stack (raw frames,
// for addr2line) to stderr whenever the GUI thread has not ticked for MS milliseconds, sampled
// every 10 ms of it, labelled by whether it spent most of the last 10 ms on a core.
#include "compareview.h"
#include "documentcontext.h"
#include "graphpanel.h"
#include "mainwindow.h"
#include "overflowpanel.h"
#include "runspanel.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"
#include "trendspanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <QTreeView>
#include <atomic>
#include <chrono>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <execinfo.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>
#include <thread>
#include <unistd.h>
#include <string_view>
#include <utility>

using namespace ds;

namespace {

std::atomic<qint64> g_lastTickNs{0};
std::atomic<bool> g_stop{false};
std::atomic<qint64> g_stalledMs{0};
std::atomic<bool> g_working{false};

void dumpStack(int)
{
    void *frames[64];
    const int n = backtrace(frames, 64);
    // "--- GUI thread stack, stalled for N ms ---": N written by hand (async-signal-safe).
    char line[64] = "--- GUI thread stack, stalled for ";
    size_t len = std::strlen(line);
    char digits[20];
    int nd = 0;
    for (qint64 v = g_stalledMs; nd == 0 || v > 0; v /= 10)
        digits[nd++] = char('0' + v % 10);
    while (nd > 0)
        line[len++] = digits[--nd];
    for (const char c : std::string_view(g_working ? " ms, working ---\n" : " ms, not on a core ---\n"))
        line[len++] = c;
    (void)!write(2, line, len);
    backtrace_symbols_fd(frames, n, 2);
}

qint64 threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// The process's user + system CPU time so far.
qint64 processCpuMs()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (qint64(u.ru_utime.tv_sec) + u.ru_stime.tv_sec) * 1000 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000;
}

qint64 nowNs() { return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Samples the GUI thread's stack every 10 ms while it is stalled longer than `ms`.
std::thread stallTracer(int ms)
{
    std::signal(SIGUSR2, dumpStack);
    const pthread_t gui = pthread_self();
    clockid_t guiClock{};
    pthread_getcpuclockid(gui, &guiClock);
    return std::thread([gui, ms, guiClock] {
        const auto guiCpuNs = [guiClock] {
            timespec ts{};
            clock_gettime(guiClock, &ts);
            return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
        };
        qint64 cpuBefore = guiCpuNs();
        while (!g_stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            const qint64 last = g_lastTickNs, cpu = guiCpuNs();
            // A stall in which the GUI thread works (over half of the last 10 ms on a core) is
            // labelled "working"; otherwise it waits for a core or is blocked (a lock, a fault).
            const bool working = cpu - cpuBefore > 5000000;
            cpuBefore = cpu;
            const qint64 stalledNs = nowNs() - last;
            if (last && stalledNs > qint64(ms) * 1000000) {
                g_stalledMs = stalledNs / 1000000;
                g_working = working;
                pthread_kill(gui, SIGUSR2);
            }
        }
    });
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeBench"));
    const bool graphMode = argc > 1 && std::strcmp(argv[1], "--graph") == 0;
    if (graphMode) {
        --argc;
        ++argv;
    }
    const bool afterShown = argc > 1 && std::strcmp(argv[1], "--after-shown") == 0;
    if (afterShown) {
        --argc;
        ++argv;
    }
    QString tab;
    if (argc > 2 && std::strcmp(argv[1], "--tab") == 0) {
        tab = QString::fromLatin1(argv[2]);
        argc -= 2;
        argv += 2;
    }
    if (argc < 2 || (!tab.isEmpty() && tab != QLatin1String("runs") && tab != QLatin1String("trends"))) {
        std::fprintf(stderr, "usage: bench_gui_latency [--graph] [--after-shown] [--tab runs|trends] PATH [TENSOR_ID]\n");
        return 2;
    }
    // DS_BENCH_RT=1: the GUI thread alone runs SCHED_FIFO (root only), so that on a loaded
    // machine it never waits for a core and the gaps left are the GUI thread's own work and
    // its waits on locks: what it would see on an idle machine.
    if (std::getenv("DS_BENCH_RT")) {
        sched_param param{};
        param.sched_priority = 1;
        if (const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param))
            std::fprintf(stderr, "DS_BENCH_RT: SCHED_FIFO refused (%s)\n", std::strerror(rc));
    }
    std::thread tracer;
    if (const char *trace = std::getenv("DS_STALL_TRACE"))
        tracer = stallTracer(std::max(10, std::atoi(trace)));
    MainWindow w;
    w.resize(1400, 860);
    w.show();

    if (tab == QLatin1String("runs"))
        w.centralTabs()->setCurrentWidget(w.runsPanel());
    else if (tab == QLatin1String("trends"))
        w.centralTabs()->setCurrentWidget(w.trendsPanel());
    qint64 firstAnswerMs = -1;
    QElapsedTimer clock, sinceTick;
    qint64 worstGapCpuNs = 0, worstBusyNs = 0, worstBusyAt = 0, lastCpuNs = threadCpuNs();
    qint64 worstGap = 0, worstAt = 0, firstRowMs = -1, finishedMs = -1, ticks = 0, beforeOpenGap = -1;
    qint64 worstGraphBusyNs = 0;
    bool graphSeen = false; // --graph: the graph was shown (its tick counts)
    QTimer probe;
    probe.setInterval(2);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 cpuNs = threadCpuNs();
        if (ticks++) {
            if (sinceTick.elapsed() > worstGap) {
                worstGap = sinceTick.elapsed();
                worstAt = clock.elapsed();
                worstGapCpuNs = cpuNs - lastCpuNs;
            }
            if (graphSeen)
                worstGraphBusyNs = std::max(worstGraphBusyNs, cpuNs - lastCpuNs);
            if (cpuNs - lastCpuNs > worstBusyNs) {
                worstBusyNs = cpuNs - lastCpuNs;
                worstBusyAt = clock.elapsed();
            }
        }
        lastCpuNs = cpuNs;
        sinceTick.restart();
        g_lastTickNs = nowNs();
        if (firstRowMs < 0 && w.context()->treeModel()->rowCount(w.context()->treeModel()->index(0, 0)) > 0)
            firstRowMs = clock.elapsed();
        if (firstAnswerMs < 0 && tab == QLatin1String("runs") && w.runsPanel()->model()->rowCount() > 0 &&
            w.runsPanel()->model()->index(0, 0).data(RunGridModel::BytesRole).isValid())
            firstAnswerMs = clock.elapsed();
    });
    qint64 settledMs = -1, graphShownMs = -1, compareFirstMs = -1, compareDoneMs = -1;
    const QString compareWith = qEnvironmentVariable("DS_BENCH_COMPARE");
    bool compareStarted = false;
    QObject::connect(w.runsPanel(), &RunsPanel::compareUpdated, [&](int, const QString &, qulonglong done, qulonglong, bool finished) {
        if (compareFirstMs < 0 && done > 0)
            compareFirstMs = clock.elapsed();
        if (finished)
            compareDoneMs = clock.elapsed();
    });
    QObject::connect(w.compareView(), &CompareView::finished, [&] { compareDoneMs = clock.elapsed(); });
    // DS_BENCH_OVERFLOW: the scan of Go to First Overflow, timed in wall and process CPU.
    const char *overflowLanes = std::getenv("DS_BENCH_OVERFLOW");
    qint64 scanStartMs = -1, scanStartCpuMs = 0, scanMs = -1, scanCpuMs = -1;
    if (overflowLanes)
        w.runsPanel()->setScanLanes(unsigned(std::max(0, std::atoi(overflowLanes))));
    QObject::connect(w.runsPanel(), &RunsPanel::scanUpdated, [&](int, qulonglong, qulonglong, bool finished, const QString &, const QString &) {
        if (finished && scanStartMs >= 0 && scanMs < 0) {
            scanMs = clock.elapsed() - scanStartMs;
            scanCpuMs = processCpuMs() - scanStartCpuMs;
        }
    });
    int ops = 0;
    QTimer settle;
    settle.setInterval(50);
    QObject::connect(&settle, &QTimer::timeout, [&] {
        // What opening starts after the index (overflow analysis, the runs overview) must
        // not block either: probe until it is done, then a little longer.
        if (!compareWith.isEmpty() && compareDoneMs < 0) {
            if (!compareStarted) {
                compareStarted = true;
                w.compareWith(compareWith);
            }
            return;
        }
        if (w.overflow()->isRunning() || w.runsPanel()->isBusy() || (tab == QLatin1String("trends") && (w.trendsPanel()->isBusy() || firstAnswerMs < 0)))
            return;
        if (graphMode && graphShownMs < 0)
            return; // --graph on a dump folder: its module graph is built after the index
        if (overflowLanes && scanStartMs < 0) {
            scanStartMs = clock.elapsed();
            scanStartCpuMs = processCpuMs();
            w.goToFirstOverflow();
            return;
        }
        if (overflowLanes && (scanMs < 0 || w.overflow()->isRunning()))
            return;
        settle.stop();
        settledMs = clock.elapsed();
        QTimer::singleShot(1500, &app, &QCoreApplication::quit);
    });
    qint64 openMs = -1;
    if (graphMode) {
        w.centralTabs()->setCurrentWidget(w.graph());
        QObject::connect(w.graph(), &GraphPanel::graphShown, [&] {
            if (graphShownMs >= 0)
                return;
            graphShownMs = clock.elapsed();
            finishedMs = graphShownMs;
            graphSeen = true;
            QTimer::singleShot(1500, &app, [&] {
                settledMs = clock.elapsed();
                app.quit();
            });
        });
    }
    QObject::connect(w.context(), &DocumentContext::indexingStarted, [&] {
        if (openMs >= 0)
            return;
        openMs = clock.elapsed();
        beforeOpenGap = std::exchange(worstGap, 0);
        worstGapCpuNs = worstBusyNs = worstBusyAt = 0;
    });
    QObject::connect(w.context(), &DocumentContext::indexingFinished, [&](int, bool, int opCount, int) {
        finishedMs = clock.elapsed();
        ops = opCount;
        settle.start();
    });
    QObject::connect(w.trendsPanel(), &TrendsPanel::tableReady, [&] {
        if (firstAnswerMs < 0 && tab == QLatin1String("trends") && w.trendsPanel()->table() && !w.trendsPanel()->table()->empty())
            firstAnswerMs = clock.elapsed();
    });
    clock.start();
    sinceTick.start();
    probe.start();
    const QString path = QString::fromLocal8Bit(argv[1]);
    if (afterShown)
        QTimer::singleShot(200, &w, [&] {
            if (graphMode) { // nothing indexes: the worst gap counts from the open
                openMs = clock.elapsed();
                beforeOpenGap = std::exchange(worstGap, 0);
            }
            w.openPath(path);
        });
    else
        w.openAfterFirstPaint({path});
    app.exec();
    const qint64 indexGap = worstGap, indexGapAt = worstAt;
    const double indexGapCpuMs = double(worstGapCpuNs) / 1e6, indexBusyMs = double(worstBusyNs) / 1e6;
    const qint64 indexBusyAt = worstBusyAt;
    g_lastTickNs = 0;

    double pageMs = -1, histMs = -1;
    if (argc > 2) {
        worstGap = 0;
        ticks = 0;
        QElapsedTimer t;
        t.start();
        QObject::connect(w.inspector(), &TensorInspector::reportReady, [&] {
            histMs = double(t.nsecsElapsed()) / 1e6;
            QTimer::singleShot(200, &app, &QCoreApplication::quit);
        });
        w.selectTensor(TensorId::parse(QString::fromLocal8Bit(argv[2])).value_or(TensorId{}));
        app.exec();
        pageMs = w.inspector()->firstPageMs();
    }
    g_stop = true;
    if (tracer.joinable())
        tracer.join();
    std::printf("{\"ops\": %d, \"open_started_ms\": %lld, \"first_tree_row_ms\": %lld, \"indexing_finished_ms\": %lld, \"settled_ms\": %lld, \"worst_gui_gap_ms\": %lld, \"worst_gap_at_ms\": %lld, \"worst_gui_gap_cpu_ms\": %.1f, \"worst_gui_busy_ms\": %.1f, \"worst_busy_at_ms\": %lld, "
                "\"graph_shown_ms\": %lld, \"worst_gui_busy_graph_ms\": %.1f, \"compare_first_ms\": %lld, \"compare_done_ms\": %lld, \"first_answer_ms\": %lld, \"scan_ms\": %lld, \"scan_cpu_ms\": %lld, \"worst_gui_gap_before_open_ms\": %lld, \"tensor_first_page_ms\": %.1f, \"tensor_histogram_ms\": %.1f, \"worst_gui_gap_tensor_ms\": %lld}\n",
                ops, openMs, firstRowMs, finishedMs, settledMs, indexGap, indexGapAt, indexGapCpuMs, indexBusyMs, indexBusyAt, graphShownMs, double(worstGraphBusyNs) / 1e6, compareFirstMs, compareDoneMs, firstAnswerMs, scanMs, scanCpuMs, beforeOpenGap, pageMs, histMs, worstGap);
    return 0;
}
