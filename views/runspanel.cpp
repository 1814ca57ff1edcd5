#include "runspanel.h"

#include "background.h"
#include "dump/dumpindex.h"
#include "run/runtree.h"
#include "run/scopeprobe.h"

#include <QLocale>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <map>
#include <unordered_map>

namespace ds {

namespace {

using State = RunGridModel::State;

QColor stateColor(State s)
{
    switch (s) {
    case State::Missing: return QColor(0xee, 0xee, 0xee);
    case State::Found: return QColor(0xfb, 0xfb, 0xfb);
    case State::Probed:
    case State::Indexed: return QColor(0xee, 0xf3, 0xf8);
    case State::Problems: return QColor(0xfc, 0xe3, 0xc0);
    case State::NotCompared: return QColor(0xd9, 0xd9, 0xd9);
    case State::Agrees: return QColor(0xd8, 0xf0, 0xd8);
    case State::Diverged: return QColor(0xf8, 0xd0, 0xce);
    case State::FirstDivergence: return QColor(0xef, 0x8a, 0x84);
    }
    return Qt::white;
}

const QColor kAnomaly(0xd9, 0x5f, 0x02);

/// Cells: the state's colour, a thick border on the run's first divergence, an orange corner
/// on scopes with an overflow anomaly (filled for the run's first), the text lines on top.
class CellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *p, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const auto state = State(index.data(RunGridModel::StateRole).toInt());
        const QRect r = option.rect.adjusted(1, 1, -1, -1);
        p->save();
        p->fillRect(r, stateColor(state));
        if (state == State::FirstDivergence) {
            p->setPen(QPen(QColor(0xa3, 0x1f, 0x1a), 3));
            p->drawRect(r.adjusted(1, 1, -2, -2));
        }
        if (option.state & QStyle::State_Selected) {
            p->setPen(QPen(option.palette.highlight().color(), 2, Qt::DashLine));
            p->drawRect(r.adjusted(3, 3, -4, -4));
        }
        const int overflow = index.data(RunGridModel::OverflowRole).toInt();
        if (overflow) {
            QPolygon corner;
            const int k = overflow == 2 ? 16 : 11;
            corner << r.topRight() << QPoint(r.right() - k, r.top()) << QPoint(r.right(), r.top() + k);
            p->setPen(Qt::NoPen);
            p->setBrush(kAnomaly);
            p->drawPolygon(corner);
        }
        p->setPen(state == State::Missing ? QColor(0x88, 0x88, 0x88) : QColor(0x20, 0x20, 0x20));
        QFont f = option.font;
        const QStringList lines = index.data().toString().split(QLatin1Char('\n'));
        QRect text = r.adjusted(6, 4, -6, -4);
        const QFontMetrics fm(f);
        for (int i = 0; i < lines.size() && text.height() >= fm.height(); ++i) {
            QFont lf = f;
            lf.setBold(i == 0 && (state == State::FirstDivergence || state == State::Diverged));
            p->setFont(lf);
            const QString shown = QFontMetrics(lf).elidedText(lines[i], Qt::ElideMiddle, text.width());
            p->drawText(text, Qt::AlignLeft | Qt::AlignTop, shown);
            text.setTop(text.top() + fm.height());
        }
        p->restore();
    }
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override
    {
        const QFontMetrics fm(option.font);
        return {fm.horizontalAdvance(QLatin1Char('x')) * 30, fm.height() * 3 + 10};
    }
};

QString swatch(const QColor &c, const QString &label)
{
    return QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
        .arg(c.name(), label.toHtmlEscaped());
}

} // namespace

