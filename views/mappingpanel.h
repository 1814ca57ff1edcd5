#pragma once

#include "compare/usermapping.h"

#include <QWidget>

class QLabel;
class QTableWidget;
class QToolButton;

namespace ds {

/// The user mapping of the comparison: one line per entry (NPU name(s) -> bench name(s), a
/// name or an N:M group), with Remove, Load mapping…, Save mapping… and Clear. The panel only
/// shows; CompareView owns the mapping and acts on the requests.
class MappingPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { Npu, Bench, Kind, ColumnCount };

    explicit MappingPanel(QWidget *parent = nullptr);
    /// `file`: where the mapping was last loaded from or saved to (empty: never);
    /// `notes`: matching warnings (names found in neither dump).
    void setMapping(const UserMapping &mapping, const QString &file, bool modified, const QStringList &notes = {});
    QTableWidget *table() const { return m_table; }
    QToolButton *removeButton() const { return m_remove; }
    QToolButton *loadButton() const { return m_load; }
    QToolButton *saveButton() const { return m_save; }
    QToolButton *clearButton() const { return m_clear; }
    /// The selected entries (UserMapping::removeEntry indexes), ascending.
    QList<int> selectedEntries() const;

signals:
    void removeRequested(const QList<int> &entries);
    void loadRequested();
    void saveRequested();
    void clearRequested();

private:
    QTableWidget *m_table;
    QLabel *m_status;
    QToolButton *m_remove, *m_load, *m_save, *m_clear;
};

} // namespace ds
