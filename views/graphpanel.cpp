#include "graphpanel.h"

#include "formats/ge/gegraphreader.h"
#include "dumpgraph/modulegraph.h"
#include "graphview.h"
#include "compare/compare.h"
#include "dump/dumpindex.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStringListModel>
#include <QToolButton>
#include <QElapsedTimer>
#include <QPointer>
#include <QScopeGuard>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <array>
#include <cmath>

namespace ds {

namespace {

constexpr int kMaxResults = 100;

/// Overflow mark colours (the delegate's, with the OpDebug mark set apart).
QColor markColor(int mark)
{
    switch (mark) {
    case 1: return QColor(0xb8, 0x8a, 0x00);
    case 2: return QColor(0xef, 0x6c, 0x00);
    case 3: return QColor(0xd3, 0x2f, 0x2f);
    case 4: return QColor(0x8e, 0x00, 0x4b);
    default: return {};
    }
}

/// Largest output magnitude in five bands; float16's largest finite value bounds the top one.
int maxAbsLevel(const OpStats &st)
{
    if (!st.error.isEmpty() && std::isnan(st.max))
        return 0;
    if (st.nan || st.inf)
        return 5;
    const double m = std::max(std::fabs(st.min), std::fabs(st.max));
    if (std::isnan(m))
        return 0;
    return m < 1 ? 1 : m < 1e2 ? 2 : m < 1e4 ? 3 : m < 65504 ? 4 : 5;
}

/// Cosine bands: 1 ≥ 0.9999, 2 ≥ 0.999, 3 ≥ 0.99, 4 below (or NaN: undefined); 0 no value (+Inf).
int cosineLevel(double c)
{
    return std::isnan(c) ? 4 : std::isinf(c) ? 0 : c >= 0.9999 ? 1 : c >= 0.999 ? 2 : c >= 0.99 ? 3 : 4;
}
/// Error bands: 1 < 1e-4, 2 < 1e-2, 3 < 1, 4 from 1 (or NaN); 0 no value (−Inf).
int errorLevel(double e)
{
    return std::isnan(e) ? 4 : e == -std::numeric_limits<double>::infinity() ? 0 : e < 1e-4 ? 1 : e < 1e-2 ? 2 : e < 1 ? 3 : 4;
}
/// Four bands from good (green) to bad (red), for the compare metric overlays.
std::vector<GraphLegendEntry> errorLegend(const std::array<QString, 4> &texts)
{
    return {{1, QColor(0x43, 0xa0, 0x47), texts[0]},
            {2, QColor(0xc0, 0xca, 0x33), texts[1]},
            {3, QColor(0xfb, 0x8c, 0x00), texts[2]},
            {4, QColor(0xd3, 0x2f, 0x2f), texts[3]}};
}

struct LoadedGraphs
{
    std::shared_ptr<const std::vector<GraphModel>> models;
    QStringList errors;
};

} // namespace

GraphPanel::GraphPanel(QWidget *parent) : QWidget(parent)
{
    m_view = new GraphView(this);
    m_selector = new QComboBox(this);
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_selector->setMinimumContentsLength(24);
    m_selector->setToolTip(tr("Graph files found for the dump, best computation-graph candidate first"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Find operator by name or type\u2026"));
    m_search->setClearButtonEnabled(true);
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
    m_overlay->setToolTip(tr("What the node colours show. Statistics overlays read the output tensors of the "
                             "operators in this graph in the background."));
    m_statsProgress = new QLabel(this);
    m_stopStats = new QToolButton(this);
    m_stopStats->setText(tr("Stop"));
    m_stopStats->setToolTip(tr("Stop computing statistics (colours shown so far stay)"));
    m_stopStats->setVisible(false);
    m_fit = new QToolButton(this);
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Show the whole graph (key 0)"));
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true); // never widen the window: the legend wraps instead
    m_status = new QLabel(tr("Open a dump to see its computation graph."), this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Graph:"), this));
    m_selector->setMinimumContentsLength(12);
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_subgraphs->setMinimumContentsLength(8);
    m_subgraphs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    top->addWidget(m_selector, 2);
    top->addWidget(m_subgraphs, 1);
    top->addWidget(m_search, 2);
    top->addWidget(m_hits);
    top->addWidget(m_fit);
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
    layout->addWidget(m_status);
    layout->addLayout(overlay);
    layout->addWidget(m_view, 1);

    connect(m_fit, &QToolButton::clicked, m_view, &GraphView::fitToView);
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
        if (!ops.empty())
            emit opActivated(m_dump, ops.front());
    });
    updateGeometry();
}

GraphPanel::~GraphPanel() { stopStats(); }

void GraphPanel::setOverlayKind(Overlay kind)
{
    m_overlay->setCurrentIndex(m_overlay->findData(int(kind)));
    startStats();
}

void GraphPanel::setCompareResult(const CompareResult &result)
{
    m_compare.clear();
    for (const CompareRow &row : result.rows) {
        if (!row.compared())
            continue;
        OpCompare &c = m_compare[row.npu.op];
        c.verdict = std::max(c.verdict, int(row.verdict));
        // The worst value of the op's rows; a NaN metric (undefined, e.g. the cosine of an
        // all-zero side) is worse than any number. Placeholders (N/A, unsupported) are skipped.
        const auto take = [&](double &have, Metric k, bool lowIsBad) {
            const MetricValue &v = row.metrics[size_t(k)];
            if (v.isNumber() || v.state == MetricValue::State::Nan)
                have = std::isnan(have) || std::isnan(v.value) ? std::nan("") : lowIsBad ? std::min(have, v.value) : std::max(have, v.value);
        };
        take(c.cosine, Metric::Cosine, true);
        take(c.maxAbsErr, Metric::MaxAbsErr, false);
        take(c.maxRelErr, Metric::MaxRelativeErr, false);
    }
    const std::pair<Overlay, QString> kinds[] = {{Overlay::Compare, tr("Compare verdict")},
                                                 {Overlay::CompareCosine, tr("Compare: cosine")},
                                                 {Overlay::CompareMaxAbsErr, tr("Compare: max absolute error")},
                                                 {Overlay::CompareMaxRelErr, tr("Compare: max relative error")}};
    for (const auto &[kind, text] : kinds)
        if (m_overlay->findData(int(kind)) < 0)
            m_overlay->addItem(text, int(kind));
    setOverlayKind(Overlay::Compare);
}

GraphPanel::Overlay GraphPanel::overlayKind() const { return Overlay(m_overlay->currentData().toInt()); }

void GraphPanel::loadForDump(const QString &dumpPath, std::shared_ptr<const DumpIndex> index, int dump)
{
    const int job = ++m_job;
    m_status->setText(tr("Looking for GE graph files for %1\u2026").arg(dumpPath));
    auto *watcher = new QFutureWatcher<LoadedGraphs>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, index, dump, dumpPath] {
        watcher->deleteLater();
        if (job != m_job)
            return;
        const LoadedGraphs loaded = watcher->result();
        if (loaded.models->empty()) {
            setGraphs(nullptr, index, dump);
            m_status->setText(loaded.errors.isEmpty()
                                  ? tr("No GE graph files (ge_proto_*.txt, ge_onnx_*.pbtxt) in or next to %1. Dump them with DUMP_GE_GRAPH=2.").arg(dumpPath)
                                  : tr("No readable graph file: %1").arg(loaded.errors.join(QStringLiteral("; "))));
            return;
        }
        setGraphs(loaded.models, index, dump);
    });
    watcher->setFuture(QtConcurrent::run([dumpPath, index] {
        auto models = std::make_shared<std::vector<GraphModel>>();
        LoadedGraphs out;
        for (const QString &file : ge::findGraphFiles(dumpPath)) {
            auto r = ge::readGraphFile(file);
            if (r)
                models->push_back(std::move(*r));
            else
                out.errors << r.errorText();
        }
        if (models->empty() && index)
            *models = buildModuleGraphs(*index); // msprobe/ptdbg: the construct.json module hierarchy
        out.models = std::move(models);
        return out;
    }));
}

