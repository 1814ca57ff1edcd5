#include "compareview.h"

#include "background.h"
#include "index/buildindex.h"

#include "benchoperatorspanel.h"
#include "compare/comparereport.h"
#include "compare/resulttable.h"
#include "compare/tabledumps.h"
#include "comparehistograms.h"
#include "heatmapwidget.h"
#include "io/pathguard.h"
#include "addederrorpanel.h"
#include "mappingpanel.h"
#include "models/comparetablemodel.h"
#include "models/pagedcomparetablemodel.h"
#include "wrappedtextarea.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QSaveFile>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <functional>

namespace ds {

namespace {

/// Below this width the detail, the bench operators and the mapping are tabs below the rows.
constexpr int kWideWidth = 1000;

QColor verdictColor(Verdict v)
{
    switch (v) {
    case Verdict::Pass: return QColor(0xc8, 0xe6, 0xc9);
    case Verdict::Warning: return QColor(0xff, 0xe0, 0x82);
    case Verdict::Error: return QColor(0xef, 0x9a, 0x9a);
    case Verdict::None: break;
    }
    return {};
}

} // namespace

QColor CompareView::gapColor() { return QColor(0xd1, 0xc4, 0xe9); } // lavender: none of the verdict colours

namespace {

/// Paints both verdict columns in the same colours (DumpScope's and msprobe's side by side, so
/// that a difference shows at a glance), and the pinned first divergence in bold.
class VerdictDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const int role = index.column() == CompareTableModel::Verdict          ? int(CompareTableModel::VerdictRole)
                         : index.column() == CompareTableModel::MsprobeResult ? int(CompareTableModel::MsprobeVerdictRole)
                                                                              : -1;
        if (role >= 0)
            if (const QColor c = verdictColor(Verdict(index.data(role).toInt())); c.isValid())
                option->backgroundBrush = c;
        if (index.data(CompareTableModel::PinnedRole).toBool())
            option->font.setBold(true);
        // The gaps of an aligned compare: the side that has no row there reads "NPU only" /
        // "bench only" on a distinct background, greyed.
        const auto gap = CompareGaps::Gap(index.data(CompareTableModel::GapRole).toInt());
        if (gap != CompareGaps::Gap::None && index.column() == CompareTableModel::Verdict && option->backgroundBrush.style() == Qt::NoBrush)
            option->backgroundBrush = CompareView::gapColor();
        if ((gap == CompareGaps::Gap::NpuOnly && index.column() == CompareTableModel::BenchName)
            || (gap == CompareGaps::Gap::BenchOnly && index.column() == CompareTableModel::NpuName)) {
            option->backgroundBrush = CompareView::gapColor();
            option->font.setItalic(true);
            option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
        } else if (index.column() == CompareTableModel::BenchName) {
            const auto source = MatchSource(index.data(CompareTableModel::SourceRole).toInt());
            if (source == MatchSource::User)
                option->font.setItalic(true); // paired by the user mapping
            if (source == MatchSource::None && option->text.isEmpty()) {
                option->text = CompareView::tr("(no bench tensor)");
                option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
            }
        }
    }
};

} // namespace

