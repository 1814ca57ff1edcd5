// GUI responsiveness probe: opens a dump in the real main window and measures the longest
// gap between ticks of a 2 ms timer on the GUI thread (event-loop latency) while the tree
// indexes and fills; then selects the largest tensor and times its first value page and
// histogram. Prints JSON. Usage: bench_gui_latency PATH [TENSOR_ID]
#include "documentcontext.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"
#include "tensorinspector.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <QTreeView>
#include <cstdio>

using namespace ds;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeBench"));
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_gui_latency PATH [TENSOR_ID]\n");
        return 2;
    }
    MainWindow w;
    w.resize(1400, 860);
    w.show();

    QElapsedTimer clock, sinceTick;
    qint64 worstGap = 0, worstAt = 0, firstRowMs = -1, finishedMs = -1, ticks = 0;
    QTimer probe;
    probe.setInterval(2);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (ticks++ && sinceTick.elapsed() > worstGap) {
            worstGap = sinceTick.elapsed();
            worstAt = clock.elapsed();
        }
        sinceTick.restart();
        if (firstRowMs < 0 && w.context()->treeModel()->rowCount(w.context()->treeModel()->index(0, 0)) > 0)
            firstRowMs = clock.elapsed();
    });
    QObject::connect(w.context(), &DocumentContext::indexingFinished, [&] {
        finishedMs = clock.elapsed();
        // Keep probing a little: finishing work (tree swap, table fill) must not block either.
        QTimer::singleShot(1500, &app, &QCoreApplication::quit);
    });
    clock.start();
    sinceTick.start();
    probe.start();
    w.openPath(QString::fromLocal8Bit(argv[1]));
    app.exec();
    const qint64 indexGap = worstGap, indexGapAt = worstAt;

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
    std::printf("{\"first_tree_row_ms\": %lld, \"indexing_finished_ms\": %lld, \"worst_gui_gap_ms\": %lld, \"worst_gap_at_ms\": %lld, "
                "\"tensor_first_page_ms\": %.1f, \"tensor_histogram_ms\": %.1f, \"worst_gui_gap_tensor_ms\": %lld}\n",
                firstRowMs, finishedMs, indexGap, indexGapAt, pageMs, histMs, worstGap);
    return 0;
}