void GraphPanel::setGraphs(std::shared_ptr<const std::vector<GraphModel>> models, std::shared_ptr<const DumpIndex> index, int dump)
{
    ++m_job;
    stopStats();
    if (dump != m_dump)
        m_opMarks.clear(); // marks are per dump: the owner sets the new dump's (see graphShown)
    if (dump != m_dump || index != m_index) {
        m_opStats.clear();
        m_compare.clear();
    }
    m_graph = 0;
    m_subgraphs->clear();
    m_subgraphs->setVisible(false);
    m_models = std::move(models);
    m_index = std::move(index);
    m_dump = dump;
    m_shown = -1;
    m_mapping.reset();
    m_selector->clear();
    m_resultNodes.clear();
    m_results->setStringList({});
    m_hits->clear();
    if (!m_models || m_models->empty()) {
        m_view->setGraph(nullptr);
        m_status->setText(tr("No computation graph for this dump."));
        return;
    }
    if (isModuleGraph(m_models->front())) { // one per step/rank directory, in dump order
        for (size_t i = 0; i < m_models->size(); ++i) {
            const GraphModel &m = (*m_models)[i];
            m_selector->addItem(tr("%1 \u2014 %2 (%n op(s))", nullptr, m.nodeCount()).arg(QFileInfo(m.file).fileName(), m.modelName), int(i));
            m_selector->setItemData(int(i), tr("Module hierarchy of the framework dump in %1 (construct.json)").arg(m.modelName), Qt::ToolTipRole);
        }
        m_selector->setCurrentIndex(0);
        showModel(0);
        return;
    }
    QStringList dumpModels;
    if (m_index)
        for (const auto &op : m_index->ops)
            if (!op.levels->modelName.isEmpty() && !dumpModels.contains(op.levels->modelName))
                dumpModels << op.levels->modelName;
    const auto ranked = rankComputationGraphs(*m_models, dumpModels);
    for (const auto &c : ranked) {
        const GraphModel &m = (*m_models)[size_t(c.model)];
        const QString name = m.root() ? m.root()->name : m.modelName;
        m_selector->addItem(tr("%1 \u2014 %2 (%n op(s))", nullptr, c.opCount).arg(QFileInfo(m.file).fileName(), name), c.model);
        m_selector->setItemData(m_selector->count() - 1, c.reason, Qt::ToolTipRole);
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
    const GraphModel &m = (*m_models)[size_t(model)];
    if (!m.root()) {
        m_view->setGraph(nullptr);
        m_status->setText(tr("%1 holds no graph.").arg(m.file));
        return;
    }
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
        emit graphShown();
    });
    watcher->setFuture(QtConcurrent::run([models = m_models, index = m_index, model]() -> std::shared_ptr<const DumpMapping> {
        if (!index)
            return nullptr;
        const GraphModel &m = (*models)[size_t(model)];
        return std::make_shared<const DumpMapping>(isModuleGraph(m) ? mapModuleGraph(m, *index) : mapDumpToGraph(m, *index));
    }));
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
    m_view->setGraph(std::shared_ptr<const Graph>(m_models, &g));
    QString text = tr("%1: %n operator(s)", nullptr, int(g.nodes.size())).arg(g.name);
    if (m_mapping && size_t(graph) < m_mapping->nodeOps.size()) {
        std::vector<bool> faded(g.nodes.size(), false);
        int dumped = 0;
        for (size_t n = 0; n < faded.size(); ++n) {
            faded[n] = m_mapping->nodeOps[size_t(graph)][n].empty();
            dumped += faded[n] ? 0 : 1;
        }
        m_view->setFadedNodes(std::move(faded));
        text += QStringLiteral("; ") + tr("%1 with dump data (dotted border: none)").arg(dumped);
    }
    if (m.reducedFidelity)
        text += QStringLiteral("; ") + tr("read from ONNX text (reduced fidelity)");
    if (isModuleGraph(m))
        text += QStringLiteral("; ") + tr("groups are modules, edges show the call order (the dump records no data flow)");
    m_status->setText(text + QStringLiteral(". ") + tr("Double-click a group to open or close it."));
    startStats();
}

