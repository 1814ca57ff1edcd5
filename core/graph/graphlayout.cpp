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
    std::vector<int> vlayer(layer);
    std::vector<double> vwidth(N);
    for (int v = 0; v < n; ++v)
        vwidth[size_t(v)] = items[size_t(c.children[size_t(v)])].rect.width();
    std::vector<std::vector<int>> vsucc(succ), vpred(pred);
    std::vector<std::vector<int>> chain(c.edges.size()); // dummies of each edge, top to bottom
    for (size_t e = 0; e < dag.size(); ++e) {
        const auto [u, v] = dag[e];
        if (layer[size_t(v)] - layer[size_t(u)] <= 1)
            continue;
        auto unlink = [](std::vector<int> &list, int x) { list.erase(std::find(list.begin(), list.end(), x)); };
        unlink(vsucc[size_t(u)], v);
        unlink(vpred[size_t(v)], u);
        int prev = u;
        for (int l = layer[size_t(u)] + 1; l < layer[size_t(v)]; ++l) {
            const int d = int(vlayer.size());
            vlayer.push_back(l);
            vwidth.push_back(6);
            vsucc.emplace_back();
            vpred.emplace_back(1, prev);
            vsucc[size_t(prev)].push_back(d);
            chain[e].push_back(d);
            prev = d;
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

    // 5. x: pack each row, then pull nodes toward their neighbours' centres without overlap.
    std::vector<double> x(nv); // left edge
    for (const auto &row : rows) {
        double at = 0;
        for (int v : row) {
            x[size_t(v)] = at;
            at += vwidth[size_t(v)] + o.nodeGap;
        }
    }
    auto centre = [&](int v) { return x[size_t(v)] + vwidth[size_t(v)] / 2; };
    auto place = [&](int l, const std::vector<std::vector<int>> &adj) {
        const auto &row = rows[size_t(l)];
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
        double prevRight = -1e300, shift = 0;
        for (size_t i = 0; i < row.size(); ++i) {
            const int v = row[i];
            x[size_t(v)] = std::max(want[i], prevRight);
            prevRight = x[size_t(v)] + vwidth[size_t(v)] + o.nodeGap;
            shift += x[size_t(v)] - want[i];
        }
        shift /= double(row.size()); // undo the rightward drift of the packing, keeps the gaps
        for (int v : row)
            x[size_t(v)] -= shift;
    };
    for (int s = 0; s < o.sweeps; ++s) {
        for (int l = 1; l < layers; ++l)
            place(l, vpred);
        for (int l = layers - 2; l >= 0; --l)
            place(l, vsucc);
    }
    double minX = 0, maxX = 0;
    if (nv) {
        minX = 1e300;
        maxX = -1e300;
        for (size_t v = 0; v < nv; ++v) {
            minX = std::min(minX, x[v]);
            maxX = std::max(maxX, x[v] + vwidth[v]);
        }
    }

    // 6. y: each layer as tall as its tallest box; boxes centred in it.
    std::vector<double> top(NL), height(NL, 0.0);
    for (int v = 0; v < n; ++v)
        height[size_t(layer[size_t(v)])] = std::max(height[size_t(layer[size_t(v)])], items[size_t(c.children[size_t(v)])].rect.height());
    double y = 0;
    for (int l = 0; l < layers; ++l) {
        top[size_t(l)] = y;
        y += height[size_t(l)] + o.layerGap;
    }
    for (int v = 0; v < n; ++v) {
        LayoutItem &it = items[size_t(c.children[size_t(v)])];
        const int l = layer[size_t(v)];
        it.layer = l;
        it.rect.moveTo(x[size_t(v)] - minX, top[size_t(l)] + (height[size_t(l)] - it.rect.height()) / 2);
    }
    c.size = QSizeF(maxX - minX, layers ? y - o.layerGap : 0);

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

int GraphLayout::visibleItemOf(const Graph &graph, NodeId node) const
{
    if (!node.isValid() || node.index() >= nodeItem.size())
        return -1;
    if (nodeItem[node.index()] >= 0)
        return nodeItem[node.index()];
    int found = -1;
    for (GroupId g = graph.node(node).group; g.isValid(); g = graph.group(g).parent)
        if (groupItem[g.index()] >= 0 && items[size_t(groupItem[g.index()])].kind == LayoutItem::Kind::Group)
            found = groupItem[g.index()];
    return found;
}

GraphLayoutEngine::GraphLayoutEngine(std::shared_ptr<const Graph> graph, GraphLayoutOptions options)
    : m_graph(std::move(graph)), m_options(options)
{
    m_groupSize.assign(m_graph->groups.size(), 0);
    for (const GraphNode &n : m_graph->nodes)
        for (GroupId g = n.group; g.isValid(); g = m_graph->group(g).parent)
            ++m_groupSize[g.index()];
}

std::vector<GroupId> GraphLayoutEngine::ancestors(NodeId node) const
{
    std::vector<GroupId> out;
    for (GroupId g = m_graph->node(node).group; g.isValid(); g = m_graph->group(g).parent)
        out.push_back(g);
    std::reverse(out.begin(), out.end());
    return out;
}

QString GraphLayoutEngine::nodeLabel(NodeId node) const
{
    const QString &name = m_graph->node(node).name;
    const qsizetype slash = name.lastIndexOf(QLatin1Char('/'));
    return slash >= 0 ? name.mid(slash + 1) : name;
}

QString GraphLayoutEngine::groupLabel(GroupId group) const
{
    return m_graph->group(group).label;
}

std::vector<int> GraphLayoutEngine::normalize(const GraphExpansion &expansion) const
{
    std::vector<int> out;
    for (GroupId g : expansion) {
        if (!g.isValid() || g.index() >= m_graph->groups.size())
            continue;
        bool shown = true;
        for (GroupId p = m_graph->group(g).parent; p.isValid() && shown; p = m_graph->group(p).parent)
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
    const GraphLayoutOptions &o = m_options;
    auto out = std::make_shared<GraphLayout>();
    GraphLayout &L = *out;
    L.expanded = expanded;
    L.nodeItem.assign(g.nodes.size(), -1);
    L.groupItem.assign(g.groups.size(), -1);
    std::vector<char> isExpanded(g.groups.size(), 0);
    for (int e : expanded)
        isExpanded[size_t(e)] = 1;

    auto textWidth = [&](qsizetype chars) {
        return std::clamp(double(chars) * o.charWidth + o.textPadding, o.minWidth, o.maxWidth);
    };
    // Items and containers, parents before children.
    std::vector<Container> containers(1);
    std::vector<int> containerOfGroup(g.groups.size(), -1);
    std::vector<int> itemContainer; // per item: its container index
    for (size_t ci = 0; ci < containers.size(); ++ci) {
        const int cg = containers[ci].group;
        const auto &childGroups = cg < 0 ? g.topGroups : g.groups[size_t(cg)].childGroups;
        const auto &childNodes = cg < 0 ? g.topNodes : g.groups[size_t(cg)].nodes;
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
                const QString label = g.group(sub).label;
                it.rect = QRectF(0, 0, textWidth(label.size() + 8), o.groupHeight);
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

    // The item hiding each group's contents (-1: the group is open and visible).
    std::vector<int> hidden(g.groups.size(), -1);
    for (size_t gi = 0; gi < g.groups.size(); ++gi) {
        const GroupId p = g.groups[gi].parent;
        if (p.isValid() && (hidden[p.index()] >= 0 || L.groupItem[p.index()] < 0))
            hidden[gi] = hidden[p.index()] >= 0 ? hidden[p.index()] : -1;
        else
            hidden[gi] = isExpanded[gi] ? -1 : L.groupItem[gi];
    }
    auto visibleOf = [&](NodeId n) {
        const GroupId grp = g.node(n).group;
        return grp.isValid() && hidden[grp.index()] >= 0 ? hidden[grp.index()] : L.nodeItem[n.index()];
    };

    // Lift the graph's edges to visible items, then to the children of their common container.
    std::unordered_map<std::uint64_t, int> visEdge;
    std::vector<std::unordered_map<std::uint64_t, int>> localEdge(containers.size());
    std::vector<std::pair<int, int>> routeOf; // per visible edge: (container, local edge)
    for (size_t e = 0; e < g.edges.size(); ++e) {
        const GraphEdge &ge = g.edges[e];
        const int a = visibleOf(ge.from), b = visibleOf(ge.to);
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
        if (c.frameItem >= 0) {
            const double w = std::max(c.size.width() + 2 * o.framePadding, textWidth(g.groups[size_t(c.group)].label.size() + 4));
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
