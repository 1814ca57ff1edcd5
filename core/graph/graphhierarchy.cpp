#include "graphhierarchy.h"

#include "util/parallel.h"

#include <QCoreApplication>
#include <QHash>
#include <algorithm>

namespace ds {

namespace {

/// From this many nodes the folds of the containers are found on all cores.
constexpr size_t kTwoThreadsFrom = 100000;

/// Splits every container of `h` with more than `pageSize` direct members into pages of
/// consecutive members (in call order: the smallest node below each member).
void paginate(GraphHierarchy &h, int pageSize)
{
    const size_t scopes = h.groups.size(); // pages appended below are never split again
    for (int c = -1; c < int(scopes); ++c) {
        auto &childGroups = c < 0 ? h.topGroups : h.groups[size_t(c)].childGroups;
        auto &childNodes = c < 0 ? h.topNodes : h.groups[size_t(c)].nodes;
        const size_t count = childGroups.size() + childNodes.size();
        if (count <= size_t(pageSize))
            continue;
        struct Item { int first; bool isGroup; int id; };
        std::vector<Item> items;
        items.reserve(count);
        for (GroupId g : childGroups)
            items.push_back({h.groups[g.index()].firstNode, true, g.value});
        for (NodeId n : childNodes)
            items.push_back({n.value, false, n.value});
        std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.first < b.first; });
        const QString containerPath = c < 0 ? QString() : h.groups[size_t(c)].path;
        std::vector<GroupId> pages;
        for (size_t from = 0; from < count; from += size_t(pageSize)) {
            const size_t to = std::min(count, from + size_t(pageSize));
            HierarchyGroup page;
            page.kind = GroupKind::Page;
            page.label = QCoreApplication::translate("GraphHierarchy", "calls %1\u2013%2 of %3").arg(from + 1).arg(to).arg(count);
            page.path = (containerPath.isEmpty() ? QString() : containerPath + QLatin1Char('/')) + page.label;
            page.parent = c < 0 ? GroupId{} : GroupId{c};
            page.firstNode = items[from].first;
            const GroupId id{int(h.groups.size())};
            for (size_t i = from; i < to; ++i) {
                if (items[i].isGroup) {
                    page.childGroups.push_back(GroupId{items[i].id});
                    h.groups[size_t(items[i].id)].parent = id;
                } else {
                    page.nodes.push_back(NodeId{items[i].id});
                    h.nodeGroup[size_t(items[i].id)] = id;
                }
            }
            std::sort(page.nodes.begin(), page.nodes.end());
            pages.push_back(id);
            h.groups.push_back(std::move(page));
        }
        // h.groups grew: take the container's lists again.
        (c < 0 ? h.topGroups : h.groups[size_t(c)].childGroups) = std::move(pages);
        (c < 0 ? h.topNodes : h.groups[size_t(c)].nodes).clear();
    }
}

bool isDigit(QChar c) { return c >= QLatin1Char('0') && c <= QLatin1Char('9'); }
bool isSeparator(QChar c) { return c == QLatin1Char('_') || c == QLatin1Char('.') || c == QLatin1Char('-'); }

/// The label of a node inside its scope ("a/b/Conv2D" -> "Conv2D").
QStringView nodeLabel(const QString &name)
{
    const qsizetype slash = name.lastIndexOf(QLatin1Char('/'));
    return slash >= 0 ? QStringView(name).mid(slash + 1) : QStringView(name);
}

/// foldPattern, appended to `out` (no allocation when `out` has room).
void appendFoldPattern(QStringView label, QString *out)
{
    qsizetype end = label.size();
    // Trailing numbers and their separators: "clean0_71" -> "clean", "forward.0" -> "forward".
    while (end > 0) {
        qsizetype e = end;
        while (e > 0 && isDigit(label[e - 1]))
            --e;
        if (e == end)
            break;
        if (e > 0 && isSeparator(label[e - 1]))
            --e;
        if (e == 0)
            break; // all digits: keep the label as it is
        end = e;
    }
    for (qsizetype i = 0; i < end; ++i) {
        if (isDigit(label[i])) {
            *out += QLatin1Char('#');
            while (i + 1 < end && isDigit(label[i + 1]))
                ++i;
        } else {
            *out += label[i];
        }
    }
    *out += QLatin1Char('*');
}

