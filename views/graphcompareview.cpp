#include "graphcompareview.h"

#include "compare/compare.h"
#include "graphview.h"
#include "dump/dumpindex.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace ds {

namespace {

/// Verdict colours of the compare overlay (the Graph tab's), unmatched between warning and error.
std::vector<GraphLegendEntry> compareLegend()
{
    return {{1, QColor(0x43, 0xa0, 0x47), GraphCompareView::tr("pass")},
            {2, QColor(0xf9, 0xa8, 0x25), GraphCompareView::tr("warning")},
            {GraphCompareView::kUnmatchedLevel, QColor(0xc2, 0x18, 0x5b), GraphCompareView::tr("unmatched")},
            {4, QColor(0xd3, 0x2f, 0x2f), GraphCompareView::tr("error")}};
}

int verdictLevel(int verdict) { return verdict >= int(Verdict::Error) ? 4 : verdict; }

} // namespace

GraphCompareView::GraphCompareView(QWidget *parent) : QWidget(parent)
{
    m_npu = new GraphView(this);
    m_bench = new GraphView(this);
    for (GraphView *v : {m_npu, m_bench})
        v->setMinimumSize(60, 60); // the panel must not widen the window for a view shown on demand
    m_npuTitle = new QLabel(this);
    m_benchTitle = new QLabel(this);
    for (QLabel *l : {m_npuTitle, m_benchTitle}) {
        l->setTextFormat(Qt::PlainText);
        QFont f = l->font();
        f.setBold(true);
        l->setFont(f);
    }
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_sync = new QToolButton(this);
    m_sync->setText(tr("Keep aligned"));
    m_sync->setCheckable(true);
    m_sync->setChecked(true);
    m_sync->setToolTip(tr("Moving one side moves the other so that matched nodes stay side by side"));

    auto column = [this](QLabel *title, GraphView *view) {
        auto *w = new QWidget(this);
        auto *l = new QVBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        l->addWidget(title);
        l->addWidget(view, 1);
        return w;
    };
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(column(m_npuTitle, m_npu));
    m_split->addWidget(column(m_benchTitle, m_bench));
    m_split->setChildrenCollapsible(false);
    auto *top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_sync);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_split, 1);

    connect(m_npu, &GraphView::viewportChanged, this, [this] { syncFrom(m_npu); });
    connect(m_bench, &GraphView::viewportChanged, this, [this] { syncFrom(m_bench); });
    connect(m_npu, &GraphView::layoutChanged, this, [this] { syncFrom(m_npu); });
    connect(m_bench, &GraphView::layoutChanged, this, [this] { syncFrom(m_npu); });
    connect(m_npu, &GraphView::nodeActivated, this, &GraphCompareView::onNpuClicked);
    connect(m_bench, &GraphView::nodeActivated, this, &GraphCompareView::onBenchClicked);
    connect(m_sync, &QToolButton::toggled, this, [this](bool on) {
        if (on)
            syncFrom(m_npu);
    });
}

GraphCompareView::~GraphCompareView() = default;

void GraphCompareView::clear()
{
    m_npuSide = m_benchSide = {};
    m_result.reset();
    m_match = {};
    m_armed = {};
    m_npu->setGraph(nullptr);
    m_bench->setGraph(nullptr);
    m_status->clear();
}