RunsPanel::RunsPanel(QWidget *parent) : QWidget(parent), m_model(new RunGridModel(this))
{
    m_runs = new QComboBox(this);
    m_runs->setToolTip(tr("The runs of the open dumps: a run is the folder above its step/rank (or time/device) folders"));
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runs->setMinimumContentsLength(20);
    m_shape = new QLabel(this);
    m_shape->setWordWrap(true); // a long path must not widen the window's centre
    m_compareLine = new QLabel(this);
    m_overflowLine = new QLabel(this);
    for (QLabel *l : {m_compareLine, m_overflowLine}) {
        l->setTextFormat(Qt::RichText);
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    m_legend->setText(QStringList{swatch(stateColor(State::Indexed), tr("read")), swatch(stateColor(State::Agrees), tr("agrees")),
                                  swatch(stateColor(State::Diverged), tr("diverges")),
                                  swatch(stateColor(State::FirstDivergence), tr("first divergence")),
                                  swatch(stateColor(State::NotCompared), tr("one side only")),
                                  swatch(stateColor(State::Problems), tr("unreadable files")), swatch(kAnomaly, tr("overflow anomaly"))}
                          .join(QStringLiteral(" &nbsp; ")));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_grid = new QTableView(this);
    m_grid->setModel(m_model);
    m_grid->setItemDelegate(new CellDelegate(m_grid));
    m_grid->setSelectionMode(QAbstractItemView::SingleSelection);
    m_grid->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_grid->setShowGrid(false);
    m_grid->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_grid->horizontalHeader()->setMinimumSectionSize(QFontMetrics(font()).horizontalAdvance(QLatin1Char('x')) * 12);
    m_grid->horizontalHeader()->setDefaultSectionSize(QFontMetrics(font()).horizontalAdvance(QLatin1Char('x')) * 24);
    m_grid->verticalHeader()->setDefaultSectionSize(QFontMetrics(font()).height() * 3 + 10);
    m_grid->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(m_runs, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_shape);
    m_cancelCompare = new QToolButton(this);
    m_cancelCompare->setText(tr("Cancel compare"));
    m_cancelCompare->setToolTip(tr("Stop comparing this run with its bench run (the scope pairs compared so far stay shown)"));
    m_cancelCompare->setVisible(false);
    connect(m_cancelCompare, &QToolButton::clicked, this, &RunsPanel::cancelCompare);
    auto *compareRow = new QHBoxLayout;
    compareRow->addWidget(m_compareLine, 1);
    compareRow->addWidget(m_cancelCompare, 0, Qt::AlignTop);
    layout->addLayout(compareRow);
    layout->addWidget(m_overflowLine);
    layout->addWidget(m_grid, 1);
    layout->addWidget(m_legend);
    layout->addWidget(m_status);

    connect(m_runs, &QComboBox::activated, this, [this](int i) {
        const QStringList key = m_runs->itemData(i).toStringList();
        if (key.size() == 2)
            showRun(key[0].toInt(), key[1]);
    });
    connect(m_grid, &QTableView::activated, this, [this](const QModelIndex &i) {
        if (const RunScope *s = m_model->scopeAt(i))
            emit scopeActivated(m_dump, m_runPath, s->id);
    });
    updateAnswers();
}

RunsPanel::~RunsPanel()
{
    cancelCompare();
    if (m_scan.cancel)
        *m_scan.cancel = true;
    m_cmp.job.waitForFinished(); // they call back into `this`
    m_scan.job.waitForFinished();
    for (auto &[dump, d] : m_dumps)
        if (d.cancel)
            *d.cancel = true;
    for (auto &[dump, d] : m_dumps) // they call back into `this`
        d.job.waitForFinished();
    for (QFuture<void> &job : m_closedJobs)
        job.waitForFinished();
}

void RunsPanel::openDump(int dump, const QString &path)
{
    awaitRuns(dump, path);
    startJob(dump, nullptr);
}

void RunsPanel::awaitRuns(int dump, const QString &path)
{
    DumpRuns &d = m_dumps[dump];
    if (d.cancel)
        *d.cancel = true;
    d.job.waitForFinished();
    d = DumpRuns{};
    d.path = path;
    d.cancel = std::make_shared<std::atomic<bool>>(false);
    d.probing = true;
    updateStatus();
}

void RunsPanel::setRuns(int dump, std::shared_ptr<const RunTree> runs)
{
    const auto it = m_dumps.find(dump);
    if (it == m_dumps.end() || it->second.started) // closed, or found already
        return;
    startJob(dump, runs ? std::move(runs) : std::make_shared<const RunTree>());
}

void RunsPanel::startJob(int dump, std::shared_ptr<const RunTree> given)
{
    DumpRuns &d = m_dumps[dump];
    d.started = true;
    auto cancel = d.cancel;
    d.job = QtConcurrent::run(backgroundPool(), [this, dump, path = d.path, cancel, given] {
        const BackgroundPriority background;
        std::shared_ptr<const RunTree> tree = given;
        if (!tree) {
            JobControl job;
            job.cancelFlag = cancel.get();
            auto found = discoverRuns(path, &job);
            tree = found ? std::make_shared<const RunTree>(std::move(*found)) : std::make_shared<const RunTree>();
        }
        if (cancel->load())
            return;
        // The first run's grid laid out here: 100,000 cells on the GUI thread took 0.2 s.
        auto layout = tree->runs.empty() ? nullptr : RunGridModel::layoutOf(tree->runs.front());
        QMetaObject::invokeMethod(this, [this, dump, tree, cancel, layout] {
            if (!cancel->load())
                onRunsFound(dump, tree, layout);
        }, Qt::QueuedConnection);
        // Then each scope's details, one at a time: the grid fills cell by cell.
        for (const RunInfo &run : tree->runs)
            for (const RunScope &scope : run.scopes) {
                if (cancel->load())
                    return;
                ScopeProbe p = probeScope(*tree, scope);
                QMetaObject::invokeMethod(this, [this, dump, run = run.relPath, id = scope.id, p = std::move(p), cancel] {
                    if (!cancel->load())
                        onProbe(dump, run, id, p);
                }, Qt::QueuedConnection);
            }
        QMetaObject::invokeMethod(this, [this, dump, cancel] {
            if (cancel->load())
                return;
            m_dumps[dump].probing = false;
            updateStatus();
            emit probed(dump);
        }, Qt::QueuedConnection);
    });
}

void RunsPanel::onRunsFound(int dump, std::shared_ptr<const RunTree> tree, std::shared_ptr<RunGridModel::Layout> layout)
{
    DumpRuns &d = m_dumps[dump];
    d.tree = std::move(tree);
    d.layout = std::move(layout);
    fillChooser();
    if (m_dump < 0 || m_dump == dump)
        showRun(dump, m_dump == dump ? m_runPath : QString());
    updateStatus();
    emit runsFound(dump);
}

void RunsPanel::onProbe(int dump, const QString &run, const QString &scope, const ScopeProbe &probe)
{
    DumpRuns &d = m_dumps[dump];
    if (d.probes.insert_or_assign(key(run, scope), probe).second)
        ++d.probedOfRun[run];
    if (dump == m_dump && run == m_runPath) {
        m_model->setProbe(scope, probe);
        updateStatus();
    }
}

QString RunsPanel::statusText() const
{
    // The shown run's state first, then the dumps whose runs are still being looked for.
    QString text;
    const auto shown = m_dumps.find(m_dump);
    if (shown != m_dumps.end()) {
        const DumpRuns &d = shown->second;
        const RunInfo *run = d.tree ? d.tree->run(m_runPath) : nullptr;
        if (!d.tree) {
            text = tr("Looking for runs in %1\u2026").arg(d.path);
        } else if (run) {
            // counted as the probes arrive: counting them here, once per probe, was quadratic in
            // the scopes (12.9 min of GUI-thread stall at 20,480 scopes)
            const auto counted = d.probedOfRun.find(run->relPath);
            const size_t read = counted == d.probedOfRun.end() ? 0 : counted->second;
            text = read < run->scopes.size() ? tr("Reading scope details\u2026 %1 of %2").arg(read).arg(run->scopes.size())
                   : d.scopeByScope
                       ? tr("Sizes and contents of all %1 scopes read; a scope's operators are read when it is selected or expanded in the dump tree.")
                             .arg(QLocale().toString(qulonglong(run->scopes.size())))
                       : tr("All scopes read.");
        } else {
            text = d.probing ? tr("Looking for runs in %1\u2026").arg(d.path) : tr("No run found in %1.").arg(d.path);
        }
    }
    for (const auto &[dump, d] : m_dumps)
        if (dump != m_dump && !d.tree)
            text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + tr("Looking for runs in %1\u2026").arg(d.path);
    return text;
}

void RunsPanel::updateStatus() { m_status->setText(statusText()); }

void RunsPanel::closeDump(int dump)
{
    const auto it = m_dumps.find(dump);
    if (it == m_dumps.end())
        return;
    if (it->second.cancel) // the walk's queued calls check it and do nothing
        *it->second.cancel = true;
    m_closedJobs.push_back(it->second.job); // stops at its next check; waited for by the destructor
    m_closedJobs.erase(std::remove_if(m_closedJobs.begin(), m_closedJobs.end(), [](const QFuture<void> &f) { return f.isFinished(); }),
                       m_closedJobs.end());
    m_dumps.erase(it);
    if (m_cmp.dump == dump && m_cmp.running) { // its answers would name a closed dump
        cancelCompare();
        m_cmp.running = false;
        ++m_cmp.generation; // what it still sends is dropped
        m_cmp.dump = -1;
    }
    if (m_scan.dump == dump && m_scan.running) { // the same for its overflow scan
        *m_scan.cancel = true;
        m_scan.running = false;
        ++m_scan.generation;
        m_scan.dump = -1;
    }
    fillChooser();
    if (m_dump == dump) {
        m_dump = -1;
        m_runPath.clear();
        const auto next = std::find_if(m_dumps.begin(), m_dumps.end(), [](const auto &d) { return d.second.tree != nullptr; });
        if (next != m_dumps.end())
            showRun(next->first, QString());
        else
            refresh();
    }
    updateStatus();
}

std::shared_ptr<const RunTree> RunsPanel::runs(int dump) const
{
    const auto it = m_dumps.find(dump);
    return it == m_dumps.end() ? nullptr : it->second.tree;
}

bool RunsPanel::isBusy() const
{
    return std::any_of(m_dumps.begin(), m_dumps.end(), [](const auto &d) { return d.second.probing; });
}

QString RunsPanel::runPathOf(const RunTree &tree, const QString &levelsRun)
{
    if (levelsRun.isEmpty())
        return tree.runs.size() == 1 ? tree.runs.front().relPath : QString();
    return levelsRun == QLatin1String(".") ? QString() : levelsRun;
}

void RunsPanel::fillChooser()
{
    m_runs->clear();
    for (const auto &[dump, d] : m_dumps) {
        if (!d.tree)
            continue;
        for (const RunInfo &r : d.tree->runs) {
            const QString name = r.relPath.isEmpty() ? r.name : r.relPath;
            m_runs->addItem(m_dumps.size() > 1 ? QStringLiteral("%1 \u2014 %2").arg(QFileInfo(d.path).fileName(), name) : name,
                            QStringList{QString::number(dump), r.relPath});
        }
    }
}

void RunsPanel::setScopeByScope(int dump)
{
    if (const auto it = m_dumps.find(dump); it != m_dumps.end()) {
        it->second.scopeByScope = true;
        updateStatus();
    }
}

void RunsPanel::showRun(int dump, const QString &runPath)
{
    const auto it = m_dumps.find(dump);
    if (it == m_dumps.end() || !it->second.tree)
        return;
    const DumpRuns &d = it->second;
    const RunInfo *run = d.tree->run(runPath);
    if (!run && !d.tree->runs.empty())
        run = &d.tree->runs.front();
    const bool same = dump == m_dump && run && run->relPath == m_runPath && m_model->rowCount() > 0;
    m_dump = dump;
    m_runPath = run ? run->relPath : QString();
    for (int i = 0; i < m_runs->count(); ++i)
        if (m_runs->itemData(i).toStringList() == QStringList{QString::number(dump), m_runPath})
            m_runs->setCurrentIndex(i);
    if (!same)
        refresh();
}

void RunsPanel::refresh()
{
    const auto it = m_dumps.find(m_dump);
    const RunInfo *run = it != m_dumps.end() && it->second.tree ? it->second.tree->run(m_runPath) : nullptr;
    if (!run) {
        m_model->setRun(RunInfo{});
        m_shape->setText(m_dumps.empty() ? QString() : tr("No run found."));
        updateAnswers();
        updateStatus();
        return;
    }
    DumpRuns &d = it->second;
    if (d.layout && !d.tree->runs.empty() && run == &d.tree->runs.front()) // laid out by the walk's worker
        m_model->setRun(d.tree, *run, std::move(*std::exchange(d.layout, nullptr)));
    else
        m_model->setRun(d.tree, *run); // no copy of the run's scopes
    // Only the run's scopes probed or indexed so far (keys run + '\n' + scope, sorted): a run
    // of 100,000 scopes is not looked up scope by scope when few are read.
    const QString prefix = key(run->relPath, QString());
    for (auto p = d.probes.lower_bound(prefix); p != d.probes.end() && p->first.startsWith(prefix); ++p)
        m_model->setProbe(p->first.mid(prefix.size()), p->second);
    for (auto x = d.indexed.lower_bound(prefix); x != d.indexed.end() && x->first.startsWith(prefix); ++x)
        m_model->setIndexed(x->first.mid(prefix.size()), x->second.first, x->second.second);
    if (const auto c = d.compare.find(run->relPath); c != d.compare.end())
        m_model->setCompare(c->second.scopes, c->second.answer);
    if (const auto o = d.overflow.find(run->relPath); o != d.overflow.end())
        m_model->setOverflow(o->second.scopes, o->second.answer);
    const int steps = m_model->rowCount(), ranks = m_model->columnCount();
    m_shape->setText(tr("%1 \u00d7 %2 (%3 scopes, %4) in %5").arg(tr("%Ln step(s)", nullptr, steps), tr("%Ln rank(s)", nullptr, ranks))
                         .arg(QLocale().toString(qulonglong(run->scopes.size()))) // 20,480, not 20480, as the status line
                         .arg(run->formats.join(QStringLiteral(", ")), d.path + (run->relPath.isEmpty() ? QString() : QLatin1Char('/') + run->relPath)));
    fitColumns();
    updateAnswers();
    updateStatus();
}

void RunsPanel::setIndex(int dump, const std::shared_ptr<const DumpIndex> &index)
{
    DumpRuns &d = m_dumps[dump];
    if (!index || !d.tree)
        return;
    // Operators per directory are counted off the GUI thread (a run can hold millions); the
    // ops of one directory share their levels, so the scope keys are made once per directory.
    using Counts = std::vector<std::pair<std::shared_ptr<const DumpLevels>, int>>;
    const int generation = ++d.indexGeneration;
    auto *watcher = new QFutureWatcher<Counts>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, dump, index, generation] {
        watcher->deleteLater();
        const auto it = m_dumps.find(dump);
        if (it == m_dumps.end() || it->second.indexGeneration != generation || !it->second.tree)
            return;
        DumpRuns &d = it->second;
        std::map<QString, std::pair<int, int>> counts;
        for (const auto &[levels, n] : watcher->result())
            counts[key(runPathOf(*d.tree, levels->run), scopeIdOf(*levels))].first += n;
        for (const FileError &e : index->errors)
            for (const RunInfo &r : d.tree->runs)
                for (const RunScope &s : r.scopes)
                    for (const QString &dir : s.dirs)
                        if (!dir.isEmpty() && (e.file == dir || e.file.startsWith(dir + QLatin1Char('/'))))
                            ++counts[key(r.relPath, s.id)].second;
        d.indexed = std::move(counts);
        if (dump == m_dump)
            refresh();
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [index] {
        const BackgroundPriority background;
        std::unordered_map<const DumpLevels *, size_t> slot;
        Counts counts;
        const DumpLevels *last = nullptr;
        size_t lastSlot = 0;
        for (const OpRecord &op : index->ops) {
            if (&*op.levels != last) {
                last = &*op.levels;
                const auto [it, added] = slot.try_emplace(last, counts.size());
                if (added) // the levels stay alive with the index, which the GUI thread holds
                    counts.emplace_back(std::shared_ptr<const DumpLevels>(index, last), 0);
                lastSlot = it->second;
            }
            ++counts[lastSlot].second;
        }
        return counts;
    }));
}

