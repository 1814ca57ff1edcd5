#include "overflowpanel.h"

#include "background.h"
#include "run/runcompare.h"
#include "runspanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ds {

namespace {

enum ItemRole { DumpRole = Qt::UserRole + 1, RecordRole, ScopeRole, FindingRole };

QString esc(const QString &s) { return s.toHtmlEscaped(); }
QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("\u2014"); }

QColor levelColor(OverflowLevel l)
{
    switch (l) {
    case OverflowLevel::Critical: return QColor(0xd3, 0x2f, 0x2f);
    case OverflowLevel::High: return QColor(0xef, 0x6c, 0x00);
    case OverflowLevel::Medium: return QColor(0xb8, 0x8a, 0x00);
    case OverflowLevel::None: break;
    }
    return {};
}

QString levelText(OverflowLevel l)
{
    switch (l) {
    case OverflowLevel::Critical: return OverflowPanel::tr("critical: produced here");
    case OverflowLevel::High: return OverflowPanel::tr("high");
    case OverflowLevel::Medium: return OverflowPanel::tr("medium");
    case OverflowLevel::None: break;
    }
    return {};
}

QString findingLevelText(const SoftwareFinding &f)
{
    return f.level == OverflowLevel::None && f.statisticOverflow ? OverflowPanel::tr("statistic overflow") : levelText(f.level);
}

/// A recorded statistic as msprobe writes it (NaN, Infinity) or a number.
QString token(double v)
{
    if (std::isnan(v))
        return QStringLiteral("NaN");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
    return QString::number(v, 'g', 6);
}

QString opLabel(const OpRecord &op)
{
    const QString &name = op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName();
    // Framework entries carry their type in the name ("Functional.linear.0.forward").
    if (op.opType.isEmpty() || name.startsWith(op.opType) || name.contains(QLatin1Char('.')))
        return name;
    return op.opType + QLatin1Char(' ') + name;
}

} // namespace

OverflowPanel::OverflowPanel(QWidget *parent) : QWidget(parent)
{
    m_list = new QTreeWidget(this);
    m_list->setColumnCount(4);
    m_list->setHeaderLabels({tr("Record / operator"), tr("Kind"), tr("Status"), tr("Linked operator")});
    m_list->setUniformRowHeights(true);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_list->header()->resizeSection(0, 300);
    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setPlaceholderText(tr("Select an overflow record or a finding to see its decoded causes and operator."));
    m_show = new QPushButton(tr("Show operator"), this);
    m_show->setEnabled(false);
    m_show->setToolTip(tr("Select the linked operator in the dump tree, operator table and inspector"));
    m_cancel = new QPushButton(tr("Cancel scan"), this);
    m_scan = new QPushButton(tr("Scan all tensors"), this);
    m_scan->setToolTip(tr("Read every tensor of the dump and classify operators by NaN/Inf/saturated values (large dumps are not scanned automatically)"));
    m_scan->setEnabled(false);
    m_cancel->setVisible(false);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setVisible(false);
    m_state = new QLabel(tr("Open a dump: its OpDebug records are decoded and every operator is scanned for NaN, Inf and saturated values."), this);
    m_state->setWordWrap(true);

    auto *right = new QWidget(this);
    auto *rl = new QVBoxLayout(right);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(m_details, 1);
    rl->addWidget(m_show, 0, Qt::AlignRight);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto *status = new QHBoxLayout;
    status->addWidget(m_state, 1);
    status->addWidget(m_progress);
    status->addWidget(m_cancel);
    status->addWidget(m_scan);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(status);
    layout->addWidget(split, 1);

    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) { showItem(item); });
    connect(m_list, &QTreeWidget::itemActivated, this, [this] {
        if (m_shownOp >= 0)
            emit showOperator(m_shownDump, m_shownOp);
    });
    connect(m_show, &QPushButton::clicked, this, &OverflowPanel::showLinkedOperator);
    connect(m_scan, &QPushButton::clicked, this, [this] {
        for (const auto &[dump, r] : m_results)
            if (!r->report.scanned)
                analyze(dump, r->index, true);
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_cancelFlag)
            *m_cancelFlag = true;
    });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &OverflowPanel::onFinished);
    connect(&m_watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
}

OverflowPanel::~OverflowPanel()
{
    if (m_cancelFlag)
        *m_cancelFlag = true;
    m_watcher.waitForFinished();
}

