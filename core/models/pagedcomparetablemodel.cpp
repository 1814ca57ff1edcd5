// A paged compare table as a Qt model (pagedcomparetablemodel.h).
#include "pagedcomparetablemodel.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <climits>

namespace ds {

PagedCompareTableModel::PagedCompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void PagedCompareTableModel::setTable(std::shared_ptr<const PagedCsvTable> table)
{
    beginResetModel();
    m_table = std::move(table);
    m_pages.clear();
    m_loading.clear();
    ++m_generation;
    m_rows.clear();
    if (m_table && m_notPassOnly)
        for (qint64 r = 0; r < m_table->rowCount(); ++r)
            if (const Verdict v = m_table->verdict(r); v == Verdict::Warning || v == Verdict::Error)
                m_rows.push_back(r);
    endResetModel();
}

void PagedCompareTableModel::setNotPassOnly(bool on)
{
    if (on == m_notPassOnly)
        return;
    m_notPassOnly = on;
    setTable(m_table);
}

int PagedCompareTableModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_table)
        return 0;
    // a QAbstractItemModel counts rows in int: a table of more than 2^31 rows shows the first ones
    return int(std::min<qint64>(m_notPassOnly ? qint64(m_rows.size()) : m_table->rowCount(), INT_MAX));
}

int PagedCompareTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_table ? 0 : int(m_table->header().size());
}

const QStringList *PagedCompareTableModel::cells(qint64 tableRow) const
{
    const qint64 first = tableRow - tableRow % kPageRows;
    auto it = std::find_if(m_pages.begin(), m_pages.end(), [first](const Page &p) { return p.first == first; });
    if (it == m_pages.end()) {
        if (m_pool) {
            requestPage(first);
            return nullptr;
        }
        const qint64 last = std::min(first + kPageRows, m_table->rowCount());
        std::vector<QStringList> rows;
        rows.reserve(size_t(last - first));
        for (qint64 r = first; r < last; ++r)
            rows.push_back(m_table->row(r));
        addPage(first, std::move(rows));
        it = m_pages.end() - 1;
    } else if (it != m_pages.end() - 1) {
        std::rotate(it, it + 1, m_pages.end()); // most recently used last
        it = m_pages.end() - 1;
    }
    return &it->rows[size_t(tableRow - first)];
}

void PagedCompareTableModel::addPage(qint64 first, std::vector<QStringList> rows) const
{
    m_rowsParsed += qint64(rows.size());
    if (m_pages.size() >= kPagesKept)
        m_pages.erase(m_pages.begin());
    m_pages.push_back({first, std::move(rows)});
}

void PagedCompareTableModel::requestPage(qint64 first) const
{
    if (m_loading.contains(first))
        return;
    m_loading.insert(first);
    auto *self = const_cast<PagedCompareTableModel *>(this); // data() is const; the answer changes the model
    QtConcurrent::run(m_pool, [table = m_table, first] {
        const qint64 last = std::min(first + kPageRows, table->rowCount());
        std::vector<QStringList> rows;
        rows.reserve(size_t(last - first));
        for (qint64 r = first; r < last; ++r)
            rows.push_back(table->row(r));
        return rows;
    }).then(self, [self, generation = m_generation, first](std::vector<QStringList> rows) {
        // A page parsed before this continuation was attached runs it at once, inside the data()
        // that asked for it (QFuture::then with a context calls it directly on the context's
        // thread): the page arrives through the event loop in every case, never within data().
        QMetaObject::invokeMethod(
            self, [self, generation, first, rows = std::move(rows)]() mutable { self->pageArrived(generation, first, std::move(rows)); },
            Qt::QueuedConnection);
    });
}

void PagedCompareTableModel::pageArrived(quint64 generation, qint64 first, std::vector<QStringList> rows)
{
    if (generation != m_generation || !m_table)
        return; // asked for a table (or a filter) no longer shown
    m_loading.remove(first);
    addPage(first, std::move(rows));
    // the view rows that show table rows [first, first + kPageRows)
    qint64 top = first, bottom = std::min(first + kPageRows, m_table->rowCount()) - 1;
    if (m_notPassOnly) {
        top = std::lower_bound(m_rows.begin(), m_rows.end(), first) - m_rows.begin();
        bottom = (std::lower_bound(m_rows.begin(), m_rows.end(), first + kPageRows) - m_rows.begin()) - 1;
    }
    bottom = std::min<qint64>(bottom, rowCount() - 1);
    if (top <= bottom && columnCount() > 0)
        emit dataChanged(index(int(top), 0), index(int(bottom), columnCount() - 1), {Qt::DisplayRole, Qt::ToolTipRole});
    emit pageLoaded(first);
}

QVariant PagedCompareTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_table || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const qint64 r = tableRow(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        const QStringList *row = cells(r);
        if (!row)
            return QString(); // its page is being parsed
        const QString cell = row->value(index.column());
        return role == Qt::DisplayRole && cell.size() > 200 ? cell.left(200) + QChar(0x2026) : cell;
    }
    case VerdictRole:
        return int(m_table->verdict(r));
    case TableRowRole:
        return r;
    case LineRole:
        return m_table->line(r);
    default:
        return {};
    }
}

QVariant PagedCompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!m_table || role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal)
        return m_table->header().value(section);
    return section >= 0 && section < rowCount() ? QVariant(m_table->line(tableRow(section))) : QVariant(); // the file line
}

} // namespace ds
