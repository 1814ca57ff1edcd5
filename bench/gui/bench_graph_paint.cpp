// Graph view painting, offscreen (QT_QPA_PLATFORM=offscreen), one JSON object:
//
// 1. First view of a generated GE-like 50,000-operator graph (48 x 20 x 50 operators in name
//    scopes plus GE's top-level crowds: 500 atomic_addr_clean nodes, 750 Variable ->
//    trans_TransData weight transforms): the time from setGraph to the first layout (made on
//    a worker thread: hierarchy, folds, start node, first layout), the longest GUI-thread
//    stall meanwhile (a 2 ms timer), the first frame, and the labels it painted.
// 2. The generated 50,000-operator graph (48 blocks x 20 layers x 50 ops + a flat scope of
//    2,000) with groups open until about 5,000 boxes are laid out, painted zoomed out as far
//    as the view goes (0.01: the chains are tall, about 1,400 boxes are in view) and at 1:1
//    with labels while panning over the middle of the graph.
// 3. 5,000 boxes in view at once: a crowd of 5,000 atomic_addr_clean nodes opened and fitted
//    (every box outlined, each with its control edge), still and slowly panned, then at 1:1.
// Each case: the fewest boxes in view over its frames, the median and worst frame time as wall
// time and as the painting thread's CPU time (on a loaded machine the wall-clock worst frame
// measures the scheduler; the CPU time measures the painting). Every frame counts: the first
// one after a layout included.
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
    int minInView = 1 << 30; ///< boxes (not open-group frames) in the painted area, fewest of all frames
};

int boxesInView(const GraphView &view)
{
    const QRectF r = view.visibleSceneRect();
    int n = 0;
    for (const LayoutItem &it : view.currentLayout()->items)
        n += it.kind != LayoutItem::Kind::ExpandedGroup && r.intersects(it.rect) ? 1 : 0;
    return n;
}

/// Paints the view into an image n times, calling move(i) before frame i.
template<typename Move>
Frames frames(GraphView &view, int n, Move move)
{
    Frames f;
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (int i = 0; i < n; ++i) {
        move(i);
        f.minInView = std::min(f.minInView, boxesInView(view));
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
                  "\"%s_boxes_in_view\": %d, \"%s_median_ms\": %.2f, \"%s_worst_ms\": %.2f, \"%s_cpu_median_ms\": %.2f, "
                  "\"%s_cpu_worst_ms\": %.2f, ",
                  name, f.minInView, name, median(f.wall), name, worst(f.wall), name, median(f.cpu), name, worst(f.cpu));
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

    {
        auto graph = std::make_shared<const Graph>(generateScopedGraph(GeneratedGraphSpec{}));
        GraphView view;
        view.resize(1400, 900);
        view.show();
        view.setGraph(graph);
        waitForLayout(view);
        // Open top groups and their layers until about 5,000 items are laid out.
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
        view.fitToView(); // as far out as the view zooms: boxes of a few pixels, labels hidden
        const double fittedZoom = view.zoom();
        const auto fitted = frames(view, 60, [](int) {});
        // 1:1 with labels, panning over the boxes nearest the middle of the graph.
        const QRectF b = view.currentLayout()->bounds;
        QPointF mid = b.center();
        double best = 1e300;
        for (const LayoutItem &it : view.currentLayout()->items) {
            const QPointF d = it.rect.center() - b.center();
            if (it.kind == LayoutItem::Kind::Node && d.x() * d.x() + d.y() * d.y() < best) {
                best = d.x() * d.x() + d.y() * d.y();
                mid = it.rect.center();
            }
        }
        view.setZoom(1.0, QPointF(0, 0));
        const auto panned = frames(view, 60, [&](int i) { view.centerOn(mid + QPointF(8.0 * (i - 30), 12.0 * (i - 30))); });
        char buf[256];
        std::snprintf(buf, sizeof buf, "\"big_nodes\": %d, \"big_laid_out_boxes\": %d, \"big_fitted_zoom\": %.3f, ",
                      int(graph->nodes.size()), items, fittedZoom);
        out += buf + stats("big_fitted", fitted) + stats("big_pan_1to1", panned);
    }

#ifndef BENCH_BEFORE
    {
        // 5,000 boxes all in view: a crowd of 5,000 atomic_addr_clean nodes, opened (its
        // layer split into rows a screen wide), fitted: every box outlined, each with an edge.
        GeneratedGraphSpec spec{4, 5, 40, 0, 7};
        spec.atomicCleans = 5000;
        auto graph = std::make_shared<const Graph>(generateScopedGraph(spec));
        GraphView view;
        view.resize(1400, 900);
        view.show();
        view.setGraph(graph);
        waitForLayout(view);
        GroupId crowd;
        for (GroupId g : view.hierarchy()->topGroups)
            if (view.hierarchy()->group(g).kind == GroupKind::Fold && view.hierarchy()->group(g).memberCount == 5000)
                crowd = g;
        if (!crowd.isValid())
            return 1;
        view.setExpanded(crowd, true);
        waitForLayout(view);
        const QRectF frame = view.currentLayout()->items[size_t(view.currentLayout()->groupItem[crowd.index()])].rect;
        view.setZoom(std::min(view.width() / (frame.width() + 40), view.height() / (frame.height() + 40)), QPointF(0, 0));
        view.centerOn(frame.center());
        const double zoom = view.zoom();
        const auto all = frames(view, 60, [](int) {});
        const auto drift = frames(view, 60, [&](int i) { view.centerOn(frame.center() + QPointF(2.0 * (i % 10), 2.0 * (i % 7))); });
        // As far out as labels are drawn: hundreds of labelled boxes, entering the view as it pans.
        view.setZoom(0.6, QPointF(0, 0));
        const auto labelled = frames(view, 60, [&](int i) { view.centerOn(frame.topLeft() + QPointF(1500, 1000 + 60.0 * i)); });
        view.setZoom(1.0, QPointF(0, 0));
        const auto close = frames(view, 60, [&](int i) { view.centerOn(frame.topLeft() + QPointF(700 + 10.0 * i, 450 + 30.0 * i)); });
        char buf[128];
        std::snprintf(buf, sizeof buf, "\"crowd_zoom\": %.3f, ", zoom);
        out += buf + stats("crowd_all", all) + stats("crowd_pan", drift) + stats("crowd_labels", labelled) + stats("crowd_1to1", close);
    }
#endif
    out.resize(out.size() - 2);
    std::printf("%s}\n", out.c_str());
    return 0;
}