void GraphCompareView::setSides(Side npu, Side bench, std::shared_ptr<const CompareResult> result, int firstDivergence)
{
    m_npuSide = std::move(npu);
    m_benchSide = std::move(bench);
    m_result = std::move(result);
    m_firstDivergence = firstDivergence;
    m_armed = {};
    m_npuTitle->setText(tr("NPU: %1").arg(m_npuSide.title));
    m_benchTitle->setText(tr("Bench: %1").arg(m_benchSide.title));
    m_match = m_result && m_npuSide.mapping && m_benchSide.mapping
                  ? matchGraphs(*m_result, *m_npuSide.mapping, m_npuSide.graphIndex, *m_benchSide.mapping, m_benchSide.graphIndex)
                  : GraphMatch{};
    // Both sides start at the first divergence when the comparison found one.
    NodeId npuStart, benchStart;
    if (m_result && size_t(m_firstDivergence) < m_result->divergences.size() && m_npuSide.mapping) {
        const int op = m_result->divergences[size_t(m_firstDivergence)].originOp;
        if (op >= 0 && size_t(op) < m_npuSide.mapping->opNode.size() && m_npuSide.mapping->opNode[size_t(op)].graph == m_npuSide.graphIndex)
            npuStart = m_npuSide.mapping->opNode[size_t(op)].node;
        if (npuStart.isValid() && npuStart.index() < m_match.npuPartner.size() && m_match.npuPartner[npuStart.index()] >= 0)
            benchStart = NodeId{m_match.npuPartner[npuStart.index()]};
    }
    m_npu->setGraph(m_npuSide.graph, npuStart);
    m_bench->setGraph(m_benchSide.graph, benchStart);
    recolour();
}

void GraphCompareView::updateResult(std::shared_ptr<const CompareResult> result, int firstDivergence)
{
    m_result = std::move(result);
    m_firstDivergence = firstDivergence;
    m_match = m_result && m_npuSide.mapping && m_benchSide.mapping
                  ? matchGraphs(*m_result, *m_npuSide.mapping, m_npuSide.graphIndex, *m_benchSide.mapping, m_benchSide.graphIndex)
                  : GraphMatch{};
    recolour();
    syncFrom(m_npu);
}

void GraphCompareView::recolour()
{
    auto levels = [](const std::vector<int> &verdicts, const std::vector<char> &unmatched) {
        std::unordered_map<int, int> out;
        for (size_t n = 0; n < verdicts.size(); ++n) {
            const int level = unmatched[n] ? kUnmatchedLevel : verdictLevel(verdicts[n]);
            if (level > 0)
                out[int(n)] = level;
        }
        return out;
    };
    m_npu->setOverlay(levels(m_match.npuVerdict, m_match.npuUnmatched), compareLegend());
    m_bench->setOverlay(levels(m_match.benchVerdict, m_match.benchUnmatched), compareLegend());
    auto faded = [](const Side &s) {
        std::vector<bool> f;
        if (s.mapping && size_t(s.graphIndex) < s.mapping->nodeOps.size())
            for (const auto &ops : s.mapping->nodeOps[size_t(s.graphIndex)])
                f.push_back(ops.empty());
        return f;
    };
    m_npu->setFadedNodes(faded(m_npuSide));
    m_bench->setFadedNodes(faded(m_benchSide));
    updateStatus();
}

void GraphCompareView::updateStatus()
{
    if (m_armed.isValid() && m_npuSide.graph) {
        m_status->setText(tr("Pairing %1: now click the bench node it corresponds to (Esc cancels).").arg(m_npuSide.graph->node(m_armed).name));
        return;
    }
    m_status->setText(tr("%1 NPU and %2 bench nodes matched; unmatched: %3 NPU, %4 bench (magenta). Click an unmatched NPU "
                         "node, then a bench node, to pair them.")
                          .arg(m_match.matchedNpu)
                          .arg(m_match.matchedBench)
                          .arg(m_match.unmatchedNpu)
                          .arg(m_match.unmatchedBench));
}

QStringList GraphCompareView::opNames(const Side &side, NodeId node) const
{
    QStringList names;
    if (!side.mapping || !side.index || size_t(side.graphIndex) >= side.mapping->nodeOps.size()
        || node.index() >= side.mapping->nodeOps[size_t(side.graphIndex)].size())
        return names;
    std::vector<int> ops = side.mapping->nodeOps[size_t(side.graphIndex)][node.index()];
    std::sort(ops.begin(), ops.end());
    for (int op : ops)
        names << opMatchKey(side.index->ops[size_t(op)]);
    names.removeDuplicates();
    return names;
}

