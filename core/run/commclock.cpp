#include "commclock.h"

#include "dump/dumpindex.h"
#include "formats/readers.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

namespace ds {

namespace {

/// The framework prefixes of communication APIs (msprobe Const.DISTRIBUTED,
/// MINT_DIST_API_TYPE_PREFIX; MindSpore's communication ops).
const char *const kPrefixes[] = {"Distributed.", "MintDistributed.", "Communication."};

/// API words of communication ops. msprobe's COMMUNICATION_KEYWORDS match as substrings of the
/// entry name (send, recv, broadcast, all_reduce, reduce, all_gather, gather, scatter,
/// reduce_scatter, all_to_all, ...); barrier is a synchronisation point too.
const char *const kKeywords[] = {"send", "recv", "broadcast", "reduce", "gather", "scatter", "all_to_all", "barrier"};

QString entryName(const OpRecord &op)
{
    return op.relPath.mid(op.relPath.lastIndexOf(QLatin1Char('/')) + 1);
}

/// The API of a framework communication entry ("all_reduce"), or empty.
QString frameworkApi(const QString &name)
{
    for (const char *p : kPrefixes) {
        const QLatin1String prefix(p);
        if (!name.startsWith(prefix))
            continue;
        const QString api = name.mid(prefix.size()).section(QLatin1Char('.'), 0, 0);
        for (const char *k : kKeywords)
            if (api.contains(QLatin1String(k)))
                return api;
        return {};
    }
    return {};
}

bool isCannComm(const OpRecord &op)
{
    return op.opType.startsWith(QLatin1String("Hcom"), Qt::CaseInsensitive)
           || op.opType.startsWith(QLatin1String("Hccl"), Qt::CaseInsensitive);
}

QList<qint64> parseRanks(const QString &text)
{
    static const QRegularExpression groupRanks(QStringLiteral("group_ranks\"?\\s*[:=]\\s*\\[([^\\]]*)\\]"));
    static const QRegularExpression anyList(QStringLiteral("\\[([0-9,\\s]*)\\]"));
    auto m = groupRanks.match(text);
    if (!m.hasMatch())
        m = anyList.match(text);
    QList<qint64> ranks;
    if (!m.hasMatch())
        return ranks;
    for (const QString &part : m.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 r = part.trimmed().toLongLong(&ok);
        if (ok)
            ranks << r;
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

bool intValue(const TensorRecord &t, qint64 &out)
{
    if (t.isTensor() || (t.typeName() != QLatin1String("int") && !t.typeName().isEmpty()))
        return false;
    bool ok = false;
    out = t.value().trimmed().toLongLong(&ok);
    return ok;
}

CommOp makeCommOp(const OpRecord &op, int position)
{
    CommOp c;
    c.position = position;
    const bool files = formatReader(op.source).opsAreFiles();
    c.name = files ? (op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName()) : entryName(op);
    c.api = files ? op.opType.toString() : frameworkApi(c.name);
    if (files)
        return c; // CANN records carry no group or peer
    qint64 kwPeer = -1, groupPeer = -1, argPeer = -1;
    for (const TensorRecord &t : op.tensors) {
        if (t.io() != IoKind::Input)
            continue;
        if (t.typeName() == QLatin1String("torch.ProcessGroup")) {
            if (c.group.isEmpty())
                c.group = parseRanks(t.value());
            continue;
        }
        qint64 v = -1;
        if (!intValue(t, v))
            continue;
        const QString key = t.name().section(QLatin1Char('.'), -1);
        if (key == QLatin1String("dst") || key == QLatin1String("src") || key == QLatin1String("peer"))
            kwPeer = v;
        else if (key == QLatin1String("group_dst") || key == QLatin1String("group_src"))
            groupPeer = v;
        else if (t.name() == QLatin1String("input_args.1") || t.name() == QLatin1String("input.1"))
            argPeer = v;
    }
    if (p2pRole(c.api) != P2PRole::None) {
        if (kwPeer >= 0)
            c.peer = kwPeer;
        else if (groupPeer >= 0)
            c.peer = groupPeer < c.group.size() ? c.group[groupPeer] : groupPeer; // group-local rank
        else
            c.peer = argPeer;
    }
    return c;
}

} // namespace

bool isClockOp(const OpRecord &op)
{
    if (formatReader(op.source).opsAreFiles())
        return isCannComm(op);
    // Most entries are not communication ones: ruled out on the path's bytes, without making
    // the entry name a QString (entryName's last part, '/' being ASCII).
    const std::string_view path = op.relPath.utf8();
    const std::string_view entry = path.substr(path.rfind('/') + 1); // npos + 1 == 0: the whole path
    if (std::none_of(std::begin(kPrefixes), std::end(kPrefixes), [&](const char *p) { return entry.starts_with(p); }))
        return false;
    return !frameworkApi(entryName(op)).isEmpty();
}

P2PRole p2pRole(const QString &api)
{
    const QString a = api.toLower();
    if (a == QLatin1String("send") || a == QLatin1String("isend") || a == QLatin1String("send_object_list")
        || a == QLatin1String("hcomsend"))
        return P2PRole::Send;
    if (a == QLatin1String("recv") || a == QLatin1String("irecv") || a == QLatin1String("recv_object_list")
        || a == QLatin1String("hcomreceive") || a == QLatin1String("hcomrecv"))
        return P2PRole::Recv;
    return P2PRole::None;
}

std::vector<CommOp> communicationOps(const DumpIndex &index, const std::vector<int> &ops)
{
    std::vector<CommOp> out;
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpRecord &op = index.ops[size_t(ops[i])];
        if (isClockOp(op))
            out.push_back(makeCommOp(op, int(i)));
    }
    return out;
}

QJsonObject CommOp::toJson() const
{
    QJsonArray g;
    for (qint64 r : group)
        g.append(r);
    QJsonObject o{{QStringLiteral("name"), name}, {QStringLiteral("api"), api}, {QStringLiteral("position"), position}};
    if (!group.isEmpty())
        o.insert(QStringLiteral("group"), g);
    if (peer >= 0)
        o.insert(QStringLiteral("peer"), peer);
    return o;
}

std::optional<CommOp> CommOp::fromJson(const QJsonObject &o)
{
    if (!o.value(QStringLiteral("name")).isString() || !o.value(QStringLiteral("position")).isDouble())
        return std::nullopt;
    CommOp c;
    c.name = o.value(QStringLiteral("name")).toString();
    c.api = o.value(QStringLiteral("api")).toString();
    c.position = o.value(QStringLiteral("position")).toInt(-1);
    c.peer = o.value(QStringLiteral("peer")).toInteger(-1);
    for (const QJsonValue &v : o.value(QStringLiteral("group")).toArray())
        c.group << v.toInteger();
    return c;
}

QString ClockPosition::describe() const
{
    if (commCount == 0)
        return QCoreApplication::translate("CommClock", "no communication op in the step");
    if (commIndex < 0)
        return QCoreApplication::translate("CommClock", "after the last communication op (#%1 %2)").arg(commCount - 1).arg(commOp);
    return (phase == 1 ? QCoreApplication::translate("CommClock", "at communication op #%1 (%2)") : QCoreApplication::translate("CommClock", "before communication op #%1 (%2)")).arg(commIndex).arg(commOp);
}

QJsonObject ClockPosition::toJson() const
{
    const QString relation = commCount == 0 ? QStringLiteral("none")
                             : commIndex < 0 ? QStringLiteral("after")
                             : phase == 1    ? QStringLiteral("at")
                                             : QStringLiteral("before");
    QJsonObject o{{QStringLiteral("layer"), layer}, {QStringLiteral("relation"), relation},
                  {QStringLiteral("offset"), offset}, {QStringLiteral("comm_count"), commCount}};
    o.insert(QStringLiteral("comm_index"), commIndex >= 0 ? QJsonValue(commIndex) : QJsonValue());
    o.insert(QStringLiteral("comm_op"), commOp.isEmpty() ? QJsonValue() : QJsonValue(commOp));
    return o;
}

StepClock::StepClock(const std::vector<std::pair<qint64, std::vector<CommOp>>> &ranks)
{
    for (const auto &[rank, ops] : ranks)
        m_ranks.push_back({rank, ops, std::vector<int>(ops.size(), 0)});
    std::stable_sort(m_ranks.begin(), m_ranks.end(), [](const Rank &a, const Rank &b) { return a.rank < b.rank; });

    // Match: one key per op; ops with the same key are one synchronisation.
    std::map<QString, std::vector<std::pair<size_t, size_t>>> sets;
    for (size_t r = 0; r < m_ranks.size(); ++r) {
        std::map<QString, int> seen;
        const qint64 self = m_ranks[r].rank;
        for (size_t i = 0; i < m_ranks[r].ops.size(); ++i) {
            const CommOp &c = m_ranks[r].ops[i];
            QString key;
            switch (p2pRole(c.api)) {
            case P2PRole::None: {
                QStringList g;
                for (qint64 x : c.group)
                    g << QString::number(x);
                const QString base = QStringLiteral("c|%1|%2").arg(c.api, g.isEmpty() ? QStringLiteral("*") : g.join(QLatin1Char(',')));
                key = base + QLatin1Char('|') + QString::number(seen[base]++);
                break;
            }
            case P2PRole::Send:
            case P2PRole::Recv: {
                if (c.peer < 0 || self < 0) {
                    key = QStringLiteral("u|%1|%2").arg(r).arg(i);
                    break;
                }
                const bool send = p2pRole(c.api) == P2PRole::Send;
                const QString base = QStringLiteral("p|%1>%2").arg(send ? self : c.peer).arg(send ? c.peer : self);
                key = base + (send ? QStringLiteral("|s") : QStringLiteral("|r"));
                key = base + QLatin1Char('|') + QString::number(seen[key]++);
                break;
            }
            }
            sets[key].push_back({r, i});
        }
    }
    // Layer: longest path over "next op of the same rank" edges between the synchronisations.
    std::vector<std::vector<std::pair<size_t, size_t>>> nodes;
    std::map<std::pair<size_t, size_t>, size_t> nodeOf;
    for (auto &[key, members] : sets) {
        if (members.size() == 1 && m_ranks.size() > 1)
            ++m_unmatched;
        for (const auto &m : members)
            nodeOf[m] = nodes.size();
        nodes.push_back(std::move(members));
    }
    std::vector<std::set<size_t>> next(nodes.size());
    std::vector<int> indegree(nodes.size(), 0);
    for (size_t r = 0; r < m_ranks.size(); ++r)
        for (size_t i = 1; i < m_ranks[r].ops.size(); ++i) {
            const size_t a = nodeOf[{r, i - 1}], b = nodeOf[{r, i}];
            if (next[a].insert(b).second)
                ++indegree[b];
        }
    std::vector<int> layer(nodes.size(), 0);
    std::set<size_t> ready; // node numbers follow the sorted keys: a deterministic order
    for (size_t n = 0; n < nodes.size(); ++n)
        if (indegree[n] == 0)
            ready.insert(n);
    size_t done = 0;
    while (!ready.empty()) {
        const size_t n = *ready.begin();
        ready.erase(ready.begin());
        ++done;
        for (size_t m : next[n]) {
            layer[m] = std::max(layer[m], layer[n] + 1);
            if (--indegree[m] == 0)
                ready.insert(m);
        }
    }
    m_consistent = done == nodes.size();
    for (size_t r = 0; r < m_ranks.size(); ++r)
        for (size_t i = 0; i < m_ranks[r].ops.size(); ++i) {
            m_ranks[r].layer[i] = m_consistent ? layer[nodeOf[{r, i}]] : int(i);
            m_layers = std::max(m_layers, m_ranks[r].layer[i] + 1);
        }
}

const StepClock::Rank *StepClock::find(qint64 rank) const
{
    for (const Rank &r : m_ranks)
        if (r.rank == rank)
            return &r;
    return nullptr;
}

int StepClock::layerOf(qint64 rank, int index) const
{
    const Rank *r = find(rank);
    return r && index >= 0 && size_t(index) < r->layer.size() ? r->layer[size_t(index)] : -1;
}

ClockPosition StepClock::position(qint64 rank, int position) const
{
    ClockPosition p;
    const Rank *r = find(rank);
    const size_t n = r ? r->ops.size() : 0;
    p.commCount = int(n);
    size_t k = 0;
    while (k < n && r->ops[k].position < position)
        ++k;
    const int segmentStart = k > 0 ? r->ops[k - 1].position + 1 : 0;
    p.offset = std::max(0, position - segmentStart);
    if (k < n) {
        p.layer = r->layer[k];
        p.phase = r->ops[k].position == position ? 1 : 0;
        p.commIndex = int(k);
        p.commOp = r->ops[k].name;
    } else {
        p.layer = m_layers; // after the last synchronisation: the end of the step
        p.commIndex = -1;
        if (n > 0)
            p.commOp = r->ops[n - 1].name;
    }
    return p;
}

} // namespace ds