const OverflowReport *OverflowPanel::report(int dump) const
{
    const auto it = m_results.find(dump);
    return it == m_results.end() ? nullptr : &it->second->report;
}

const std::unordered_map<int, int> *OverflowPanel::marks(int dump) const
{
    const auto it = m_results.find(dump);
    return it == m_results.end() ? nullptr : &it->second->marks;
}

const std::map<QString, std::pair<std::vector<ScopeSummary>, RunAnswer>> *OverflowPanel::runAnswers(int dump) const
{
    const auto it = m_results.find(dump);
    return it == m_results.end() ? nullptr : &it->second->runs;
}

void OverflowPanel::analyzeOnOpen(int dump, std::shared_ptr<const DumpIndex> index)
{
    m_queue.push_back({dump, std::move(index), false, true});
    if (m_running < 0) // not the watcher's state: a finished job whose signal is still queued is running until onFinished
        startNext();
}

void OverflowPanel::analyze(int dump, std::shared_ptr<const DumpIndex> index, bool scan)
{
    m_queue.push_back({dump, std::move(index), scan});
    if (m_running < 0) // not the watcher's state: a finished job whose signal is still queued is running until onFinished
        startNext();
}

void OverflowPanel::startNext()
{
    if (m_queue.empty())
        return;
    const auto [dump, index, scan, scanIfSmall] = m_queue.front();
    m_queue.erase(m_queue.begin());
    m_scan->setEnabled(false);
    m_running = dump;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancelFlag;
    m_runningPath = index->openedPath;
    updateState();
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [index, cancel, scan = scan, scanIfSmall = scanIfSmall](QPromise<std::shared_ptr<Result>> &promise) {
        const BackgroundPriority background;
        promise.setProgressRange(0, 1000);
        JobControl job;
        job.cancelFlag = cancel.get();
        job.progress = [&promise](int permille) { promise.setProgressValue(permille); };
        auto r = std::make_shared<Result>();
        r->index = index;
        OverflowOptions options;
        options.softwareScan = scan || (scanIfSmall && index->payloadBytes() <= kAutoScanBytes);
        r->report = analyzeOverflow(*index, options, &job);
        const std::vector<ScopeSummary> scopes = summarizeOverflow(*index, r->report);
        r->first = firstOverflows(scopes, r->report.scanned); // the rule the CLI applies
        if (!r->first.empty())
            r->firstOp = index->opIndex(r->first.front().finding.file);
        r->runs = RunsPanel::overflowByRun(scopes);
        for (const auto &f : r->report.findings) {
            int &mark = r->marks[f.op];
            mark = std::max(mark, int(f.level));
        }
        for (const auto &e : r->report.records)
            for (const auto &l : e.links)
                if (l.op >= 0)
                    r->marks[l.op] = 4;
        promise.addResult(std::move(r));
    }));
}

void OverflowPanel::onFinished()
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    const int dump = std::exchange(m_running, -1);
    const bool closed = std::exchange(m_runningClosed, false); // closed meanwhile: its result is dropped
    if (m_watcher.future().resultCount() && !closed) {
        m_results[dump] = m_watcher.result();
        rebuildList();
        // Announced on the next turn of the event loop: the tree, table and graph take the
        // marks then, the list above being a turn's work of its own on a large run.
        QTimer::singleShot(0, this, [this, dump] {
            if (m_results.count(dump))
                emit analysisFinished(dump);
        });
    }
    updateState();
    emit summaryChanged();
    startNext();
}

QString OverflowPanel::stateText() const
{
    size_t records = 0, findings = 0;
    bool cancelled = false;
    for (const auto &[dump, r] : m_results) {
        records += r->report.records.size();
        findings += r->report.findings.size();
        cancelled |= r->report.cancelled;
    }
    QString text;
    if (m_results.empty())
        text = tr("Open a dump: its OpDebug records are decoded and every operator is scanned for NaN, Inf and saturated values.");
    else if (cancelled)
        text = tr("Scan cancelled: %n OpDebug record(s) decoded; the software scan is incomplete.", nullptr, int(records));
    else
        text = tr("%n OpDebug record(s), ", nullptr, int(records)) + tr("%n software finding(s)", nullptr, int(findings))
               + (m_results.size() > 1 ? tr(" in %n dump(s).", nullptr, int(m_results.size())) : QStringLiteral("."));
    if (m_running >= 0 && !m_runningClosed)
        text = tr("Scanning %1 for overflows\u2026").arg(m_runningPath) + (m_results.empty() ? QString() : QLatin1Char(' ') + text);
    return text;
}