QStringView leadingWordView(QStringView label)
{
    qsizetype i = 0;
    while (i < label.size() && !isDigit(label[i]) && !isSeparator(label[i]) && label[i] != QLatin1Char('/'))
        ++i;
    return label.left(i);
}

/// Each member's bucket key of one fold pass, as an id, and the fold pattern of each id.
struct MemberKeys
{
    std::vector<int> keyOf;        ///< per member position; -1: in no bucket
    std::vector<QString> patterns; ///< per key id
};

/// One member of a container while folding: a scope group or a node.
struct Member
{
    bool isGroup = false;
    int id = -1;
    int first = -1; ///< graph order
    int fold = -1;  ///< fold it went into (-1: none)
};

} // namespace

QString foldPattern(const QString &label)
{
    QString out;
    out.reserve(label.size() + 1);
    appendFoldPattern(label, &out);
    return out;
}

QString leadingWord(const QString &label) { return leadingWordView(label).toString(); }

std::vector<GroupId> GraphHierarchy::ancestors(NodeId node) const
{
    std::vector<GroupId> out;
    if (!node.isValid() || node.index() >= nodeGroup.size())
        return out;
    for (GroupId g = nodeGroup[node.index()]; g.isValid(); g = groups[g.index()].parent)
        out.push_back(g);
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<GroupId> GraphHierarchy::ancestors(GroupId group) const
{
    std::vector<GroupId> out;
    if (!group.isValid() || group.index() >= groups.size())
        return out;
    for (GroupId g = groups[group.index()].parent; g.isValid(); g = groups[g.index()].parent)
        out.push_back(g);
    std::reverse(out.begin(), out.end());
    return out;
}

namespace {

/// The members of one container (a scope or the top level) and the graph's edges lifted to
/// them: the graph between siblings that folding must not turn cyclic.
struct ContainerGraph
{
    std::vector<Member> members;           ///< graph order
    std::vector<std::vector<int>> out, in; ///< member positions, deduplicated lazily (BFS tolerates repeats)
};

/// Whether the members `set` (positions, all unfolded) are parallel: no path leads from one
/// to another (`run`: a run of a call-order chain, no path from one to another leaves the
/// run, so its box draws no cycle). Members already folded count as their fold (`foldOf`,
/// `foldMembers`): the graph as it will be drawn.
bool isParallel(const ContainerGraph &cg, const std::vector<size_t> &set, bool run, const std::vector<int> &foldOf,
                const std::vector<std::vector<size_t>> &foldMembers)
{
    const size_t m = cg.members.size();
    std::vector<char> inSet(m, 0), seen(m, 0);
    for (size_t i : set)
        inSet[i] = 1;
    std::vector<int> stack;
    std::vector<char> foldSeen(foldMembers.size(), 0);
    auto push = [&](int w) {
        if (seen[size_t(w)])
            return;
        seen[size_t(w)] = 1;
        stack.push_back(w);
        if (const int f = foldOf[size_t(w)]; f >= 0 && !foldSeen[size_t(f)]) { // a fold is one box
            foldSeen[size_t(f)] = 1;
            for (size_t o : foldMembers[size_t(f)])
                if (!seen[o]) {
                    seen[o] = 1;
                    stack.push_back(int(o));
                }
        }
    };
    for (size_t i : set)
        for (int w : cg.out[i]) {
            if (inSet[size_t(w)]) {
                if (!run)
                    return false; // an edge between two members
                continue;
            }
            push(w);
        }
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        for (int w : cg.out[size_t(v)]) {
            if (inSet[size_t(w)])
                return false; // a path from a member to another, outside the set
            push(w);
        }
    }
    return true;
}

} // namespace

