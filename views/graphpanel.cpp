#include "graphpanel.h"

#include "background.h"
#include "compare/compare.h"
#include "dumpgraph/graphdiscovery.h"
#include "dumpgraph/modulegraph.h"
#include "dumpgraph/visdbgraph.h"
#include "graphcompareview.h"
#include "graphview.h"
#include "dump/dumpindex.h"
#include "formats/readers.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <cmath>

namespace ds {

namespace {

/// The colour menu's data role that holds the HeadroomTarget of an UnderflowFraction entry.
constexpr int kUnderflowTargetRole = Qt::UserRole + 1;

constexpr int kMaxResults = 100;

struct LoadedGraphs
{
    std::shared_ptr<const std::vector<GraphModel>> models;
    QStringList errors;
    int files = 0;
    bool moduleDeferred = false; ///< no graph file; the module hierarchy waits until the panel is shown
};

struct BenchGraph
{
    std::shared_ptr<const std::vector<GraphModel>> models;
    std::shared_ptr<const DumpMapping> mapping;
    int model = -1;
};

} // namespace

GraphPanel::GraphPanel(QWidget *parent) : QWidget(parent)
{
    m_view = new GraphView(this);
    m_compareView = new GraphCompareView(this);
    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_view);
    m_pages->addWidget(m_compareView);
    m_selector = new QComboBox(this);
    m_selector->setToolTip(tr("The graph shown: graph files found for the dump (best computation-graph candidate "
                              "first) or the module graphs of a framework dump"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Find operator by name or type\u2026"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(60);
    m_search->setToolTip(tr("Type part of an operator name or type; Enter jumps to the next match"));
    m_results = new QStringListModel(this);
    m_completer = new QCompleter(m_results, this);
    m_completer->setCompletionMode(QCompleter::UnfilteredPopupCompletion);
    m_completer->setMaxVisibleItems(15);
    m_search->setCompleter(m_completer);
    m_hits = new QLabel(this);
    m_subgraphs = new QComboBox(this);
    m_subgraphs->setToolTip(tr("The root graph of the model or one of its sub-graphs (double-click a node that "
                               "calls a sub-graph to open it)"));
    m_subgraphs->setVisible(false);
    m_overlay = new QComboBox(this);
    m_overlay->addItem(tr("Overflow"), int(Overlay::Overflow));
    m_overlay->addItem(tr("NaN / Inf in outputs"), int(Overlay::NonFinite));
    m_overlay->addItem(tr("Max |output|"), int(Overlay::MaxAbs));
    // One entry per target dtype; the target rides in a second data role.
    for (const HeadroomLimits &l : headroomLimits()) {
        m_overlay->addItem(tr("Underflows in %1").arg(QString::fromLatin1(l.name)), int(Overlay::UnderflowFraction));
        m_overlay->setItemData(m_overlay->count() - 1, int(l.target), kUnderflowTargetRole);
    }
    m_overlay->setToolTip(tr("What the node colours show. Statistics overlays read the output tensors of the "
                             "operators in this graph in the background."));
    m_statsProgress = new QLabel(this);
    m_stopStats = new QToolButton(this);
    m_stopStats->setText(tr("Stop"));
    m_stopStats->setToolTip(tr("Stop computing statistics (colours shown so far stay)"));
    m_stopStats->setVisible(false);
    m_start = new QToolButton(this);
    m_start->setText(tr("Start"));
    m_start->setToolTip(tr("Back to where the graph starts: the data entry, or the first overflow or divergence (key Home)"));
    m_fit = new QToolButton(this);
    m_fit->setText(tr("Fit all"));
    m_fit->setToolTip(tr("Show the whole graph (key 0)"));
    m_sideBySide = new QToolButton(this);
    m_sideBySide->setText(tr("Side by side"));
    m_sideBySide->setCheckable(true);
    m_sideBySide->setVisible(false);
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true); // never widen the window: the legend wraps instead
    m_status = new QLabel(tr("Open a dump to see its computation graph."), this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_links = new QLabel(this);
    m_links->setWordWrap(true);
    m_links->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *top = new QHBoxLayout; // narrow enough never to widen the window (the combo's tooltip names it)
    m_selector->setMinimumContentsLength(6); // never widen the window: the combo elides
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_subgraphs->setMinimumContentsLength(6);
    m_subgraphs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    top->addWidget(m_selector, 2);
    top->addWidget(m_subgraphs, 1);
    top->addWidget(m_search, 2);
    top->addWidget(m_hits);
    top->addWidget(m_start);
    top->addWidget(m_fit);
    top->addWidget(m_sideBySide);
    // Second row: what the colours mean, and the job that computes them.
    auto *overlay = new QHBoxLayout;
    overlay->addWidget(new QLabel(tr("Colour by:"), this));
    overlay->addWidget(m_overlay);
    overlay->addWidget(m_statsProgress);
    overlay->addWidget(m_stopStats);
    overlay->addWidget(m_legend, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_links);
    layout->addWidget(m_status);
    layout->addLayout(overlay);
    layout->addWidget(m_pages, 1);

    connect(m_fit, &QToolButton::clicked, this, [this] {
        if (isSideBySide()) {
            m_compareView->npuView()->fitToView();
            m_compareView->benchView()->fitToView();
        } else {
            m_view->fitToView();
        }
    });
    connect(m_start, &QToolButton::clicked, this, [this] {
        (isSideBySide() ? m_compareView->npuView() : m_view)->showStart();
    });
    connect(m_sideBySide, &QToolButton::toggled, this, &GraphPanel::setSideBySide);
    connect(m_search, &QLineEdit::textEdited, this, &GraphPanel::onSearchEdited);
    connect(m_search, &QLineEdit::returnPressed, this, &GraphPanel::nextSearchResult);
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this, [this](const QString &text) {
        const int row = int(m_results->stringList().indexOf(text));
        if (row < 0 || size_t(row) >= m_resultNodes.size())
            return;
        const NodeId node = m_resultNodes[size_t(row)];
        m_resultNodes = {node}; // Enter right after the pick must not move on to another match
        m_resultPos = 0;
        jumpTo(node);
    });
    connect(m_selector, qOverload<int>(&QComboBox::activated), this, [this](int i) { showModel(m_selector->itemData(i).toInt()); });
    connect(m_subgraphs, qOverload<int>(&QComboBox::activated), this, [this](int i) { showGraph(i); });
    connect(m_overlay, qOverload<int>(&QComboBox::activated), this, [this] { startStats(); });
    connect(m_stopStats, &QToolButton::clicked, this, &GraphPanel::stopStats);
    connect(m_view, &GraphView::nodeDoubleClicked, this, [this](NodeId node) {
        if (!m_models || m_shown < 0)
            return;
        const GraphModel &m = (*m_models)[size_t(m_shown)];
        for (const QString &name : m_view->graph()->node(node).subgraphNames)
            for (size_t g = 1; g < m.graphs.size(); ++g)
                if (m.graphs[g].name == name) {
                    showGraph(int(g));
                    return;
                }
    });
    connect(m_view, &GraphView::nodeActivated, this, [this](NodeId node) {
        const auto ops = describe(node);
        if (!ops.empty()) {
            emit opActivated(m_dump, ops.front());
        } else if (m_models && m_shown >= 0 && isVisDbGraph((*m_models)[size_t(m_shown)]) && m_view->graph()) {
            // No operator of an open dump: the statistics the database recorded for the node.
            const GraphModel &m = (*m_models)[size_t(m_shown)];
            const Graph &g = *m_view->graph();
            emit recordedNodeActivated(g.node(node), tr("%1 in %2").arg(m.modelName, QDir::toNativeSeparators(m.file)),
                                       visDbRowsKey(g, g.node(node)));
        }
    });
    connect(m_compareView, &GraphCompareView::pairRequested, this, &GraphPanel::pairRequested);
    connect(m_compareView, &GraphCompareView::npuOpActivated, this, [this](int op) { emit opActivated(m_dump, op); });
    updateGeometry();
}

GraphPanel::~GraphPanel() { stopStats(); }

void GraphPanel::setOverlayKind(Overlay kind)
{
    m_overlay->setCurrentIndex(m_overlay->findData(int(kind)));
    startStats();
}

GraphPanel::Overlay GraphPanel::overlayKind() const { return Overlay(m_overlay->currentData().toInt()); }

void GraphPanel::setUnderflowOverlay(HeadroomTarget target)
{
    for (int i = 0; i < m_overlay->count(); ++i)
        if (m_overlay->itemData(i).toInt() == int(Overlay::UnderflowFraction) && m_overlay->itemData(i, kUnderflowTargetRole).toInt() == int(target))
            m_overlay->setCurrentIndex(i);
    startStats();
}

HeadroomTarget GraphPanel::underflowTarget() const
{
    return overlayKind() == Overlay::UnderflowFraction ? HeadroomTarget(m_overlay->currentData(kUnderflowTargetRole).toInt())
                                                       : HeadroomTarget::Float16;
}

void GraphPanel::setCompareResult(const CompareResult &result)
{
    setCompareResult(std::make_shared<const CompareResult>(result), nullptr);
}

void GraphPanel::setCompareResult(std::shared_ptr<const CompareResult> result, std::shared_ptr<const DumpIndex> bench,
                                  int firstDivergence)
{
    m_compare.clear();
    m_compareResult = result;
    m_firstDivergence = result && firstDivergence >= 0 && size_t(firstDivergence) < result->divergences.size() ? firstDivergence : 0;
    if (!result)
        return;
    for (const CompareRow &row : result->rows) {
        if (!row.compared())
            continue;
        OpCompare &c = m_compare[row.npu.op];
        c.verdict = std::max(c.verdict, int(row.verdict));
        // The worst value of the op's rows; a NaN metric (undefined, e.g. the cosine of an
        // all-zero side) is worse than any number. Placeholders (N/A, unsupported) are skipped.
        const auto take = [&](double &have, bool &has, Metric k, bool lowIsBad) {
            const MetricValue &v = row.metrics[size_t(k)];
            if (!v.isNumber() && v.state != MetricValue::State::Nan)
                return;
            has = true;
            have = std::isnan(have) || std::isnan(v.value) ? std::nan("") : lowIsBad ? std::min(have, v.value) : std::max(have, v.value);
        };
        take(c.cosine, c.hasCosine, Metric::Cosine, true);
        take(c.maxAbsErr, c.hasAbs, Metric::MaxAbsErr, false);
        take(c.maxRelErr, c.hasRel, Metric::MaxRelativeErr, false);
    }
    const std::pair<Overlay, QString> kinds[] = {{Overlay::Compare, tr("Compare verdict")},
                                                 {Overlay::CompareCosine, tr("Compare: cosine")},
                                                 {Overlay::CompareMaxAbsErr, tr("Compare: max absolute error")},
                                                 {Overlay::CompareMaxRelErr, tr("Compare: max relative error")},
                                                 {Overlay::CompareAddedError, tr("Compare: error added")}};
    for (const auto &[kind, text] : kinds)
        if (m_overlay->findData(int(kind)) < 0)
            m_overlay->addItem(text, int(kind));
    setOverlayKind(Overlay::Compare);
    // The graph starts at the first divergence.
    if (const NodeId start = startNode(); start.isValid())
        m_view->setStartNode(start);
    if (bench && bench == m_bench && m_benchMapping) { // the same bench after a mapping edit
        m_compareView->updateResult(m_compareResult, m_firstDivergence);
        return;
    }
    m_bench = std::move(bench);
    m_benchModels.reset();
    m_benchMapping.reset();
    m_benchModel = -1;
    m_sideBySide->setVisible(false);
    loadBenchGraph();
}

void GraphPanel::loadBenchGraph()
{
    if (!m_bench || !m_models || m_shown < 0)
        return;
    const int job = ++m_benchJob;
    const GraphModel &npu = (*m_models)[size_t(m_shown)];
    const QString npuName = npu.modelName;
    auto *watcher = new QFutureWatcher<BenchGraph>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job] {
        watcher->deleteLater();
        if (job != m_benchJob)
            return;
        const BenchGraph b = watcher->result();
        if (!b.mapping) {
            m_sideBySide->setVisible(true);
            m_sideBySide->setEnabled(false);
            m_sideBySide->setToolTip(tr("The bench dump has no graph to show beside this one"));
            return;
        }
        m_benchModels = b.models;
        m_benchMapping = b.mapping;
        m_benchModel = b.model;
        m_sideBySide->setVisible(true);
        m_sideBySide->setEnabled(true);
        m_sideBySide->setToolTip(tr("Show the NPU and bench graphs side by side, matched nodes aligned"));
        if (isSideBySide())
            showCompareSides();
        emit benchGraphReady();
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [bench = m_bench, npuName] {
        const BackgroundPriority background;
        BenchGraph out;
        DiscoveredGraphs found = discoverGraphs(bench->openedPath, {}, bench.get());
        if (found.models.empty())
            return out;
        auto models = std::make_shared<std::vector<GraphModel>>(std::move(found.models));
        int pick = 0;
        if (found.moduleGraphs) {
            for (size_t i = 0; i < models->size(); ++i)
                if ((*models)[i].modelName == npuName)
                    pick = int(i);
        } else {
            pick = rankComputationGraphs(*models, dumpModelNames(*bench)).front().model;
        }
        const GraphModel &m = (*models)[size_t(pick)];
        out.mapping = std::make_shared<const DumpMapping>(isModuleGraph(m) ? mapModuleGraph(m, *bench) : mapDumpToGraph(m, *bench));
        out.model = pick;
        out.models = std::move(models);
        return out;
    }));
}

