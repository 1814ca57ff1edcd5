#pragma once

#include "dump/dumpindex.h"
#include "tensor/stats.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
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
};

/// Operators of one tree level as a table. Statistics columns stay empty until setStats()
/// fills them (a background job does). Roles give numbers; views give colours.
class OpTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Type, Name, Task, Stream, Timestamp, Inputs, Outputs, DTypes, Shapes, Min, Max, Mean, NaN, Inf, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, OpRole, ProblemRole, OverflowRole /* same marks as DumpTreeModel */ };

    explicit OpTableModel(QObject *parent = nullptr);

    void setOps(int dump, std::shared_ptr<const DumpIndex> index, std::vector<int> ops);
    void setStats(int opIndex, const OpStats &stats);
    void setOverflowMarks(std::unordered_map<int, int> marks);
    int dump() const { return m_dump; }
    const std::shared_ptr<const DumpIndex> &dumpIndex() const { return m_index; }
    int opAt(int row) const { return m_ops[size_t(row)]; }
    int rowOf(int op) const;
    const std::vector<int> &ops() const { return m_ops; }
    bool hasStats(int op) const { return m_stats.count(op) != 0; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// Tab-separated text of the given rows (header line first), for the clipboard and CSV.
    QString rowsText(const QList<int> &rows, QChar separator = QLatin1Char('\t')) const;

private:
    QString cellText(int row, int column) const;

    int m_dump = -1;
    std::shared_ptr<const DumpIndex> m_index;
    std::vector<int> m_ops;
    std::unordered_map<int, OpStats> m_stats;
    std::unordered_map<int, int> m_rowOfOp;
    std::unordered_map<int, int> m_marks;
};

/// Filter by substring or regular expression over type and name, and by op type.
class OpFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit OpFilterProxy(QObject *parent = nullptr);
    void setPattern(const QString &text, bool regex);
    void setOpType(const QString &type); ///< empty = all
    bool isValidPattern() const { return m_valid; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text, m_type;
    QRegularExpression m_regex;
    bool m_useRegex = false, m_valid = true;
};

/// Computes OpStats for an operator (loads each output tensor).
OpStats computeOpStats(const DumpIndex &index, int op, const JobControl *job = nullptr);

} // namespace ds