CompareView::CompareView(QWidget *parent) : QWidget(parent)
{
    m_model = new CompareTableModel(this);
    m_proxy = new CompareFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    // Worst first; the first divergence is pinned above everything.
    m_table->sortByColumn(CompareTableModel::Verdict, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // Rows drag as their NPU operators onto bench operators (the list beside, or a table row).
    m_table->setDragDropMode(QAbstractItemView::DragDrop);
    m_table->setDragDropOverwriteMode(true);
    m_table->setDefaultDropAction(Qt::CopyAction);
    m_table->setDropIndicatorShown(true);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->setItemDelegate(new VerdictDelegate(m_table));
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->moveSection(CompareTableModel::Region, CompareTableModel::BenchName + 1);
    m_table->setColumnHidden(CompareTableModel::Region, true); // shown for an aligned compare

    m_summary = new WrappedTextArea(7, this);
    m_summary->setText(tr("Use Analysis \u2192 Compare with\u2026 to compare the selected dump with a bench dump."));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by tensor name\u2026"));
    m_filter->setClearButtonEnabled(true);
    m_verdictFilter = new QComboBox(this);
    m_verdictFilter->addItem(tr("All rows"), int(Verdict::None));
    m_verdictFilter->addItem(tr("Warnings and errors"), int(Verdict::Warning));
    m_verdictFilter->addItem(tr("Errors"), int(Verdict::Error));
    m_verdictFilter->addItem(tr("Rows without bench tensor"), -1);
    m_verdictFilter->addItem(tr("Rows where the verdicts differ"), -2);
    m_verdictFilter->addItem(tr("Structural differences only"), -3);
    m_verdictFilter->setItemData(m_verdictFilter->count() - 1,
                                 tr("The rows inside the structure regions of an aligned compare: operators only one side runs, "
                                    "or runs each side computes differently (the Structure region column names each)"),
                                 Qt::ToolTipRole);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setVisible(false);
    m_cancel = new QToolButton(this);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setVisible(false);
    m_thresholdsButton = new QToolButton(this);
    m_thresholdsButton->setText(tr("Thresholds\u2026"));
    m_thresholdsButton->setToolTip(tr("Edit the thresholds of the verdicts (kept for later sessions)"));
    m_csv = new QToolButton(this);
    m_csv->setText(tr("Export CSV\u2026"));
    m_csv->setToolTip(tr("Save the rows with msprobe 26's columns (Result, Err_message), then DumpScope's"));
    m_csv->setEnabled(false);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 2);
    bar->addWidget(m_verdictFilter);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_cancel);
    auto *buttons = new QVBoxLayout; // one above the other: the summary keeps the width
    buttons->addWidget(m_thresholdsButton);
    buttons->addWidget(m_csv);
    buttons->addStretch();
    for (QToolButton *b : {m_thresholdsButton, m_csv})
        b->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    auto *head = new QHBoxLayout;
    head->addWidget(m_summary, 1);
    head->addLayout(buttons);
    // Below the summary's first divergence (the full width): the operators that add the most error.
    m_addedErrors = new AddedErrorPanel(this);

    // Detail: the row's verdicts and numbers, statistics beside histograms, worst elements, error heatmap.
    m_stats = new QTableWidget(5, 3, this);
    m_stats->setHorizontalHeaderLabels({tr("NPU"), tr("Bench"), tr("NPU \u2212 bench")});
    m_stats->setVerticalHeaderLabels({tr("Max"), tr("Min"), tr("Mean"), tr("L2 norm"), tr("NaN / Inf")});
    m_stats->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_stats->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_histograms = new CompareHistograms(this);
    m_worst = new QTableWidget(0, 5, this);
    m_worst->setHorizontalHeaderLabels({tr("Index"), tr("NPU"), tr("Bench"), tr("Abs error"), tr("Rel error")});
    m_worst->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_worst->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_heatmap = new HeatmapWidget(this);
    m_heatmapKind = new QComboBox(this);
    m_heatmapKind->addItem(tr("Absolute error |NPU \u2212 bench|"));
    m_heatmapKind->addItem(tr("Relative error |NPU \u2212 bench| / |bench|"));
    m_heatmapKind->setToolTip(tr("Relative error: 0 where both values are 0, Inf where only the bench value is 0"));
    auto *heatmapPane = new QWidget(this);
    auto *heatmapLayout = new QVBoxLayout(heatmapPane);
    heatmapLayout->setContentsMargins(0, 0, 0, 0);
    heatmapLayout->addWidget(m_heatmapKind);
    heatmapLayout->addWidget(m_heatmap, 1);
    connect(m_heatmapKind, &QComboBox::currentIndexChanged, this, &CompareView::showHeatmap);
    m_detailTabs = new QTabWidget(this);
    m_detailTabs->setDocumentMode(true);
    m_detailTabs->setUsesScrollButtons(false); // narrow: the tab titles shrink, none hides behind arrows
    m_detailTabs->setElideMode(Qt::ElideRight);
    m_detailTabs->addTab(m_histograms, tr("Histograms"));
    m_detailTabs->addTab(m_worst, tr("Worst elements"));
    m_detailTabs->addTab(heatmapPane, tr("Error heatmap"));
    m_detailStatus = new WrappedTextArea(5, this);
    m_detailStatus->setText(tr("Select a row to see both tensors."));
    m_stats->setMinimumWidth(120);
    // The detail tabs (heatmap controls) must not widen the main window: they shrink instead.
    m_detailTabs->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_detailTabs->setMinimumSize(120, 120);
    m_sides = new QSplitter(Qt::Horizontal, this);
    m_sides->addWidget(m_stats);
    m_sides->addWidget(m_detailTabs);
    m_sides->setStretchFactor(0, 1);
    m_sides->setStretchFactor(1, 2);
    m_sides->setChildrenCollapsible(false);
    m_detailPane = new QWidget(this);
    m_detailPane->setObjectName(QStringLiteral("compareDetailPane"));
    auto *detailLayout = new QVBoxLayout(m_detailPane);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detailStatus);
    detailLayout->addWidget(m_sides, 1);
    // Beside the rows: the bench operators and the user mapping.
    m_benchPanel = new BenchOperatorsPanel(this);
    m_mappingPanel = new MappingPanel(this);
    m_side = new QTabWidget(this);
    m_side->addTab(m_benchPanel, tr("Bench operators"));
    m_side->addTab(m_mappingPanel, tr("Mapping"));
    m_side->setMinimumWidth(100);
    m_side->tabBar()->setChangeCurrentOnDrag(true); // rows dragged over "Bench operators" open it
    m_side->tabBar()->setAcceptDrops(true);         // (drag events reach only widgets that accept drops)
    m_table->setMinimumWidth(120);
    m_top = new QSplitter(Qt::Horizontal, this);
    m_top->addWidget(m_table);
    m_top->addWidget(m_side);
    m_top->setStretchFactor(0, 3);
    m_top->setStretchFactor(1, 1);
    m_top->setChildrenCollapsible(false);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_top);
    m_split->addWidget(m_detailPane);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_split->setChildrenCollapsible(false);
    // The summary, the filter row and both splitter panes would ask for about 250 x 440 px: as
    // the centre tab's minimum that made the window taller than a 768-800 px screen once the
    // Problems dock showed. The view may be smaller; its panes then shrink.
    setMinimumSize(240, 200);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(head);
    layout->addWidget(m_addedErrors);
    layout->addLayout(bar);
    layout->addWidget(m_split, 1);

    QSettings settings;
    if (auto t = CompareThresholds::fromJson(QJsonDocument::fromJson(settings.value(QStringLiteral("compare/thresholds")).toByteArray()).object()))
        m_thresholds = *t;

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &CompareFilterProxy::setText);
    connect(m_verdictFilter, qOverload<int>(&QComboBox::activated), this, [this] {
        const int v = m_verdictFilter->currentData().toInt();
        m_proxy->setUnmatchedOnly(v == -1);
        m_proxy->setDifferingOnly(v == -2);
        m_proxy->setStructuralOnly(v == -3);
        m_proxy->setMinimumVerdict(v < 0 ? Verdict::None : Verdict(v));
    });
    connect(m_cancel, &QToolButton::clicked, this, [this] {
        if (m_cancelRun)
            *m_cancelRun = true;
    });
    connect(m_thresholdsButton, &QToolButton::clicked, this, &CompareView::editThresholds);
    connect(m_csv, &QToolButton::clicked, this, &CompareView::exportCsv);
    connect(&m_run, &QFutureWatcherBase::finished, this, &CompareView::onFinished);
    connect(&m_detailJob, &QFutureWatcherBase::finished, this, &CompareView::onDetailDone);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &CompareView::onRowSelected);
    connect(m_table, &QTableView::customContextMenuRequested, this, &CompareView::showTableMenu);
    connect(m_model, &CompareTableModel::mappingRequested, this, &CompareView::mapOperators);
    connect(m_addedErrors, &AddedErrorPanel::rowRequested, this, [this](int row) {
        // As the pinned first divergence: the row selected and in view (shown again when filtered out).
        QModelIndex target = m_proxy->mapFromSource(m_model->index(row, 0));
        if (!target.isValid() && row >= 0 && row < m_model->rowCount()) {
            m_filter->clear();
            m_verdictFilter->setCurrentIndex(0);
            m_proxy->setUnmatchedOnly(false);
            m_proxy->setDifferingOnly(false);
            m_proxy->setStructuralOnly(false);
            m_proxy->setMinimumVerdict(Verdict::None);
            target = m_proxy->mapFromSource(m_model->index(row, 0));
        }
        if (!target.isValid())
            return;
        m_table->setCurrentIndex(target);
        m_table->scrollTo(target, QAbstractItemView::PositionAtCenter);
    });
    connect(m_benchPanel, &BenchOperatorsPanel::mappingRequested, this, &CompareView::mapOperators);
    connect(m_mappingPanel, &MappingPanel::removeRequested, this, &CompareView::removeMappingEntries);
    connect(m_mappingPanel, &MappingPanel::clearRequested, this, [this] { setMapping({}); });
    connect(m_mappingPanel, &MappingPanel::saveRequested, this, &CompareView::saveMappingAs);
    connect(m_mappingPanel, &MappingPanel::loadRequested, this, &CompareView::loadMappingFrom);
    auto *map = new QAction(tr("Map to bench operator\u2026"), m_table);
    map->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    map->setShortcutContext(Qt::WidgetShortcut);
    connect(map, &QAction::triggered, this, &CompareView::chooseBenchForSelection);
    m_table->addAction(map);
}

