// A paged compare table as a Qt model (pagedcomparetablemodel.h).
#include "pagedcomparetablemodel.h"

#include <algorithm>
#include <climits>

namespace ds {

PagedCompareTableModel::PagedCompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void PagedCompareTableModel::setTable(std::shared_ptr<const PagedCsvTable> table)
{
    beginResetModel();
    m_table = std::move(table);
    m_pages.clear();
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

const QStringList &PagedCompareTableModel::cells(qint64 tableRow) const
{
    const qint64 first = tableRow - tableRow % kPageRows;
    auto it = std::find_if(m_pages.begin(), m_pages.end(), [first](const Page &p) { return p.first == first; });
    if (it == m_pages.end()) {
        Page page;
        page.first = first;
        const qint64 last = std::min(first + kPageRows, m_table->rowCount());
        page.rows.reserve(size_t(last - first));
        for (qint64 r = first; r < last; ++r)
            page.rows.push_back(m_table->row(r));
        m_rowsParsed += last - first;
        if (m_pages.size() >= kPagesKept)
            m_pages.erase(m_pages.begin());
        m_pages.push_back(std::move(page));
        it = m_pages.end() - 1;
    } else if (it != m_pages.end() - 1) {
        std::rotate(it, it + 1, m_pages.end()); // most recently used last
        it = m_pages.end() - 1;
    }
    return it->rows[size_t(tableRow - first)];
}

QVariant PagedCompareTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_table || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const qint64 r = tableRow(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        const QString cell = cells(r).value(index.column());
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
