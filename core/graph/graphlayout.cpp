#include "graphlayout.h"

#include <QSizeF>

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace ds {

namespace {

/// One level of the hierarchy laid out on its own: the children of an expanded group (or
/// the top level) with the edges lifted to them.
struct Container
{
    int group = -1;            ///< -1: top level
    int frameItem = -1;        ///< the ExpandedGroup item (-1 for the top level)
    std::vector<int> children; ///< item indices
    std::vector<std::pair<int, int>> edges; ///< local child positions (from, to), deduplicated
    std::vector<std::vector<QPointF>> routes; ///< per edge: interior points, content coordinates, drawn direction
    std::vector<char> reversed;
    QSizeF size;               ///< content size
    int wrapped = 0;           ///< layers split into rows
};

/// Sugiyama-style layout of one container. Fills positions (content coordinates, top-left),
/// layers, routes and reversed flags.
void layeredLayout(Container &c, std::vector<LayoutItem> &items, const GraphLayoutOptions &o)
{
    const int n = int(c.children.size());
    const size_t N = c.children.size();
    std::vector<std::vector<int>> out(N);
    for (size_t e = 0; e < c.edges.size(); ++e)
        out[size_t(c.edges[e].first)].push_back(int(e));

    // 1. Cycle breaking: edges to a node on the DFS stack are back edges and get reversed.
    c.reversed.assign(c.edges.size(), 0);
    {
        std::vector<char> state(N, 0); // 0 new, 1 on stack, 2 done
        std::vector<std::pair<int, size_t>> stack;
        for (int root = 0; root < n; ++root) {
            if (state[size_t(root)])
                continue;
            stack.emplace_back(root, 0);
            state[size_t(root)] = 1;
            while (!stack.empty()) {
                auto &[v, next] = stack.back();
                if (next < out[size_t(v)].size()) {
                    const int e = out[size_t(v)][next++];
                    const int w = c.edges[size_t(e)].second;
                    if (state[size_t(w)] == 1)
                        c.reversed[size_t(e)] = 1;
                    else if (state[size_t(w)] == 0) {
                        state[size_t(w)] = 1;
                        stack.emplace_back(w, 0);
                    }
                } else {
                    state[size_t(v)] = 2;
                    stack.pop_back();
                }
            }
        }
    }
    // The DAG: (u, v) in drawing direction.
    std::vector<std::pair<int, int>> dag(c.edges.size());
    std::vector<std::vector<int>> succ(N), pred(N);
    for (size_t e = 0; e < c.edges.size(); ++e) {
        auto [u, v] = c.edges[e];
        if (c.reversed[e])
            std::swap(u, v);
        dag[e] = {u, v};
        succ[size_t(u)].push_back(v);
        pred[size_t(v)].push_back(u);
    }

    // 2. Longest-path layering (Kahn order); sources then move down next to their consumers
    //    (constants and weights otherwise all sit in layer 0 with long edges).
    std::vector<int> layer(N, 0), indeg(N, 0), order;
    order.reserve(N);
    for (int v = 0; v < n; ++v)
        indeg[size_t(v)] = int(pred[size_t(v)].size());
    for (int v = 0; v < n; ++v)
        if (!indeg[size_t(v)])
            order.push_back(v);
    for (size_t i = 0; i < order.size(); ++i)
        for (int w : succ[size_t(order[i])]) {
            layer[size_t(w)] = std::max(layer[size_t(w)], layer[size_t(order[i])] + 1);
            if (--indeg[size_t(w)] == 0)
                order.push_back(w);
        }
    for (int v = 0; v < n; ++v)
        if (pred[size_t(v)].empty() && !succ[size_t(v)].empty()) {
            int lo = INT_MAX;
            for (int w : succ[size_t(v)])
                lo = std::min(lo, layer[size_t(w)]);
            layer[size_t(v)] = std::max(0, lo - 1);
        }
    const int layers = n ? *std::max_element(layer.begin(), layer.end()) + 1 : 0;

    // 3. Long edges get a dummy per crossed layer. Virtual nodes: [0, n) real, then dummies.
    //    The long edges of one producer share their dummies (a trunk that branches off at each
    //    consumer's layer): a box feeding many others far below draws one line, not a bus.
    std::vector<int> vlayer(layer);
    std::vector<double> vwidth(N);
    for (int v = 0; v < n; ++v)
        vwidth[size_t(v)] = items[size_t(c.children[size_t(v)])].rect.width();
    std::vector<std::vector<int>> vsucc(succ), vpred(pred);
    std::vector<std::vector<int>> chain(c.edges.size()); // dummies of each edge, top to bottom
    std::unordered_map<int, std::vector<int>> trunk;      // producer -> its dummies, one per layer below it
    for (size_t e = 0; e < dag.size(); ++e) {
        const auto [u, v] = dag[e];
        if (layer[size_t(v)] - layer[size_t(u)] <= 1)
            continue;
        auto unlink = [](std::vector<int> &list, int x) { list.erase(std::find(list.begin(), list.end(), x)); };
        unlink(vsucc[size_t(u)], v);
        unlink(vpred[size_t(v)], u);
        std::vector<int> &t = trunk[u];
        int prev = u;
        for (int l = layer[size_t(u)] + 1; l < layer[size_t(v)]; ++l) {
            const size_t k = size_t(l - layer[size_t(u)] - 1);
            if (k == t.size()) {
                const int d = int(vlayer.size());
                vlayer.push_back(l);
                vwidth.push_back(6);
                vsucc.emplace_back();
                vpred.emplace_back(1, prev);
                vsucc[size_t(prev)].push_back(d);
                t.push_back(d);
            }
            chain[e].push_back(t[k]);
            prev = t[k];
        }
        vsucc[size_t(prev)].push_back(v);
        vpred[size_t(v)].push_back(prev);
    }
    const size_t nv = vlayer.size();

    // 4. Crossing reduction: barycenter sweeps down and up.
    const size_t NL = size_t(layers);
    std::vector<std::vector<int>> rows(NL);
    for (size_t v = 0; v < nv; ++v)
        rows[size_t(vlayer[v])].push_back(int(v));
    std::vector<double> pos(nv);
    auto number = [&](const std::vector<int> &row) {
        for (size_t i = 0; i < row.size(); ++i)
            pos[size_t(row[i])] = double(i);
    };
    for (const auto &row : rows)
        number(row);
    auto sweep = [&](int l, const std::vector<std::vector<int>> &adj) {
        auto &row = rows[size_t(l)];
        std::vector<std::pair<double, int>> keyed;
        keyed.reserve(row.size());
        for (int v : row) {
            const auto &a = adj[size_t(v)];
            double b = pos[size_t(v)];
            if (!a.empty()) {
                b = 0;
                for (int w : a)
                    b += pos[size_t(w)];
                b /= double(a.size());
            }
            keyed.emplace_back(b, v);
        }
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
        for (size_t i = 0; i < row.size(); ++i)
            row[i] = keyed[i].second;
        number(row);
    };
    for (int s = 0; s < o.sweeps; ++s) {
        for (int l = 1; l < layers; ++l)
            sweep(l, vpred);
        for (int l = layers - 2; l >= 0; --l)
            sweep(l, vsucc);
    }

    // 5. Rows: a layer wider than maxRowWidth is split, in its crossing-reduced order, into
    //    rows of at most that width that keep their packed spacing (rigid) when pulled.
    std::vector<std::vector<int>> placeRows; // rows in layer order
    std::vector<int> rowLayer, rowOfV(nv, 0);
    std::vector<char> rigid;
    std::vector<int> subRowOf(nv, 0);
    int wrapped = 0;
    // Long edges that pass a layer side by side (a bus) are packed tighter than boxes.
    auto gap = [&](int u, int v) { return u >= n && v >= n ? o.dummyGap : o.nodeGap; };
    for (int l = 0; l < layers; ++l) {
        const auto &row = rows[size_t(l)];
        double width = 0;
        for (size_t i = 0; i < row.size(); ++i)
            width += vwidth[size_t(row[i])] + (i + 1 < row.size() ? gap(row[i], row[i + 1]) : o.nodeGap);
        if (o.maxRowWidth <= 0 || width - o.nodeGap <= o.maxRowWidth) {
            placeRows.push_back(row);
            rowLayer.push_back(l);
            rigid.push_back(0);
            continue;
        }
        ++wrapped;
        // Even rows: as many as needed, filled to about the same width.
        const int count = int(std::ceil((width - o.nodeGap) / o.maxRowWidth));
        const double target = (width - o.nodeGap) / count;
        std::vector<int> cur;
        double at = 0;
        int sub = 0;
        for (int v : row) {
            const double w = vwidth[size_t(v)];
            if (!cur.empty())
                at += gap(cur.back(), v);
            if (!cur.empty() && (at + w > o.maxRowWidth || (at + w / 2 > target && sub + 1 < count))) {
                placeRows.push_back(std::move(cur));
                rowLayer.push_back(l);
                rigid.push_back(1);
                cur.clear();
                at = 0;
                ++sub;
            }
            subRowOf[size_t(v)] = sub;
            cur.push_back(v);
            at += w;
        }
        placeRows.push_back(std::move(cur));
        rowLayer.push_back(l);
        rigid.push_back(1);
    }
    for (size_t r = 0; r < placeRows.size(); ++r)
        for (int v : placeRows[r])
            rowOfV[size_t(v)] = int(r);

    // 6. x: pack each row, then pull nodes toward their neighbours' centres without overlap.
    std::vector<double> x(nv), packed(nv); // left edge; offset inside a rigid row
    for (const auto &row : placeRows) {
        double at = 0;
        for (size_t i = 0; i < row.size(); ++i) {
            if (i > 0)
                at += gap(row[i - 1], row[i]);
            x[size_t(row[i])] = packed[size_t(row[i])] = at;
            at += vwidth[size_t(row[i])];
        }
    }
    auto centre = [&](int v) { return x[size_t(v)] + vwidth[size_t(v)] / 2; };
    auto place = [&](size_t r, const std::vector<std::vector<int>> &adj) {
        const auto &row = placeRows[r];
        if (row.empty())
            return;
        std::vector<double> want(row.size());
        for (size_t i = 0; i < row.size(); ++i) {
            const int v = row[i];
            const auto &a = adj[size_t(v)];
            double c = centre(v);
            if (!a.empty()) {
                c = 0;
                for (int w : a)
                    c += centre(w);
                c /= double(a.size());
            }
            want[i] = c - vwidth[size_t(v)] / 2;
        }
        if (rigid[r]) { // the whole row moves to the mean wish: its width stays bounded
            double shift = 0;
            for (size_t i = 0; i < row.size(); ++i)
                shift += want[i] - packed[size_t(row[i])];
            shift /= double(row.size());
            for (int v : row)
                x[size_t(v)] = packed[size_t(v)] + shift;
            return;
        }
        double prevRight = -1e300, shift = 0;
        for (size_t i = 0; i < row.size(); ++i) {
            const int v = row[i];
            x[size_t(v)] = std::max(want[i], i > 0 ? prevRight + gap(row[i - 1], v) : prevRight);
            prevRight = x[size_t(v)] + vwidth[size_t(v)];
            shift += x[size_t(v)] - want[i];
        }
        shift /= double(row.size()); // undo the rightward drift of the packing, keeps the gaps
        for (int v : row)
            x[size_t(v)] -= shift;
    };
    for (int s = 0; s < o.sweeps; ++s) {
        for (size_t r = 0; r < placeRows.size(); ++r)
            if (rowLayer[r] > 0)
                place(r, vpred);
        for (size_t r = placeRows.size(); r-- > 0;)
            if (rowLayer[r] < layers - 1)
                place(r, vsucc);
    }
    auto extent = [&](double &lo, double &hi) {
        lo = 0, hi = 0;
        if (!nv)
            return;
        lo = 1e300, hi = -1e300;
        for (size_t v = 0; v < nv; ++v) {
            lo = std::min(lo, x[v]);
            hi = std::max(hi, x[v] + vwidth[v]);
        }
    };
    double minX = 0, maxX = 0;
    extent(minX, maxX);
    // A content wider than maxRowWidth (rows pulled apart by their neighbours): every row
    // packed again where it spreads too far, then all moved into one window of that width.
    if (o.maxRowWidth > 0 && maxX - minX > o.maxRowWidth) {
        double window = o.maxRowWidth, weighted = 0, count = 0;
        std::vector<double> lo(placeRows.size()), hi(placeRows.size());
        for (size_t r = 0; r < placeRows.size(); ++r) {
            const auto &row = placeRows[r];
            if (row.empty())
                continue;
            lo[r] = x[size_t(row.front())];
            hi[r] = x[size_t(row.back())] + vwidth[size_t(row.back())];
            const double packedWidth = packed[size_t(row.back())] + vwidth[size_t(row.back())];
            if (hi[r] - lo[r] > o.maxRowWidth) {
                const double start = (lo[r] + hi[r] - packedWidth) / 2;
                for (int v : row)
                    x[size_t(v)] = start + packed[size_t(v)];
                lo[r] = start;
                hi[r] = start + packedWidth;
            }
            window = std::max(window, hi[r] - lo[r]); // a single box wider than the window
            weighted += (lo[r] + hi[r]) / 2 * double(row.size());
            count += double(row.size());
        }
        const double left = weighted / std::max(count, 1.0) - window / 2;
        for (size_t r = 0; r < placeRows.size(); ++r) {
            if (placeRows[r].empty())
                continue;
            const double shift = std::clamp(lo[r], left, left + window - (hi[r] - lo[r])) - lo[r];
            for (int v : placeRows[r])
                x[size_t(v)] += shift;
        }
        extent(minX, maxX);
    }

    // 7. y: each row as tall as its tallest box, the rows of a layer stacked; boxes centred.
    std::vector<double> rowTop(placeRows.size()), rowHeight(placeRows.size(), 0.0);
    for (int v = 0; v < n; ++v) {
        double &h = rowHeight[size_t(rowOfV[size_t(v)])];
        h = std::max(h, items[size_t(c.children[size_t(v)])].rect.height());
    }
    std::vector<double> top(NL), height(NL, 0.0);
    double y = 0;
    for (size_t r = 0; r < placeRows.size(); ++r) {
        const size_t l = size_t(rowLayer[r]);
        const bool firstOfLayer = r == 0 || rowLayer[r - 1] != rowLayer[r];
        if (firstOfLayer) {
            if (r > 0)
                y += o.layerGap;
            top[l] = y;
        } else {
            y += o.rowGap;
        }
        rowTop[r] = y;
        y += rowHeight[r];
        height[l] = y - top[l];
    }
    for (int v = 0; v < n; ++v) {
        LayoutItem &it = items[size_t(c.children[size_t(v)])];
        const size_t r = size_t(rowOfV[size_t(v)]);
        it.layer = layer[size_t(v)];
        it.row = subRowOf[size_t(v)];
        // Boxes centred in their row, open groups at its top (side by side, they start level);
        // whole pixels, rounded inward: a box never pokes out of its container by a rounding error.
        const double dy = it.kind == LayoutItem::Kind::ExpandedGroup ? 0 : (rowHeight[r] - it.rect.height()) / 2;
        it.rect.moveTo(std::floor(x[size_t(v)] - minX), std::floor(rowTop[r] + dy));
    }
    c.size = QSizeF(std::ceil(maxX - minX), layers ? std::ceil(y) : 0);
    c.wrapped = wrapped;

    // Routes: a long edge passes each crossed layer vertically at its dummy's x.
    c.routes.assign(c.edges.size(), {});
    for (size_t e = 0; e < c.edges.size(); ++e) {
        auto &r = c.routes[e];
        for (int d : chain[e]) {
            const double cx = centre(d) - minX;
            const int l = vlayer[size_t(d)];
            r.emplace_back(cx, top[size_t(l)]);
            r.emplace_back(cx, top[size_t(l)] + height[size_t(l)]);
        }
    }
}

} // namespace

GraphLayoutEngine::GraphLayoutEngine(std::shared_ptr<const Graph> graph, GraphLayoutOptions options, FoldOptions folds)
    : m_graph(std::move(graph)), m_options(options), m_hierarchy(GraphHierarchy::build(*m_graph, folds))
{
}

std::vector<GroupId> GraphLayoutEngine::ancestors(NodeId node) const
{
    return m_hierarchy.ancestors(node);
}

QString GraphLayoutEngine::nodeLabel(NodeId node) const
{
    const QString &name = m_graph->node(node).name;
    const qsizetype slash = name.lastIndexOf(QLatin1Char('/'));
    return slash >= 0 ? name.mid(slash + 1) : name;
}

QString GraphLayoutEngine::groupLabel(GroupId group) const
{
    return m_hierarchy.group(group).label;
}

std::vector<int> GraphLayoutEngine::normalize(const GraphExpansion &expansion) const
{
    std::vector<int> out;
    for (GroupId g : expansion) {
        if (!g.isValid() || g.index() >= m_hierarchy.groups.size())
            continue;
        bool shown = true;
        for (GroupId p = m_hierarchy.group(g).parent; p.isValid() && shown; p = m_hierarchy.group(p).parent)
            shown = expansion.count(p) > 0;
        if (shown)
            out.push_back(g.value);
    }
    return out; // std::set iterates in order: already sorted
}

std::shared_ptr<const GraphLayout> GraphLayoutEngine::cached(const GraphExpansion &expansion) const
{
    const auto key = normalize(expansion);
    std::lock_guard lock(m_mutex);
    const auto it = m_cache.find(key);
    return it == m_cache.end() ? nullptr : it->second;
}

std::shared_ptr<const GraphLayout> GraphLayoutEngine::layout(const GraphExpansion &expansion) const
{
    const auto key = normalize(expansion);
    {
        std::lock_guard lock(m_mutex);
        if (const auto it = m_cache.find(key); it != m_cache.end()) {
            ++m_hits;
            return it->second;
        }
    }
    std::shared_ptr<const GraphLayout> result = compute(key); // outside the lock: may take long
    std::lock_guard lock(m_mutex);
    return m_cache.emplace(key, std::move(result)).first->second; // a racing twin wins: same data
}

int GraphLayoutEngine::cacheSize() const
{
    std::lock_guard lock(m_mutex);
    return int(m_cache.size());
}

int GraphLayoutEngine::cacheHits() const
{
    std::lock_guard lock(m_mutex);
    return m_hits;
}

void GraphLayoutEngine::clearCache()
{
    std::lock_guard lock(m_mutex);
    m_cache.clear();
}

std::shared_ptr<GraphLayout> GraphLayoutEngine::compute(const std::vector<int> &expanded) const
{
    const Graph &g = *m_graph;
    const GraphHierarchy &H = m_hierarchy;
    const GraphLayoutOptions &o = m_options;
    auto out = std::make_shared<GraphLayout>();
    GraphLayout &L = *out;
    L.expanded = expanded;
    L.nodeItem.assign(g.nodes.size(), -1);
    L.groupItem.assign(H.groups.size(), -1);
    std::vector<char> isExpanded(H.groups.size(), 0);
    for (int e : expanded)
        isExpanded[size_t(e)] = 1;

    auto textWidth = [&](qsizetype chars) {
        return std::clamp(double(chars) * o.charWidth + o.textPadding, o.minWidth, o.maxWidth);
    };
    // Items and containers, parents before children.
    std::vector<Container> containers(1);
    std::vector<int> containerOfGroup(H.groups.size(), -1);
    std::vector<int> itemContainer; // per item: its container index
    for (size_t ci = 0; ci < containers.size(); ++ci) {
        const int cg = containers[ci].group;
        const auto &childGroups = cg < 0 ? H.topGroups : H.groups[size_t(cg)].childGroups;
        const auto &childNodes = cg < 0 ? H.topNodes : H.groups[size_t(cg)].nodes;
        const GroupId container = cg < 0 ? GroupId{} : GroupId{cg};
        for (GroupId sub : childGroups) {
            LayoutItem it;
            it.id = sub.value;
            it.container = container;
            const int idx = int(L.items.size());
            L.groupItem[sub.index()] = idx;
            if (isExpanded[sub.index()]) {
                it.kind = LayoutItem::Kind::ExpandedGroup;
                Container child;
                child.group = sub.value;
                child.frameItem = idx;
                containerOfGroup[sub.index()] = int(containers.size());
                containers.push_back(std::move(child));
            } else {
                it.kind = LayoutItem::Kind::Group;
                const HierarchyGroup &hg = H.group(sub);
                // Label line ("▸ label") and count line ("120 × AtomicAddrClean", "12 ops").
                const qsizetype countChars = hg.kind == GroupKind::Fold && !hg.commonType.isEmpty() ? hg.commonType.size() + 9 : 10;
                it.rect = QRectF(0, 0, textWidth(std::max(hg.label.size() + 2, countChars)), o.groupHeight);
            }
            L.items.push_back(it);
            itemContainer.push_back(int(ci));
            containers[ci].children.push_back(idx);
        }
        for (NodeId nid : childNodes) {
            const GraphNode &node = g.node(nid);
            LayoutItem it;
            it.kind = LayoutItem::Kind::Node;
            it.id = nid.value;
            it.container = container;
            const qsizetype slash = node.name.lastIndexOf(QLatin1Char('/'));
            it.rect = QRectF(0, 0, textWidth(std::max(node.name.size() - slash - 1, node.type.size())), o.nodeHeight);
            const int idx = int(L.items.size());
            L.nodeItem[nid.index()] = idx;
            L.items.push_back(it);
            itemContainer.push_back(int(ci));
            containers[ci].children.push_back(idx);
        }
    }
    // Local position of each item in its container.
    std::vector<int> local(L.items.size());
    for (const Container &c : containers)
        for (size_t i = 0; i < c.children.size(); ++i)
            local[size_t(c.children[i])] = int(i);
    std::vector<int> itemDepth(L.items.size(), 0);
    for (size_t i = 0; i < L.items.size(); ++i) {
        const int frame = containers[size_t(itemContainer[i])].frameItem;
        itemDepth[i] = frame < 0 ? 0 : itemDepth[size_t(frame)] + 1; // frames come before their children
    }

    // The item hiding each group's contents (-1: the group is open and visible). A group
    // that is not shown lies in a collapsed ancestor, whose box hides it.
    std::vector<int> hidden(H.groups.size(), -2); // -2: not computed yet
    auto hiddenOf = [&](GroupId grp, auto &&self) -> int {
        int &h = hidden[grp.index()];
        if (h != -2)
            return h;
        if (L.groupItem[grp.index()] >= 0)
            h = isExpanded[grp.index()] ? -1 : L.groupItem[grp.index()];
        else
            h = self(H.group(grp).parent, self); // top-level groups are always shown
        return h;
    };
    auto visibleOf = [&](NodeId n) {
        const GroupId grp = H.nodeGroup[n.index()];
        const int h = grp.isValid() ? hiddenOf(grp, hiddenOf) : -1;
        return h >= 0 ? h : L.nodeItem[n.index()];
    };
    L.nodeShownIn.resize(g.nodes.size());
    for (size_t n = 0; n < g.nodes.size(); ++n)
        L.nodeShownIn[n] = visibleOf(NodeId{int(n)});
    // An open fold speaks for its members towards the rest of the graph: their edges to
    // outside leave (or enter) its frame, one per neighbour - not a fan of one line per
    // member (a crowd of 5,000 atomic_addr_clean nodes would draw 5,000 lines).
    std::vector<int> foldFrame(g.nodes.size(), -1); // the outermost open fold's frame holding the node
    for (size_t n = 0; n < g.nodes.size(); ++n)
        for (GroupId grp = H.nodeGroup[n]; grp.isValid(); grp = H.group(grp).parent)
            if (H.group(grp).kind == GroupKind::Fold && isExpanded[grp.index()] && L.groupItem[grp.index()] >= 0)
                foldFrame[n] = L.groupItem[grp.index()];

    // Lift the graph's edges to visible items, then to the children of their common container.
    std::unordered_map<std::uint64_t, int> visEdge;
    std::vector<std::unordered_map<std::uint64_t, int>> localEdge(containers.size());
    std::vector<std::pair<int, int>> routeOf; // per visible edge: (container, local edge)
    for (size_t e = 0; e < g.edges.size(); ++e) {
        const GraphEdge &ge = g.edges[e];
        int a = L.nodeShownIn[ge.from.index()], b = L.nodeShownIn[ge.to.index()];
        const int fa = foldFrame[ge.from.index()], fb = foldFrame[ge.to.index()];
        if (fa != fb) { // leaving or entering an open fold: from / to its frame
            a = fa >= 0 ? fa : a;
            b = fb >= 0 ? fb : b;
        }
        if (a < 0 || b < 0 || a == b)
            continue;
        const std::uint64_t key = (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
        auto [it, fresh] = visEdge.try_emplace(key, int(L.edges.size()));
        if (!fresh) {
            LayoutEdge &le = L.edges[size_t(it->second)];
            ++le.count;
            if (le.control && !ge.isControl())
                le.graphEdge = int(e); // a data edge describes the tensor
            le.control = le.control && ge.isControl();
            continue;
        }
        LayoutEdge le;
        le.from = a;
        le.to = b;
        le.graphEdge = int(e);
        le.count = 1;
        le.control = ge.isControl();
        L.edges.push_back(le);
        int x = a, y = b;
        auto up = [&](int item) { return containers[size_t(itemContainer[size_t(item)])].frameItem; };
        while (itemDepth[size_t(x)] > itemDepth[size_t(y)])
            x = up(x);
        while (itemDepth[size_t(y)] > itemDepth[size_t(x)])
            y = up(y);
        while (itemContainer[size_t(x)] != itemContainer[size_t(y)]) {
            x = up(x);
            y = up(y);
        }
        const int ci = itemContainer[size_t(x)];
        const std::uint64_t lkey = (std::uint64_t(std::uint32_t(local[size_t(x)])) << 32) | std::uint32_t(local[size_t(y)]);
        auto [lit, lfresh] = localEdge[size_t(ci)].try_emplace(lkey, int(containers[size_t(ci)].edges.size()));
        if (lfresh)
            containers[size_t(ci)].edges.emplace_back(local[size_t(x)], local[size_t(y)]);
        routeOf.emplace_back(ci, lit->second);
    }

    // Lay out the innermost containers first: a frame's size is its content plus padding.
    for (size_t ci = containers.size(); ci-- > 0;) {
        Container &c = containers[ci];
        layeredLayout(c, L.items, o);
        L.wrappedLayers += c.wrapped;
        if (c.frameItem >= 0) {
            const double w = std::max(c.size.width() + 2 * o.framePadding, textWidth(H.groups[size_t(c.group)].label.size() + 12));
            L.items[size_t(c.frameItem)].rect = QRectF(0, 0, w, c.size.height() + o.frameHeader + 2 * o.framePadding);
        }
    }
    // Absolute positions, outermost first (containers are ordered parents first).
    std::vector<QPointF> origin(containers.size());
    for (size_t ci = 0; ci < containers.size(); ++ci) {
        const Container &c = containers[ci];
        if (c.frameItem >= 0) {
            const QRectF &f = L.items[size_t(c.frameItem)].rect;
            const double contentW = c.size.width();
            origin[ci] = f.topLeft() + QPointF((f.width() - contentW) / 2, o.frameHeader + o.framePadding);
        }
        for (int item : c.children)
            L.items[size_t(item)].rect.translate(origin[ci]);
    }
    // Polylines: leave the producer at its bottom, follow the container route, enter the consumer at its top.
    for (size_t e = 0; e < L.edges.size(); ++e) {
        LayoutEdge &le = L.edges[e];
        const auto [ci, li] = routeOf[e];
        const Container &c = containers[size_t(ci)];
        le.reversed = c.reversed[size_t(li)] != 0;
        const QRectF &a = L.items[size_t(le.from)].rect, &b = L.items[size_t(le.to)].rect;
        std::vector<QPointF> mid;
        for (const QPointF &p : c.routes[size_t(li)])
            mid.push_back(p + origin[size_t(ci)]);
        if (le.reversed) {
            std::reverse(mid.begin(), mid.end());
            le.points.emplace_back(a.center().x(), a.top());
            le.points.insert(le.points.end(), mid.begin(), mid.end());
            le.points.emplace_back(b.center().x(), b.bottom());
        } else {
            le.points.emplace_back(a.center().x(), a.bottom());
            le.points.insert(le.points.end(), mid.begin(), mid.end());
            le.points.emplace_back(b.center().x(), b.top());
        }
    }
    L.bounds = QRectF(QPointF(0, 0), containers.front().size);
    return out;
}

} // namespace ds

QDebug operator<<(QDebug dbg, const ds::LayoutItem &item)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "LayoutItem(" << int(item.kind) << ' ' << item.id << " layer " << item.layer << ' ' << item.rect << ')';
    return dbg;
}