bool GraphPanel::isSideBySide() const { return m_pages->currentWidget() == m_compareView; }

void GraphPanel::setSideBySide(bool on)
{
    if (on && !m_benchMapping)
        on = false;
    if (m_sideBySide->isChecked() != on) {
        const QSignalBlocker block(m_sideBySide);
        m_sideBySide->setChecked(on);
    }
    if (on == isSideBySide())
        return;
    m_pages->setCurrentWidget(on ? static_cast<QWidget *>(m_compareView) : m_view);
    m_overlay->setEnabled(!on); // side by side, the colours are the comparison's
    if (on)
        showCompareSides();
    applyOverlay();
}

void GraphPanel::showCompareSides()
{
    if (!m_benchMapping || !m_models || m_shown < 0 || !m_compareResult)
        return;
    const GraphModel &npu = (*m_models)[size_t(m_shown)];
    const GraphModel &bench = (*m_benchModels)[size_t(m_benchModel)];
    GraphCompareView::Side a, b;
    a.graph = std::shared_ptr<const Graph>(m_models, &npu.graphs[size_t(m_graph)]);
    a.mapping = m_mapping;
    a.graphIndex = m_graph;
    a.index = m_index;
    a.title = npu.graphs[size_t(m_graph)].name;
    b.graph = std::shared_ptr<const Graph>(m_benchModels, &bench.graphs.front());
    b.mapping = m_benchMapping;
    b.graphIndex = 0;
    b.index = m_bench;
    b.title = bench.graphs.front().name;
    m_compareView->setSides(std::move(a), std::move(b), m_compareResult, m_firstDivergence);
}

