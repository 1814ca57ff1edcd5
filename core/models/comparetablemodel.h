#pragma once

#include "compare/compare.h"
#include "comparegaps.h"
#include "run/runsummary.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <memory>

class QMimeData;

namespace ds {

/// MIME type of dragged NPU operators: a JSON array of their matching names (opMatchKey), in
/// execution order.
inline constexpr char kNpuOperatorsMime[] = "application/x-dumpscope-npu-operators";
/// The NPU operator names of a drag (empty when it holds none).
QStringList npuOperatorsFromMime(const QMimeData *data);

/// Rows counted by a verdict: DumpScope's (Verdict::None = not compared) or msprobe's Result
/// (Verdict::None = the row has no Result).
struct VerdictCounts
{
    qint64 pass = 0, warning = 0, error = 0, none = 0;
    qint64 &operator[](Verdict v) { return v == Verdict::Pass ? pass : v == Verdict::Warning ? warning : v == Verdict::Error ? error : none; }
    bool operator==(const VerdictCounts &) const = default;
};

/// msprobe's Result of a row as a level ("pass" -> Pass, ...); None when the row has none.
Verdict msprobeVerdict(const CompareRow &row);

/// The rows of an NPU vs bench comparison as a table: DumpScope's verdict next to msprobe 26's
/// Result (its Err_message in the tooltip), both names, the msprobe metric cells, why the two
/// verdicts differ where they do, and the reasons a row was not compared. Numbers through
/// SortRole, verdicts through VerdictRole and MsprobeVerdictRole; the view colours them.
///
/// The pinned row is the run's first divergence: the origin row of the scope the run-level
/// answer (combineRun) names, so the table, the summary and the status bar name one row.
///
/// Rows drag as their NPU operators (kNpuOperatorsMime); dropping NPU operators on a row that
/// has a bench tensor asks to map them to that row's bench operator (mappingRequested).
///
/// An aligned compare (CompareResult::aligned) shows its gaps: each row names its structure
/// region (Region column, RegionRole), an NPU row without a bench tensor inside a region reads
/// "NPU only" in the bench column, and the bench rows nothing paired inside a region follow the
/// NPU rows as rows of their own ("bench only" in the NPU column; rows >= result()->rows.size()).
class CompareTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Verdict, MsprobeResult, NpuName, VerdictsDiffer, BenchName, Cosine, MaxAbsErr, MaxRelErr, OneThousandth,
                  FiveThousandths, EucDist, ErrorAdded /* of the row's operator, on its output rows */, Reasons,
                  Region /* the structure region of an aligned compare (comparegaps.h) */, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, VerdictRole /* int(ds::Verdict) */, RowRole, PinnedRole,
                SourceRole /* int(ds::MatchSource) */, MsprobeVerdictRole /* int(ds::Verdict) of msprobe's Result */,
                DiffersRole /* bool: DumpScope's verdict and msprobe's Result differ */,
                AddedErrorRole /* double: the added error of the row's operator (addederror.h), output rows; NaN unknown */,
                GapRole /* int(CompareGaps::Gap): a row only one side has inside a structure region */,
                RegionRole /* QString: the row's structure region in words, empty outside one */ };

    explicit CompareTableModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                   std::shared_ptr<const DumpIndex> bench);
    std::shared_ptr<const CompareResult> result() const { return m_result; }
    std::shared_ptr<const DumpIndex> npuIndex() const { return m_npu; }
    std::shared_ptr<const DumpIndex> benchIndex() const { return m_bench; }
    /// Replaces the result by one of the same two indexes with the same rows (a re-match after
    /// a mapping edit): the cells change in place, selections and the sort survive.
    void updateResult(std::shared_ptr<const CompareResult> result);
    /// The row of the run's first divergence (firstDivergence()->originRow), or -1.
    int pinnedRow() const { return m_pinned; }
    /// The divergence the run-level answer names (the earliest step, then the earliest on the
    /// communication-op clock), or null when no scope diverges.
    const Divergence *firstDivergence() const;
    /// The run-level answer of the result and its per-scope summaries (core/run).
    const RunAnswer &runAnswer() const { return m_runAnswer; }
    const std::vector<ScopeSummary> &runScopes() const { return m_runScopes; }
    /// The rows counted by DumpScope's verdict and by msprobe's Result, and the rows where the
    /// two differ (a row without a Result is not counted as differing).
    VerdictCounts dumpscopeCounts() const { return m_dumpscope; }
    VerdictCounts msprobeCounts() const { return m_msprobe; }
    qint64 differingRows() const { return m_differing; }
    /// Why DumpScope's verdict and msprobe's Result of a row differ: the rule of each side that
    /// decided it (empty when they agree).
    QString verdictDifference(int row) const;
    /// Why the pinned row starts the first divergence, in words ("the input's dtype already
    /// differs (torch.bfloat16 vs torch.float32)"); empty without one.
    QString firstDivergenceReason() const;
    /// A verdict in words, translated: "pass", "warning", "error", "not compared".
    static QString verdictText(ds::Verdict v);
    /// The matching name of a row's NPU operator / bench operator (empty without a bench row).
    QString npuOperator(int row) const;
    QString benchOperator(int row) const;
    /// The error added by a row's NPU operator (compare/addederror.h): set on its output rows
    /// (an output is what the operator adds error to), null on the others and without one.
    const AddedError *addedError(int row) const;
    /// True for a bench-only row of a structure region (after the result's rows).
    bool isBenchOnlyRow(int row) const;
    /// The structure regions of the rows (empty when the compare was not aligned).
    const CompareGaps &gaps() const { return m_gaps; }
    /// A structure region in words: "blocks.0.mlp.fc1: bench Functional.linear.1.forward vs NPU
    /// Tensor.t.0.forward + ...: numerically equal" (translated).
    QString regionText(int region) const;
    /// The distinct NPU operators of some rows, in execution order.
    QStringList npuOperators(const QModelIndexList &rows) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override;
    Qt::DropActions supportedDropActions() const override;
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) override;

