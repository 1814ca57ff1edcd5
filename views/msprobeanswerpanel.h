#pragma once
// msprobe's own answers opened as documents (issue 33, items 1 and 2): overflow_check's
// anomaly_analyze_*.json and compare -da's diff_analyze_*.json / compare_result_rank*.json, one
// row per rank with msprobe's op and DumpScope's own answer on the dumps beside it
// (core/run/firstdiffanswers.h), the selected row's call stack below.

#include "run/firstdiffanswers.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QStandardItemModel;
class QTableView;

namespace ds {

class MsprobeAnswerPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { RankColumn, MsprobeColumn, DumpScopeColumn, AgreementColumn, ColumnCount };

    explicit MsprobeAnswerPanel(QWidget *parent = nullptr);
    ~MsprobeAnswerPanel() override;
    /// Reads `path`, finds its dumps and computes DumpScope's answer, in the background.
    void open(const QString &path);
    bool isBusy() const { return m_load.isRunning(); }
    /// The last open() is shown (its rows, or its error).
    bool isReady() const { return m_ready; }
    QStandardItemModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *summary() const { return m_summary; }
    QPlainTextEdit *detail() const { return m_detail; }

signals:
    void opened();
    /// A row was activated (double-click, Enter): show `opName` of `rank` ("rank_1") and `step`
    /// ("step1", empty: any) in an open dump.
    void opRequested(const QString &rank, const QString &step, const QString &opName);

private:
    void showDocument();
    void showRow(int row);

    QLabel *m_summary;
    QTableView *m_view;
    QStandardItemModel *m_model;
    QPlainTextEdit *m_detail;
    std::shared_ptr<const AnswerDocument> m_doc;
    QFutureWatcher<Result<AnswerDocument>> m_load;
    bool m_ready = false;
};

} // namespace ds