void GraphPanel::loadForDump(const QString &dumpPath, std::shared_ptr<const DumpIndex> index, int dump)
{
    const int job = ++m_job;
    m_dumpPath = dumpPath;
    m_loadIndex = index; // a graph folder added before this load ends is read with this dump
    m_loadDump = dump;
    m_deferred = {};
    // Graph files are read at once. The module hierarchy of a framework dump is built from
    // the index only once this panel is shown: it holds a node per operator (1.4 GB for a
    // run of 1.4 M msprobe entries), which opening a run must not pay for unasked.
    const bool moduleFallback = isVisible();
    m_status->setText(dumpPath.isEmpty() ? tr("Reading the graph files\u2026") : tr("Looking for graph files for %1\u2026").arg(dumpPath));
    auto *watcher = new QFutureWatcher<LoadedGraphs>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, index, dump, dumpPath] {
        watcher->deleteLater();
        if (job != m_job)
            return;
        const LoadedGraphs loaded = watcher->result();
        m_readErrors = loaded.errors;
        if (loaded.moduleDeferred) {
            setGraphs(nullptr, index, dump);
            if (isVisible()) { // shown while the graph files were looked for
                loadForDump(dumpPath, index, dump);
                return;
            }
            m_deferred = Deferred{dumpPath, index, dump};
            m_status->setText(tr("The module hierarchy of %1 is drawn when this tab is shown.").arg(dumpPath));
            return;
        }
        if (loaded.models->empty()) {
            setGraphs(nullptr, index, dump);
            m_status->setText(loaded.errors.isEmpty()
                                  ? tr("No GE graph files (ge_proto_*.txt, ge_onnx_*.pbtxt) in or next to %1. Dump them with "
                                       "DUMP_GE_GRAPH=2, or add their folder with File \u2192 Add Graph Folder.")
                                        .arg(dumpPath.isEmpty() ? m_graphPaths.join(QStringLiteral(", ")) : dumpPath)
                                  : tr("No readable graph file: %1").arg(loaded.errors.join(QStringLiteral("; "))));
            return;
        }
        setGraphs(loaded.models, index, dump);
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [dumpPath, index, paths = m_graphPaths, moduleFallback,
                                                          visDbRowsUpTo = m_visDbRowsUpTo] {
        const BackgroundPriority background;
        DiscoveryOptions options;
        options.moduleFallback = moduleFallback;
        options.visDbRowsUpTo = visDbRowsUpTo;
        DiscoveredGraphs found = discoverGraphs(dumpPath, paths, index.get(), options);
        LoadedGraphs out;
        out.errors = found.errors();
        out.files = int(found.files.size());
        if (!moduleFallback && found.models.empty() && index) {
            const auto formats = index->sourceFormats();
            out.moduleDeferred = std::any_of(formats.begin(), formats.end(), [](FormatId f) { return formatReader(f).hasModuleGraph(); });
        }
        out.models = std::make_shared<const std::vector<GraphModel>>(std::move(found.models));
        return out;
    }));
}

