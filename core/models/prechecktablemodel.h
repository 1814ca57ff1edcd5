#pragma once
// One table of an opened precheck document (core/precheck) as a Qt model: msprobe's columns,
// the row's verdict through StatusRole, each column's meaning and threshold as its header tooltip.

#include "precheck/precheck.h"

#include <QAbstractTableModel>
#include <memory>

namespace ds {

class PrecheckTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Roles { StatusRole = Qt::UserRole + 1, ApiRole, OutputRole };
    explicit PrecheckTableModel(QObject *parent = nullptr);

    /// Shows `table` of `doc` (-1 or none: empty).
    void setTable(std::shared_ptr<const precheck::PrecheckDocument> doc, int table);
    const precheck::PrecheckTable *table() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const precheck::PrecheckDocument> m_doc;
    int m_table = -1;
};

} // namespace ds