/// Computes the missing output statistics of the shown graph's operators when a statistics
/// overlay is chosen; always repaints the overlay.
void GraphPanel::startStats()
{
    stopStats();
    const auto repaint = qScopeGuard([this] { applyOverlay(); });
    if (overlayKind() != Overlay::NonFinite && overlayKind() != Overlay::MaxAbs)
        return;
    if (!m_mapping || !m_index)
        return;
    std::vector<int> ops;
    for (size_t op = 0; op < m_mapping->opNode.size(); ++op)
        if (m_mapping->opNode[op].graph == m_graph && !m_opStats.count(int(op)))
            ops.push_back(int(op));
    if (ops.empty())
        return;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_statsCancel = cancel;
    const int job = ++m_statsJob;
    m_stopStats->setVisible(true);
    m_statsProgress->setText(tr("statistics 0 of %1").arg(ops.size()));
    QPointer<GraphPanel> self(this);
    // Results arrive in batches (at most ~10 per second) so the GUI repaints the overlay
    // while the job runs without drowning in events.
    auto deliver = [self, job](std::vector<std::pair<int, OpStats>> batch, size_t done, size_t total, bool last) {
        QMetaObject::invokeMethod(qApp, [=] {
            if (!self || job != self->m_statsJob)
                return;
            for (const auto &[op, st] : batch)
                self->m_opStats[op] = st;
            self->m_statsProgress->setText(last ? QString() : tr("statistics %1 of %2").arg(done).arg(total));
            if (last)
                self->m_stopStats->setVisible(false);
            self->applyOverlay();
        }, Qt::QueuedConnection);
    };
    (void)QtConcurrent::run([index = m_index, ops = std::move(ops), cancel, deliver] {
        JobControl control;
        control.cancelFlag = cancel.get();
        std::vector<std::pair<int, OpStats>> batch;
        QElapsedTimer sent;
        sent.start();
        for (size_t i = 0; i < ops.size() && !*cancel; ++i) {
            OpStats st = computeOpStats(*index, ops[i], &control);
            if (*cancel)
                break;
            batch.emplace_back(ops[i], std::move(st));
            if (sent.elapsed() > 100) {
                deliver(std::exchange(batch, {}), i + 1, ops.size(), false);
                sent.restart();
            }
        }
        if (!*cancel)
            deliver(std::move(batch), ops.size(), ops.size(), true);
    });
}