GraphHierarchy GraphHierarchy::build(const Graph &graph, const FoldOptions &options)
{
    GraphHierarchy h;
    h.scopeGroups = int(graph.groups.size());
    h.groups.reserve(graph.groups.size());
    for (const NameGroup &g : graph.groups) {
        HierarchyGroup hg;
        hg.label = g.label;
        hg.path = g.path;
        hg.parent = g.parent;
        hg.childGroups = g.childGroups;
        hg.nodes = g.nodes;
        h.groups.push_back(std::move(hg));
    }
    h.topGroups = graph.topGroups;
    h.topNodes = graph.topNodes;
    h.nodeGroup.resize(graph.nodes.size());
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        h.nodeGroup[n] = graph.nodes[n].group;

    // First node of every scope: a node's ancestors that already have one have a smaller one.
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        for (GroupId g = graph.nodes[n].group; g.isValid(); g = h.groups[g.index()].parent) {
            HierarchyGroup &hg = h.groups[g.index()];
            if (hg.firstNode >= 0)
                break;
            hg.firstNode = int(n);
        }

    if (options.enabled) {
        // Member graphs of all containers (index c + 1; 0 = top level), from the scope tree.
        const size_t nc = size_t(h.scopeGroups) + 1;
        std::vector<ContainerGraph> containers(nc);
        std::vector<int> posOfGroup(graph.groups.size(), -1), posOfNode(graph.nodes.size(), -1);
        for (size_t c = 0; c < nc; ++c) {
            const auto &childGroups = c == 0 ? graph.topGroups : graph.groups[c - 1].childGroups;
            const auto &childNodes = c == 0 ? graph.topNodes : graph.groups[c - 1].nodes;
            auto &members = containers[c].members;
            members.reserve(childGroups.size() + childNodes.size());
            for (GroupId g : childGroups)
                members.push_back({true, g.value, h.groups[g.index()].firstNode, -1});
            for (NodeId n : childNodes)
                members.push_back({false, n.value, n.value, -1});
            std::stable_sort(members.begin(), members.end(), [](const Member &a, const Member &b) { return a.first < b.first; });
            for (size_t i = 0; i < members.size(); ++i)
                (members[i].isGroup ? posOfGroup[size_t(members[i].id)] : posOfNode[size_t(members[i].id)]) = int(i);
            containers[c].out.resize(members.size());
            containers[c].in.resize(members.size());
        }
        auto containerOf = [&](bool isGroup, int id) {
            const GroupId p = isGroup ? graph.groups[size_t(id)].parent : graph.nodes[size_t(id)].group;
            return p.isValid() ? p.value : -1;
        };
        auto depthOf = [&](int container) { return container < 0 ? -1 : graph.groups[size_t(container)].depth; };
        for (const GraphEdge &e : graph.edges) {
            bool ga = false, gb = false;
            int a = e.from.value, b = e.to.value;
            int ca = containerOf(ga, a), cb = containerOf(gb, b);
            while (ca != cb) {
                if (depthOf(ca) >= depthOf(cb)) {
                    a = ca, ga = true, ca = containerOf(true, a);
                } else {
                    b = cb, gb = true, cb = containerOf(true, b);
                }
            }
            if (ga == gb && a == b)
                continue; // inside one member
            ContainerGraph &cg = containers[size_t(ca + 1)];
            const int pa = ga ? posOfGroup[size_t(a)] : posOfNode[size_t(a)];
            const int pb = gb ? posOfGroup[size_t(b)] : posOfNode[size_t(b)];
            cg.out[size_t(pa)].push_back(pb);
            cg.in[size_t(pb)].push_back(pa);
        }

        auto labelOf = [&](const Member &m) {
            return m.isGroup ? QStringView(h.groups[size_t(m.id)].label) : nodeLabel(graph.nodes[size_t(m.id)].name);
        };
        struct Fold
        {
            QString pattern;
            std::vector<size_t> members; ///< positions, graph order
        };
        // The folds of each container are found apart (they read the graph, the scope labels
        // and the container's own members only; a big graph's containers on two threads),
        // then made into groups in container order: the same groups as one pass would make.
        std::vector<std::vector<Fold>> foldsOf(nc);
        auto findFolds = [&](size_t c) {
            ContainerGraph &cg = containers[c];
            std::vector<Member> &members = cg.members;
            const size_t total = members.size();
            if (total < size_t(std::min({options.minPattern, options.minGroupPattern, options.minPrefix})))
                return;
            std::vector<Fold> &folds = foldsOf[c];
            std::vector<int> foldOf(total, -1);
            std::vector<std::vector<size_t>> foldMembers;
            std::vector<int> bucketOf(total, -1);     // this pass's bucket of each member
            std::vector<char> parallelBucket;          // per bucket of this pass
            // A crowd is tied to few others: at most max(4, n/4) distinct neighbours, where a
            // fold, or a parallel bucket of this pass, counts once (Variables feeding weight
            // transforms: one neighbour; weights each feeding its own operator: n).
            auto fewNeighbours = [&](const std::vector<size_t> &set) {
                std::vector<char> inSet(total, 0);
                for (size_t i : set)
                    inSet[i] = 1;
                std::vector<std::int64_t> keys;
                for (size_t i : set)
                    for (const auto *adj : {&cg.out[i], &cg.in[i]})
                        for (int w : *adj) {
                            if (inSet[size_t(w)])
                                continue;
                            const int f = foldOf[size_t(w)], b = bucketOf[size_t(w)];
                            keys.push_back(f >= 0 ? -std::int64_t(f) - 1
                                           : b >= 0 && parallelBucket[size_t(b)] ? std::int64_t(total) + b
                                                                                  : std::int64_t(w));
                        }
                std::sort(keys.begin(), keys.end());
                const size_t distinct = size_t(std::unique(keys.begin(), keys.end()) - keys.begin());
                return distinct <= std::max<size_t>(4, set.size() / 4);
            };
            auto tryFold = [&](std::vector<size_t> set, const QString &pattern, int minCount, bool parallelKnown) {
                if (int(set.size()) < minCount || (set.size() == total && int(total) < options.minWholeScope))
                    return false;
                if (!parallelKnown && !isParallel(cg, set, options.consecutiveOnly, foldOf, foldMembers))
                    return false;
                if (!options.consecutiveOnly && !fewNeighbours(set))
                    return false;
                for (size_t i : set)
                    members[i].fold = foldOf[i] = int(folds.size());
                foldMembers.push_back(set);
                folds.push_back({pattern, std::move(set)});
                return true;
            };
            // Buckets of one pass, key -> positions in graph order; each bucket (or each run,
            // with consecutiveOnly) is folded whole when it is a crowd, else its sources and
            // its sinks (parallel by nature) when they are.
            // A pass's keys (`keys`: each member's key id, -1 for none; `patterns`: per key id)
            // are made once per container; buckets are numbered in the order their first
            // member not yet folded comes.
            auto foldPass = [&](const MemberKeys &keys, auto minOf) {
                std::vector<int> bucketOfKey(keys.patterns.size(), -1);
                std::vector<std::vector<size_t>> buckets;
                std::vector<QString> patterns;
                std::fill(bucketOf.begin(), bucketOf.end(), -1);
                for (size_t i = 0; i < total; ++i) {
                    if (members[i].fold >= 0)
                        continue;
                    const int key = keys.keyOf[i];
                    if (key < 0)
                        continue;
                    int &bucket = bucketOfKey[size_t(key)];
                    if (bucket < 0) {
                        bucket = int(buckets.size());
                        buckets.emplace_back();
                        patterns.push_back(keys.patterns[size_t(key)]);
                    }
                    buckets[size_t(bucket)].push_back(i);
                    bucketOf[i] = bucket;
                }
                std::vector<std::vector<std::vector<size_t>>> runs(buckets.size());
                parallelBucket.assign(buckets.size(), 0);
                for (size_t b = 0; b < buckets.size(); ++b) {
                    if (int(buckets[b].size()) < minOf(members[buckets[b].front()]))
                        continue;
                    if (options.consecutiveOnly) {
                        for (size_t i : buckets[b]) {
                            if (runs[b].empty() || i != runs[b].back().back() + 1)
                                runs[b].emplace_back();
                            runs[b].back().push_back(i);
                        }
                    } else {
                        runs[b].push_back(buckets[b]);
                        parallelBucket[b] = isParallel(cg, buckets[b], false, foldOf, foldMembers);
                    }
                }
                for (size_t b = 0; b < buckets.size(); ++b) {
                    const int minCount = buckets[b].empty() ? 0 : minOf(members[buckets[b].front()]);
                    for (auto &run : runs[b]) {
                        if (int(run.size()) < minCount)
                            continue;
                        if (tryFold(run, patterns[b], minCount, parallelBucket[b] != 0) || options.consecutiveOnly)
                            continue;
                        std::vector<size_t> sources, sinks;
                        for (size_t i : run) {
                            if (cg.in[i].empty())
                                sources.push_back(i); // no path can enter them: parallel
                            else if (cg.out[i].empty())
                                sinks.push_back(i);   // no path can leave them: parallel
                        }
                        tryFold(std::move(sources), patterns[b], minCount, true);
                        tryFold(std::move(sinks), patterns[b], minCount, true);
                    }
                }
                std::fill(bucketOf.begin(), bucketOf.end(), -1);
            };
            // The keys of both passes, once per container (they do not change between rounds):
            // 1. the name pattern and the type (scopes fold with scopes), 2. the leading word
            // and whether it is a scope. Written into one reused buffer: no string per member.
            MemberKeys byPattern, byWord;
            byPattern.keyOf.resize(total);
            byWord.keyOf.resize(total);
            {
                QHash<QString, int> patternIds, wordIds;
                QString key;
                auto idOf = [](QHash<QString, int> &ids, MemberKeys &keys, const QString &key, qsizetype patternLength) {
                    auto it = ids.constFind(key);
                    if (it == ids.cend()) {
                        it = ids.insert(key, int(keys.patterns.size()));
                        keys.patterns.push_back(key.left(patternLength));
                    }
                    return *it;
                };
                for (size_t i = 0; i < total; ++i) {
                    const Member &m = members[i];
                    const QStringView label = labelOf(m);
                    key.resize(0);
                    appendFoldPattern(label, &key);
                    const qsizetype patternLength = key.size();
                    key += QLatin1Char('\n');
                    if (m.isGroup)
                        key += QLatin1Char('\x01'); // scopes fold with scopes
                    else
                        key += graph.nodes[size_t(m.id)].type;
                    byPattern.keyOf[i] = idOf(patternIds, byPattern, key, patternLength);
                    const QStringView word = leadingWordView(label);
                    if (word.isEmpty()) {
                        byWord.keyOf[i] = -1;
                        continue;
                    }
                    key.resize(0);
                    key += word;
                    key += QLatin1Char('*');
                    key += QLatin1Char('\n');
                    key += QLatin1Char(m.isGroup ? 'g' : 'n');
                    byWord.keyOf[i] = idOf(wordIds, byWord, key, word.size() + 1);
                }
            }
            // Folding a crowd can make its neighbours a crowd (Variables feeding folded
            // weight transforms): a few rounds until nothing changes.
            for (size_t round = 0, before = size_t(-1); round < 3 && before != folds.size(); ++round) {
                before = folds.size();
                foldPass(byPattern, [&](const Member &m) { return m.isGroup ? options.minGroupPattern : options.minPattern; });
                foldPass(byWord, [&](const Member &) { return options.minPrefix; });
            }
        };
        // Containers handed out in chunks (most are small); a small graph on this thread.
        parallelChunks(nc, 64, [&](size_t, size_t from, size_t to) {
            for (size_t c = from; c < to; ++c)
                findFolds(c);
            return true;
        }, graph.nodes.size() >= kTwoThreadsFrom ? workerCount() : 1);
        for (size_t c = 0; c < nc; ++c) {
            const std::vector<Fold> &folds = foldsOf[c];
            if (folds.empty())
                continue;
            const std::vector<Member> &members = containers[c].members;

            // The fold groups; the container keeps what was not folded, plus the folds.
            const int container = int(c) - 1;
            const QString containerPath = container < 0 ? QString() : h.groups[size_t(container)].path;
            QHash<QString, int> usedPaths;
            std::vector<GroupId> keptGroups;
            std::vector<NodeId> keptNodes;
            for (const Fold &f : folds) {
                HierarchyGroup fg;
                fg.kind = GroupKind::Fold;
                fg.label = f.pattern;
                QString path = (containerPath.isEmpty() ? QString() : containerPath + QLatin1Char('/')) + f.pattern;
                if (const int n = usedPaths[path]++; n > 0)
                    path += QStringLiteral("~%1").arg(n); // the same pattern folded twice (sources, sinks)
                fg.path = path;
                fg.parent = container < 0 ? GroupId{} : GroupId{container};
                const GroupId id{int(h.groups.size())};
                for (size_t i : f.members) {
                    const Member &m = members[i];
                    if (m.isGroup) {
                        fg.childGroups.push_back(GroupId{m.id});
                        h.groups[size_t(m.id)].parent = id;
                    } else {
                        fg.nodes.push_back(NodeId{m.id});
                        h.nodeGroup[size_t(m.id)] = id;
                    }
                }
                fg.firstNode = members[f.members.front()].first;
                keptGroups.push_back(id);
                h.groups.push_back(std::move(fg));
            }
            for (const Member &m : members)
                if (m.fold < 0) {
                    if (m.isGroup)
                        keptGroups.push_back(GroupId{m.id});
                    else
                        keptNodes.push_back(NodeId{m.id});
                }
            std::stable_sort(keptGroups.begin(), keptGroups.end(),
                             [&](GroupId a, GroupId b) { return h.groups[a.index()].firstNode < h.groups[b.index()].firstNode; });
            std::sort(keptNodes.begin(), keptNodes.end());
            (container < 0 ? h.topGroups : h.groups[size_t(container)].childGroups) = std::move(keptGroups);
            (container < 0 ? h.topNodes : h.groups[size_t(container)].nodes) = std::move(keptNodes);
        }
    }

    if (options.enabled && options.consecutiveOnly && options.pageSize > 0)
        paginate(h, options.pageSize);

    // Depths, member and node counts, common types (groups are not in parents-first order
    // any more: a fold has a larger id than the scopes in it).
    std::vector<char> done(h.groups.size(), 0);
    auto depthOf = [&](size_t g, auto &&self) -> int {
        if (done[g])
            return h.groups[g].depth;
        const GroupId p = h.groups[g].parent;
        h.groups[g].depth = p.isValid() ? self(p.index(), self) + 1 : 0;
        done[g] = 1;
        return h.groups[g].depth;
    };
    for (size_t g = 0; g < h.groups.size(); ++g) {
        depthOf(g, depthOf);
        h.groups[g].memberCount = int(h.groups[g].childGroups.size() + h.groups[g].nodes.size());
    }
    std::vector<char> mixed(h.groups.size(), 0);
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        for (GroupId g = h.nodeGroup[n]; g.isValid(); g = h.groups[g.index()].parent) {
            HierarchyGroup &hg = h.groups[g.index()];
            ++hg.nodeCount;
            if (hg.nodeCount == 1)
                hg.commonType = graph.nodes[n].type;
            else if (!mixed[g.index()] && hg.commonType != graph.nodes[n].type) {
                mixed[g.index()] = 1;
                hg.commonType.clear();
            }
        }
    return h;
}

} // namespace ds