void GraphPanel::showNote(int dump, const QString &text)
{
    m_deferred = {};
    setGraphs(nullptr, nullptr, dump);
    m_status->setText(text);
}

void GraphPanel::closeDump(int dump)
{
    if (m_deferred.dump == dump)
        m_deferred = {};
    if (m_dump == dump)
        setGraphs(nullptr, nullptr, -1);
}

void GraphPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_deferred.index) {
        const Deferred d = std::exchange(m_deferred, Deferred{});
        loadForDump(d.path, d.index, d.dump);
    }
}

void GraphPanel::addGraphPaths(const QStringList &paths)
{
    bool added = false;
    for (const QString &p : paths) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        if (!m_graphPaths.contains(abs)) {
            m_graphPaths << abs;
            added = true;
        }
    }
    if (added) // the dump of the last load, which may not have ended yet (m_index is set when it does)
        loadForDump(m_dumpPath, m_loadIndex, m_loadDump);
}

void GraphPanel::setGraphs(std::shared_ptr<const std::vector<GraphModel>> models, std::shared_ptr<const DumpIndex> index, int dump)
{
    ++m_job;
    stopStats();
    if (dump != m_dump) {
        m_opMarks.clear(); // marks are per dump: the owner sets the new dump's (see graphShown)
        m_firstOverflowOp = -1;
    }
    if (dump != m_dump || index != m_index) {
        m_opStats.clear();
        m_compare.clear();
        m_compareResult.reset();
        m_bench.reset();
        m_benchMapping.reset();
        m_benchModels.reset();
        m_sideBySide->setVisible(false);
        setSideBySide(false);
    }
    m_graph = 0;
    m_subgraphs->clear();
    m_subgraphs->setVisible(false);
    m_models = std::move(models);
    m_visDbLevels.clear();
    m_index = std::move(index);
    m_dump = dump;
    m_loadIndex = m_index;
    m_loadDump = dump;
    m_shown = -1;
    m_mapping.reset();
    m_linked = 0;
    m_links->clear();
    m_selector->clear();
    m_resultNodes.clear();
    m_results->setStringList({});
    m_hits->clear();
    if (!m_models || m_models->empty()) {
        m_view->setGraph(nullptr);
        m_status->setText(tr("No computation graph for this dump."));
        return;
    }
    const bool visDb = isVisDbGraph(m_models->front());
    m_visDbKind.clear();
    if (isModuleGraph(m_models->front()) || visDb) { // one per step/rank (and side), in their order
        for (size_t i = 0; i < m_models->size(); ++i) {
            const GraphModel &m = (*m_models)[i];
            // A database by what it is (build or compare, its runs, step and rank, its finding),
            // its time stamp last; a module hierarchy by its rank directory.
            m_selector->addItem(isVisDbGraph(m) ? visDbModelTitle(m)
                                                : tr("%1 \u2014 %2 (%n op(s))", nullptr, m.nodeCount()).arg(QFileInfo(m.file).fileName(), m.modelName),
                                int(i));
            m_selector->setItemData(int(i), isVisDbGraph(m)
                                                ? tr("msprobe graph database %1: %2").arg(QDir::toNativeSeparators(m.file), visDbModelTitle(m))
                                                : hasScopeGroups(m) ? tr("Name scopes of the MindSpore kernel dump in %1").arg(m.modelName)
                                                : tr("Module hierarchy of the framework dump in %1 (construct.json)").arg(m.modelName),
                                    Qt::ToolTipRole);
        }
        // A database opens on its first graph with a finding (the first overflow, an error):
        // step 0 of an overflow run has none, and showed every node white.
        const int first = visDb ? visDbFirstModel(*m_models) : 0;
        m_selector->setCurrentIndex(first);
        showModel(first);
        return;
    }
    const auto ranked = rankComputationGraphs(*m_models, m_index ? dumpModelNames(*m_index) : QStringList());
    for (const auto &c : ranked) {
        const GraphModel &m = (*m_models)[size_t(c.model)];
        const QString name = m.root() ? m.root()->name : m.modelName;
        m_selector->addItem(tr("%1 \u2014 %2 (%n op(s))", nullptr, c.opCount).arg(QFileInfo(m.file).fileName(), name), c.model);
        m_selector->setItemData(m_selector->count() - 1, QString(QDir::toNativeSeparators(m.file) + QLatin1Char('\n') + c.reason), Qt::ToolTipRole);
    }
    m_selector->setCurrentIndex(0);
    showModel(ranked.front().model);
}

