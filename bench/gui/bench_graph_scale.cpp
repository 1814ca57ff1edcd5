// A million-node graph in the graph view, offscreen (issue 35 item 2, docs/scale/graphs-runs.md).
// Prints one JSON object.
//
//   bench_graph_scale PATH [--largest K]
//
// PATH is what the Graph tab would show: a GE graph file or folder, an msprobe graph database
// (.vis.db), or an msprobe dump folder (its module graph, made from dump.json and
// construct.json after indexing). The data comes from bench/gen_vis_db.py,
// bench/gen_msprobe_json.py --entries N --sidecars and bench_graph --write-ge DIR --million.
//
// 1. Parse: discoverGraphs (after buildIndex for a dump folder), as the Graph tab's worker does;
//    the largest model is shown.
// 2. First view: GraphView::setGraph to the first layout applied (hierarchy, folds, start node
//    and first layout on the view's worker thread), then the first frame painted; the longest
//    gap of a 2 ms timer on the GUI thread meanwhile, and the labels the first frame painted.
// 3. Expand: the K hierarchy groups with the most direct members (and their ancestors, each
//    counted too), one after the other from the first view's state: setExpanded to the layout
//    applied plus the frame that shows it; the worst and the median.
// 4. Frames: with the largest group open, fitted and then at 1:1 panning over it: wall and
//    painting-thread CPU time per frame (the CPU time is what counts on a shared machine).
#include "dumpgraph/graphdiscovery.h"
#include "dumpgraph/visdbgraph.h"
#include "graphpanel.h"
#include "graphview.h"
#include "index/buildindex.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
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

long statusKb(const char *key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(int(std::strlen(key))).trimmed().split(' ').front().toLong();
    return -1;
}

