// GraphPanel: node colours (overflow, statistics, compare) through the generic node status
// roles of core (nodestatus.h), and the background statistics job.
#include "graphpanel.h"

#include "background.h"
#include "dumpgraph/nodestatus.h"
#include "dumpgraph/visdbgraph.h"
#include "graphcompareview.h"
#include "graphview.h"
#include "compare/compare.h"
#include "dump/dumpindex.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPointer>
#include <QScopeGuard>
#include <QToolButton>
#include <QtConcurrent>

#include <array>
#include <cmath>

namespace ds {

namespace {

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

/// Four bands from good (green) to bad (red), for the compare metric overlays.
std::vector<GraphLegendEntry> errorLegend(const std::array<QString, 4> &texts)
{
    return {{1, QColor(0x43, 0xa0, 0x47), texts[0]},
            {2, QColor(0xc0, 0xca, 0x33), texts[1]},
            {3, QColor(0xfb, 0x8c, 0x00), texts[2]},
            {4, QColor(0xd3, 0x2f, 0x2f), texts[3]}};
}

/// Node levels of a status column: discrete roles take their value, metrics their band.
std::unordered_map<int, int> levelsOf(const NodeStatusColumn &column, const std::vector<char> &undefined, const StatusBands *bands)
{
    std::unordered_map<int, int> levels;
    for (size_t n = 0; n < column.values.size(); ++n) {
        const bool undef = n < undefined.size() && undefined[n];
        if (!undef && std::isnan(column.values[n]))
            continue;
        const int level = bands ? bands->level(column.values[n], undef) : int(column.values[n]);
        if (level > 0)
            levels[int(n)] = level;
    }
    return levels;
}

/// The "error added" colouring: per operator the error it adds (compare/addederror.h), only
/// where known; "adds none" (<= 0) apart from three bands around the roundings of bfloat16
/// (2^-8 = 0.0039) and float16 (2^-11 = 0.00049).
void addedErrorOverlay(const CompareResult *result, std::unordered_map<int, double> &values, std::optional<StatusBands> &bands,
                       std::vector<GraphLegendEntry> &legend, QString &title, QString &hint)
{
    if (result)
        for (const AddedError &e : result->addedErrors)
            if (e.known())
                values[e.op] = e.added;
    bands = StatusBands{{std::numeric_limits<double>::min(), 1e-3, 1e-2}, false};
    legend = {{1, QColor(0x90, 0xa4, 0xae), GraphPanel::tr("≤ 0: adds none")},
              {2, QColor(0xc0, 0xca, 0x33), GraphPanel::tr("0 – 10⁻³")},
              {3, QColor(0xfb, 0x8c, 0x00), GraphPanel::tr("10⁻³ – 10⁻²")},
              {4, QColor(0xd3, 0x2f, 0x2f), GraphPanel::tr("≥ 10⁻²")}};
    title = GraphPanel::tr("Error added:");
    hint = GraphPanel::tr("The error each operator adds: its output's relative error minus the largest relative error of its "
                          "inputs and parameters (docs/COMPARE.md). Uncoloured: not known (a row not compared, md5). Groups "
                          "show the largest of their operators.");
}

/// The "underflows in <dtype>" colouring: per operator the fraction of its outputs' finite
/// values that becomes zero in the target (OpStats::underflowFraction), where values were read;
/// none apart from three bands (a few in a million, a few in a thousand, more).
void underflowOverlay(const std::unordered_map<int, OpStats> &opStats, HeadroomTarget target, std::unordered_map<int, double> &values,
                      std::optional<StatusBands> &bands, std::vector<GraphLegendEntry> &legend, QString &title, QString &hint)
{
    for (const auto &[op, st] : opStats)
        if (const double f = st.underflowFraction(target); !std::isnan(f))
            values[op] = f;
    bands = StatusBands{{std::numeric_limits<double>::min(), 1e-3, 1e-2}, false};
    legend = {{1, QColor(0x66, 0xbb, 0x6a), GraphPanel::tr("none")},
              {2, QColor(0xc0, 0xca, 0x33), GraphPanel::tr("< 0.1 %")},
              {3, QColor(0xfb, 0x8c, 0x00), GraphPanel::tr("0.1 – 1 %")},
              {4, QColor(0xd3, 0x2f, 0x2f), GraphPanel::tr("≥ 1 %")}};
    const QString name = QString::fromLatin1(headroomLimits(target).name);
    title = GraphPanel::tr("Underflows in %1:").arg(name);
    hint = GraphPanel::tr("The fraction of each operator's output values (finite ones) that would become zero in %1: "
                          "0 < |x| < half its smallest subnormal. Uncoloured: no values were read (statistics-only "
                          "outputs cannot tell underflow). Groups show the largest fraction of their operators.")
               .arg(name);
}

} // namespace

struct GraphPanel::OverlayShown
{
    std::vector<GraphLegendEntry> legend;
    QString title, hint;
    bool computing = false; ///< no levels yet: "computing…" when there are none
};

/// Computes the missing output statistics of the shown graph's operators when a statistics
/// overlay is chosen; always repaints the overlay.
void GraphPanel::startStats()
{
    stopStats();
    const auto repaint = qScopeGuard([this] { applyOverlay(); });
    if (overlayKind() != Overlay::NonFinite && overlayKind() != Overlay::MaxAbs && overlayKind() != Overlay::UnderflowFraction)
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
    (void)QtConcurrent::run(backgroundPool(), [index = m_index, ops = std::move(ops), cancel, deliver] {
        const BackgroundPriority background;
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

/// Lifts the levels msprobe stored on the nodes of a big database graph on a worker; the GUI
/// thread keeps them and repaints the overlay (a new set of models drops them).
void GraphPanel::startVisDbLevels(int model, int graph, NodeStatusRole role)
{
    QPointer<GraphPanel> self(this);
    (void)QtConcurrent::run(backgroundPool(), [self, models = m_models, model, graph, role] {
        const BackgroundPriority background;
        auto levels = levelsOf(visDbStatus((*models)[size_t(model)].graphs[size_t(graph)], role), {}, nullptr);
        QMetaObject::invokeMethod(qApp, [self, models, model, graph, role, levels = std::move(levels)]() mutable {
            if (!self || self->m_models != models)
                return;
            self->m_visDbLevels[std::make_tuple(model, graph, int(role))] = std::move(levels);
            self->applyOverlay();
        }, Qt::QueuedConnection);
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
    if (isSideBySide()) { // the side-by-side view colours by verdict and marks the unmatched
        QString html = QStringLiteral("<b>%1</b> ").arg(tr("Compare:").toHtmlEscaped());
        for (const auto &e : m_compareView->npuView()->legend())
            html += QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;%2&nbsp;&nbsp;").arg(e.color.name(), e.text.toHtmlEscaped());
        m_legend->setText(html);
        m_legend->setToolTip(tr("Both sides: the worst verdict of each node's compared tensors; unmatched: its tensors found "
                                "no counterpart on the other side. Groups show their worst member."));
        return;
    }
    const Overlay kind = overlayKind();
    // Per-op values of the chosen overlay, lifted to the nodes (NodeStatusRole), then bands.
    std::unordered_map<int, double> values;
    NodeStatusRole role = NodeStatusRole::MetricValue;
    StatusWorst worst = StatusWorst::Highest;
    std::optional<StatusBands> bands;
    QString title, hint;
    std::vector<GraphLegendEntry> legend;
    switch (kind) {
    case Overlay::Overflow:
        role = NodeStatusRole::OverflowLevel;
        for (const auto &[op, m] : m_opMarks)
            if (m > 0)
                values[op] = m;
        legend = {{1, markColor(1), tr("medium")},
                  {2, markColor(2), tr("high")},
                  {3, markColor(3), tr("critical: produced here")},
                  {4, markColor(4), tr("named by an OpDebug record")}};
        title = tr("Overflow:");
        hint = tr("Groups show the worst mark of their operators.");
        break;
    case Overlay::NonFinite:
        role = NodeStatusRole::OverflowLevel;
        for (const auto &[op, st] : m_opStats)
            values[op] = st.nan || st.inf ? 3 : !st.error.isEmpty() ? 2 : 1;
        legend = {{1, QColor(0x66, 0xbb, 0x6a), tr("all outputs finite")},
                  {2, QColor(0x9e, 0x9e, 0x9e), tr("outputs could not be read")},
                  {3, QColor(0xd3, 0x2f, 0x2f), tr("NaN or Inf in an output")}};
        title = tr("NaN / Inf:");
        hint = tr("Groups show the worst of their operators (NaN/Inf over unreadable over finite).");
        break;
    case Overlay::Compare:
        role = NodeStatusRole::CompareVerdict;
        for (const auto &[op, c] : m_compare)
            if (c.verdict > 0)
                values[op] = c.verdict; // Verdict: 1 pass, 2 warning, 3 error
        legend = {{1, QColor(0x43, 0xa0, 0x47), tr("pass")},
                  {2, QColor(0xf9, 0xa8, 0x25), tr("warning")},
                  {3, QColor(0xd3, 0x2f, 0x2f), tr("error")}};
        title = tr("Compare:");
        hint = tr("Groups show the worst verdict of their operators' compared tensors.");
        break;
    case Overlay::CompareCosine:
        worst = StatusWorst::Lowest;
        for (const auto &[op, c] : m_compare)
            if (c.hasCosine)
                values[op] = c.cosine;
        bands = StatusBands{{0.99, 0.999, 0.9999}, true}; // 1 >= 0.9999 ... 4 below 0.99 or NaN
        legend = errorLegend({tr("≥ 0.9999"), tr("0.999 – 0.9999"), tr("0.99 – 0.999"), tr("< 0.99 or NaN")});
        title = tr("Lowest cosine:");
        hint = tr("Groups show the lowest cosine similarity of their operators' compared tensors (msprobe flags < 0.99).");
        break;
    case Overlay::CompareMaxAbsErr:
    case Overlay::CompareMaxRelErr: {
        const bool abs = kind == Overlay::CompareMaxAbsErr;
        for (const auto &[op, c] : m_compare)
            if (abs ? c.hasAbs : c.hasRel)
                values[op] = abs ? c.maxAbsErr : c.maxRelErr;
        bands = StatusBands{{1e-4, 1e-2, 1}, false};
        legend = errorLegend({tr("< 10⁻⁴"), tr("10⁻⁴ – 10⁻²"), tr("10⁻² – 1"), tr("≥ 1 or NaN")});
        title = abs ? tr("Max absolute error:") : tr("Max relative error:");
        hint = tr("Groups show the largest error of their operators' compared tensors.");
        break;
    }
    case Overlay::CompareAddedError:
        addedErrorOverlay(m_compareResult.get(), values, bands, legend, title, hint);
        break;
    case Overlay::UnderflowFraction:
        underflowOverlay(m_opStats, underflowTarget(), values, bands, legend, title, hint);
        break;
    case Overlay::MaxAbs:
        for (const auto &[op, st] : m_opStats) {
            if (!st.error.isEmpty() && std::isnan(st.max))
                continue;
            const double m = st.nan || st.inf ? std::numeric_limits<double>::infinity() : std::max(std::fabs(st.min), std::fabs(st.max));
            if (!std::isnan(m))
                values[op] = m;
        }
        bands = StatusBands{{1, 1e2, 1e4, 65504}, false}; // float16's largest finite value bounds the top band
        legend = {{1, QColor(0xc6, 0xdb, 0xef), tr("< 1")},
                  {2, QColor(0x6b, 0xae, 0xd6), tr("1 – 100")},
                  {3, QColor(0x21, 0x71, 0xb5), tr("100 – 10⁴")},
                  {4, QColor(0xf1, 0x69, 0x13), tr("10⁴ – 65504")},
                  {5, QColor(0xcb, 0x18, 0x1d), tr("≥ 65504 (float16 max) or NaN/Inf")}};
        title = tr("Max |output|:");
        hint = tr("Groups show the largest magnitude of their operators.");
        break;
    }
    std::unordered_map<int, int> levels;
    bool levelsPending = false;
    const GraphModel *shown = m_models && m_shown >= 0 ? &(*m_models)[size_t(m_shown)] : nullptr;
    if (shown && isVisDbGraph(*shown) && size_t(m_graph) < shown->graphs.size()
        && (kind == Overlay::Overflow || kind == Overlay::Compare)) {
        // msprobe's graph database: the levels it stored on the nodes.
        hint = kind == Overlay::Overflow ? tr("The overflow levels msprobe's graph_visualize stored (-oc). Groups show their worst member.")
                                         : tr("msprobe's precision levels of the compare graph. Groups show their worst member.");
        const Graph &graph = shown->graphs[size_t(m_graph)];
        if (qint64(graph.nodes.size()) <= m_visDbLevelsOnGuiUpTo) {
            levels = levelsOf(visDbStatus(graph, role), {}, nullptr);
        } else {
            auto [it, added] = m_visDbLevels.try_emplace(std::make_tuple(m_shown, m_graph, int(role)));
            if (it->second)
                levels = *it->second;
            else
                levelsPending = true;
            if (added)
                startVisDbLevels(m_shown, m_graph, role);
        }
    } else if (m_mapping && !values.empty()) { // no values: every node uncoloured, no pass needed
        const size_t nodes = size_t(m_graph) < m_mapping->nodeOps.size() ? m_mapping->nodeOps[size_t(m_graph)].size() : 0;
        if (qint64(nodes) <= m_overlayOnGuiUpTo) {
            std::vector<char> undefined;
            const NodeStatusColumn column = liftOpStatus(*m_mapping, m_graph, role, values, worst, &undefined);
            levels = levelsOf(column, undefined, bands ? &*bands : nullptr);
        } else {
            // A big graph: lifted on a worker; the view keeps what it shows of the same colouring
            // until the new levels arrive (statistics batches repaint ~10 times a second).
            const int job = ++m_overlayJob;
            const auto key = std::make_pair(int(kind), m_view->graph());
            OverlayShown shown{legend, title, hint, true};
            if (key != m_overlayShownKey) {
                m_overlayShownKey = key;
                showOverlay({}, shown);
            }
            shown.computing = false;
            QPointer<GraphPanel> self(this);
            (void)QtConcurrent::run(backgroundPool(), [self, job, mapping = m_mapping, graph = m_graph, role, worst, bands,
                                                       values = std::move(values), shown = std::move(shown)]() mutable {
                const BackgroundPriority background;
                std::vector<char> undefined;
                const NodeStatusColumn column = liftOpStatus(*mapping, graph, role, values, worst, &undefined);
                auto lifted = levelsOf(column, undefined, bands ? &*bands : nullptr);
                QMetaObject::invokeMethod(qApp, [self, job, lifted = std::move(lifted), shown = std::move(shown)]() mutable {
                    if (self && job == self->m_overlayJob)
                        self->showOverlay(std::move(lifted), shown);
                }, Qt::QueuedConnection);
            });
            return;
        }
    }
    ++m_overlayJob; // a worker still lifting an older colouring is not shown
    m_overlayShownKey = {-1, nullptr};
    showOverlay(std::move(levels), OverlayShown{legend, title, hint, levelsPending});
}

void GraphPanel::showOverlay(std::unordered_map<int, int> levels, const OverlayShown &shown)
{
    const bool any = !levels.empty();
    m_view->setOverlay(std::move(levels), shown.legend);
    QString html = QStringLiteral("<b>%1</b> ").arg(shown.title.toHtmlEscaped());
    for (const auto &e : shown.legend)
        html += QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;%2&nbsp;&nbsp;").arg(e.color.name(), e.text.toHtmlEscaped());
    html += QStringLiteral("&nbsp;<span style=\"color:#8e44ad\">\u2501</span>&nbsp;%1").arg(tr("cycle edge").toHtmlEscaped());
    if (!any)
        html += QStringLiteral("&nbsp;&nbsp;<i>%1</i>").arg((!shown.computing && (overlayKind() == Overlay::Overflow || !m_statsCancel) ? tr("none in this graph")
                                                                                                                    : tr("computing\u2026")).toHtmlEscaped());
    m_legend->setToolTip(shown.hint + QLatin1Char(' ')
                         + tr("Dotted border: no dump data. Dashed edge: control edge. Purple edge: drawn against the "
                              "flow to break a cycle between boxes."));
    m_legend->setText(html);
}

} // namespace ds