CompareView::~CompareView()
{
    for (const auto &c : {m_cancelRun, m_cancelDetail})
        if (c)
            *c = true;
    m_run.waitForFinished();
    m_detailJob.waitForFinished();
}

void CompareView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Beside the docks the tab is narrow: the detail and the side panels become tabs below the rows.
    arrange(width() < kWideWidth);
}

void CompareView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_splittersSized) {
        m_splittersSized = true;
        QTimer::singleShot(0, this, &CompareView::sizeSplitters);
    }
}

void CompareView::arrange(bool narrow)
{
    if (narrow == m_narrow)
        return;
    m_narrow = narrow;
    if (narrow) {
        m_side->insertTab(0, m_detailPane, tr("Selected row"));
        m_side->setCurrentIndex(0);
        m_split->addWidget(m_side);
        m_detailTabs->insertTab(1, m_stats, tr("Statistics"));
    } else {
        const bool detailShown = m_side->currentWidget() == m_detailPane;
        m_side->removeTab(m_side->indexOf(m_detailPane));
        if (detailShown)
            m_side->setCurrentWidget(m_benchPanel);
        m_detailTabs->removeTab(m_detailTabs->indexOf(m_stats));
        m_top->addWidget(m_side);
        m_top->setStretchFactor(1, 1);
        m_split->addWidget(m_detailPane);
        m_sides->insertWidget(0, m_stats);
        for (QWidget *w : {static_cast<QWidget *>(m_side), m_detailPane, static_cast<QWidget *>(m_stats)})
            w->setVisible(!isPaged() || w == m_stats); // a paged table has no pair to detail (showPagedTable)
    }
    if (isVisible())
        QTimer::singleShot(0, this, &CompareView::sizeSplitters); // once the splitters have their new children
}