/// CPU time of the whole process (every thread), ms: on a shared machine the wall clock measures
/// the scheduler (the view's worker runs at background priority, nice 10).
double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double worst(const std::vector<double> &v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

bool waitForLayout(GraphView &view)
{
    QElapsedTimer wait;
    wait.start();
    // Sleeps until an event comes (the 2 ms probe timer wakes it): a loop of processEvents
    // with a time limit would spin and take a core from the view's worker.
    while ((view.isLayoutPending() || !view.currentLayout()) && wait.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    return !view.isLayoutPending() && view.currentLayout();
}

struct Frame
{
    double wall = 0, cpu = 0;
};

Frame paint(GraphView &view, QImage &image)
{
    QElapsedTimer t;
    t.start();
    const double c0 = threadCpuMs();
    view.render(&image);
    return {double(t.nsecsElapsed()) / 1e6, threadCpuMs() - c0};
}

std::string num(const char *key, double v, const char *fmt = "%.1f")
{
    char buf[128];
    std::snprintf(buf, sizeof buf, "\"%s\": ", key);
    std::string s = buf;
    std::snprintf(buf, sizeof buf, fmt, v);
    return s + buf + ", ";
}

std::string str(const char *key, const QString &v)
{
    QString e = v;
    e.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('"'), QLatin1String("\\\""));
    return std::string("\"") + key + "\": \"" + e.toStdString() + "\", ";
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_graph_scale PATH [--largest K]\n");
        return 2;
    }
    const QString path = QFileInfo(QString::fromLocal8Bit(argv[1])).absoluteFilePath();
    int largest = 5;
    for (int i = 2; i + 1 < argc; ++i)
        if (!std::strcmp(argv[i], "--largest"))
            largest = std::atoi(argv[i + 1]);
    std::string out = "{" + str("path", path);

    // 1. Parse.
    QElapsedTimer clock;
    clock.start();
    const double cpu0 = processCpuMs();
    std::shared_ptr<DumpIndex> index;
    double indexMs = 0;
    const bool graphOnly = isGraphOnlyFolder(path) || path.endsWith(QLatin1String(".vis.db")) || QFileInfo(path).isFile();
    if (!graphOnly) {
        auto built = buildIndex(path);
        if (!built) {
            std::fprintf(stderr, "cannot index %s\n", argv[1]);
            return 1;
        }
        index = *built;
        indexMs = double(clock.nsecsElapsed()) / 1e6;
    }
    DiscoveryOptions options; // as the Graph tab reads them: a big database's rows stay in the file
    options.visDbRowsUpTo = GraphPanel::kVisDbRowsInMemoryUpTo;
    auto found = std::make_shared<DiscoveredGraphs>(discoverGraphs(path, {}, index.get(), options));
    const double parseMs = double(clock.nsecsElapsed()) / 1e6;
    const double parseCpuMs = processCpuMs() - cpu0;
    if (found->models.empty()) {
        std::fprintf(stderr, "no graph at %s: %s\n", argv[1], qPrintable(found->errors().join(QLatin1Char('\n'))));
        return 1;
    }
    size_t pick = 0;
    for (size_t i = 0; i < found->models.size(); ++i)
        if (found->models[i].nodeCount() > found->models[pick].nodeCount())
            pick = i;
    const GraphModel &model = found->models[pick];
    const Graph &g = *model.root();
    const NodeId start = isVisDbGraph(model) ? visDbStartNode(g) : NodeId{};
    out += num("index_ms", indexMs) + num("parse_ms", parseMs) + num("parse_cpu_ms", parseCpuMs) + num("nodes", double(g.nodes.size()), "%.0f")
         + num("edges", double(g.edges.size()), "%.0f") + num("scope_groups", double(g.groups.size()), "%.0f")
         + num("rss_after_parse_mb", double(statusKb("VmRSS:")) / 1024);
    // A node's rows read on demand (what the inspector and the tooltip do for a big database):
    // the last node, the farthest from where the reader started.
    if (!g.nodes.empty())
        if (const VisDbRowsKey key = visDbRowsKey(g, g.nodes.back()); key.isValid()) {
            QElapsedTimer rowsClock;
            rowsClock.start();
            const auto rows = readVisDbNodeRows(key);
            out += num("node_rows_ms", double(rowsClock.nsecsElapsed()) / 1e6, "%.2f")
                 + num("node_rows", rows ? double(rows->inputs.size() + rows->outputs.size()) : -1.0, "%.0f");
        }

    // 2. First view.
    GraphView view;
    view.resize(1400, 900);
    view.show();
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
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
    const double cpu1 = processCpuMs();
    tick.start();
    timer.start();
    view.setGraph(std::shared_ptr<const Graph>(found, &g), start);
    const double setGraphMs = double(t.nsecsElapsed()) / 1e6;
    if (!waitForLayout(view))
        return 1;
    const double readyMs = double(t.nsecsElapsed()) / 1e6;
    const double readyCpuMs = processCpuMs() - cpu1;
    const Frame first = paint(view, image);
    int names = 0;
    double smallest = 1e9;
    for (const PaintedLabel &l : view.paintedLabels())
        if (l.isName) {
            ++names;
            smallest = std::min(smallest, l.pointSize);
        }
    const GraphHierarchy &h = *view.hierarchy();
    out += num("first_view_setgraph_ms", setGraphMs) + num("first_view_ready_ms", readyMs) + num("first_view_ready_cpu_ms", readyCpuMs) + num("first_paint_ms", first.wall)
         + num("first_view_total_ms", parseMs + readyMs + first.wall) + num("first_view_gui_longest_gap_ms", longestGap)
         + num("first_view_boxes", double(view.currentLayout()->items.size()), "%.0f") + num("first_paint_labels", names, "%.0f")
         + num("first_paint_smallest_label_pt", names ? smallest : 0) + num("hierarchy_groups", double(h.groups.size()), "%.0f")
         + num("folds", h.foldCount(), "%.0f");

    // 3. Expand the groups with the most direct members, each with its ancestors.
    std::vector<GroupId> order;
    for (size_t i = 0; i < h.groups.size(); ++i)
        order.push_back(GroupId{int(i)});
    std::sort(order.begin(), order.end(), [&](GroupId a, GroupId b) { return h.group(a).memberCount > h.group(b).memberCount; });
    order.resize(std::min(order.size(), size_t(std::max(1, largest))));
    const GraphExpansion firstState = view.expansion();
    std::vector<double> expandMs, expandCpuMs;
    double worstExpand = 0;
    QString worstGroup;
    int worstMembers = 0, worstBoxes = 0;
    longestGap = 0;
    for (GroupId target : order) {
        std::vector<GroupId> chain = h.ancestors(target);
        std::reverse(chain.begin(), chain.end()); // outermost first
        chain.push_back(target);
        for (GroupId gr : chain) {
            if (view.isExpanded(gr))
                continue;
            QElapsedTimer e;
            e.start();
            const double c = processCpuMs();
            view.setExpanded(gr, true);
            waitForLayout(view);
            paint(view, image);
            const double ms = double(e.nsecsElapsed()) / 1e6;
            expandMs.push_back(ms);
            expandCpuMs.push_back(processCpuMs() - c);
            if (ms > worstExpand) {
                worstExpand = ms;
                worstGroup = h.group(gr).path;
                worstMembers = h.group(gr).memberCount;
                worstBoxes = int(view.currentLayout()->items.size());
            }
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it)
            if (!firstState.count(*it))
                view.setExpanded(*it, false);
        waitForLayout(view);
    }
    out += num("expand_count", double(expandMs.size()), "%.0f") + num("expand_median_ms", median(expandMs))
         + num("expand_worst_ms", worstExpand) + num("expand_cpu_worst_ms", worst(expandCpuMs)) + str("expand_worst_group", worstGroup)
         + num("expand_worst_members", worstMembers, "%.0f") + num("expand_worst_boxes", worstBoxes, "%.0f")
         + num("largest_group_members", h.group(order.front()).memberCount, "%.0f")
         + num("expand_gui_longest_gap_ms", longestGap);

    // 4. Frames with the largest group open.
    for (GroupId gr : h.ancestors(order.front()))
        view.setExpanded(gr, true);
    view.setExpanded(order.front(), true);
    waitForLayout(view);
    std::vector<double> fitWall, fitCpu, panWall, panCpu;
    view.fitToView();
    for (int i = 0; i < 30; ++i) {
        const Frame f = paint(view, image);
        fitWall.push_back(f.wall);
        fitCpu.push_back(f.cpu);
    }
    const int frameItem = view.currentLayout()->groupItem[order.front().index()];
    const QRectF frame = frameItem >= 0 ? view.currentLayout()->items[size_t(frameItem)].rect : view.currentLayout()->bounds;
    view.setZoom(1.0, QPointF(0, 0));
    for (int i = 0; i < 60; ++i) {
        view.centerOn(frame.topLeft() + QPointF(700 + 20.0 * i, 450 + 40.0 * i));
        const Frame f = paint(view, image);
        panWall.push_back(f.wall);
        panCpu.push_back(f.cpu);
    }
    out += num("frames_laid_out_boxes", double(view.currentLayout()->items.size()), "%.0f")
         + num("fitted_median_ms", median(fitWall), "%.2f") + num("fitted_worst_ms", worst(fitWall), "%.2f")
         + num("fitted_cpu_median_ms", median(fitCpu), "%.2f") + num("fitted_cpu_worst_ms", worst(fitCpu), "%.2f")
         + num("pan_1to1_median_ms", median(panWall), "%.2f") + num("pan_1to1_worst_ms", worst(panWall), "%.2f")
         + num("pan_1to1_cpu_median_ms", median(panCpu), "%.2f") + num("pan_1to1_cpu_worst_ms", worst(panCpu), "%.2f")
         + num("peak_rss_mb", double(statusKb("VmHWM:")) / 1024);
    out.resize(out.size() - 2);
    std::printf("%s}\n", out.c_str());
    std::fflush(stdout);
    std::_Exit(0); // freeing a million nodes is not part of any figure
}
