#include "rungridmodel.h"

#include <QLocale>
#include <map>

namespace ds {

namespace {

QString sizeText(quint64 bytes) { return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat); }

} // namespace

RunGridModel::RunGridModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunGridModel::setRun(const RunInfo &run)
{
    auto copy = std::make_shared<const RunInfo>(run);
    const RunInfo &kept = *copy;
    setRun(std::move(copy), kept);
}

void RunGridModel::setRun(std::shared_ptr<const void> owner, const RunInfo &run)
{
    setRun(std::move(owner), run, std::move(*layoutOf(run)));
}

std::shared_ptr<RunGridModel::Layout> RunGridModel::layoutOf(const RunInfo &run)
{
    auto layout = std::make_shared<Layout>();
    // Rows and columns looked up by hash of their labels (a label gives its number): a run of
    // 1,024 ranks searched linearly per scope stalled the GUI thread.
    QHash<QString, int> stepRow, rankColumn;
    std::map<std::pair<qint64, QString>, int> ranks; // sorted, as std::sort sorted them
    for (const RunScope &s : run.scopes) {
        if (!stepRow.contains(s.step)) {
            stepRow.insert(s.step, int(layout->steps.size()));
            layout->steps.push_back({s.stepNumber, s.step});
        }
        if (!rankColumn.contains(s.rank)) {
            rankColumn.insert(s.rank, 0);
            ranks.try_emplace({s.rankNumber, s.rank}, 0);
        }
    }
    for (auto &[rank, column] : ranks) {
        rankColumn.insert(rank.second, int(layout->ranks.size()));
        layout->ranks.push_back(rank);
    }
    layout->cells.resize(layout->steps.size() * layout->ranks.size());
    layout->byScope.reserve(qsizetype(run.scopes.size()));
    for (const RunScope &s : run.scopes) {
        const int i = stepRow.value(s.step) * int(layout->ranks.size()) + rankColumn.value(s.rank);
        layout->cells[size_t(i)].scope = &s;
        layout->byScope.insert(s.id, i);
    }
    return layout;
}

void RunGridModel::setRun(std::shared_ptr<const void> owner, const RunInfo &run, Layout &&layout)
{
    beginResetModel();
    m_firstDivergence.clear();
    m_runOwner = std::move(owner);
    m_run = &run;
    // swapped: the old cells are freed with `layout` by the caller
    std::swap(m_steps, layout.steps);
    std::swap(m_ranks, layout.ranks);
    std::swap(m_cells, layout.cells);
    std::swap(m_byScope, layout.byScope);
    endResetModel();
}

RunGridModel::Cell *RunGridModel::cell(const QString &scope)
{
    const auto it = m_byScope.find(scope);
    return it == m_byScope.end() ? nullptr : &m_cells[size_t(*it)];
}

QModelIndex RunGridModel::indexOf(const QString &scope) const
{
    const auto it = m_byScope.find(scope);
    if (it == m_byScope.end() || m_ranks.empty())
        return {};
    return index(*it / int(m_ranks.size()), *it % int(m_ranks.size()));
}

const RunScope *RunGridModel::scopeAt(const QModelIndex &i) const
{
    if (!i.isValid() || m_ranks.empty())
        return nullptr;
    return m_cells[size_t(i.row()) * m_ranks.size() + size_t(i.column())].scope;
}

void RunGridModel::changed(const QString &scope)
{
    const QModelIndex i = indexOf(scope);
    if (i.isValid())
        emit dataChanged(i, i);
}

void RunGridModel::setProbe(const QString &scope, const ScopeProbe &probe)
{
    if (Cell *c = cell(scope)) {
        c->probe = probe;
        c->probed = true;
        changed(scope);
    }
}

void RunGridModel::setIndexed(const QString &scope, int ops, int errors)
{
    if (Cell *c = cell(scope)) {
        c->ops = ops;
        c->errors = errors;
        changed(scope);
    }
}

void RunGridModel::setCompare(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer)
{
    for (Cell &c : m_cells) {
        c.compare.reset();
        c.firstDivergence = false;
    }
    for (const ScopeSummary &s : scopes)
        if (Cell *c = cell(s.id))
            c->compare = s;
    if (answer.first)
        if (Cell *c = cell(answer.first->at.scope))
            c->firstDivergence = true;
    m_firstDivergence = answer.first ? answer.first->at.scope : QString();
    if (!m_cells.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void RunGridModel::addCompare(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer)
{
    for (const ScopeSummary &s : scopes)
        if (Cell *c = cell(s.id)) {
            c->compare = s;
            changed(s.id);
        }
    const QString first = answer.first ? answer.first->at.scope : QString();
    if (m_firstDivergence != first) {
        for (const QString &id : {m_firstDivergence, first})
            if (Cell *c = cell(id)) {
                c->firstDivergence = id == first && !first.isEmpty();
                changed(id);
            }
    }
    m_firstDivergence = first;
}

void RunGridModel::clearCompare() { setCompare({}, RunAnswer{}); }

void RunGridModel::setOverflow(const std::vector<ScopeSummary> &scopes, const RunAnswer &answer)
{
    // only each scope's first anomaly is shown: copying 102,400 whole summaries took the GUI
    // thread ~50 ms (1,024 x 100, bench_gui_latency DS_BENCH_OVERFLOW)
    for (Cell &c : m_cells) {
        c.overflowFirst.reset();
        c.firstAnomaly = false;
    }
    for (const ScopeSummary &s : scopes)
        if (s.first)
            if (Cell *c = cell(s.id))
                c->overflowFirst = s.first;
    if (answer.first)
        if (Cell *c = cell(answer.first->at.scope))
            c->firstAnomaly = true;
    if (!m_cells.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

int RunGridModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_steps.size()); }
int RunGridModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_ranks.size()); }