void CompareView::sizeSplitters()
{
    const int height = m_split->height();
    if (m_narrow) { // rows over the tabs of the detail (a row's histograms need the height)
        const int rows = height * 42 / 100;
        m_split->setSizes({rows, height - rows});
        return;
    }
    const int top = height * 55 / 100;
    m_split->setSizes({top, height - top});
    const int total = m_top->width(), rows = total * 70 / 100;
    m_top->setSizes({rows, total - rows});
    // The statistics table needs room for three numbers side by side.
    const int detailWidth = m_sides->width(), stats = std::min(detailWidth / 2, std::max(300, detailWidth * 2 / 5));
    m_sides->setSizes({stats, detailWidth - stats});
}

bool CompareView::isRunning() const { return m_run.isRunning(); }

QLabel *CompareView::detailStatus() const { return m_detailStatus->label(); }

QLabel *CompareView::summary() const { return m_summary->label(); }

void CompareView::start(std::shared_ptr<const DumpIndex> npu, int npuDump, const QString &benchPath)
{
    if (m_cancelRun)
        *m_cancelRun = true;
    m_run.waitForFinished();
    m_npu = std::move(npu);
    m_bench.reset();
    m_npuDump = npuDump;
    m_cancelRun = std::make_shared<std::atomic<bool>>(false);
    m_runProgress = std::make_shared<std::atomic<int>>(0);
    m_csv->setEnabled(false);
    m_summary->setText(tr("Comparing %1 with %2\u2026").arg(m_npu->openedPath, benchPath));
    m_remapping = m_remapPending = false;
    watchProgress();
    CompareOptions options;
    options.thresholds = m_thresholds;
    options.mapping = m_mapping;
    m_run.setFuture(QtConcurrent::run(backgroundPool(), [npu = m_npu, benchPath, options, cancel = m_cancelRun, progress = m_runProgress] {
        const BackgroundPriority background;
        RunResult out;
        JobControl job;
        job.cancelFlag = cancel.get();
        // Indexing the bench dump is the first fifth of the progress, comparing the rest.
        job.progress = [progress](int permille) { progress->store(permille / 5); };
        auto bench = buildIndex(benchPath, &job);
        if (!bench) {
            out.error = bench.errorText();
            return out;
        }
        out.bench = *bench;
        out.bench->buildPathIndex();
        job.progress = [progress](int permille) { progress->store(200 + permille * 4 / 5); };
        out.result = std::make_shared<const CompareResult>(compareIndexes(*npu, *out.bench, options, &job));
        return out;
    }));
}

void CompareView::beginTableRun()
{
    if (m_cancelRun)
        *m_cancelRun = true;
    m_run.waitForFinished();
    m_npu.reset();
    m_bench.reset();
    m_npuDump = -1;
    m_cancelRun = std::make_shared<std::atomic<bool>>(false);
    m_runProgress = std::make_shared<std::atomic<int>>(0);
    m_csv->setEnabled(false);
    m_remapping = m_remapPending = false;
}

void CompareView::openTable(const QString &path)
{
    if (openPagedTable(path)) // a large CSV table (compareviewpaged.cpp)
        return;
    beginTableRun();
    m_summary->setText(tr("Reading msprobe's compare table %1\u2026").arg(path));
    watchProgress();
    m_run.setFuture(QtConcurrent::run(backgroundPool(), [path, cancel = m_cancelRun] {
        const BackgroundPriority background;
        RunResult out;
        JobControl job;
        job.cancelFlag = cancel.get();
        auto opened = openCompareTableWithDumps(path, nullptr, nullptr, &job); // the dumps beside it, when found
        if (!opened) {
            out.error = opened.errorText();
            return out;
        }
        out.npu = opened->npu;
        out.bench = opened->bench;
        out.result = opened->result;
        return out;
    }));
}

QString CompareView::tablePath() const
{
    if (isPaged())
        return m_pagedModel->table()->path();
    const auto result = m_model->result();
    return result ? result->tablePath : QString();
}

void CompareView::watchProgress()
{
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    auto *poll = new QTimer(this); // progress from the worker, read on the GUI thread
    connect(poll, &QTimer::timeout, this, [this, poll, progress = m_runProgress] {
        if (!m_run.isRunning() || progress != m_runProgress)
            poll->deleteLater();
        else
            m_progress->setValue(progress->load());
    });
    poll->start(100);
}

void CompareView::clear()
{
    for (const auto &c : {m_cancelRun, m_cancelDetail})
        if (c)
            *c = true;
    m_npu.reset();
    m_bench.reset();
    m_npuDump = -1;
    m_remapping = m_remapPending = false;
    leavePaged();
    m_model->setResult(nullptr, nullptr, nullptr);
    m_benchPanel->setResult(nullptr, nullptr, nullptr);
    m_addedErrors->clear();
    updateMappingPanel();
    m_csv->setEnabled(false);
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    onRowSelected(); // clears the detail
    m_detailStatus->setText(QString());
    m_summary->setText(tr("The NPU dump of the comparison was closed. Analysis \u2192 Compare with\u2026 compares an open dump."));
}

