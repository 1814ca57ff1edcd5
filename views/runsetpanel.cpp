#include "runsetpanel.h"

#include "background.h"

#include <QFont>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

namespace ds {

namespace {

/// The phase in the interface language (core's runPhaseName is the JSON's word).
QString phaseText(RunPhase p)
{
    switch (p) {
    case RunPhase::Forward: return RunSetPanel::tr("forward");
    case RunPhase::Backward: return RunSetPanel::tr("backward");
    case RunPhase::Optimizer: return RunSetPanel::tr("optimizer");
    }
    return {};
}

QString runsText(const std::vector<int> &runs)
{
    QStringList parts;
    for (int r : runs)
        parts << QString::number(r + 1);
    return parts.join(QStringLiteral(", "));
}

QString whereText(const RunSetRow &r)
{
    QStringList at;
    if (!r.step.isEmpty())
        at << RunSetPanel::tr("step %1").arg(r.stepNumber >= 0 ? QString::number(r.stepNumber) : r.step);
    if (!r.rank.isEmpty())
        at << RunSetPanel::tr("rank %1").arg(r.rankNumber >= 0 ? QString::number(r.rankNumber) : r.rank);
    at << r.op;
    return RunSetPanel::tr("%1 (row %2)").arg(at.join(QStringLiteral(", ")), r.name);
}

QString sameText(CompareMode mode)
{
    return mode == CompareMode::Summary ? RunSetPanel::tr("identical statistics") : RunSetPanel::tr("bit-identical");
}

} // namespace

QString RunSetPanel::answersText(const RunSetResult &r)
{
    // RunSetResult::text() (the CLI's) in the interface language, the answers first: below the
    // run paths and pairs they were out of sight in the tab's answer pane.
    QString t;
    for (const auto &g : r.sameGroups)
        t += tr("runs %1 are %2").arg(runsText(g), sameText(r.mode)) + QLatin1Char('\n');
    if (r.departure)
        t += tr("departs first: run %1 at %2; majority: runs %3")
                 .arg(runsText(r.departure->runs), whereText(r.departure->row),
                      runsText(*std::max_element(r.departure->groups.begin(), r.departure->groups.end(),
                                                 [](const auto &x, const auto &y) { return x.size() < y.size(); })));
    else
        t += tr("departs first: no run departs from a majority");
    t += QLatin1Char('\n') + tr("first operator whose inputs agree and an output differs:") + QLatin1Char('\n');
    for (size_t p = 0; p < r.nondeterministic.size(); ++p) {
        const auto &f = r.nondeterministic[p];
        t += QStringLiteral("  %1: ").arg(phaseText(RunPhase(p)), -9);
        if (!f) {
            t += tr("none") + QLatin1Char('\n');
            continue;
        }
        QStringList groups;
        for (const auto &g : f->groups)
            groups << QLatin1Char('{') + runsText(g) + QLatin1Char('}');
        t += (f->betweenSteps ? tr("updated differently before %1; runs agree as %2") : tr("%1; runs agree as %2"))
                 .arg(whereText(f->row), groups.join(QLatin1Char(' ')))
             + QLatin1Char('\n');
    }
    t += QLatin1Char('\n') + tr("pairs:") + QLatin1Char('\n');
    for (const RunSetPair &p : r.pairs) {
        t += QStringLiteral("  %1-%2: ").arg(p.a + 1).arg(p.b + 1);
        if (p.same)
            t += tr("%1 (%2 rows)").arg(sameText(p.mode)).arg(p.rows);
        else
            t += tr("%1 of %2 rows differ, %3 not compared, %4 unmatched").arg(p.differing).arg(p.rows).arg(p.notCompared).arg(p.benchOnly)
                 + (p.firstDifference ? tr("; first: %1").arg(whereText(*p.firstDifference)) : QString());
        t += QLatin1Char('\n');
    }
    t += QLatin1Char('\n') + tr("mode:  %1").arg(compareModeName(r.mode)) + QLatin1Char('\n');
    for (size_t i = 0; i < r.paths.size(); ++i)
        t += tr("run %1: %2").arg(i + 1).arg(r.paths[i]) + QLatin1Char('\n');
    return t;
}

void RunSetMatrixModel::setRunSet(std::shared_ptr<const RunSetResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_ops = m_result ? runSetMatrix(*m_result) : std::vector<RunSetOp>{};
    endResetModel();
}

int RunSetMatrixModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_ops.size()); }

int RunSetMatrixModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : FirstRunColumn + int(m_result->paths.size());
}

QVariant RunSetMatrixModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const RunSetOp &op = m_ops[size_t(index.row())];
    const int run = index.column() - FirstRunColumn;
    const bool departs = m_result->departure && m_result->departure->row.scope == op.scope && m_result->departure->row.op == op.op;
    if (role == Qt::FontRole && departs) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (run < 0) {
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
            return {};
        switch (index.column()) {
        case StepColumn: return op.stepNumber;
        case RankColumn: return op.rankNumber;
        case OpColumn:
            return role == Qt::ToolTipRole && departs ? tr("%1: the first operator where a run departs from the majority").arg(op.op)
                                                      : op.op;
        case PhaseColumn: return phaseText(op.phase);
        }
        return {};
    }
    // missing: the run lacks a row of the op (or it was not compared there)
    const bool missing = std::none_of(m_result->rows.begin(), m_result->rows.end(), [&](const RunSetRow &r) {
        return r.scope == op.scope && r.op == op.op && r.cls[size_t(run)] >= 0;
    });
    const int agree = missing ? -1 : op.agree[size_t(run)] ? 1 : 0;
    switch (role) {
    case AgreeRole: return agree;
    case Qt::DisplayRole: return agree > 0 ? QStringLiteral("=") : agree == 0 ? QStringLiteral("\u2260") : QStringLiteral("\u2014");
    case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
    case Qt::BackgroundRole: return agree > 0 ? QColor(0xd8, 0xf0, 0xd8) : agree == 0 ? QColor(0xff, 0x9e, 0x8a) : QColor(0xdd, 0xdd, 0xdd);
    case Qt::ForegroundRole: return QColor(Qt::black);
    case Qt::ToolTipRole:
        return agree > 0   ? tr("Run %1 agrees with the majority in every row of %2").arg(run + 1).arg(op.op)
               : agree == 0 ? tr("Run %1 differs from the majority in %2").arg(run + 1).arg(op.op)
                            : tr("Run %1 does not hold %2").arg(run + 1).arg(op.op);
    }
    return {};
}

QVariant RunSetMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || !m_result)
        return {};
    if (section >= FirstRunColumn) {
        const size_t run = size_t(section - FirstRunColumn);
        if (run >= m_result->paths.size())
            return {};
        if (role == Qt::DisplayRole)
            return tr("Run %1").arg(run + 1);
        if (role == Qt::ToolTipRole)
            return m_result->paths[run];
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StepColumn: return tr("Step");
    case RankColumn: return tr("Rank");
    case OpColumn: return tr("Operator");
    case PhaseColumn: return tr("Phase");
    }
    return {};
}

int RunSetMatrixModel::rowOf(const QString &scope, const QString &op) const
{
    for (size_t i = 0; i < m_ops.size(); ++i)
        if (m_ops[i].scope == scope && m_ops[i].op == op)
            return int(i);
    return -1;
}

RunSetPanel::RunSetPanel(QWidget *parent)
    : QWidget(parent), m_status(new QLabel(this)), m_answers(new QPlainTextEdit(this)), m_view(new QTableView(this)),
      m_model(new RunSetMatrixModel(this))
{
    setObjectName(QStringLiteral("runSetPanel"));
    m_status->setWordWrap(true);
    m_status->setText(tr("Analysis \u2192 Compare Runs\u2026 compares three or more runs of the same training with each other."));
    m_answers->setReadOnly(true);
    m_answers->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_answers->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setModel(m_model);
    m_view->setObjectName(QStringLiteral("runSetMatrix"));
    m_view->setAlternatingRowColors(false);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setWordWrap(false);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_answers);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &RunSetPanel::onFinished);
}