void GraphPanel::stopStats()
{
    if (m_statsCancel)
        *m_statsCancel = true;
    m_statsCancel.reset();
    ++m_statsJob;
    m_stopStats->setVisible(false);
    m_statsProgress->clear();
}

void GraphPanel::setOpMarks(std::unordered_map<int, int> opMarks)
{
    m_opMarks = std::move(opMarks);
    applyOverlay();
}

void GraphPanel::applyOverlay()
{
    const Overlay kind = overlayKind();
    std::unordered_map<int, int> levels;
    bool any = false;
    auto mark = [&](int op, int level) {
        if (level <= 0 || op < 0 || !m_mapping || size_t(op) >= m_mapping->opNode.size())
            return;
        const GraphNodeRef ref = m_mapping->opNode[size_t(op)];
        if (ref.graph != m_graph || !ref.node.isValid())
            return;
        int &l = levels[ref.node.value];
        l = std::max(l, level);
        any = true;
    };
    QString title, hint;
    std::vector<GraphLegendEntry> legend;
    switch (kind) {
    case Overlay::Overflow:
        for (const auto &[op, m] : m_opMarks)
            mark(op, m);
        legend = {{1, markColor(1), tr("medium")},
                  {2, markColor(2), tr("high")},
                  {3, markColor(3), tr("critical: produced here")},
                  {4, markColor(4), tr("named by an OpDebug record")}};
        title = tr("Overflow:");
        hint = tr("Groups show the worst mark of their operators.");
        break;
    case Overlay::NonFinite:
        for (const auto &[op, st] : m_opStats)
            mark(op, st.nan || st.inf ? 3 : !st.error.isEmpty() ? 2 : 1);
        legend = {{1, QColor(0x66, 0xbb, 0x6a), tr("all outputs finite")},
                  {2, QColor(0x9e, 0x9e, 0x9e), tr("outputs could not be read")},
                  {3, QColor(0xd3, 0x2f, 0x2f), tr("NaN or Inf in an output")}};
        title = tr("NaN / Inf:");
        hint = tr("Groups show the worst of their operators (NaN/Inf over unreadable over finite).");
        break;
    case Overlay::Compare:
        for (const auto &[op, c] : m_compare)
            mark(op, c.verdict); // Verdict: 1 pass, 2 warning, 3 error
        legend = {{1, QColor(0x43, 0xa0, 0x47), tr("pass")},
                  {2, QColor(0xf9, 0xa8, 0x25), tr("warning")},
                  {3, QColor(0xd3, 0x2f, 0x2f), tr("error")}};
        title = tr("Compare:");
        hint = tr("Groups show the worst verdict of their operators' compared tensors.");
        break;
    case Overlay::CompareCosine:
        for (const auto &[op, c] : m_compare)
            mark(op, cosineLevel(c.cosine));
        legend = errorLegend({tr("≥ 0.9999"), tr("0.999 – 0.9999"), tr("0.99 – 0.999"), tr("< 0.99 or NaN")});
        title = tr("Lowest cosine:");
        hint = tr("Groups show the lowest cosine similarity of their operators' compared tensors (msprobe flags < 0.99).");
        break;
    case Overlay::CompareMaxAbsErr:
    case Overlay::CompareMaxRelErr: {
        const bool abs = kind == Overlay::CompareMaxAbsErr;
        for (const auto &[op, c] : m_compare)
            mark(op, errorLevel(abs ? c.maxAbsErr : c.maxRelErr));
        legend = errorLegend({tr("< 10⁻⁴"), tr("10⁻⁴ – 10⁻²"), tr("10⁻² – 1"), tr("≥ 1 or NaN")});
        title = abs ? tr("Max absolute error:") : tr("Max relative error:");
        hint = tr("Groups show the largest error of their operators' compared tensors.");
        break;
    }
    case Overlay::MaxAbs:
        for (const auto &[op, st] : m_opStats)
            mark(op, maxAbsLevel(st));
        legend = {{1, QColor(0xc6, 0xdb, 0xef), tr("< 1")},
                  {2, QColor(0x6b, 0xae, 0xd6), tr("1 – 100")},
                  {3, QColor(0x21, 0x71, 0xb5), tr("100 – 10⁴")},
                  {4, QColor(0xf1, 0x69, 0x13), tr("10⁴ – 65504")},
                  {5, QColor(0xcb, 0x18, 0x1d), tr("≥ 65504 (float16 max) or NaN/Inf")}};
        title = tr("Max |output|:");
        hint = tr("Groups show the largest magnitude of their operators.");
        break;
    }
    m_view->setOverlay(std::move(levels), legend);
    QString html = QStringLiteral("<b>%1</b> ").arg(title.toHtmlEscaped());
    for (const auto &e : legend)
        html += QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;%2&nbsp;&nbsp;").arg(e.color.name(), e.text.toHtmlEscaped());
    html += QStringLiteral("&nbsp;<span style=\"color:#8e44ad\">\u2501</span>&nbsp;%1").arg(tr("cycle edge").toHtmlEscaped());
    if (!any)
        html += QStringLiteral("&nbsp;&nbsp;<i>%1</i>").arg((kind == Overlay::Overflow || !m_statsCancel ? tr("none in this graph")
                                                                                                        : tr("computing\u2026")).toHtmlEscaped());
    m_legend->setToolTip(hint + QLatin1Char(' ')
                         + tr("Dotted border: no dump data. Dashed edge: control edge. Purple edge: drawn against the "
                              "flow to break a cycle between boxes."));
    m_legend->setText(html);
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
    if (!m_mapping)
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
