#pragma once

#include "run/runsummary.h"
#include "run/runtree.h"
#include "run/scopeprobe.h"

#include <QAbstractTableModel>
#include <QHash>
#include <memory>

namespace ds {

/// The runs overview of one run: steps (rows) x ranks (columns), one cell per scope, filled
/// as the scope's details arrive (its probe, its index, the run compare, the overflow check).
/// Roles give states and numbers; the view gives colours.
class RunGridModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// What is known about a cell, from least to most (the view colours by it).
    enum class State {
        Missing,         ///< no scope at this step and rank
        Found,           ///< found by the walk, details not read yet
        Probed,          ///< size and contents known
        Indexed,         ///< operators indexed
        Problems,        ///< files that could not be read
        NotCompared,     ///< present on one side of a comparison only
        Agrees,          ///< compared: no row at or above the divergence level
        Diverged,        ///< compared: the scope has its own first divergence
        FirstDivergence, ///< the run's first divergence is here
    };
    enum Role {
        StateRole = Qt::UserRole + 1, ///< int(State)
        ScopeIdRole,                  ///< QString scope id ("step0/rank1"), empty when missing
        BytesRole,                    ///< qulonglong (probed)
        OverflowRole,                 ///< int: 0 none, 1 anomaly in the scope, 2 the run's first anomaly
    };

    explicit RunGridModel(QObject *parent = nullptr);

    /// Shows `run` (resets everything known about its cells).
    void setRun(const RunInfo &run);
    /// The same without copying `run`, which `owner` keeps alive (a run of 100,000 scopes).
    void setRun(std::shared_ptr<const void> owner, const RunInfo &run);
    /// The cells of a run, laid out off the GUI thread (a run of 100,000 scopes: 100,000 cells).
    struct Layout;
    static std::shared_ptr<Layout> layoutOf(const RunInfo &run);
    /// setRun with a layout made by layoutOf(run) (taken, not copied).
    void setRun(std::shared_ptr<const void> owner, const RunInfo &run, Layout &&layout);
    const RunInfo &run() const { return m_run ? *m_run : m_noRun; }
    void setProbe(const QString &scope, const ScopeProbe &probe);
    void setIndexed(const QString &scope, int ops, int errors);
    /// Compare summaries of the run (and its answer: which cell holds the first divergence).
    void setCompare(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer);
    void setOverflow(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer);
    void clearCompare();
    /// More compare summaries of the run as a compare goes (the others kept), and its answer so
    /// far: only their cells and the first divergence's change (a compare of 100,000 scope pairs
    /// arrives in pieces; setCompare would touch every cell each time).
    void addCompare(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer);

    QModelIndex indexOf(const QString &scope) const;
    const RunScope *scopeAt(const QModelIndex &index) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Cell
    {
        const RunScope *scope = nullptr;
        bool probed = false;
        ScopeProbe probe;
        int ops = -1, errors = 0;
        std::optional<ScopeSummary> compare;
        std::optional<ScopeFinding> overflowFirst; ///< the overflow check's first anomaly of the scope
        bool firstDivergence = false, firstAnomaly = false;
    };
    Cell *cell(const QString &scope);
    void changed(const QString &scope);
    QString cellText(const Cell &c) const;
    QString cellToolTip(const Cell &c) const;

    std::shared_ptr<const void> m_runOwner; ///< keeps m_run alive
    const RunInfo *m_run = nullptr;
    RunInfo m_noRun; ///< run() before setRun
    std::vector<std::pair<qint64, QString>> m_steps, m_ranks; ///< (number, label) of rows and columns
    std::vector<Cell> m_cells; ///< rows x columns
    QHash<QString, int> m_byScope; ///< scope id -> cell
    QString m_firstDivergence; ///< the scope of the cell marked as the first divergence
};

struct RunGridModel::Layout
{
    std::vector<std::pair<qint64, QString>> steps, ranks;
    std::vector<Cell> cells;
    QHash<QString, int> byScope;
};

} // namespace ds