void RunsPanel::setCompare(int dump, const QString &runPath, std::vector<ScopeSummary> scopes, RunAnswer answer)
{
    DumpRuns &d = m_dumps[dump];
    d.compare[runPath] = Answers{std::move(scopes), std::move(answer)};
    if (dump != m_dump || runPath != m_runPath)
        showRun(dump, runPath);
    else
        refresh();
}

RunsPanel::RunOverflow RunsPanel::overflowByRun(const std::vector<ScopeSummary> &scopes)
{
    RunOverflow runs;
    for (auto &[levelsRun, list] : scopesByRun(scopes)) {
        RunAnswer answer = combineRun(list, RunAnswerKind::Overflow);
        for (ScopeSummary &scope : list) // the clock is in the answer now; the grid shows no comm ops
            std::vector<CommOp>().swap(scope.comm);
        runs[levelsRun] = {std::move(list), std::move(answer)};
    }
    return runs;
}

void RunsPanel::setOverflow(int dump, const std::vector<ScopeSummary> &scopes) { setOverflow(dump, overflowByRun(scopes)); }

void RunsPanel::setOverflow(int dump, const RunOverflow &runs) { setOverflow(dump, RunOverflow(runs)); }

void RunsPanel::setOverflow(int dump, RunOverflow &&runs)
{
    DumpRuns &d = m_dumps[dump];
    d.overflow.clear();
    if (!d.tree)
        return;
    for (auto &[levelsRun, result] : runs)
        d.overflow[runPathOf(*d.tree, levelsRun)] = Answers{std::move(result.first), std::move(result.second)};
    if (dump != m_dump)
        return;
    // The grid shows this run already: only its overflow cells and lines change. A refresh()
    // lays out and probes every cell again (the GUI thread's worst tick, 57-63 ms at 20,480
    // scopes, came when a scan's answer arrived).
    const auto o = d.overflow.find(m_runPath);
    if (o == d.overflow.end() || m_model->rowCount() == 0 || &m_model->run() != d.tree->run(m_runPath)) {
        refresh();
        return;
    }
    m_model->setOverflow(o->second.scopes, o->second.answer);
    updateAnswers();
    updateStatus();
}