void CompareView::onFinished()
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    const RunResult run = m_run.result();
    if (!m_npu && m_npuDump < 0 && !run.remap && m_cancelRun && !*m_cancelRun) { // a table (openTable)
        if (run.paged) {
            showPagedTable(run.paged, run.pagedMode);
            emit finished();
            return;
        }
        if (!run.result) {
            leavePaged(); // its first rows, when they were shown
            m_summary->setText(tr("Cannot open the compare table: %1").arg(run.error));
            return;
        }
        m_npu = run.npu;
    }
    if (!m_npu) // cleared meanwhile (its NPU dump was closed)
        return;
    leavePaged();
    if (run.remap) {
        m_remapping = false;
        const bool usable = run.result && !run.result->cancelled;
        if (usable)
            m_model->updateResult(run.result);
        if (m_remapPending) { // edited again meanwhile: match with the newest mapping
            m_remapPending = false;
            remap();
            return;
        }
        if (!usable) {
            m_summary->setText(tr("Applying the mapping was cancelled; the rows are those of the previous mapping."));
            return;
        }
        m_benchPanel->setResult(run.result, m_npu, m_bench);
        updateMappingPanel();
        updateSummary();
        // Show the edited operators' first row (its metrics, verdict and detail).
        int focus = -1;
        for (size_t i = 0; i < run.result->rows.size() && focus < 0; ++i)
            if (m_focusOps.contains(opMatchKey(m_npu->op(run.result->rows[i].npu))))
                focus = int(i);
        const QModelIndex target = focus >= 0 ? m_proxy->mapFromSource(m_model->index(focus, 0)) : QModelIndex();
        if (target.isValid() && target.row() != m_table->currentIndex().row()) {
            m_table->setCurrentIndex(target);
            m_table->scrollTo(target);
        } else {
            onRowSelected(); // the same row may now have another bench tensor
        }
        emit finished();
        emit mappingApplied();
        return;
    }
    if (!run.result) {
        m_summary->setText(tr("Cannot compare: %1").arg(run.error));
        return;
    }
    m_bench = run.bench;
    const auto result = run.result;
    m_model->setResult(result, m_npu, m_bench);
    m_benchPanel->setResult(result, m_npu, m_bench);
    updateMappingPanel();
    m_csv->setEnabled(!result->rows.empty());
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->resizeSection(CompareTableModel::NpuName, std::min(m_table->columnWidth(CompareTableModel::NpuName), 320));
    m_table->horizontalHeader()->resizeSection(CompareTableModel::BenchName, std::min(m_table->columnWidth(CompareTableModel::BenchName), 320));
    // Both verdicts narrow enough to leave the names in view beside the docks (the pinned row's
    // cause is in its tooltip and the detail).
    const int verdictWidth = std::max(m_table->horizontalHeader()->sectionSizeHint(CompareTableModel::Verdict),
                                      std::clamp(m_table->viewport()->width() * 3 / 10, 110, 190));
    m_table->horizontalHeader()->resizeSection(CompareTableModel::Verdict, std::min(m_table->columnWidth(CompareTableModel::Verdict), verdictWidth));
    m_table->horizontalHeader()->resizeSection(CompareTableModel::VerdictsDiffer, std::min(m_table->columnWidth(CompareTableModel::VerdictsDiffer), 360));
    // An aligned compare names each row's structure region beside the bench tensor.
    m_table->setColumnHidden(CompareTableModel::Region, result->structure.empty());
    m_table->horizontalHeader()->resizeSection(CompareTableModel::Region, std::min(m_table->columnWidth(CompareTableModel::Region), 420));
    updateSummary();
    if (m_model->pinnedRow() >= 0) {
        m_table->setCurrentIndex(m_proxy->mapFromSource(m_model->index(m_model->pinnedRow(), 0)));
    } else if (!result->structure.empty()) { // nothing diverges: show where the op streams differ
        int first = -1;
        for (int r = 0; r < m_model->rowCount() && first < 0; ++r)
            if (!m_model->index(r, 0).data(CompareTableModel::RegionRole).toString().isEmpty())
                first = r;
        const QModelIndex target = m_proxy->mapFromSource(m_model->index(first, 0));
        if (target.isValid()) {
            m_table->setCurrentIndex(target);
            m_table->scrollTo(target, QAbstractItemView::PositionAtCenter);
        }
    }
    emit finished();
    if (m_remapPending) { // the mapping changed while comparing
        m_remapPending = false;
        remap();
    }
}

const RunAnswer *CompareView::runAnswer() const { return m_model->result() ? &m_model->runAnswer() : nullptr; }

const std::vector<ScopeSummary> &CompareView::runScopes() const { return m_model->runScopes(); }

