// Graph view painting, offscreen (QT_QPA_PLATFORM=offscreen), one JSON object:
//
// 1. First view of a generated GE-like 50,000-operator graph (48 x 20 x 50 operators in name
//    scopes plus GE's top-level crowds: 500 atomic_addr_clean nodes, 750 Variable ->
//    trans_TransData weight transforms): the time from setGraph to the first layout (made on
//    a worker thread: hierarchy, folds, start node, first layout), the longest GUI-thread
//    stall meanwhile (a 2 ms timer), the first frame, and the labels it painted.
// 2. Frames at about 5,000 visible items: the generated 50,000-operator graph (48 blocks x
//    20 layers x 50 ops + a flat scope of 2,000) with enough groups open, painted all in view
//    (the fitted zoom: boxes of a few pixels), at zoom 0.05 (every box outlined, thousands in
//    view) and at 1:1 with labels while panning. Worst and median frame time, as wall time and
//    as the painting thread's CPU time (on a loaded machine the wall-clock worst frame
//    measures the scheduler; the CPU time measures the painting). Every frame counts: the
//    first one after a layout included.
//
// Built with -DBENCH_BEFORE it compiles against the graph view of revision 49a4cfe (before
// issue 18), for the before/after table of docs/PERFORMANCE.md: part 1 is skipped there.
#include "graph/graphgenerator.h"
#include "graphview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace ds;

namespace {

double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Frames
{
    std::vector<double> wall, cpu;
};

/// Paints the view into an image n times, calling move(i) before frame i.
template<typename Move>
Frames frames(GraphView &view, int n, Move move)
{
    Frames f;
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (int i = 0; i < n; ++i) {
        move(i);
        QElapsedTimer t;
        t.start();
        const double c0 = threadCpuMs();
        view.render(&image);
        f.cpu.push_back(threadCpuMs() - c0);
        f.wall.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    return f;
}

double worst(const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string stats(const char *name, const Frames &f)
{
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "\"%s_median_ms\": %.2f, \"%s_worst_ms\": %.2f, \"%s_cpu_median_ms\": %.2f, \"%s_cpu_worst_ms\": %.2f, ", name,
                  median(f.wall), name, worst(f.wall), name, median(f.cpu), name, worst(f.cpu));
    return buf;
}

void waitForLayout(GraphView &view)
{
    QElapsedTimer wait;
    wait.start();
    while ((view.isLayoutPending() || !view.currentLayout()) && wait.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    std::string out = "{";

#ifndef BENCH_BEFORE
    {
        GeneratedGraphSpec spec{48, 20, 50, 0, 3};
        spec.atomicCleans = 500;
        spec.weightTransforms = 750;
        auto graph = std::make_shared<const Graph>(generateScopedGraph(spec));
        GraphView view;
        view.resize(1400, 900);
        view.show();
        // The GUI thread stays responsive while the first view is made: a 2 ms timer's gaps.
        QElapsedTimer tick;
        double longestGap = 0;
        QTimer timer;
        timer.setInterval(2);
        QObject::connect(&timer, &QTimer::timeout, [&] {
            longestGap = std::max(longestGap, double(tick.nsecsElapsed()) / 1e6);
            tick.restart();
        });
        QElapsedTimer t;
        t.start();
        tick.start();
        timer.start();
        view.setGraph(graph);
        const double setGraphMs = double(t.nsecsElapsed()) / 1e6;
        waitForLayout(view);
        timer.stop();
        const double readyMs = double(t.nsecsElapsed()) / 1e6;
        QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
        QElapsedTimer p;
        p.start();
        view.render(&image);
        const double firstPaintMs = double(p.nsecsElapsed()) / 1e6;
        int names = 0;
        double smallest = 1e9;
        for (const PaintedLabel &l : view.paintedLabels())
            if (l.isName) {
                ++names;
                smallest = std::min(smallest, l.pointSize);
            }
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "\"first_view_nodes\": %d, \"first_view_setgraph_ms\": %.2f, \"first_view_ready_ms\": %.1f, "
                      "\"first_view_gui_longest_gap_ms\": %.1f, \"first_paint_ms\": %.2f, \"first_paint_labels\": %d, "
                      "\"first_paint_smallest_label_pt\": %.1f, \"first_view_zoom\": %.2f, ",
                      int(graph->nodes.size()), setGraphMs, readyMs, longestGap, firstPaintMs, names, smallest, view.zoom());
        out += buf;
    }
#endif

    auto graph = std::make_shared<const Graph>(generateScopedGraph(GeneratedGraphSpec{}));
    GraphView view;
    view.resize(1400, 900);
    view.show();
    view.setGraph(graph);
    waitForLayout(view);
    // Open top groups and their layers until about 5,000 items are visible.
    int visible = int(graph->topGroups.size()) + int(graph->topNodes.size());
    for (GroupId top : graph->topGroups) {
        if (visible >= 5000)
            break;
        view.setExpanded(top, true);
        for (GroupId layer : graph->group(top).childGroups) {
            if (visible >= 5000)
                break;
            view.setExpanded(layer, true);
            visible += int(graph->group(layer).nodes.size());
        }
        visible += int(graph->group(top).childGroups.size());
    }
    waitForLayout(view);
    int items = 0;
    for (const LayoutItem &it : view.currentLayout()->items)
        items += it.kind == LayoutItem::Kind::ExpandedGroup ? 0 : 1;
    view.fitToView(); // everything visible: boxes of a few pixels, labels hidden by level of detail
    const double fittedZoom = view.zoom();
    const QRectF b = view.currentLayout()->bounds;
    const auto fitted = frames(view, 60, [](int) {});
    view.setZoom(0.05, QPointF(0, 0)); // thousands of outlined boxes in view
    const auto mid = frames(view, 60, [&](int i) { view.centerOn(QPointF(b.left() + 12000 + 300.0 * i, b.top() + 9000 + 200.0 * i)); });
    view.setZoom(1.0, QPointF(0, 0));
    const auto panned = frames(view, 60, [&](int i) { view.centerOn(QPointF(b.left() + 200.0 + 40.0 * i, b.top() + 400.0 + 40.0 * i)); });
    char buf[256];
    std::snprintf(buf, sizeof buf, "\"nodes\": %d, \"visible_items\": %d, \"fitted_zoom\": %.3f, ", int(graph->nodes.size()), items,
                  fittedZoom);
    out += buf + stats("fitted", fitted) + stats("zoom005", mid) + stats("pan_1to1", panned);
    out.resize(out.size() - 2);
    std::printf("%s}\n", out.c_str());
    return 0;
}
