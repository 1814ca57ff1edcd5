#include "prechecktablemodel.h"

#include <QCoreApplication>

namespace ds {

PrecheckTableModel::PrecheckTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void PrecheckTableModel::setTable(std::shared_ptr<const precheck::PrecheckDocument> doc, int table)
{
    beginResetModel();
    m_doc = std::move(doc);
    m_table = m_doc && table >= 0 && size_t(table) < m_doc->tables.size() ? table : -1;
    endResetModel();
}

const precheck::PrecheckTable *PrecheckTableModel::table() const { return m_table >= 0 ? &m_doc->tables[size_t(m_table)] : nullptr; }

int PrecheckTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !table() ? 0 : int(table()->rows.size());
}

int PrecheckTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !table() ? 0 : int(table()->header.size());
}

QVariant PrecheckTableModel::data(const QModelIndex &index, int role) const
{
    const precheck::PrecheckTable *t = table();
    if (!t || !index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const precheck::PrecheckRow &r = t->rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole: return r.cells.value(index.column()).simplified();
    case Qt::ToolTipRole: return r.cells.value(index.column()).trimmed();
    case StatusRole: {
        // the verdict of the cell's column where it holds one, else the row's
        const precheck::Status s = precheck::parseStatus(r.cells.value(index.column()));
        const bool verdictColumn = t->header[index.column()].endsWith(QStringLiteral("判定结果")) || t->header[index.column()] == u"Status"
                                || t->header[index.column()] == u"比对结果" || t->header[index.column()].endsWith(u"Test Success");
        return int(verdictColumn ? s : r.status);
    }
    case ApiRole: return r.api;
    case OutputRole: return r.output;
    default: return {};
    }
}

QVariant PrecheckTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    const precheck::PrecheckTable *t = table();
    if (!t || orientation != Qt::Horizontal || section < 0 || section >= t->header.size())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole)
        return t->header[section];
    if (role == Qt::ToolTipRole) {
        const precheck::ColumnInfo *c = precheck::columnInfo(t->kind, t->header[section]);
        if (!c)
            return QCoreApplication::translate("ds::precheck", "not a column msprobe writes in this table");
        QString tip = QCoreApplication::translate("ds::precheck", c->meaning);
        if (*c->threshold)
            tip += QLatin1Char('\n') + QCoreApplication::translate("ds::precheck", "Threshold: %1").arg(QCoreApplication::translate("ds::precheck", c->threshold));
        return tip;
    }
    return {};
}

} // namespace ds