void RunsPanel::fitColumns()
{
    // Few ranks share the width (long operator names stay readable); many keep a fixed width
    // and scroll.
    const int columns = m_model->columnCount();
    if (columns == 0)
        return;
    const int available = m_grid->viewport()->width() > 50 ? m_grid->viewport()->width() : width() - m_grid->verticalHeader()->width() - 30;
    const int each = std::max(m_grid->horizontalHeader()->defaultSectionSize(), available / columns);
    for (int c = 0; c < columns; ++c)
        m_grid->setColumnWidth(c, columns <= 8 ? each : m_grid->horizontalHeader()->defaultSectionSize());
}

void RunsPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

QString RunsPanel::compareAnswer() const
{
    const auto it = m_dumps.find(m_dump);
    if (it == m_dumps.end())
        return {};
    const auto c = it->second.compare.find(m_runPath);
    return c == it->second.compare.end() ? QString() : c->second.answer.line();
}

QString RunsPanel::overflowAnswer() const
{
    const auto it = m_dumps.find(m_dump);
    if (it == m_dumps.end())
        return {};
    const auto c = it->second.overflow.find(m_runPath);
    return c == it->second.overflow.end() ? QString() : c->second.answer.line();
}

namespace {

/// Where each rank's own finding sits on the communication-op clock (small print under the answer).
QString clockLines(const RunAnswer &a)
{
    if (!a.first || a.first->ranks.size() < 2)
        return a.first ? QStringLiteral("<br><small>%1</small>").arg(a.first->at.clock.describe().toHtmlEscaped()) : QString();
    QStringList lines;
    // At most kShown ranks: a step of 1,024 ranks would push the grid out of the window.
    constexpr size_t kShown = 6;
    for (size_t i = 0; i < a.first->ranks.size() && i < kShown; ++i) {
        const RunAnswer::RankFinding &r = a.first->ranks[i];
        lines << (r.found ? RunsPanel::tr("%1: %2, %3").arg(r.scope, r.finding.op, r.clock.describe())
                          : RunsPanel::tr("%1: none in this step").arg(r.scope))
                     .toHtmlEscaped();
    }
    if (a.first->ranks.size() > kShown)
        lines << RunsPanel::tr("\u2026 and %Ln more rank(s) of this step (their cells in the grid)", nullptr, int(a.first->ranks.size() - kShown));
    return QStringLiteral("<br><small>%1</small>").arg(lines.join(QStringLiteral("<br>")));
}

} // namespace

