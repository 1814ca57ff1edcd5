#pragma once

#include "compare/compare.h"

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

/// The rows of an NPU vs bench comparison as a table: verdict, both names, the msprobe metric
/// cells, msprobe 26's Result (its Err_message in the tooltip) and the reasons. Numbers through
/// SortRole, verdicts through VerdictRole; the view colours them.
///
/// Rows drag as their NPU operators (kNpuOperatorsMime); dropping NPU operators on a row that
/// has a bench tensor asks to map them to that row's bench operator (mappingRequested).
class CompareTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Verdict, NpuName, BenchName, Cosine, MaxAbsErr, MaxRelErr, OneThousandth, FiveThousandths,
                  EucDist, MsprobeResult, Reasons, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, VerdictRole /* int(ds::Verdict) */, RowRole, PinnedRole,
                SourceRole /* int(ds::MatchSource) */ };

    explicit CompareTableModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                   std::shared_ptr<const DumpIndex> bench);
    std::shared_ptr<const CompareResult> result() const { return m_result; }
    std::shared_ptr<const DumpIndex> npuIndex() const { return m_npu; }
    std::shared_ptr<const DumpIndex> benchIndex() const { return m_bench; }
    /// Replaces the result by one of the same two indexes with the same rows (a re-match after
    /// a mapping edit): the cells change in place, selections and the sort survive.
    void updateResult(std::shared_ptr<const CompareResult> result);
    /// The row of the first divergence (origin output row of the first scope), or -1.
    int pinnedRow() const { return m_pinned; }
    /// The matching name of a row's NPU operator / bench operator (empty without a bench row).
    QString npuOperator(int row) const;
    QString benchOperator(int row) const;
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
    std::shared_ptr<const CompareResult> m_result;
    std::shared_ptr<const DumpIndex> m_npu, m_bench;
    int m_pinned = -1;
    DivergenceCause m_pinnedCause = DivergenceCause::Output;
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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    ds::Verdict m_minimum = ds::Verdict::None;
    bool m_unmatchedOnly = false;
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