signals:
    /// NPU operators were dropped on a bench operator: map them (names in execution order).
    void mappingRequested(const QStringList &npu, const QStringList &bench);

private:
    /// Counts, the run-level answer and the pinned row of m_result.
    void derive();
    QString pinnedCause() const;
    QVariant benchOnlyData(int row, int column, int role) const;
    int regionOf(int row) const;

    std::shared_ptr<const CompareResult> m_result;
    std::shared_ptr<const DumpIndex> m_npu, m_bench;
    int m_pinned = -1;
    int m_first = -1; ///< index of the first divergence in m_result->divergences
    std::vector<ScopeSummary> m_runScopes;
    RunAnswer m_runAnswer;
    VerdictCounts m_dumpscope, m_msprobe;
    qint64 m_differing = 0;
    CompareGaps m_gaps;
    mutable std::vector<QString> m_why; ///< verdictDifference, filled when first asked
    mutable std::vector<char> m_whyDone;
};

/// Sorting and filtering that keeps the first divergence on top: by text (either name) and by
/// the least verdict shown.
class CompareFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit CompareFilterProxy(QObject *parent = nullptr);
    void setText(const QString &text);
    /// Rows below this verdict are hidden (None shows every row, also the uncompared ones).
    void setMinimumVerdict(ds::Verdict v);
    /// Only the rows without a bench tensor.
    void setUnmatchedOnly(bool on);
    /// Only the rows where DumpScope's verdict and msprobe's Result differ.
    void setDifferingOnly(bool on);
    /// Only the rows inside a structure region of an aligned compare (and the bench-only ones).
    void setStructuralOnly(bool on);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    ds::Verdict m_minimum = ds::Verdict::None;
    bool m_unmatchedOnly = false, m_differingOnly = false, m_structuralOnly = false;
};

/// The operators of the bench dump with how the comparison used them: matched (every row
/// tensor has an NPU row), partly matched, fused away (inside a mapping group or a fused NPU
/// operator) or unmatched, and the NPU operators compared with them. A drop of NPU operators
/// on a row reports npuOperatorsDropped; the panel decides which bench operators are meant.
class BenchOperatorModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Type, Status, ComparedWith, ColumnCount };
    enum class State : int { Matched, Partial, FusedAway, Unmatched };
    enum Role { StateRole = Qt::UserRole + 1 /* int(State) */, OpRole /* bench operator index */, NameRole };

    explicit BenchOperatorModel(QObject *parent = nullptr);
    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                   std::shared_ptr<const DumpIndex> bench);
    /// The model row of a bench operator name, or -1.
    int rowOf(const QString &name) const;
    QString name(int row) const;
    /// Number of operators in a state.
    int count(State s) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    Qt::DropActions supportedDropActions() const override;
    bool canDropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column,
                         const QModelIndex &parent) const override;
    bool dropMimeData(const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) override;

signals:
    void npuOperatorsDropped(const QStringList &npu, int row);

private:
    struct Entry
    {
        int op = -1;
        QString name, type;
        State state = State::Unmatched;
        int matchedRows = 0, rows = 0;
        QStringList npu; ///< NPU operators compared with it
    };
    std::vector<Entry> m_entries;
};

/// Filters the bench operators by text (name or type) and, optionally, to the ones not (fully)
/// matched.
class BenchOperatorFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit BenchOperatorFilterProxy(QObject *parent = nullptr);
    void setText(const QString &text);
    void setUnmatchedOnly(bool on);
    bool unmatchedOnly() const { return m_unmatchedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    bool m_unmatchedOnly = false;
};

} // namespace ds
