#pragma once

// The communication-op clock: ranks run concurrently, so "which rank went wrong first" is only
// defined up to the points where they synchronise, their communication operators. As msprobe's
// `compare -da` and `overflow_check` do (python/msprobe/core/compare/find_first/, overflow_check/),
// the communication ops of the ranks of one step are matched with each other (collectives by
// API, process group and call order; send/recv by peer and call order) and layered: matched ops
// share a layer, and every op of a rank is one layer after the rank's previous one. An operator
// then sits at (layer of the next communication op on its rank, before or at that op, ops since
// the previous communication op). See docs/COMPARE-RUNS.md "Runs" for how this differs from msprobe.

#include "dump/records.h"

#include <QJsonObject>
#include <QList>
#include <optional>
#include <vector>

namespace ds {

class DumpIndex;

/// True for a communication operator: msprobe `Distributed.*` / `MintDistributed.*` /
/// `Communication.*` entries of a collective or point-to-point API (all_reduce, broadcast,
/// all_gather, reduce_scatter, all_to_all, send/recv, isend/irecv, barrier, ...), and CANN HCCL
/// operators (op type Hcom* / Hccl*): the ops the clock counts. (overflow/softwarecheck.h's
/// isCommunicationOp is msprobe's narrower list for one dump's first-anomaly rule.)
bool isClockOp(const OpRecord &op);

/// One communication op of a scope, with what the cross-rank matching needs.
struct CommOp
{
    QString name;         ///< entry or operator name: "Distributed.all_reduce.0.forward"
    QString api;          ///< "all_reduce", "send", "HcomAllReduce"
    QList<qint64> group;  ///< ranks of its process group (sorted); empty: every rank of the step
    qint64 peer = -1;     ///< send/recv: the other rank (-1 unknown)
    int position = -1;    ///< the op's position in its scope's execution order
    bool operator==(const CommOp &) const = default;

    QJsonObject toJson() const;
    static std::optional<CommOp> fromJson(const QJsonObject &o);
};

enum class P2PRole : std::uint8_t { None, Send, Recv };
/// Whether an API name is a point-to-point send or receive.
P2PRole p2pRole(const QString &api);

/// The communication ops among `ops` (indexes into index.ops in execution order), with
/// positions relative to the first of `ops`.
std::vector<CommOp> communicationOps(const DumpIndex &index, const std::vector<int> &ops);

/// Where an operator sits on the clock. Ordering: layer, then before (0) / at (1) the
/// communication op, then the ops since the previous communication op on the same rank.
struct ClockPosition
{
    int layer = 0;
    int phase = 0;    ///< 0: before the communication op of this layer (or after the last), 1: at it
    int offset = 0;   ///< ops since the previous communication op of the rank
    int commIndex = -1; ///< the rank's own communication op number it is before/at; -1: after the last one
    QString commOp;   ///< that op's name (the rank's last one when after it)
    int commCount = 0; ///< communication ops of the rank in this step

    bool before(const ClockPosition &o) const
    {
        return std::tie(layer, phase, offset) < std::tie(o.layer, o.phase, o.offset);
    }
    bool sameTime(const ClockPosition &o) const { return layer == o.layer && phase == o.phase && offset == o.offset; }
    /// "before communication op #0 (Distributed.all_reduce.0.forward)", "at ...", "after the last
    /// communication op (#1 ...)", "no communication op".
    QString describe() const;
    QJsonObject toJson() const;
};

/// The communication ops of every rank of one step, matched and layered.
class StepClock
{
public:
    /// `ranks`: rank number -> its communication ops in order. Deterministic for any input order.
    explicit StepClock(const std::vector<std::pair<qint64, std::vector<CommOp>>> &ranks);

    /// The position of the op at `position` in the execution order of rank `rank`.
    ClockPosition position(qint64 rank, int position) const;
    /// False when the ranks' communication orders contradict each other (a cycle); each rank's
    /// ops are then layered by their own count only.
    bool consistent() const { return m_consistent; }
    int layers() const { return m_layers; }
    /// The layer of rank `rank`'s communication op `index`.
    int layerOf(qint64 rank, int index) const;
    /// Communication ops that matched no op on another rank (e.g. a send without its recv).
    int unmatched() const { return m_unmatched; }

private:
    struct Rank
    {
        qint64 rank = -1;
        std::vector<CommOp> ops;
        std::vector<int> layer;
    };
    const Rank *find(qint64 rank) const;
    std::vector<Rank> m_ranks;
    int m_layers = 0;
    int m_unmatched = 0;
    bool m_consistent = true;
};

} // namespace ds
