#pragma once

#include "compare/compare.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <memory>

namespace ds {

/// The rows of an NPU vs bench comparison as a table: verdict, both names, the msprobe metric
/// cells, "Accuracy Reached or Not" and the reasons. Numbers through SortRole, verdicts
/// through VerdictRole; the view colours them.
class CompareTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Verdict, NpuName, BenchName, Cosine, MaxAbsErr, MaxRelErr, OneThousandth, FiveThousandths,
                  EucDist, Accuracy, Reasons, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, VerdictRole /* int(ds::Verdict) */, RowRole, PinnedRole };

    explicit CompareTableModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> npu,
                   std::shared_ptr<const DumpIndex> bench);
    std::shared_ptr<const CompareResult> result() const { return m_result; }
    std::shared_ptr<const DumpIndex> npuIndex() const { return m_npu; }
    std::shared_ptr<const DumpIndex> benchIndex() const { return m_bench; }
    /// The row of the first divergence (origin output row of the first scope), or -1.
    int pinnedRow() const { return m_pinned; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CompareResult> m_result;
    std::shared_ptr<const DumpIndex> m_npu, m_bench;
    int m_pinned = -1;
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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_text;
    ds::Verdict m_minimum = ds::Verdict::None;
};

} // namespace ds