void CompareView::updateSummary()
{
    const auto result = m_model->result();
    const Divergence *first = m_model->firstDivergence();
    m_addedErrors->setResult(result, m_npu, first ? first->scope : QString());
    m_summary->setMaxLines(m_addedErrors->isHidden() ? 7 : 5); // the ranking's line continues the answer (and takes the room of two)
    if (!result)
        return;
    // The run-level answer (per scope, then across the steps and ranks: core/run), both
    // verdicts counted from the rows, and the first divergence the run-level answer names.
    const VerdictCounts mine = m_model->dumpscopeCounts(), theirs = m_model->msprobeCounts();
    QString text = tr("DumpScope verdict: %1 pass, %2 warning, %3 error, %4 not compared.")
                       .arg(mine.pass).arg(mine.warning).arg(mine.error).arg(mine.none);
    QString msprobe = tr("msprobe Result: %1 pass, %2 warning, %3 error").arg(theirs.pass).arg(theirs.warning).arg(theirs.error);
    if (theirs.none > 0)
        msprobe += QStringLiteral(", ") + tr("%1 without a Result").arg(theirs.none);
    text += QLatin1Char('\n') + msprobe + QStringLiteral(" \u2014 ")
            + tr("differs from DumpScope's verdict on %n row(s).", nullptr, int(m_model->differingRows()));
    if (const Divergence *d = m_model->firstDivergence()) {
        const OpRecord &op = m_npu->ops[size_t(d->originOp)];
        QString why;
        switch (d->cause) {
        case DivergenceCause::Output: why = tr("its inputs agree, an output differs"); break;
        case DivergenceCause::Input: why = tr("an input already differs"); break;
        case DivergenceCause::Parameter:
            why = d->parameter.isEmpty() ? tr("a parameter differs at its first use")
                  : d->parameterFromStack ? tr("parameter %1 (named from the call stack) differs at its first use").arg(d->parameter)
                                          : tr("parameter %1 differs at its first use").arg(d->parameter);
            break;
        }
        QStringList modules;
        for (int m : d->modules)
            modules << opMatchKey(m_npu->ops[size_t(m)]);
        const QString where = modules.isEmpty() ? opMatchKey(op) : tr("%1 in %2").arg(opMatchKey(op), modules.join(QStringLiteral(" < ")));
        text += QLatin1Char('\n')
                + tr("First divergence: %1: %2 (%n operator(s) after it disagree too).", nullptr, int(d->chain.size()))
                      .arg(where, why);
    } else if (!result->cancelled) {
        text += QLatin1Char('\n') + tr("No operator diverges.");
    }
    QString structure;
    if (!result->structure.empty()) { // an aligned compare: where the op streams differ
        int equal = 0;
        for (const StructureFinding &f : result->structure)
            equal += f.outcome == StructureFinding::Outcome::Equal;
        structure = QLatin1Char('\n')
                + tr("The op streams do not line up by name and were aligned by structure: %n region(s) differ in structure "
                     "(%1 numerically equal), e.g. %2. \u201cStructural differences only\u201d lists their rows.",
                     nullptr, int(result->structure.size()))
                      .arg(equal)
                      .arg(m_model->regionText(0));
    }
    if (!result->tablePath.isEmpty() && m_npu->openedPath != result->tablePath) // linked to its dumps (resulttable.cpp: else the table)
        text = tr("msprobe's compare table %1: %n row(s) read, not computed; the verdicts are msprobe's Result. Its dumps: "
                  "NPU %2, bench %3 (%4). Select a row for both tensors side by side and the error heatmap; open the two "
                  "dumps and use Analysis \u2192 Compare with\u2026 for DumpScope's own verdict.", nullptr, int(result->rows.size()))
                   .arg(QFileInfo(result->tablePath).fileName(), m_npu->openedPath, m_bench->openedPath, result->tableDumps)
               + QLatin1Char('\n') + text.section(QLatin1Char('\n'), 1);
    else if (!result->tablePath.isEmpty()) // read from msprobe's table alone: say so, and where to go next
        text = tr("msprobe's compare table %1: %n row(s) read, not computed. The verdicts are msprobe's Result; select a row "
                  "for its values, or open the two dumps and use Analysis \u2192 Compare with\u2026 for DumpScope's own "
                  "verdict and the tensors side by side.", nullptr, int(result->rows.size())).arg(QFileInfo(result->tablePath).fileName())
               + QLatin1Char('\n') + tr("Its dumps: %1").arg(result->tableDumps)
               + QLatin1Char('\n') + text.section(QLatin1Char('\n'), 1);
    else
        text += QLatin1Char('\n') + tr("%n row(s) of %1 vs %2", nullptr, int(result->rows.size()))
                                        .arg(QFileInfo(m_npu->openedPath).fileName(), QFileInfo(m_bench->openedPath).fileName())
                + QStringLiteral(" (") + tr("%n bench tensor(s) without an NPU row", nullptr, int(result->benchOnly.size())) + QStringLiteral(").");
    if (result->cancelled)
        text = tr("Cancelled. ") + text;
    m_summary->setText(tr("Run: %1").arg(m_model->runAnswer().line()) + structure + QLatin1Char('\n') + text);
    m_summary->setToolTip(tr("NPU: %1\nBench: %2").arg(m_npu->openedPath, m_bench->openedPath));
}

std::unordered_map<int, int> CompareView::opVerdicts() const
{
    std::unordered_map<int, int> out;
    if (const auto result = m_model->result())
        for (const CompareRow &row : result->rows)
            if (row.compared()) {
                int &v = out[row.npu.op];
                v = std::max(v, int(row.verdict));
            }
    return out;
}