void OverflowPanel::updateState()
{
    m_state->setText(stateText());
    bool unscanned = false;
    for (const auto &[dump, res] : m_results)
        unscanned |= !res->report.scanned;
    m_scan->setEnabled(unscanned && m_running < 0);
}

const FirstOverflow *OverflowPanel::firstOverflow(int dump) const
{
    const auto it = m_results.find(dump);
    return it == m_results.end() || it->second->first.empty() ? nullptr : &it->second->first.front();
}

int OverflowPanel::firstOverflowOp(int dump) const
{
    const auto it = m_results.find(dump);
    return it == m_results.end() ? -1 : it->second->firstOp;
}

QString OverflowPanel::statusToolTip() const
{
    for (const auto &[dump, r] : m_results)
        if (!r->first.empty()) {
            const FirstOverflow &f = r->first.front();
            return statusLine() + QLatin1Char('\n') + tr("Why: %1").arg(f.finding.reason)
                   + (f.finding.file.isEmpty() ? QString() : QLatin1Char('\n') + tr("Operator file: %1").arg(f.finding.file));
        }
    return statusLine();
}

QString OverflowPanel::statusLine() const
{
    if (m_results.empty())
        return {};
    for (const auto &[dump, r] : m_results) { // dump order: the dump First Overflow goes to
        if (r->first.empty())
            continue;
        const FirstOverflow &f = r->first.front();
        QString line = tr("First overflow: %1").arg(f.line());
        if (m_results.size() > 1)
            line += QLatin1Char(' ') + tr("(in %1)").arg(r->index->openedPath);
        if (!f.note.isEmpty() && f.source != FirstOverflow::Source::Both)
            line += QStringLiteral(" \u2014 ") + f.note;
        return line + QLatin1Char('.');
    }
    const bool scanned = std::all_of(m_results.begin(), m_results.end(), [](const auto &r) { return r.second->report.scanned; });
    return scanned ? tr("No overflow found in the open dumps.")
                   : tr("No OpDebug record in the open dumps; not every dump was scanned for NaN/Inf (Overflow tab: Scan all tensors).");
}

void OverflowPanel::closeDump(int dump)
{
    m_queue.erase(std::remove_if(m_queue.begin(), m_queue.end(), [dump](const Request &r) { return r.dump == dump; }), m_queue.end());
    if (m_running == dump) { // its result is dropped when it arrives (onFinished)
        if (m_cancelFlag)
            *m_cancelFlag = true;
        m_runningClosed = true;
    }
    if (m_shownDump == dump) {
        m_shownDump = m_shownOp = -1;
        m_details->clear();
        m_show->setEnabled(false);
    }
    if (m_results.erase(dump))
        rebuildList();
    updateState();
    emit summaryChanged();
}

