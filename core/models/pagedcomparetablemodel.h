#pragma once
// A compare table too large to open as a comparison (core/compare/resulttablepaged.h) as a Qt
// model: msprobe's columns, the cells as the file holds them, parsed a page of rows at a time
// when the view asks (a few pages are kept); the row's verdict (its Result) through VerdictRole.
// Optionally only the rows that are not a pass (from the verdicts the index read, no cells).

#include "compare/resulttablepaged.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

class PagedCompareTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Roles { VerdictRole = Qt::UserRole + 1, TableRowRole, LineRole };
    static constexpr qint64 kPageRows = 256;
    static constexpr size_t kPagesKept = 16;
    explicit PagedCompareTableModel(QObject *parent = nullptr);

    void setTable(std::shared_ptr<const PagedCsvTable> table);
    const std::shared_ptr<const PagedCsvTable> &table() const { return m_table; }
    /// Only the rows whose verdict is a warning or an error (true), or every row.
    void setNotPassOnly(bool on);
    bool notPassOnly() const { return m_notPassOnly; }
    /// Rows parsed from the file so far (pages * kPageRows at most; for the tests).
    qint64 rowsParsed() const { return m_rowsParsed; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    qint64 tableRow(int row) const { return m_notPassOnly ? m_rows[size_t(row)] : row; }
    const QStringList &cells(qint64 tableRow) const;

    struct Page
    {
        qint64 first = -1;
        std::vector<QStringList> rows;
    };
    std::shared_ptr<const PagedCsvTable> m_table;
    bool m_notPassOnly = false;
    std::vector<qint64> m_rows; ///< notPassOnly: the table rows shown
    mutable std::vector<Page> m_pages; ///< most recently used last
    mutable qint64 m_rowsParsed = 0;
};

} // namespace ds