void CompareView::setThresholds(const CompareThresholds &t)
{
    m_thresholds = t;
    QSettings().setValue(QStringLiteral("compare/thresholds"), QJsonDocument(t.toJson()).toJson(QJsonDocument::Compact));
    const auto result = m_model->result();
    if (!result || !m_npu)
        return;
    auto rejudged = std::make_shared<CompareResult>(*result);
    applyVerdicts(*m_npu, *rejudged, t);
    m_model->setResult(rejudged, m_npu, m_bench);
    m_benchPanel->setResult(rejudged, m_npu, m_bench);
    updateSummary();
    emit finished();
}

void CompareView::editThresholds()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Compare thresholds"));
    auto *form = new QFormLayout;
    const QJsonObject current = m_thresholds.toJson();
    std::vector<std::pair<QString, QDoubleSpinBox *>> boxes;
    for (auto it = current.begin(); it != current.end(); ++it) {
        if (!it.value().isDouble())
            continue;
        auto *box = new QDoubleSpinBox(&dialog);
        box->setDecimals(10);
        box->setRange(-1e12, 1e12);
        box->setValue(it.value().toDouble());
        form->addRow(it.key(), box);
        boxes.emplace_back(it.key(), box);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, &dialog, [&] {
        const QJsonObject defaults = CompareThresholds{}.toJson();
        for (auto &[key, box] : boxes)
            box->setValue(defaults.value(key).toDouble());
    });
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("The names and meanings are those of docs/COMPARE.md (msprobe and msaccucmp thresholds)."), &dialog));
    layout->addLayout(form);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QJsonObject edited = current;
    for (auto &[key, box] : boxes)
        edited[key] = box->value();
    if (auto t = CompareThresholds::fromJson(edited))
        setThresholds(*t);
    else
        QMessageBox::warning(this, tr("Compare thresholds"), t.errorText());
}

void CompareView::exportCsv()
{
    const auto result = m_model->result();
    if (!result)
        return;
    const QString file = QFileDialog::getSaveFileName(this, tr("Export comparison"), QStringLiteral("compare_result.csv"), tr("CSV files (*.csv)"));
    if (file.isEmpty())
        return;
    if (insideOpenedDump(file)) {
        QMessageBox::warning(this, tr("Export comparison"), tr("DumpScope does not write into an opened dump directory; choose another folder."));
        return;
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(compareCsv(*m_npu, *m_bench, *result)) < 0 || !out.commit())
        QMessageBox::warning(this, tr("Export comparison"), tr("Cannot write %1: %2").arg(file, out.errorString()));
}

bool CompareView::insideOpenedDump(const QString &file) const
{
    return (m_npu && isInsideDir(file, m_npu->rootDir)) || (m_bench && isInsideDir(file, m_bench->rootDir));
}

void CompareView::setMapping(const UserMapping &mapping)
{
    if (mapping == m_mapping)
        return;
    m_mapping = mapping;
    m_focusOps.clear();
    mappingChanged();
}

void CompareView::mapOperators(const QStringList &npu, const QStringList &bench)
{
    if (npu.isEmpty() || bench.isEmpty())
        return;
    m_mapping.assign(npu, bench);
    m_focusOps = npu;
    mappingChanged();
}

void CompareView::removeMappingEntries(QList<int> entries)
{
    std::sort(entries.begin(), entries.end(), std::greater<>());
    m_focusOps.clear();
    for (int e : entries) {
        if (e < 0 || size_t(e) >= m_mapping.entryCount())
            continue;
        if (size_t(e) < m_mapping.names.size())
            m_focusOps << m_mapping.names[size_t(e)].first;
        else
            m_focusOps << m_mapping.groups[size_t(e) - m_mapping.names.size()].npu;
        m_mapping.removeEntry(size_t(e));
    }
    mappingChanged();
}

void CompareView::mappingChanged()
{
    m_mappingModified = true;
    updateMappingPanel();
    remap();
}

void CompareView::updateMappingPanel()
{
    QStringList notes;
    if (const auto result = m_model->result(); result && !m_remapping)
        for (const QString &w : result->warnings)
            if (w.startsWith(QLatin1String("mapping")))
                notes << w;
    m_mappingPanel->setMapping(m_mapping, m_mappingFile, m_mappingModified, notes);
}

void CompareView::remap()
{
    const auto previous = m_model->result();
    if (!m_npu || !m_bench || !previous)
        return; // no comparison yet: start() uses the mapping
    if (m_run.isRunning()) { // a comparison or an earlier edit is under way: redo after it
        m_remapPending = true;
        if (m_remapping && m_cancelRun)
            *m_cancelRun = true;
        return;
    }
    m_remapping = true;
    m_cancelRun = std::make_shared<std::atomic<bool>>(false);
    m_runProgress = std::make_shared<std::atomic<int>>(0);
    m_summary->setText(tr("Applying the mapping: comparing the re-matched rows\u2026"));
    watchProgress();
    CompareOptions options;
    options.thresholds = m_thresholds;
    options.mapping = m_mapping;
    m_run.setFuture(QtConcurrent::run(backgroundPool(), [npu = m_npu, bench = m_bench, previous, options, cancel = m_cancelRun,
                                       progress = m_runProgress] {
        const BackgroundPriority background;
        RunResult out;
        out.remap = true;
        out.bench = bench;
        JobControl job;
        job.cancelFlag = cancel.get();
        job.progress = [progress](int permille) { progress->store(permille); };
        out.result = std::make_shared<const CompareResult>(
            recompareIndexes(*npu, *bench, *previous, options, &job, &out.recompared));
        return out;
    }));
}