void OverflowPanel::rebuildList()
{
    m_list->clear();
    for (const auto &[dump, r] : m_results) {
        const auto &rep = r->report;
        const FirstOverflow *answer = r->first.empty() ? nullptr : &r->first.front();
        // Its finding row carries the star when the software scan alone names it.
        const int starredOp = answer && answer->source == FirstOverflow::Source::Software ? r->firstOp : -1;
        auto *top = new QTreeWidgetItem(m_list, {r->index->openedPath});
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        top->setData(0, DumpRole, dump);
        auto *records = new QTreeWidgetItem(top, {tr("OpDebug records (%1)").arg(rep.records.size())});
        records->setData(0, DumpRole, dump);
        if (rep.records.empty())
            new QTreeWidgetItem(records, {tr("no overflow records found (if overflow detection was on, this SoC may not emit them)")});
        for (size_t i = 0; i < rep.records.size(); ++i) {
            const auto &e = rep.records[i];
            const auto &op = r->index->ops[size_t(e.op)];
            QString kinds, status, linked;
            for (const auto &l : e.links) {
                kinds += (kinds.isEmpty() ? QString() : QStringLiteral(", ")) + l.block->kindName();
                status += (status.isEmpty() ? QString() : QStringLiteral(", ")) + hexString(l.block->status.front());
                linked += (linked.isEmpty() ? QString() : QStringLiteral(", "))
                          + (l.op >= 0 ? opLabel(r->index->ops[size_t(l.op)]) : tr("not found"));
            }
            QString name = op.relPath.section(QLatin1Char('/'), -1);
            // One star per dump: its first overflow (firstoverflow.h), here when a record names it.
            const bool starred = answer && answer->source != FirstOverflow::Source::Software && answer->finding.record == op.relPath;
            if (starred)
                name = tr("\u2605 first overflow: %1").arg(name);
            else if (e.firstOverall)
                name = tr("earliest OpDebug record: %1").arg(name);
            else if (e.firstOnDevice)
                name = tr("earliest on device %1: %2").arg(op.levels->device, name);
            auto *item = new QTreeWidgetItem(records, {name, kinds, status, linked});
            item->setData(0, FirstOverflowRole, starred);
            item->setToolTip(0, op.relPath);
            item->setData(0, DumpRole, dump);
            item->setData(0, RecordRole, int(i));
            if (!e.error.isEmpty())
                item->setForeground(0, QColor(0xd3, 0x2f, 0x2f));
            if (starred || e.firstOnDevice || e.firstOverall)
                for (int c = 0; c < 4; ++c)
                    item->setFont(c, bold);
        }
        auto *scan = new QTreeWidgetItem(top, {rep.scanned ? tr("Software scan (%1 findings)").arg(rep.findings.size())
                                               : rep.cancelled ? tr("Software scan (cancelled)")
                                                               : tr("Software scan (not run for this large dump: use \u201cScan all tensors\u201d)")});
        scan->setData(0, DumpRole, dump);
        if (rep.scanned && rep.findings.empty())
            new QTreeWidgetItem(scan, {tr("no NaN, Inf or saturated values in %n scope(s)", nullptr, int(rep.scopes.size()))});
        // One group per scope (step x rank) when there are several; its title names its first anomaly.
        const bool grouped = rep.scopes.size() > 1;
        for (size_t s = 0; s < rep.scopes.size(); ++s) {
            const ScopeScan &scope = rep.scopes[s];
            if (scope.findings.empty())
                continue;
            QTreeWidgetItem *parent = scan;
            if (grouped) {
                QString title = scope.scope.label();
                if (const SoftwareFinding *f = scope.firstAnomaly())
                    title = tr("%1: first anomaly %2").arg(title, opLabel(r->index->ops[size_t(f->op)]));
                parent = new QTreeWidgetItem(scan, {title, scope.firstAnomaly() ? levelText(scope.firstAnomaly()->level) : QString()});
                parent->setData(0, DumpRole, dump);
                if (scope.firstAnomaly())
                    parent->setForeground(1, levelColor(scope.firstAnomaly()->level));
                if (scope.firstIsCommunication(*r->index))
                    parent->setToolTip(0, tr("The first anomaly of this scope is a communication operator: its NaN/Inf may have been produced on another rank."));
            }
            // A scope of a large run can have hundreds of thousands of findings: the list shows
            // the first ones (and the scope's first anomaly), the report keeps them all.
            constexpr size_t kMaxShown = 100;
            for (size_t i = 0; i < scope.findings.size(); ++i) {
                const auto &f = scope.findings[i];
                const bool starred = f.op == starredOp;
                if (i >= kMaxShown && int(i) != scope.first && !starred)
                    continue;
                const auto &op = r->index->ops[size_t(f.op)];
                QString name = opLabel(op);
                if (starred)
                    name = tr("\u2605 first overflow: %1").arg(name);
                auto *item = new QTreeWidgetItem(parent, {name, findingLevelText(f), QString(), op.relPath.section(QLatin1Char('/'), -1)});
                item->setData(0, FirstOverflowRole, starred);
                item->setToolTip(0, f.reason);
                item->setForeground(1, f.level != OverflowLevel::None ? levelColor(f.level) : QColor(0x75, 0x75, 0x75));
                item->setData(0, DumpRole, dump);
                item->setData(0, ScopeRole, int(s));
                item->setData(0, FindingRole, int(i));
                if (starred)
                    for (int c = 0; c < 4; ++c)
                        item->setFont(c, bold);
            }
            if (scope.findings.size() > kMaxShown) {
                int hidden = int(scope.findings.size() - kMaxShown) - (scope.first >= int(kMaxShown) ? 1 : 0);
                for (size_t i = kMaxShown; i < scope.findings.size(); ++i)
                    hidden -= scope.findings[i].op == starredOp && int(i) != scope.first;
                new QTreeWidgetItem(parent, {tr("\u2026 and %n more finding(s) in this scope", nullptr, hidden)});
            }
        }
    }
    m_list->expandAll();
}

