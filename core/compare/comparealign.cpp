// Structure-aware alignment of two op streams (issue 31 item 2; docs/COMPARE.md "Matching
// rules", rule 4): a patience diff over operator signatures, longest common subsequence
// between its anchors.

#include "comparealign.h"

#include "comparematch.h"

#include <QHash>
#include <algorithm>
#include <map>
#include <unordered_map>

namespace ds {

namespace {

bool isModuleEntry(const QString &name)
{
    return name.startsWith(QLatin1String("Module.")) || name.startsWith(QLatin1String("Cell."));
}

/// The signature text: the name without call counters and the kinds of its rows, in order.
/// Not the shapes: a call whose shape differs between the runs is a finding ("shape of NPU"),
/// it must still pair.
QString signature(const OpRecord &op)
{
    const QString name = opMatchKey(op);
    if (isModuleEntry(name))
        return name;
    QString s = fuzzyOpName(name);
    for (const int t : rowTensors(op)) {
        const TensorRecord &tr = op.tensors[size_t(t)];
        s += QLatin1Char(tr.io() == IoKind::Output ? '>' : '<');
    }
    return s;
}

using Pairs = std::vector<std::pair<int, int>>; // positions in a and b

constexpr long long kMaxLcsCells = 2000LL * 2000LL;

void lcs(const int *a, int n, const int *b, int m, int ao, int bo, Pairs &out)
{
    if (n == 0 || m == 0 || (long long)n * m > kMaxLcsCells)
        return;
    std::vector<std::uint16_t> t(size_t(n + 1) * size_t(m + 1), 0);
    auto at = [&](int i, int j) -> std::uint16_t & { return t[size_t(i) * size_t(m + 1) + size_t(j)]; };
    for (int i = n - 1; i >= 0; --i)
        for (int j = m - 1; j >= 0; --j)
            at(i, j) = a[i] == b[j] ? std::uint16_t(at(i + 1, j + 1) + 1) : std::max(at(i + 1, j), at(i, j + 1));
    int i = 0, j = 0;
    while (i < n && j < m) {
        if (a[i] == b[j]) {
            out.emplace_back(ao + i, bo + j);
            ++i;
            ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
}

/// Patience diff of a[0..n) against b[0..m); pairs appended in order, offsets ao/bo added.
void align(const int *a, int n, const int *b, int m, int ao, int bo, Pairs &out)
{
    int pre = 0;
    while (pre < n && pre < m && a[pre] == b[pre]) {
        out.emplace_back(ao + pre, bo + pre);
        ++pre;
    }
    a += pre, b += pre, n -= pre, m -= pre, ao += pre, bo += pre;
    int suf = 0;
    while (suf < n && suf < m && a[n - 1 - suf] == b[m - 1 - suf])
        ++suf;
    n -= suf, m -= suf;
    if (n > 0 && m > 0) {
        // signatures occurring once on each side, in a's order
        std::unordered_map<int, std::pair<int, int>> count; // sig -> (count in a, count in b)
        std::unordered_map<int, int> posB;
        for (int i = 0; i < n; ++i)
            ++count[a[i]].first;
        for (int j = 0; j < m; ++j) {
            auto it = count.find(b[j]);
            if (it != count.end() && ++it->second.second == 1)
                posB[b[j]] = j;
        }
        std::vector<std::pair<int, int>> unique;
        for (int i = 0; i < n; ++i) {
            const auto &c = count[a[i]];
            if (c.first == 1 && c.second == 1)
                unique.emplace_back(i, posB[a[i]]);
        }
        // longest increasing subsequence of their b positions (patience sorting)
        std::vector<int> tails, prev(unique.size(), -1), tailIdx;
        for (size_t k = 0; k < unique.size(); ++k) {
            const auto it = std::lower_bound(tails.begin(), tails.end(), unique[k].second);
            const size_t p = size_t(it - tails.begin());
            if (it == tails.end()) {
                tails.push_back(unique[k].second);
                tailIdx.push_back(int(k));
            } else {
                *it = unique[k].second;
                tailIdx[p] = int(k);
            }
            prev[k] = p > 0 ? tailIdx[p - 1] : -1;
        }
        if (tails.empty()) {
            lcs(a, n, b, m, ao, bo, out);
        } else {
            std::vector<std::pair<int, int>> anchors;
            for (int k = tailIdx.back(); k >= 0; k = prev[size_t(k)])
                anchors.push_back(unique[size_t(k)]);
            std::reverse(anchors.begin(), anchors.end());
            int i0 = 0, j0 = 0;
            for (const auto &[i, j] : anchors) {
                align(a + i0, i - i0, b + j0, j - j0, ao + i0, bo + j0, out);
                out.emplace_back(ao + i, bo + j);
                i0 = i + 1;
                j0 = j + 1;
            }
            align(a + i0, n - i0, b + j0, m - j0, ao + i0, bo + j0, out);
        }
    }
    for (int k = 0; k < suf; ++k)
        out.emplace_back(ao + n + k, bo + m + k);
}

} // namespace

OpAlignment alignOpStreams(const DumpIndex &npu, const DumpIndex &bench, const std::vector<int> &npuScope,
                           const std::vector<int> &benchScope)
{
    OpAlignment result;
    result.active = true;
    result.benchOf.assign(npu.ops.size(), -1);
    QHash<QString, int> sigIds;
    auto sig = [&](const OpRecord &op) {
        const QString text = signature(op);
        auto it = sigIds.constFind(text);
        if (it == sigIds.cend())
            it = sigIds.insert(text, int(sigIds.size()));
        return *it;
    };
    auto idOf = [&](const QString &s) {
        const auto it = sigIds.constFind(s);
        return it == sigIds.cend() ? int(sigIds.size()) : *it;
    };
    struct Stream
    {
        std::vector<int> ops, sigs;
    };
    std::map<int, std::pair<Stream, Stream>> scopes; // scope id -> (npu, bench)
    for (size_t o = 0; o < npu.ops.size(); ++o) {
        auto &s = scopes[npuScope[o]].first;
        s.ops.push_back(int(o));
        s.sigs.push_back(sig(npu.ops[o]));
    }
    for (size_t o = 0; o < bench.ops.size(); ++o) {
        auto &s = scopes[benchScope[o]].second;
        s.ops.push_back(int(o));
        const int id = idOf(signature(bench.ops[o]));
        s.sigs.push_back(id == int(sigIds.size()) ? -1 - int(o) : id); // unknown to the NPU side: never equal
    }
    for (const auto &[scope, streams] : scopes) {
        const auto &[a, b] = streams;
        Pairs pairs;
        align(a.sigs.data(), int(a.sigs.size()), b.sigs.data(), int(b.sigs.size()), 0, 0, pairs);
        pairs.emplace_back(int(a.ops.size()), int(b.ops.size())); // sentinel: the end of both streams
        int pi = 0, pj = 0;
        for (const auto &[i, j] : pairs) {
            if (i > pi || j > pj) {
                StructureRegion r;
                r.scope = scope;
                for (int k = pi; k < i; ++k)
                    r.npuOps.push_back(a.ops[size_t(k)]);
                for (int k = pj; k < j; ++k)
                    r.benchOps.push_back(b.ops[size_t(k)]);
                r.module = !r.npuOps.empty() ? npu.ops[size_t(r.npuOps.front())].parent
                                             : bench.ops[size_t(r.benchOps.front())].parent;
                result.regions.push_back(std::move(r));
            }
            if (i < int(a.ops.size()))
                result.benchOf[size_t(a.ops[size_t(i)])] = b.ops[size_t(j)];
            pi = i + 1;
            pj = j + 1;
        }
    }
    return result;
}

} // namespace ds