RunSetPanel::~RunSetPanel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

void RunSetPanel::compareRuns(const QStringList &paths)
{
    m_status->setText(tr("Comparing %n runs with each other\u2026", nullptr, int(paths.size())));
    start([paths](const JobControl &job) {
        if (paths.size() < 3)
            return Outcome{nullptr, RunSetPanel::tr("A run set needs three or more runs (%n given); compare two runs with Compare with\u2026",
                                                    nullptr, int(paths.size()))};
        auto r = compareRunPaths(paths, {}, &job);
        if (!r)
            return Outcome{nullptr, r.errorText()};
        return Outcome{std::make_shared<const RunSetResult>(std::move(*r)), {}};
    });
}

void RunSetPanel::compareRunsIn(const QString &folder)
{
    m_status->setText(tr("Looking for runs in %1\u2026").arg(folder));
    start([folder](const JobControl &job) {
        auto paths = runFoldersUnder(folder, &job);
        if (!paths)
            return Outcome{nullptr, paths.errorText()};
        if (paths->size() < 3)
            return Outcome{nullptr, RunSetPanel::tr("%1 holds %n run(s); a run set needs three or more run folders", nullptr,
                                                    int(paths->size()))
                                        .arg(folder)};
        auto r = compareRunPaths(*paths, {}, &job);
        if (!r)
            return Outcome{nullptr, r.errorText()};
        return Outcome{std::make_shared<const RunSetResult>(std::move(*r)), {}};
    });
}

void RunSetPanel::start(Work work)
{
    if (m_cancel)
        m_cancel->store(true); // the older comparison stops; its result is dropped
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    m_busy = true;
    std::function<Outcome()> job = [work = std::move(work), cancel] {
        JobControl control;
        control.cancelFlag = cancel.get();
        return work(control);
    };
    if (m_watcher.isRunning()) {
        m_pending = std::move(job); // started when the older one has stopped
        return;
    }
    m_watcher.setFuture(QtConcurrent::run(backgroundPool(), std::move(job)));
}

void RunSetPanel::onFinished()
{
    if (m_pending) { // a newer request: the result of this one is stale
        m_watcher.setFuture(QtConcurrent::run(backgroundPool(), std::exchange(m_pending, nullptr)));
        return;
    }
    const Outcome o = m_watcher.result();
    m_busy = false;
    m_result = o.result;
    m_model->setRunSet(m_result);
    if (!m_result) {
        m_status->setText(o.error);
        m_answers->clear();
    } else {
        m_status->setText(tr("%n runs compared with each other (%1 mode)", nullptr, int(m_result->paths.size()))
                              .arg(compareModeName(m_result->mode)));
        m_answers->setPlainText(answersText(*m_result));
        // Every run column stays in view (at 1280x800 the last one was cut off behind a 220-pixel
        // Operator column): Phase and the runs come before the Operator, which is last and takes
        // the room left, its long names elided in the middle (full name in the tooltip).
        QHeaderView *header = m_view->horizontalHeader();
        header->moveSection(header->visualIndex(RunSetMatrixModel::PhaseColumn), RunSetMatrixModel::OpColumn);
        for (int run = 0; run < int(m_result->paths.size()); ++run)
            header->moveSection(header->visualIndex(RunSetMatrixModel::FirstRunColumn + run), RunSetMatrixModel::PhaseColumn + run);
        for (int c = 0; c < m_model->columnCount(); ++c)
            if (c != RunSetMatrixModel::OpColumn) // the Operator takes what is left (stretched last section)
                m_view->resizeColumnToContents(c);
        if (m_result->departure)
            if (const int row = m_model->rowOf(m_result->departure->row.scope, m_result->departure->row.op); row >= 0)
                m_view->scrollTo(m_model->index(row, RunSetMatrixModel::StepColumn), QAbstractItemView::PositionAtCenter);
    }
    emit finished();
}

QString RunSetPanel::answerText() const { return m_result ? answersText(*m_result) : m_status->text(); }

} // namespace ds