void CompareView::showMappingPanel() { m_side->setCurrentWidget(m_mappingPanel); }

void CompareView::chooseBenchForSelection()
{
    const auto result = m_model->result();
    if (!result || !m_bench)
        return;
    QModelIndexList rows;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        rows << m_proxy->mapToSource(i);
    if (rows.isEmpty() && m_table->currentIndex().isValid())
        rows << m_proxy->mapToSource(m_table->currentIndex());
    const QStringList npu = m_model->npuOperators(rows);
    if (npu.isEmpty())
        return;
    BenchOperatorChooser chooser(npu, result, m_npu, m_bench, this);
    if (chooser.exec() == QDialog::Accepted)
        mapOperators(npu, chooser.chosen());
}

void CompareView::showTableMenu(const QPoint &pos)
{
    const QModelIndex at = m_table->indexAt(pos);
    if (!at.isValid() || !m_model->result())
        return;
    if (!m_table->selectionModel()->isSelected(at))
        m_table->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QModelIndexList rows;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        rows << m_proxy->mapToSource(i);
    const QStringList npu = m_model->npuOperators(rows);
    QMenu menu(this);
    if (!npu.isEmpty()) { // none: bench-only rows (a structure region's gap)
        QAction *map = menu.addAction(tr("Map %1 to bench operator\u2026").arg(npu.size() == 1 ? npu.front() : tr("%n operator(s)", nullptr, int(npu.size()))));
        map->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
        connect(map, &QAction::triggered, this, &CompareView::chooseBenchForSelection);
    }
    QStringList mapped;
    for (const QString &op : npu)
        if (m_mapping.mentionsNpu(op))
            mapped << op;
    if (!mapped.isEmpty()) {
        QAction *remove = menu.addAction(tr("Remove the mapping of %1").arg(mapped.join(QStringLiteral(", "))));
        connect(remove, &QAction::triggered, this, [this, mapped] {
            QList<int> entries;
            for (size_t i = 0; i < m_mapping.names.size(); ++i)
                for (const QString &op : mapped)
                    if (m_mapping.names[i].first == op || m_mapping.names[i].first.startsWith(op + QLatin1Char('.')))
                        entries << int(i);
            for (size_t g = 0; g < m_mapping.groups.size(); ++g)
                for (const QString &op : mapped)
                    if (m_mapping.groups[g].npu.contains(op))
                        entries << int(m_mapping.names.size() + g);
            std::sort(entries.begin(), entries.end());
            entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
            removeMappingEntries(entries);
        });
    }
    const QString benchOp = m_model->benchOperator(m_proxy->mapToSource(at).row());
    if (!benchOp.isEmpty()) {
        QAction *show = menu.addAction(tr("Show %1 among the bench operators").arg(benchOp));
        connect(show, &QAction::triggered, this, [this, benchOp] {
            m_side->setCurrentWidget(m_benchPanel);
            m_benchPanel->selectOperator(benchOp);
        });
    }
    menu.exec(m_table->viewport()->mapToGlobal(pos));
}

Result<bool> CompareView::loadMapping(const QString &path)
{
    auto loaded = UserMapping::load(path);
    if (!loaded)
        return Result<bool>::failure(loaded.errorText());
    m_mappingFile = path;
    const bool changed = !(*loaded == m_mapping);
    m_mapping = std::move(*loaded);
    m_mappingModified = false;
    m_focusOps.clear();
    updateMappingPanel();
    if (changed)
        remap();
    return true;
}

Result<bool> CompareView::saveMapping(const QString &path)
{
    if (insideOpenedDump(path))
        return Result<bool>::failure(tr("%1 lies inside an opened dump directory; DumpScope never writes there.").arg(path));
    auto saved = m_mapping.save(path);
    if (!saved)
        return saved;
    m_mappingFile = path;
    m_mappingModified = false;
    updateMappingPanel();
    return true;
}

void CompareView::saveMappingAs()
{
    const QString json = tr("JSON mapping (*.json)"), yaml = tr("YAML mapping, names only (*.yaml *.yml)");
    QString filter = m_mapping.groups.empty() && m_mappingFile.endsWith(QLatin1String(".yaml")) ? yaml : json;
    QString file = QFileDialog::getSaveFileName(this, tr("Save mapping"),
                                                m_mappingFile.isEmpty() ? QStringLiteral("mapping.json") : m_mappingFile,
                                                json + QStringLiteral(";;") + yaml, &filter);
    if (file.isEmpty())
        return;
    if (QFileInfo(file).suffix().isEmpty())
        file += filter == yaml ? QStringLiteral(".yaml") : QStringLiteral(".json");
    if (auto r = saveMapping(file); !r)
        QMessageBox::warning(this, tr("Save mapping"), r.errorText());
}

void CompareView::loadMappingFrom()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Load mapping"), m_mappingFile,
                                                      tr("Mapping files (*.json *.yaml *.yml);;All files (*)"));
    if (file.isEmpty())
        return;
    if (auto r = loadMapping(file); !r)
        QMessageBox::warning(this, tr("Load mapping"), r.errorText());
}

} // namespace ds