void OverflowPanel::showLinkedOperator()
{
    if (m_shownOp >= 0)
        emit showOperator(m_shownDump, m_shownOp);
}

bool OverflowPanel::selectFirst(int dump)
{
    if (!firstOverflow(dump))
        return false;
    for (QTreeWidgetItemIterator it(m_list); *it; ++it) {
        QTreeWidgetItem *item = *it;
        if (item->data(0, DumpRole).toInt() == dump && item->data(0, FirstOverflowRole).toBool()) {
            m_list->setCurrentItem(item);
            m_list->scrollToItem(item);
            return true;
        }
    }
    return false;
}

void OverflowPanel::showItem(QTreeWidgetItem *item)
{
    m_shownOp = -1;
    m_show->setEnabled(false);
    if (!item || !m_results.count(item->data(0, DumpRole).toInt())) {
        m_details->clear();
        return;
    }
    m_shownDump = item->data(0, DumpRole).toInt();
    const Result &r = *m_results.at(m_shownDump);
    if (item->data(0, RecordRole).isValid()) {
        const auto &e = r.report.records[size_t(item->data(0, RecordRole).toInt())];
        m_details->setHtml(recordHtml(r, e));
        for (const auto &l : e.links)
            if (l.op >= 0) {
                m_shownOp = l.op;
                break;
            }
    } else if (item->data(0, FindingRole).isValid()) {
        const ScopeScan &scope = r.report.scopes[size_t(item->data(0, ScopeRole).toInt())];
        const auto &f = scope.findings[size_t(item->data(0, FindingRole).toInt())];
        m_details->setHtml(findingHtml(r, scope, f));
        m_shownOp = f.op;
    } else {
        m_details->clear();
    }
    m_show->setEnabled(m_shownOp >= 0);
}

QString OverflowPanel::opHtml(const Result &r, int op) const
{
    const auto &rec = r.index->ops[size_t(op)];
    QString html = QStringLiteral("<p><b>%1</b> %2<br/><small>%3</small></p>")
                       .arg(tr("Operator:"), esc(opLabel(rec)), esc(rec.relPath));
    const auto it = r.report.checks.find(op);
    if (it == r.report.checks.end())
        return html;
    const auto &tensors = it->second.tensors;
    const bool allRecorded = !tensors.empty() && std::all_of(tensors.begin(), tensors.end(), [](const TensorCheck &t) {
        return t.source != CheckSource::Data;
    });
    if (allRecorded)
        html += QStringLiteral("<p><i>%1</i></p>").arg(tr("No tensor data was saved: the statistics below are the ones the dump recorded."));
    html += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3' style='white-space:nowrap'><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th>")
                .arg(tr("Tensor"), tr("Min"), tr("Max"), tr("Mean"), tr("Norm"));
    html += allRecorded ? QStringLiteral("<th>%1</th></tr>").arg(tr("Saturated"))
                        : QStringLiteral("<th>NaN</th><th>+Inf</th><th>-Inf</th><th>%1</th></tr>").arg(tr("Saturated"));
    const QString dash = QStringLiteral("\u2014");
    for (const auto &t : tensors) {
        const QString style = t.anomalous() ? QStringLiteral(" style='color:#d32f2f'")
                              : t.statisticOverflow ? QStringLiteral(" style='color:#b88a00'") : QString();
        QString label = esc(t.label());
        if (t.ignored)
            label += QStringLiteral("<br/><small>%1</small>").arg(tr("NaN/Inf expected here (ignore rule)"));
        const int columns = allRecorded ? 5 : 8;
        if (t.source == CheckSource::None) {
            html += QStringLiteral("<tr><td>%1</td><td colspan='%2'>%3</td></tr>")
                        .arg(label).arg(columns).arg(esc(t.error.isEmpty() ? tr("no data and no recorded statistics") : t.error));
            continue;
        }
        if (t.source == CheckSource::Recorded) {
            const RecordedStats &rs = t.recorded;
            auto cell = [&](RecordedStats::Field f, double v) { return rs.has(f) ? token(v) : dash; };
            html += QStringLiteral("<tr%1><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td>")
                        .arg(style, label, cell(RecordedStats::Min, rs.min), cell(RecordedStats::Max, rs.max), cell(RecordedStats::Mean, rs.mean),
                             cell(RecordedStats::Norm, rs.norm));
            if (!allRecorded)
                html += QStringLiteral("<td colspan='3'>%1</td>").arg(tr("recorded"));
            html += QStringLiteral("<td>%1</td></tr>").arg(t.saturated ? tr("yes") : tr("no"));
            if (!t.error.isEmpty())
                html += QStringLiteral("<tr><td></td><td colspan='%1'><small>%2</small></td></tr>").arg(columns).arg(esc(t.error));
            continue;
        }
        html += QStringLiteral("<tr%1><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td><td>%8</td><td>%9</td><td>%10</td></tr>")
                    .arg(style, label, num(t.stats.min), num(t.stats.max), num(t.stats.mean), num(t.stats.l2norm))
                    .arg(t.stats.nan).arg(t.stats.posinf).arg(t.stats.neginf).arg(t.saturated);
    }
    html += QStringLiteral("</table>");
    const bool in = it->second.anyInputAnomalous(), out = it->second.anyOutputAnomalous();
    if (!out && it->second.anyOutputStatisticOverflow())
        html += QStringLiteral("<p>%1</p>").arg(tr("The output values are finite, but their recorded Norm or Mean overflowed: "
                                                   "the values are close to the limit of their data type, the usual step before an overflow."));
    if (out)
        html += QStringLiteral("<p>%1</p>").arg(in ? tr("Inputs are already abnormal: the overflow was probably propagated from upstream.")
                                                   : tr("Inputs are normal and outputs are extreme: the pattern of a genuine overflow in this operator."));
    return html;
}