void GraphPanel::showModel(int model)
{
    if (!m_models || model < 0 || size_t(model) >= m_models->size())
        return;
    const int job = ++m_job;
    m_shown = model;
    if (m_bench && m_benchMapping) { // another NPU graph: its bench counterpart is found again
        m_benchMapping.reset();
        m_benchModels.reset();
        setSideBySide(false);
        m_sideBySide->setVisible(false);
    }
    const GraphModel &m = (*m_models)[size_t(model)];
    if (!m.root()) {
        m_view->setGraph(nullptr);
        m_status->setText(tr("%1 holds no graph.").arg(m.file));
        return;
    }
    if (isVisDbGraph(m))
        followDatabaseColours(m);
    m_status->setText(tr("Mapping dump files onto %1\u2026").arg(m.root()->name));
    auto *watcher = new QFutureWatcher<std::shared_ptr<const DumpMapping>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, model] {
        watcher->deleteLater();
        if (job != m_job)
            return; // another graph or dump was chosen meanwhile
        m_mapping = watcher->result();
        const GraphModel &m = (*m_models)[size_t(model)];
        m_subgraphs->clear();
        for (const Graph &g : m.graphs)
            m_subgraphs->addItem(&g == m.root() ? tr("%1 (root graph)").arg(g.name) : tr("sub-graph %1").arg(g.name));
        m_subgraphs->setVisible(m.graphs.size() > 1);
        showGraph(0);
        if (m_bench) // the bench graph that goes with this one (module graphs: the same step/rank)
            loadBenchGraph();
        emit graphShown();
    });
    watcher->setFuture(QtConcurrent::run(backgroundPool(), [models = m_models, index = m_index, model]() -> std::shared_ptr<const DumpMapping> {
        const BackgroundPriority background;
        const GraphModel &m = (*models)[size_t(model)];
        if (!index)
            return nullptr;
        if (isVisDbGraph(m)) { // a database carries its own node state; its nodes link to the dump's operators
            DumpMapping mapping = mapVisDbGraph(m, *index);
            return mapping.nodeOps.empty() ? nullptr : std::make_shared<const DumpMapping>(std::move(mapping));
        }
        return std::make_shared<const DumpMapping>(isModuleGraph(m) ? mapModuleGraph(m, *index) : mapDumpToGraph(m, *index));
    }));
}

