#pragma once

#include "run/multirun.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace ds {

/// Runs x operators of a run set (runSetMatrix): one row per operator (step, rank, op, phase),
/// one column per run: "=" where the run is in its rows' majority, "≠" where it is not, "—"
/// where it lacks the operator; AgreeRole gives 1 / 0 / -1 and BackgroundRole the colour.
class RunSetMatrixModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { StepColumn, RankColumn, OpColumn, PhaseColumn, FirstRunColumn };
    enum Role { AgreeRole = Qt::UserRole + 1 };
    using QAbstractTableModel::QAbstractTableModel;
    void setRunSet(std::shared_ptr<const RunSetResult> result);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// The row of operator `op` in scope `scope`, -1 when none.
    int rowOf(const QString &scope, const QString &op) const;

private:
    std::shared_ptr<const RunSetResult> m_result;
    std::vector<RunSetOp> m_ops;
};

/// Three or more runs compared with each other (core/run/multirun.h): the answers in words
/// (identical runs, the run that departs first, the nondeterministic operator of each phase)
/// above the runs x operators agreement matrix. The comparison runs on a worker; a newer request
/// drops the older one's result.
class RunSetPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RunSetPanel(QWidget *parent = nullptr);
    ~RunSetPanel() override;
    /// Compares the runs at `paths` (three or more run folders).
    void compareRuns(const QStringList &paths);
    /// Compares the run folders found under `folder` (it must hold three or more runs).
    void compareRunsIn(const QString &folder);
    bool isBusy() const { return m_busy; }
    const RunSetResult *result() const { return m_result.get(); }
    RunSetMatrixModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    /// The answers shown above the matrix, or the error.
    QString answerText() const;
    /// RunSetResult::text() (the CLI's answers) in the interface language, the answers first
    /// (same runs, the first departure, the nondeterministic operators), then pairs, mode, paths.
    static QString answersText(const RunSetResult &result);

signals:
    void finished();

private:
    struct Outcome
    {
        std::shared_ptr<const RunSetResult> result;
        QString error;
    };
    using Work = std::function<Outcome(const JobControl &)>;
    void start(Work work);
    void onFinished();

    QLabel *m_status;
    QPlainTextEdit *m_answers;
    QTableView *m_view;
    RunSetMatrixModel *m_model;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<const RunSetResult> m_result;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::function<Outcome()> m_pending; ///< a request made while another ran
    bool m_busy = false;
};

} // namespace ds