QString RunGridModel::cellText(const Cell &c) const
{
    if (!c.scope)
        return tr("(none)");
    QStringList lines;
    if (c.compare) {
        const ScopeSummary &s = *c.compare;
        if (!s.npu || !s.bench)
            lines << (s.npu ? tr("no bench scope") : tr("bench only"));
        else if (s.first)
            lines << (c.firstDivergence ? tr("\u2716 first: %1") : tr("\u2716 %1")).arg(s.first->op);
        else
            lines << tr("\u2714 agrees (%n row(s))", nullptr, int(s.rows));
    }
    if (c.overflowFirst)
        lines << (c.firstAnomaly ? tr("\u26a0 first anomaly: %1") : tr("\u26a0 %1")).arg(c.overflowFirst->op);
    QStringList facts;
    if (c.ops >= 0)
        facts << tr("%n op(s)", nullptr, c.ops);
    if (c.probed)
        facts << sizeText(c.probe.bytes);
    if (c.errors > 0)
        facts << tr("%n unreadable", nullptr, c.errors);
    if (!facts.isEmpty())
        lines << facts.join(QStringLiteral(" \u00b7 "));
    if (c.probed && !c.probe.what().isEmpty())
        lines << c.probe.what();
    if (lines.isEmpty())
        lines << QStringLiteral("\u2026");
    return lines.join(QLatin1Char('\n'));
}

QString RunGridModel::cellToolTip(const Cell &c) const
{
    if (!c.scope)
        return tr("No scope at this step and rank.");
    QStringList t{tr("Scope %1").arg(c.scope->id.isEmpty() ? tr("(whole run)") : c.scope->id)};
    for (const QString &d : c.scope->dirs)
        t << tr("Folder: %1").arg(d.isEmpty() ? QStringLiteral(".") : d);
    if (c.probed) {
        t << tr("%1 in %n file(s)", nullptr, c.probe.files).arg(sizeText(c.probe.bytes));
        if (!c.probe.framework.isEmpty())
            t << tr("Framework: %1, task: %2, level: %3").arg(c.probe.framework, c.probe.task, c.probe.level);
        if (!c.probe.contents.isEmpty())
            t << tr("Dumped: %1").arg(c.probe.contents.join(QStringLiteral(", ")));
        if (!c.probe.error.isEmpty())
            t << c.probe.error;
    }
    if (c.ops >= 0)
        t << tr("Indexed: %n operator(s)", nullptr, c.ops) + (c.errors ? tr(", %n unreadable file(s)", nullptr, c.errors) : QString());
    if (c.compare) {
        const ScopeSummary &s = *c.compare;
        t << tr("Compared: %1 rows \u2014 %2 pass, %3 warning, %4 error, %5 not compared")
                 .arg(s.rows).arg(s.pass).arg(s.warning).arg(s.error).arg(s.notCompared);
        if (s.first)
            t << tr("First divergence of this scope: %1 (%2): %3").arg(s.first->op, s.first->row, s.first->reason);
        if (c.firstDivergence)
            t << tr("The run's first divergence.");
    }
    if (c.overflowFirst)
        t << tr("First anomaly of this scope: %1: %2").arg(c.overflowFirst->op, c.overflowFirst->reason)
                 + (c.firstAnomaly ? QLatin1Char('\n') + tr("The run's first anomaly.") : QString());
    return t.join(QLatin1Char('\n'));
}

QVariant RunGridModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || m_ranks.empty())
        return {};
    const Cell &c = m_cells[size_t(index.row()) * m_ranks.size() + size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole: return cellText(c);
    case Qt::ToolTipRole: return cellToolTip(c);
    case ScopeIdRole: return c.scope ? c.scope->id : QString();
    case BytesRole: return c.probed ? QVariant(qulonglong(c.probe.bytes)) : QVariant();
    case OverflowRole: return c.overflowFirst ? (c.firstAnomaly ? 2 : 1) : 0;
    case StateRole: {
        State s = !c.scope ? State::Missing : State::Found;
        if (c.scope && c.probed)
            s = State::Probed;
        if (c.scope && c.ops >= 0)
            s = c.errors > 0 ? State::Problems : State::Indexed;
        if (c.compare)
            s = !c.compare->npu || !c.compare->bench ? State::NotCompared
                : c.firstDivergence                  ? State::FirstDivergence
                : c.compare->first                   ? State::Diverged
                                                     : State::Agrees;
        return int(s);
    }
    default: return {};
    }
}

QVariant RunGridModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    const auto &axis = orientation == Qt::Horizontal ? m_ranks : m_steps;
    if (section < 0 || size_t(section) >= axis.size())
        return {};
    const auto &[number, label] = axis[size_t(section)];
    if (label.isEmpty())
        return orientation == Qt::Horizontal ? tr("all ranks") : tr("all steps");
    if (number < 0)
        return label;
    return orientation == Qt::Horizontal ? tr("rank %1").arg(number) : tr("step %1").arg(number);
}

} // namespace ds