void GraphPanel::followDatabaseColours(const GraphModel &model)
{
    const QString kind = isVisDbCompare(model) ? QStringLiteral("compare") : QStringLiteral("build");
    if (kind == m_visDbKind)
        return; // another step or rank of the same kind keeps the user's choice
    m_visDbKind = kind;
    if (kind == QLatin1String("compare")) {
        if (m_overlay->findData(int(Overlay::Compare)) < 0)
            m_overlay->addItem(tr("Compare verdict"), int(Overlay::Compare));
        setOverlayKind(Overlay::Compare);
    } else {
        setOverlayKind(Overlay::Overflow);
    }
}

NodeId GraphPanel::startNode() const
{
    if (m_models && m_shown >= 0 && isVisDbGraph((*m_models)[size_t(m_shown)])) {
        const GraphModel &m = (*m_models)[size_t(m_shown)];
        if (size_t(m_graph) < m.graphs.size())
            return visDbStartNode(m.graphs[size_t(m_graph)]);
    }
    // The first divergence of a comparison, else the first overflow, else (invalid) the entry.
    int op = -1;
    if (m_compareResult && size_t(m_firstDivergence) < m_compareResult->divergences.size())
        op = m_compareResult->divergences[size_t(m_firstDivergence)].originOp;
    if (op < 0 || !nodeOfOp(op).isValid())
        op = m_firstOverflowOp;
    return nodeOfOp(op);
}

void GraphPanel::setFirstOverflowOp(int op)
{
    m_firstOverflowOp = op;
    if (const NodeId start = startNode(); start.isValid())
        m_view->setStartNode(start);
}