void GraphCompareView::onNpuClicked(NodeId node)
{
    const QStringList names = opNames(m_npuSide, node);
    if (!names.isEmpty() && m_npuSide.mapping)
        emit npuOpActivated(m_npuSide.mapping->nodeOps[size_t(m_npuSide.graphIndex)][node.index()].front());
    if (m_match.isUnmatchedNpu(node) && !names.isEmpty()) {
        m_armed = node;
        updateStatus();
        return;
    }
    m_armed = {};
    updateStatus();
    alignOnNpu(node);
}

void GraphCompareView::onBenchClicked(NodeId node)
{
    if (m_armed.isValid()) {
        const QStringList npu = opNames(m_npuSide, m_armed), bench = opNames(m_benchSide, node);
        if (!bench.isEmpty()) {
            const QString npuName = m_npuSide.graph->node(m_armed).name;
            m_armed = {};
            emit pairRequested(npu, bench);
            m_status->setText(tr("Paired %1 with %2; comparing again\u2026").arg(npuName, m_benchSide.graph->node(node).name));
            return;
        }
    }
    alignOnBench(node);
}

void GraphCompareView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && m_armed.isValid()) {
        m_armed = {};
        updateStatus();
        return;
    }
    QWidget::keyPressEvent(event);
}

void GraphCompareView::alignOnNpu(NodeId npuNode)
{
    if (!npuNode.isValid() || npuNode.index() >= m_match.npuPartner.size() || m_match.npuPartner[npuNode.index()] < 0)
        return;
    m_bench->selectNode(NodeId{m_match.npuPartner[npuNode.index()]}); // opens its groups; aligned when laid out
    syncFrom(m_npu);
}

void GraphCompareView::alignOnBench(NodeId benchNode)
{
    if (!benchNode.isValid() || benchNode.index() >= m_match.benchPartner.size() || m_match.benchPartner[benchNode.index()] < 0)
        return;
    m_npu->selectNode(NodeId{m_match.benchPartner[benchNode.index()]});
    syncFrom(m_bench);
}

void GraphCompareView::syncFrom(GraphView *from)
{
    if (m_syncing || !m_sync->isChecked())
        return;
    GraphView *to = from == m_npu ? m_bench : m_npu;
    const auto a = from->currentLayout(), b = to->currentLayout();
    if (!a || !b)
        return;
    const std::vector<int> &partner = from == m_npu ? m_match.npuPartner : m_match.benchPartner;
    // The anchor: the selected node when it is matched and visible, else the matched node
    // nearest the centre of the moved view.
    const QRectF visible = from->visibleSceneRect();
    const QPointF centre = visible.center();
    int anchorItem = -1, anchorPartner = -1;
    const NodeId sel = from->selectedNode();
    if (sel.isValid() && sel.index() < partner.size() && partner[sel.index()] >= 0) {
        const int item = a->nodeItem[sel.index()];
        if (item >= 0 && visible.intersects(a->items[size_t(item)].rect)) {
            anchorItem = item;
            anchorPartner = partner[sel.index()];
        }
    }
    double best = 1e300;
    for (size_t i = 0; anchorItem < 0 && i < a->items.size(); ++i) {
        const LayoutItem &it = a->items[i];
        if (it.kind != LayoutItem::Kind::Node || partner.size() <= it.node().index() || partner[it.node().index()] < 0)
            continue;
        if (!visible.intersects(it.rect))
            continue;
        const QPointF d = it.rect.center() - centre;
        const double dist = d.x() * d.x() + d.y() * d.y();
        if (dist < best) {
            best = dist;
            anchorItem = int(i);
            anchorPartner = partner[it.node().index()];
        }
    }
    if (anchorItem < 0)
        return;
    const int target = b->visibleItemOf(NodeId{anchorPartner});
    if (target < 0)
        return;
    const QPointF at = from->mapFromScene(a->items[size_t(anchorItem)].rect.center());
    m_syncing = true;
    const double z = from->zoom();
    to->setZoom(z, QPointF(0, 0));
    const QPointF partnerCentre = b->items[size_t(target)].rect.center();
    to->centerOn(partnerCentre - at / z + QPointF(to->width(), to->height()) / (2 * z));
    m_syncing = false;
}

} // namespace ds