void RunsPanel::updateAnswers()
{
    const auto it = m_dumps.find(m_dump);
    const Answers *compare = nullptr, *overflow = nullptr;
    if (it != m_dumps.end()) {
        if (const auto c = it->second.compare.find(m_runPath); c != it->second.compare.end())
            compare = &c->second;
        if (const auto o = it->second.overflow.find(m_runPath); o != it->second.overflow.end())
            overflow = &o->second;
    }
    const QString state = compareState(); // a compare scope pair by scope pair (runspanelcompare.cpp)
    QString line = !compare || (compare->scopes.empty() && !state.isEmpty())
                       ? (state.isEmpty() ? tr("<b>Compare:</b> not compared yet (Analysis \u2192 Compare with\u2026 compares this run with a bench run).")
                                          : tr("<b>Compare:</b> %1").arg(state.toHtmlEscaped()))
                       : tr("<b>Compare:</b> %1").arg(compare->answer.line().toHtmlEscaped()) + clockLines(compare->answer);
    if (compare && !compare->scopes.empty() && !state.isEmpty())
        line += QStringLiteral("<br><small>%1</small>").arg(state.toHtmlEscaped());
    m_compareLine->setText(line);
    m_cancelCompare->setVisible(m_cmp.running && m_cmp.dump == m_dump && m_cmp.runPath == m_runPath);
    m_overflowLine->setText(!overflow ? tr("<b>Overflow:</b> not checked yet.")
                                      : tr("<b>Overflow:</b> %1").arg(overflow->answer.line().toHtmlEscaped()) + clockLines(overflow->answer));
}

} // namespace ds
