// Repaint time of the graph view with about 5,000 visible items: a generated 50,000-operator
// graph with enough groups open, painted offscreen at the fitted zoom (labels hidden by level
// of detail) and at 1:1 zoom while panning. Prints JSON with the worst and median frame time,
// as wall time and as the painting thread's CPU time (on a loaded machine the wall-clock worst
// frame measures the scheduler; the CPU time measures the painting).
#include "graph/graphgenerator.h"
#include "graphview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <ctime>
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

/// Paints the view into an image n times (moving it by `step` scene units between frames).
Frames frames(GraphView &view, int n, double step)
{
    Frames f;
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    for (int i = 0; i < n; ++i) {
        if (step != 0)
            view.centerOn(QPointF(200.0 + step * i, 400.0 + step * i));
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

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    auto graph = std::make_shared<const Graph>(generateScopedGraph(GeneratedGraphSpec{}));
    GraphView view;
    view.resize(1400, 900);
    view.show();
    view.setGraph(graph);
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
    QElapsedTimer wait;
    wait.start();
    while (view.isLayoutPending() && wait.elapsed() < 60000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    view.fitToView(); // everything visible: labels hidden by level of detail
    const double fittedZoom = view.zoom();
    const auto fitted = frames(view, 20, 0);
    view.setZoom(1.0, QPointF(0, 0));
    const auto panned = frames(view, 30, 40.0);
    std::printf("{\"nodes\": %d, \"visible_items_approx\": %d, \"fitted_zoom\": %.3f, "
                "\"fitted_median_ms\": %.2f, \"fitted_worst_ms\": %.2f, \"pan_1to1_median_ms\": %.2f, \"pan_1to1_worst_ms\": %.2f, "
                "\"fitted_cpu_median_ms\": %.2f, \"fitted_cpu_worst_ms\": %.2f, \"pan_cpu_median_ms\": %.2f, \"pan_cpu_worst_ms\": %.2f}\n",
                int(graph->nodes.size()), visible, fittedZoom, median(fitted.wall), worst(fitted.wall), median(panned.wall),
                worst(panned.wall), median(fitted.cpu), worst(fitted.cpu), median(panned.cpu), worst(panned.cpu));
    return 0;
}
