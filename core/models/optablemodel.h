#pragma once

#include "dump/dumpindex.h"
#include "tensor/stats.h"

#include <QAbstractTableModel>
#include <QRegularExpression>
#include <memory>
#include <unordered_map>

namespace ds {

/// Output statistics of one operator (all its outputs together), computed lazily.
struct OpStats
{
    double min = std::numeric_limits<double>::quiet_NaN(), max = min, mean = min;
    std::uint64_t nan = 0, inf = 0;
    QString error;
    /// Precision headroom of the outputs whose values were read (real floating types only):
    /// their finite values, and per target how many of them underflow (become zero).
    std::uint64_t headroomFinite = 0;
    std::array<std::uint64_t, kHeadroomTargets> underflow{};
    /// The fraction of those finite values that underflows in `t`; NaN when no output's values
    /// were read (statistics-only outputs tell nothing about underflow: tensor/headroom.h).
    double underflowFraction(HeadroomTarget t) const
    {
        return headroomFinite ? double(underflow[size_t(t)]) / double(headroomFinite) : std::numeric_limits<double>::quiet_NaN();
    }
};

/// Which operators of a level the table shows: of type `type` (empty: all) whose name or type
/// holds `text`, case-insensitively (a regular expression when `regex`).
struct OpFilter
{
    QString type, text;
    bool regex = false;
    bool operator==(const OpFilter &) const = default;
};

/// The operators of one tree level as a table, filtered and ordered in place. No proxy model:
/// QSortFilterProxyModel maps every row of a level whenever the level changes (10-20 ms on
/// the GUI thread for 175,000 operators); here a level shown whole in execution order costs
/// nothing per row. Statistics columns stay empty until setStats() fills them (a background
/// job does). Roles give numbers; views give colours.
///
/// Rows are what the table shows; positions are places in the level (ops()), which the
/// statistics are given by.
class OpTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Type, Name, Task, Stream, Timestamp, Inputs, Outputs, DTypes, Shapes, Min, Max, Mean, NaN, Inf, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, OpRole, ProblemRole, OverflowRole /* same marks as DumpTreeModel */ };

    explicit OpTableModel(QObject *parent = nullptr);

    /// A new level (its operators in execution order) shown through `filter`, in the order
    /// chosen last (sort()).
    void setOps(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<const std::vector<int>> ops, OpFilter filter = {});
    /// Filters the level again (only when `filter` changed: a pass reads every operator).
    void setFilter(OpFilter filter);
    const OpFilter &filter() const { return m_filter; }
    bool isValidPattern() const { return m_validPattern; }
    /// Orders the rows by a column (-1: execution order), operators without a value last;
    /// QTableView calls it when a header is clicked. Rows keep their place when statistics
    /// arrive later.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    /// Statistics of the operators at positions `first`, `first` + 1, ... of the level (a
    /// background job's batch: one notification for all). Batches do not overlap.
    void setStats(int first, std::vector<OpStats> stats);
    void setOverflowMarks(std::unordered_map<int, int> marks);

    int dump() const { return m_dump; }
    const std::shared_ptr<const DumpIndex> &dumpIndex() const { return m_index; }
    /// The level's operators, shown or not, in execution order.
    const std::vector<int> &ops() const { return *m_ops; }
    /// The same list, shared (a background job reads it without a copy).
    std::shared_ptr<const std::vector<int>> sharedOps() const { return m_ops; }
    int opAt(int row) const { return (*m_ops)[size_t(posAt(row))]; }
    /// The row showing operator `op`, or -1 (not in the level, or filtered out).
    int rowOf(int op) const;
    bool hasStats(int op) const;

    /// The rows fetched so far: a level of millions is listed kFetchRows at a time as the view
    /// scrolls to its end (canFetchMore), since a view's header lays out every row it is told
    /// of at once (2.6 M operators: 0.1 s on the GUI thread, 1 s at 26 M).
    int rowCount(const QModelIndex &parent = {}) const override;
    static constexpr int kFetchRows = 100'000;
    /// Every row the filter lets through, fetched or not (rowsText() takes any of them).
    int rowsTotal() const { return int(m_whole ? m_ops->size() : m_shown.size()); }
    /// Fetches the rows up to `row` now (to select or scroll to it).
    void fetchTo(int row);
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// Tab-separated text of the given rows (header line first), for the clipboard and CSV.
    QString rowsText(const QList<int> &rows, QChar separator = QLatin1Char('\t')) const;

private:
    int posAt(int row) const { return m_shown.empty() && m_whole ? row : m_shown[size_t(row)]; }
    int posOf(int op) const;
    const OpStats *statsAt(int pos) const;
    bool accepts(const OpRecord &op) const;
    QString cellText(int pos, int column) const;
    /// The value a numeric column sorts by (NaN: none, sorted last).
    double sortNumber(int pos, int column) const;
    /// m_shown (and m_rowOfPos) from the filter and the order.
    void arrange();
    /// arrange() with the persistent indexes (selection, current row) moved along.
    void rearrange();

    int m_dump = -1;
    std::shared_ptr<const DumpIndex> m_index;
    std::shared_ptr<const std::vector<int>> m_ops = std::make_shared<const std::vector<int>>();
    /// (operator, position) sorted by operator, for posOf(); empty when the level itself is
    /// sorted (it usually is), which posOf() then searches.
    std::vector<std::pair<int, int>> m_posOfOp;
    OpFilter m_filter;
    QRegularExpression m_regex;
    bool m_validPattern = true;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    int m_fetched = 0;           ///< rows shown to views (rowCount)
    bool m_whole = true;         ///< every operator shown in execution order: m_shown unused
    std::vector<int> m_shown;    ///< positions, in row order (unless m_whole)
    std::vector<int> m_rowOfPos; ///< row of every position, -1 when filtered out (unless m_whole)
    /// The statistics as their batches arrived (kept as they are: storing them per position
    /// would touch megabytes of fresh memory on the GUI thread), by first position.
    struct StatsBatch
    {
        int first;
        std::vector<OpStats> stats;
    };
    std::vector<StatsBatch> m_stats;
    std::unordered_map<int, int> m_marks;
};

/// Computes OpStats for an operator: loads each output tensor, or takes what the producer
/// recorded for one without data (msprobe statistics: Min, Max, and Mean weighted by the
/// tensor's element count).
OpStats computeOpStats(const DumpIndex &index, int op, const JobControl *job = nullptr);

} // namespace ds
