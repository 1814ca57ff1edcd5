#pragma once
// A compare table too large to open as a comparison (core/compare/resulttablepaged.h) as a Qt
// model: msprobe's columns, the cells as the file holds them, parsed a page of rows at a time
// when the view asks (a few pages are kept); the row's verdict (its Result) through VerdictRole.
// Optionally only the rows that are not a pass (from the verdicts the index read, no cells).
// With a pool (setPool: the GUI), a page is parsed there and its rows change when it arrives;
// until then their cells are empty (the verdict, the file line and the row are known at once).

#include "compare/resulttablepaged.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QStringList>
#include <memory>
#include <vector>

class QThreadPool;

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
    /// Parse pages on `pool` instead of in data() (the GUI thread must not read the file).
    void setPool(QThreadPool *pool) { m_pool = pool; }
    /// Rows parsed from the file so far (pages * kPageRows at most; for the tests).
    qint64 rowsParsed() const { return m_rowsParsed; }
    /// Pages asked of the pool and not arrived yet.
    int pagesLoading() const { return int(m_loading.size()); }


    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// A page parsed on the pool arrived (its rows' dataChanged was emitted).
    void pageLoaded(qint64 firstTableRow);

private:
    qint64 tableRow(int row) const { return m_notPassOnly ? m_rows[size_t(row)] : row; }
    /// The row's cells, or nullptr while its page is being parsed on the pool.
    const QStringList *cells(qint64 tableRow) const;
    void requestPage(qint64 first) const;
    void addPage(qint64 first, std::vector<QStringList> rows) const;
    void pageArrived(quint64 generation, qint64 first, std::vector<QStringList> rows);

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
    QThreadPool *m_pool = nullptr;
    mutable QSet<qint64> m_loading; ///< pages asked of the pool (first table row)
    quint64 m_generation = 0;       ///< a page of an older table or filter is dropped
};

} // namespace ds