void GraphPanel::showGraph(int graph)
{
    if (!m_models || m_shown < 0 || graph < 0 || size_t(graph) >= (*m_models)[size_t(m_shown)].graphs.size())
        return;
    const GraphModel &m = (*m_models)[size_t(m_shown)];
    const Graph &g = m.graphs[size_t(graph)];
    m_graph = graph;
    m_subgraphs->setCurrentIndex(graph);
    m_resultNodes.clear();
    m_results->setStringList({});
    m_hits->clear();
    m_view->setGraph(std::shared_ptr<const Graph>(m_models, &g), startNode());
    if (m_mapping && size_t(graph) < m_mapping->nodeOps.size()) {
        std::vector<bool> faded(g.nodes.size(), false);
        for (size_t n = 0; n < faded.size(); ++n)
            faded[n] = m_mapping->nodeOps[size_t(graph)][n].empty();
        m_view->setFadedNodes(std::move(faded));
    }
    QString text = tr("%1: %n operator(s)", nullptr, int(g.nodes.size())).arg(g.name);
    if (m.reducedFidelity)
        text += QStringLiteral("; ") + tr("read from ONNX text (reduced fidelity)");
    if (hasScopeGroups(m))
        text += QStringLiteral("; ") + tr("groups are the kernels' name scopes (Default: forward, Gradients: backward), edges "
                                          "show the execution order (the dump records no data flow)");
    else if (isModuleGraph(m))
        text += QStringLiteral("; ") + tr("forward and backward apart, groups are modules, parameters sit in their module, edges "
                                          "show the call order (the dump records no data flow)");
    m_status->setText(text + QStringLiteral(". ") + tr("Double-click a group (\u25b8) to open or close it; stacked boxes are folded "
                                                       "crowds of siblings with the same name pattern."));
    updateLinks();
    if (isSideBySide())
        showCompareSides();
    startStats();
}

/// The line that says how the dump is linked to the shown graph (the CLI's numbers).
void GraphPanel::updateLinks()
{
    m_linked = 0;
    if (!m_models || m_shown < 0) {
        m_links->clear();
        return;
    }
    const GraphModel &m = (*m_models)[size_t(m_shown)];
    QString text;
    if (isVisDbGraph(m)) {
        text = tr("msprobe graph database: the colours are the levels msprobe stored.");
        if (m_mapping && size_t(m_graph) < m_mapping->nodeOps.size()) {
            int nodes = 0;
            for (const auto &ops : m_mapping->nodeOps[size_t(m_graph)])
                nodes += ops.empty() ? 0 : 1;
            m_linked = int(m_mapping->consideredOps.size() - m_mapping->unmappedOps.size());
            text += QLatin1Char(' ') + tr("%1 of %2 nodes are operators of the open dump: click one to show its tensors.")
                                           .arg(nodes)
                                           .arg(m_mapping->nodeOps[size_t(m_graph)].size());
        } else {
            text += QLatin1Char(' ') + tr("Click a node to see the statistics msprobe recorded for its inputs and outputs.");
        }
    } else if (!m_index || m_index->ops.empty()) {
        text = tr("No dump is open: the graph is shown without dump data. Open the dump to link its operators.");
    } else if (m_mapping) {
        const int considered = int(m_mapping->consideredOps.size());
        m_linked = considered - int(m_mapping->unmappedOps.size());
        int nodesWithData = 0, nodes = 0; // of the shown graph
        if (size_t(m_graph) < m_mapping->nodeOps.size())
            for (const auto &ops : m_mapping->nodeOps[size_t(m_graph)]) {
                ++nodes;
                nodesWithData += ops.empty() ? 0 : 1;
            }
        if (considered == 0)
            text = tr("Not linked: no model_name folder of the dump is named like this graph (%1); %n dump operator(s) open.",
                      nullptr, int(m_index->ops.size()))
                       .arg(m.root() ? m.root()->name : m.modelName);
        else
            text = tr("Linked: %1 of %n dump operator(s) map to graph nodes; %2 of %3 nodes have dump data (dotted border: none).",
                      nullptr, considered)
                       .arg(m_linked)
                       .arg(nodesWithData)
                       .arg(nodes);
        if (!m_mapping->modelFolders.isEmpty() && !isModuleGraph(m))
            text += QLatin1Char(' ') + tr("Model folder: %1.").arg(m_mapping->modelFolders.join(QStringLiteral(", ")));
        if (considered > 0 && size_t(considered) < m_index->ops.size() && !isModuleGraph(m))
            text += QLatin1Char(' ') + tr("%n other operator(s) of the dump belong to other model folders or graphs.", nullptr,
                                          int(m_index->ops.size()) - considered);
    }
    if (!m_readErrors.isEmpty())
        text += QLatin1Char(' ') + tr("%n graph file(s) could not be read.", nullptr, int(m_readErrors.size()));
    m_links->setText(text);
    m_links->setToolTip(m_readErrors.join(QLatin1Char('\n')));
}