QString OverflowPanel::answerHtml(const FirstOverflow &f) const
{
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(tr("This is the first overflow: %1.").arg(esc(f.line())));
    if (!f.note.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(esc(f.note));
    return html;
}

QString OverflowPanel::recordHtml(const Result &r, const OverflowEntry &e) const
{
    const auto &op = r.index->ops[size_t(e.op)];
    QString html = QStringLiteral("<h3>%1</h3><p>%2</p>").arg(esc(op.relPath.section(QLatin1Char('/'), -1)),
        tr("device %1, step %2, timestamp %3, %4 layout").arg(esc(op.levels->device), esc(op.levels->dataIndex)).arg(op.timestamp)
            .arg(e.record.layout == OpDebugRecord::Layout::Magic ? tr("0x5A5A5A5A (version %1)").arg(e.record.version.value_or(0))
                                                                 : tr("legacy 2048-byte")));
    const FirstOverflow *answer = r.first.empty() ? nullptr : &r.first.front();
    if (answer && answer->source != FirstOverflow::Source::Software && answer->finding.record == op.relPath)
        html += answerHtml(*answer);
    else if (e.firstOverall)
        html += QStringLiteral("<p>%1</p>").arg(tr("The earliest OpDebug record (smallest step, then earliest timestamp)."))
                + (answer ? QStringLiteral("<p>%1</p>").arg(tr("The first overflow is %1.").arg(esc(answer->line()))) : QString());
    if (!e.error.isEmpty())
        html += QStringLiteral("<p style='color:#d32f2f'>%1</p>").arg(esc(e.error));
    for (const auto &w : e.record.warnings)
        html += QStringLiteral("<p><i>%1</i></p>").arg(esc(w));
    for (const auto &l : e.links) {
        const OverflowBlock &b = *l.block;
        html += QStringLiteral("<h4>%1</h4><table cellpadding='2'>").arg(esc(b.kindName()));
        auto row = [&](const QString &k, const QString &v) { html += QStringLiteral("<tr><td>%1</td><td><tt>%2</tt></td></tr>").arg(k, esc(v)); };
        row(QStringLiteral("model_id"), QString::number(b.modelId));
        row(QStringLiteral("stream_id"), QString::number(b.streamId));
        row(QStringLiteral("task_id"), QString::number(b.taskId));
        row(QStringLiteral("task_type"), QString::number(b.taskType));
        for (const auto &[name, v] : {std::pair{"pc_start", b.pcStart}, {"para_base", b.paraBase}, {"kernel_code", b.kernelCode},
                                      {"src_addr", b.srcAddr}, {"dst_addr", b.dstAddr}})
            if (v)
                row(QLatin1String(name), hexString(*v));
        for (const auto &[name, v] : {std::pair{"block_idx", b.blockIdx}, {"context_id", b.contextId}, {"thread_id", b.threadId},
                                      {"core_id", b.coreId}, {"cpu_id", b.cpuId}, {"channel_id", b.channelId}})
            if (v)
                row(QLatin1String(name), QString::number(*v));
        const auto st = b.status.front();
        row(tr("status"), QStringLiteral("%1 = %2 = %3").arg(st).arg(hexString(st), binaryString(st)));
        for (size_t w = 1; w < b.status.size(); ++w)
            row(tr("status word %1").arg(w), hexString(b.status[w]));
        html += QStringLiteral("</table><p><b>%1</b></p><ul>").arg(tr("Decoded causes:"));
        if (!b.statusDocumented) {
            QStringList bits;
            for (auto bit : setBits(b.status.front()))
                bits << hexString(bit);
            html += QStringLiteral("<li style='color:#b88a00'>%1<br/>%2</li>")
                        .arg(tr("Meaning not documented for this unit (%1): the status bits are shown raw.").arg(esc(b.kindName())),
                             tr("Set bits: %1").arg(bits.isEmpty() ? tr("none") : bits.join(QStringLiteral(", "))));
            html += QStringLiteral("</ul><p><b>%1</b> <small>%2</small></p><ul>")
                        .arg(tr("Hint, the AI Core reading of the same bits:"), tr("(unconfirmed for %1 units)").arg(esc(b.kindName())));
            for (const auto &c : b.aiCoreHint.causes)
                html += QStringLiteral("<li style='color:#757575'><tt>%1</tt> %2<br/>%3</li>").arg(hexString(c.code), esc(c.english), esc(c.chinese));
        } else if (b.decoding.causes.empty()) {
            html += QStringLiteral("<li>%1</li>").arg(tr("no documented meaning for this record kind; raw status shown above"));
        }
        for (const auto &c : b.decoding.causes)
            html += QStringLiteral("<li%1><tt>%2</tt> %3<br/>%4</li>")
                        .arg(c.known ? QString() : QStringLiteral(" style='color:#b88a00'"), hexString(c.code), esc(c.english), esc(c.chinese));
        html += QStringLiteral("</ul>");
        if (!b.decoding.warning.isEmpty())
            html += QStringLiteral("<p><i>%1</i></p>").arg(esc(b.decoding.warning));
        html += QStringLiteral("<p>%1 %2</p>").arg(tr("Link:"), esc(l.note));
        if (l.op >= 0)
            html += opHtml(r, l.op);
    }
    return html;
}

QString OverflowPanel::findingHtml(const Result &r, const ScopeScan &scope, const SoftwareFinding &f) const
{
    QString html = QStringLiteral("<h3 style='color:%1'>%2</h3><p>%3</p>")
                       .arg((f.level != OverflowLevel::None ? levelColor(f.level) : QColor(0x75, 0x75, 0x75)).name(), esc(findingLevelText(f)), esc(f.reason));
    const QString where = scope.scope.label();
    if (!where.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(tr("Scope: %1").arg(esc(where)));
    if (!r.first.empty() && r.first.front().source == FirstOverflow::Source::Software && f.op == r.firstOp)
        html += answerHtml(r.first.front());
    if (scope.firstAnomaly() == &f) {
        html += QStringLiteral("<p><b>%1</b></p>").arg(tr("The first operator of this scope, in execution order, with NaN, Inf or saturated values."));
        if (scope.firstIsCommunication(*r.index))
            html += QStringLiteral("<p>%1</p>").arg(tr("It is a communication operator: its NaN/Inf may have been produced on another rank."));
        if (scope.precursor >= 0)
            html += QStringLiteral("<p>%1</p>").arg(tr("Before it, %1 produced finite values whose recorded Norm or Mean overflowed.")
                                                        .arg(esc(opLabel(r.index->ops[size_t(scope.findings[size_t(scope.precursor)].op)]))));
    }
    return html + opHtml(r, f.op);
}

} // namespace ds
