// CompareView: the selected row's detail (its verdicts and numbers, both tensors' statistics,
// histograms, worst elements and error heatmap), computed off the GUI thread.
#include "compareview.h"

#include "background.h"
#include "comparehistograms.h"
#include "compare/comparereport.h"
#include "heatmapwidget.h"
#include "index/tensorloader.h"
#include "models/addederrortext.h"
#include "models/comparetablemodel.h"
#include "wrappedtextarea.h"

#include <QLabel>
#include <QTableView>
#include <QTableWidget>
#include <QComboBox>
#include <QtConcurrent>
#include <cmath>

namespace ds {

namespace {

constexpr int kBins = 64;
constexpr std::uint64_t kMaxHeatmapElements = 32ull << 20; ///< error tensors for the heatmap: at most 2 x 128 MiB

QString shortNumber(const MetricValue &v) { return v.isNumber() ? QString::number(v.value, 'g', 6) : formatMetric(v); }

QString number(double v) { return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? (v > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf")) : QString::number(v, 'g', 8); }

QTableWidgetItem *item(const QString &text)
{
    auto *i = new QTableWidgetItem(text);
    i->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    return i;
}

} // namespace

/// Everything the detail pane shows for one row, computed off the GUI thread.
struct CompareView::DetailJob
{
    int row = -1;
    QString error;
    bool complete = false; ///< every pass ran (not cancelled, both tensors loaded)
    std::uint64_t elements = 0;
    TensorStats npuStats, benchStats;
    Histogram npuHist, benchHist; ///< same bins over both ranges
    PairDetail detail;
    std::shared_ptr<const LoadedTensor> errorTensor;    ///< |NPU - bench| as float32, for the heatmap
    std::shared_ptr<const LoadedTensor> relErrorTensor; ///< |NPU - bench| / |bench| (0 where both are 0, Inf where only bench is)
    QString heatmapNote;
};

QString CompareView::detailText(const CompareRow &row, int sourceRow) const
{
    // Which row, both verdicts (and why it starts the divergence), why they differ; the numbers follow.
    QString text = row.benchName.isEmpty() ? tr("%1 (no bench tensor)").arg(row.npuName)
                   : row.benchName == row.npuName ? row.npuName
                                                  : tr("%1 vs %2").arg(row.npuName, row.benchName);
    QString verdicts = tr("DumpScope verdict: %1 \u00b7 msprobe Result: %2")
                           .arg(CompareTableModel::verdictText(row.verdict), row.result.isEmpty() ? tr("none") : row.result);
    if (sourceRow == m_model->pinnedRow())
        verdicts += QStringLiteral(" \u00b7 ") + tr("first divergence: %1").arg(m_model->firstDivergenceReason());
    text += QLatin1Char('\n') + verdicts;
    if (const QString region = m_model->index(sourceRow, 0).data(CompareTableModel::RegionRole).toString(); !region.isEmpty())
        text += QLatin1Char('\n') + (row.bench.op < 0 ? tr("NPU only, structure region %1").arg(region) : tr("Structure region %1").arg(region));
    if (const QString why = m_model->verdictDifference(sourceRow); !why.isEmpty())
        text += QLatin1Char('\n') + tr("They differ: %1").arg(why);
    if (const AddedError *e = m_model->addedError(sourceRow)) // an output row: what its operator adds
        text += QLatin1Char('\n') + tr("Error added by %1: %2 (output %3, largest input %4; %5)")
                                     .arg(opMatchKey(m_npu->ops[size_t(e->op)]), AddedErrorText::value(e->added),
                                          AddedErrorText::value(e->outputRelErr, false), AddedErrorText::value(e->inputRelErr, false),
                                          AddedErrorText::inputs(e->inputs));
    return text;
}

void CompareView::onRowSelected()
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (m_cancelDetail)
        *m_cancelDetail = true;
    m_detail.reset();
    m_shown.reset();
    m_stats->clearContents();
    m_worst->setRowCount(0);
    m_histograms->clear();
    m_heatmap->clear();
    const auto result = m_model->result();
    if (!current.isValid() || !result)
        return;
    if (m_model->isBenchOnlyRow(current.row())) { // a gap: nothing on the NPU side to compare
        m_detailStatus->setText(tr("Only the bench has %1: %2").arg(m_model->index(current.row(), CompareTableModel::BenchName).data().toString(),
                                                                   current.data(CompareTableModel::RegionRole).toString()));
        return;
    }
    const CompareRow &row = result->rows[size_t(current.row())];
    emit npuTensorSelected(m_npuDump, m_npu->tensorId(row.npu));
    if (row.bench.op < 0) {
        m_detailStatus->setText(detailText(row, current.row()) + QLatin1Char('\n') + tr("No bench tensor for %1.").arg(row.npuName));
        return;
    }
    m_detailStatus->setText(detailText(row, current.row()) + QLatin1Char('\n') + tr("Loading %1 and %2\u2026").arg(row.npuName, row.benchName));
    m_cancelDetail = std::make_shared<std::atomic<bool>>(false);
    m_detailJob.setFuture(QtConcurrent::run(backgroundPool(), [npu = m_npu, bench = m_bench, row, r = current.row(), cancel = m_cancelDetail] {
        const BackgroundPriority background;
        auto out = std::make_shared<DetailJob>();
        out->row = r;
        JobControl job;
        job.cancelFlag = cancel.get();
        auto a = loadTensor(*npu, row.npu, LayoutChoice::Logical, &job);
        auto b = loadTensor(*bench, row.bench, LayoutChoice::Logical, &job);
        if (!a || !b) {
            out->error = !a ? a.errorText() : b.errorText();
            return std::shared_ptr<const DetailJob>(out);
        }
        const TensorView &va = (*a)->view, &vb = (*b)->view;
        out->elements = va.count;
        if (!computeStats(va, out->npuStats, &job) || !computeStats(vb, out->benchStats, &job))
            return std::shared_ptr<const DetailJob>(out);
        double lo = std::fmin(out->npuStats.min, out->benchStats.min), hi = std::fmax(out->npuStats.max, out->benchStats.max);
        if (std::isnan(lo))
            lo = hi = 0;
        computeHistogram(va, kBins, lo, hi, out->npuHist, &job);
        computeHistogram(vb, kBins, lo, hi, out->benchHist, &job);
        if (va.count != vb.count) {
            out->error = QObject::tr("element counts differ (%1 vs %2): no element-wise detail").arg(va.count).arg(vb.count);
            return std::shared_ptr<const DetailJob>(out);
        }
        PairDetailOptions options;
        options.bins = kBins;
        if (!computePairDetail(va, vb, options, out->detail, &job))
            return std::shared_ptr<const DetailJob>(out);
        if (va.count <= kMaxHeatmapElements) {
            auto tensor = [&] {
                auto t = std::make_shared<LoadedTensor>();
                t->owned.resize(va.count * sizeof(float));
                t->view = TensorView{Elem::F32, t->owned.data(), va.count};
                t->shape = (*a)->shape;
                t->dataType = int(DataType::Float32);
                return t;
            };
            auto abs = tensor(), rel = tensor();
            auto *e = reinterpret_cast<float *>(abs->owned.data());
            auto *rr = reinterpret_cast<float *>(rel->owned.data());
            for (size_t i = 0; i < va.count && !job.cancelled(); ++i) {
                const double x = elemToDouble(va.elem, va.data, i), y = elemToDouble(vb.elem, vb.data, i);
                const double d = std::fabs(x - y);
                e[i] = float(d);
                rr[i] = float(y != 0 ? d / std::fabs(y) : d == 0 ? 0.0 : std::numeric_limits<double>::infinity());
            }
            out->errorTensor = abs;
            out->relErrorTensor = rel;
        } else {
            out->heatmapNote = QObject::tr("The tensors are too large for the error heatmap.");
        }
        out->complete = !job.cancelled();
        return std::shared_ptr<const DetailJob>(out);
    }));
}

void CompareView::onDetailDone()
{
    const auto d = m_detailJob.result();
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    if (!d || current.row() != d->row)
        return; // another row was chosen meanwhile
    if (!d->complete && d->error.isEmpty())
        return; // cancelled: a newer job for this row follows (its numbers are not all there)
    m_shown = d;
    const CompareRow &row = m_model->result()->rows[size_t(d->row)];
    const TensorStats &a = d->npuStats, &b = d->benchStats;
    const double values[4][2] = {{a.max, b.max}, {a.min, b.min}, {a.mean, b.mean}, {a.l2norm, b.l2norm}};
    for (int r = 0; r < 4; ++r) {
        m_stats->setItem(r, 0, item(number(values[r][0])));
        m_stats->setItem(r, 1, item(number(values[r][1])));
        m_stats->setItem(r, 2, item(number(values[r][0] - values[r][1])));
    }
    m_stats->setItem(4, 0, item(QStringLiteral("%1 / %2").arg(a.nan).arg(a.posinf + a.neginf)));
    m_stats->setItem(4, 1, item(QStringLiteral("%1 / %2").arg(b.nan).arg(b.posinf + b.neginf)));
    if (!d->error.isEmpty()) { // no data (a statistics or md5 dump): the statistics the dumps recorded
        for (int r = 0; r < 4; ++r) {
            const MetricValue &n = row.npuStats[size_t(r)], &bv = row.benchStats[size_t(r)];
            m_stats->setItem(r, 0, item(n.isNumber() ? number(n.value) : formatMetric(n)));
            m_stats->setItem(r, 1, item(bv.isNumber() ? number(bv.value) : formatMetric(bv)));
            m_stats->setItem(r, 2, item(n.isNumber() && bv.isNumber() ? number(n.value - bv.value) : QStringLiteral("\u2014")));
        }
        m_stats->setItem(4, 0, item(QStringLiteral("\u2014")));
        m_stats->setItem(4, 1, item(QStringLiteral("\u2014")));
    }
    m_histograms->setValues(d->npuHist, d->benchHist);
    m_histograms->setError(d->detail.absErrHistogram);

    m_worst->setRowCount(int(d->detail.worst.size()));
    for (int r = 0; r < int(d->detail.worst.size()); ++r) {
        const ElementDiff &w = d->detail.worst[size_t(r)];
        QStringList pos;
        for (auto i : w.position)
            pos << QString::number(i);
        m_worst->setItem(r, 0, item(pos.isEmpty() ? QString::number(w.index) : QLatin1Char('[') + pos.join(QStringLiteral(", ")) + QLatin1Char(']')));
        m_worst->setItem(r, 1, item(number(w.npu)));
        m_worst->setItem(r, 2, item(number(w.bench)));
        m_worst->setItem(r, 3, item(number(w.absErr)));
        m_worst->setItem(r, 4, item(number(w.relErr)));
    }
    showHeatmap();
    m_detail = std::shared_ptr<const PairDetail>(d, &d->detail);
    QString numbers;
    if (!d->error.isEmpty()) {
        numbers = tr("No element-wise detail: %1").arg(d->error);
    } else {
        numbers = tr("%1 of %2 elements exactly equal, %3 NaN/Inf mismatches.").arg(d->detail.exactlyEqual).arg(d->elements).arg(d->detail.nonFiniteMismatch);
        if (row.mode == CompareMode::Tensor)
            numbers = tr("Cosine %1, MaxAbsErr %2, MaxRelativeErr %3; ")
                          .arg(shortNumber(row.metrics[size_t(Metric::Cosine)]), shortNumber(row.metrics[size_t(Metric::MaxAbsErr)]),
                               shortNumber(row.metrics[size_t(Metric::MaxRelativeErr)]))
                      + numbers;
    }
    m_detailStatus->setText(detailText(row, d->row) + QLatin1Char('\n') + numbers);
    emit detailReady();
}

std::shared_ptr<const LoadedTensor> CompareView::heatmapTensor() const
{
    if (!m_shown)
        return nullptr;
    return m_heatmapKind->currentIndex() == 1 ? m_shown->relErrorTensor : m_shown->errorTensor;
}

void CompareView::showHeatmap()
{
    if (const auto t = heatmapTensor())
        m_heatmap->setTensor(t, int(DataType::Float32));
    else if (m_shown)
        m_heatmap->clear(m_shown->heatmapNote.isEmpty() ? m_shown->error : m_shown->heatmapNote);
}

} // namespace ds