NodeId GraphPanel::nodeOfOp(int op) const
{
    if (!m_mapping || op < 0 || size_t(op) >= m_mapping->opNode.size())
        return {};
    const GraphNodeRef ref = m_mapping->opNode[size_t(op)];
    return ref.graph == m_graph ? ref.node : NodeId{};
}

std::vector<int> GraphPanel::opsOfNode(NodeId node) const
{
    if (!m_mapping || !node.isValid() || size_t(m_graph) >= m_mapping->nodeOps.size()
        || node.index() >= m_mapping->nodeOps[size_t(m_graph)].size())
        return {};
    return m_mapping->nodeOps[size_t(m_graph)][node.index()];
}

bool GraphPanel::canShowOp(int dump, int op) const
{
    if (m_deferred.index && m_deferred.dump == dump)
        return op >= 0;
    return dump == m_dump && m_mapping && op >= 0 && size_t(op) < m_mapping->opNode.size() && m_mapping->opNode[size_t(op)].isValid();
}

void GraphPanel::showOp(int dump, int op)
{
    if (dump == m_dump && m_mapping) {
        selectOp(dump, op);
        return;
    }
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(this, &GraphPanel::graphShown, this, [this, once, dump, op] {
        disconnect(*once);
        selectOp(dump, op); // nothing when another dump's graph came first
    });
}

void GraphPanel::selectOp(int dump, int op)
{
    if (dump != m_dump)
        return;
    if (m_mapping && op >= 0 && size_t(op) < m_mapping->opNode.size()) {
        const GraphNodeRef ref = m_mapping->opNode[size_t(op)];
        if (ref.isValid() && ref.graph != m_graph)
            showGraph(ref.graph); // the op runs inside a sub-graph
    }
    const NodeId node = nodeOfOp(op);
    if (node.isValid()) {
        m_view->selectNode(node);
        describe(node);
    }
}

void GraphPanel::onSearchEdited(const QString &text)
{
    m_resultNodes = m_view->findNodes(text.trimmed(), kMaxResults + 1);
    m_resultPos = -1;
    const bool more = m_resultNodes.size() > size_t(kMaxResults);
    if (more)
        m_resultNodes.pop_back();
    QStringList rows;
    const Graph *g = m_view->graph();
    for (NodeId n : m_resultNodes)
        rows << QStringLiteral("%1  \u2014  %2").arg(g->node(n).name, g->node(n).type);
    m_results->setStringList(rows);
    if (text.trimmed().isEmpty())
        m_hits->clear();
    else if (more)
        m_hits->setText(tr("%1+ matches").arg(kMaxResults));
    else
        m_hits->setText(tr("%n match(es)", nullptr, int(rows.size())));
    if (!rows.isEmpty())
        m_completer->complete();
}

void GraphPanel::nextSearchResult()
{
    if (m_resultNodes.empty())
        onSearchEdited(m_search->text());
    if (m_resultNodes.empty())
        return;
    m_completer->popup()->hide();
    m_resultPos = (m_resultPos + 1) % int(m_resultNodes.size());
    m_hits->setText(tr("%1 of %2").arg(m_resultPos + 1).arg(m_resultNodes.size()));
    jumpTo(m_resultNodes[size_t(m_resultPos)]);
}

std::vector<int> GraphPanel::describe(NodeId node)
{
    const auto ops = opsOfNode(node);
    const GraphNode &n = m_view->graph()->node(node);
    const bool visDb = m_models && m_shown >= 0 && isVisDbGraph((*m_models)[size_t(m_shown)]);
    if (visDb && ops.empty())
        m_status->setText(tr("%1 (%2): the statistics msprobe recorded are shown in the inspector.").arg(n.name, n.type));
    else if (!m_mapping)
        m_status->setText(tr("%1 (%2)").arg(n.name, n.type));
    else if (ops.empty())
        m_status->setText(tr("%1 (%2): no dump data for this node.").arg(n.name, n.type));
    else
        m_status->setText(tr("%1 (%2): %n dump file(s).", nullptr, int(ops.size())).arg(n.name, n.type));
    return ops;
}

void GraphPanel::jumpTo(NodeId node)
{
    m_view->selectNode(node);
    describe(node);
}

} // namespace ds
