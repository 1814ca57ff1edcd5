#pragma once

#include "models/optablemodel.h"

#include <QFuture>
#include <QWidget>
#include <atomic>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace ds {

/// The operators of the selected tree level: sortable, filterable (substring, regular
/// expression, op type), with output statistics filled in the background.
class OpTablePanel : public QWidget
{
    Q_OBJECT
public:
    explicit OpTablePanel(QWidget *parent = nullptr);
    ~OpTablePanel() override;

    /// Shows `ops` of dump `dump` and selects `currentOp` (-1: none). The op types of the type
    /// filter follow from the background, ahead of the statistics.
    void showOps(int dump, std::shared_ptr<const DumpIndex> index, std::shared_ptr<const std::vector<int>> ops, int currentOp);
    void selectOp(int op);
    /// No operators to list for dump `dump`: an empty table under `text`, which says why
    /// (hidden again by the next showOps).
    void showNote(int dump, const QString &text);
    QString note() const;
    OpTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    bool statsRunning() const { return m_statsJob.isRunning(); }

    void copySelection() const;
    bool exportCsv(const QString &path) const;

signals:
    void opActivated(int dump, int op);

private:
    static constexpr int kSizedRows = 30;      ///< rows the column widths are computed from (a screenful)
    static constexpr qint64 kStatsBatchMs = 100; ///< statistics delivered at most this often
    void applyFilter();
    void showCount();
    /// The type filter's choices: all types, then `types`.
    void setTypes(const QStringList &types);
    void startStats();
    void stopStats();

    OpTableModel *m_model;
    QTableView *m_view;
    QLineEdit *m_filter;
    QCheckBox *m_regex;
    QComboBox *m_type;
    QLabel *m_count;
    QLabel *m_note;
    QFuture<void> m_statsJob;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace ds
