#include "tensorinspector.h"

#include "documentcontext.h"
#include "headroomtable.h"
#include "heatmapwidget.h"
#include "histogramwidget.h"
#include "valuegridwidget.h"
#include "background.h"
#include "compare/msprobenames.h"
#include "dumpgraph/visdbgraph.h"
#include "formats/readers.h"
#include "index/jsonreport.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QPushButton>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace ds {

namespace {

QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 8) : QStringLiteral("\u2014"); }

QTreeWidget *propertyList(QWidget *parent)
{
    auto *w = new QTreeWidget(parent);
    w->setColumnCount(2);
    w->setHeaderLabels({QObject::tr("Property"), QObject::tr("Value")});
    w->setRootIsDecorated(false);
    w->setSelectionMode(QAbstractItemView::ExtendedSelection);
    w->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    return w;
}

void addRow(QTreeWidget *w, const QString &name, const QString &value)
{
    auto *item = new QTreeWidgetItem(w, {name, value});
    item->setToolTip(1, value);
}

} // namespace

TensorInspector::TensorInspector(DocumentContext *context, QWidget *parent)
    : QWidget(parent), m_context(context)
{
    m_title = new QLabel(tr("Select a tensor in the dump tree."), this);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    // A long tensor id wraps at its slashes; in a very narrow dock its last part is clipped
    // rather than widen the dock (the full id is in the tooltip and copied by "Copy statistics").
    m_title->setMinimumWidth(m_title->fontMetrics().averageCharWidth() * 12);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_raw = new QCheckBox(tr("Raw device layout"), this);
    m_raw->setToolTip(tr("Show the bytes in the device's private layout instead of converting to ND"));
    m_raw->setEnabled(false);

    m_meta = propertyList(this);
    m_stats = propertyList(this);
    m_hist = new HistogramWidget(this);

    // Summary: metadata | statistics above, the histogram below.
    auto *tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_meta);
    tables->addWidget(m_stats);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);
    auto *summary = new QSplitter(Qt::Vertical, this);
    summary->addWidget(tables);
    summary->addWidget(m_hist);
    summary->setStretchFactor(0, 2);
    summary->setStretchFactor(1, 3);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(summary, tr("Summary"));
    m_values = new ValueGridWidget(this);
    m_heatmap = new HeatmapWidget(this);
    m_headroom = new HeadroomTable(this);
    m_tabs->addTab(m_values, tr("Values"));
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->addTab(m_headroom, tr("Headroom"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_headroom), tr("How the values would fare in float16, bfloat16, float8 and hifloat8"));
    // Choosing a type in the headroom table draws its bands over the histogram.
    connect(m_headroom->table(), &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        const int row = item ? m_headroom->table()->indexOfTopLevelItem(item) : -1;
        if (row >= 0 && m_report && m_report->stats.headroom.valid)
            m_hist->setBandTarget(row);
    });
    connect(m_heatmap, &HeatmapWidget::indexActivated, this, [this](const std::vector<std::uint64_t> &nd) {
        m_tabs->setCurrentWidget(m_values);
        m_values->goTo(nd);
    });

    auto *copy = new QPushButton(tr("Copy statistics"), this);
    copy->setToolTip(tr("Copy the tensor id and its statistics as text"));
    connect(copy, &QPushButton::clicked, this, [this] {
        if (m_report && !m_report->error)
            QGuiApplication::clipboard()->setText(m_report->id.toString() + QLatin1Char('\n') + statsText(m_report->stats));
    });
    // The id has a line of its own (it is long and breaks only at its slashes); the status
    // and the buttons share the next.
    auto *second = new QHBoxLayout;
    second->addWidget(m_status, 1);
    second->addWidget(m_raw);
    second->addWidget(copy);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addLayout(second);
    layout->addWidget(m_tabs, 1);

    connect(context, &DocumentContext::selectionChanged, this, &TensorInspector::onSelectionChanged);
    connect(&m_loadWatcher, &QFutureWatcherBase::finished, this, &TensorInspector::onLoaded);
    connect(&m_statsWatcher, &QFutureWatcherBase::finished, this, &TensorInspector::onStatsDone);
    connect(m_raw, &QCheckBox::toggled, this, &TensorInspector::startLoad);
    connect(m_hist, &HistogramWidget::parametersChanged, this, &TensorInspector::startStats);
}

TensorInspector::~TensorInspector()
{
    for (const auto &c : {m_cancelLoad, m_cancelStats})
        if (c)
            *c = true;
    m_loadWatcher.waitForFinished();
    m_statsWatcher.waitForFinished();
}

void TensorInspector::onSelectionChanged(int dump, const TensorId &tensorId)
{
    m_selectedAt.start();
    m_index = m_context->indexFor(dump, tensorId); // while indexing: the batch shown that holds it
    const auto ref = m_index ? m_index->find(tensorId) : std::nullopt;
    m_meta->clear();
    m_stats->clear();
    m_report.reset();
    m_loaded.reset();
    if (!ref) {
        m_index.reset();
        dropJobs();
        m_title->setText(tr("Select a tensor in the dump tree."));
        m_title->setToolTip(QString());
        m_status->clear();
        m_raw->setEnabled(false);
        m_hist->clear();
        m_headroom->clear();
        m_values->clear();
        m_heatmap->clear();
        return;
    }
    m_ref = *ref;
    m_title->setText(tensorId.toString());
    m_title->setToolTip(tensorId.toString());
    const auto &t = m_index->tensor(m_ref);
    const QSignalBlocker block(m_raw);
    m_raw->setChecked(false);
    m_raw->setEnabled(isConvertibleFormat(t.format()));
    showMetadata();
    if (!t.isTensor() || t.storage() == TensorStorage::Absent) {
        dropJobs();
        const QString why = t.isTensor() ? tr("No tensor data was saved for this leaf; the details show the statistics the dump recorded.")
                                         : tr("This leaf is a %1 value, not a tensor.").arg(t.typeName());
        m_status->setText(why);
        if (t.isTensor()) { // what is known instead of an empty plot: the recorded statistics
            m_hist->showRecorded(t.recorded(), isMsprobeOp(m_index->op(m_ref))
                                                   ? tr("No values were dumped for this tensor (msprobe task: statistics): no histogram.")
                                                   : tr("No values were dumped for this tensor: no histogram."));
            showRecordedStats();
            m_headroom->setRecorded(t.recorded());
        } else {
            m_hist->clear(why);
            m_headroom->clear(why);
        }
        m_values->clear(why);
        m_heatmap->clear(why);
        return;
    }
    startLoad();
}

/// Cancels the jobs and lets go of their results: a watcher keeps its future's result (the
/// report, and with it the tensor's mapping and converted buffers) until it is given another
/// future, so leaving a tensor for no tensor would otherwise keep it in memory. A cancelled job
/// still running frees its own copy when it stops.
void TensorInspector::dropJobs()
{
    for (const auto &c : {m_cancelLoad, m_cancelStats})
        if (c)
            *c = true;
    m_loadWatcher.setFuture(QtFuture::makeReadyFuture(std::shared_ptr<TensorReport>()));
    m_statsWatcher.setFuture(QtFuture::makeReadyFuture(std::shared_ptr<TensorReport>()));
    ++m_rowsRequest; // a graph node's rows still being read are not shown
    m_rowsPending = false;
}

void TensorInspector::startLoad()
{
    if (!m_index)
        return;
    for (const auto &c : {m_cancelLoad, m_cancelStats})
        if (c)
            *c = true; // stale jobs stop early; their results are never delivered
    m_cancelLoad = std::make_shared<std::atomic<bool>>(false);
    m_status->setText(tr("Loading\u2026"));
    m_headroom->clear(tr("Loading\u2026"));
    m_loadWatcher.setFuture(runLoadJob(m_index, m_ref, m_raw->isChecked() ? LayoutChoice::Raw : LayoutChoice::Logical,
                                       m_cancelLoad));
}

void TensorInspector::onLoaded()
{
    const auto r = m_loadWatcher.result();
    if (!r || r->index != m_index || !(r->ref == m_ref)) // null: dropped by dropJobs()
        return;
    m_loaded = r;
    m_firstPageMs = m_selectedAt.isValid() ? double(m_selectedAt.nsecsElapsed()) / 1e6 : -1;
    if (r->error) {
        const QString error = r->error->text();
        m_status->setText(tr("Cannot show this tensor: %1").arg(error));
        m_hist->clear(error);
        m_headroom->clear(error);
        m_values->clear(error);
        m_heatmap->clear(error);
        m_report = r;
        emit reportReady();
        return;
    }
    const int type = r->index->tensor(r->ref).dataType();
    if (r->tensor && r->tensor->dataType != type && !formatReader(r->index->op(r->ref).source).opsAreFiles()) {
        // The file holds another type than the dump recorded (MindSpore saves bfloat16 as
        // float32): both are shown, and the values are the file's.
        const QString value = tr("%1 (the values shown)").arg(dataTypeName(r->tensor->dataType));
        auto *row = new QTreeWidgetItem(QStringList{tr("Data type in file"), value});
        row->setToolTip(1, value);
        int at = m_meta->topLevelItemCount();
        for (int i = 0; i < m_meta->topLevelItemCount(); ++i)
            if (m_meta->topLevelItem(i)->text(0) == tr("Data type"))
                at = i + 1; // beside the recorded one
        m_meta->insertTopLevelItem(at, row);
    }
    m_values->setTensor(r->tensor, type); // the first page shows before statistics run
    m_heatmap->setTensor(r->tensor, type);
    emit tensorLoaded();
    startStats();
}

void TensorInspector::startStats()
{
    if (!m_loaded || !m_loaded->tensor)
        return;
    if (m_cancelStats)
        *m_cancelStats = true;
    m_cancelStats = std::make_shared<std::atomic<bool>>(false);
    m_status->setText(tr("Computing statistics\u2026"));
    const auto [lo, hi] = m_hist->range();
    m_statsWatcher.setFuture(runStatsJob(m_loaded, m_hist->bins(), lo, hi, m_cancelStats));
}

void TensorInspector::onStatsDone()
{
    const auto r = m_statsWatcher.result();
    if (!r || !m_loaded || r->tensor != m_loaded->tensor || !r->measured)
        return;
    m_report = r;
    QStringList notes = r->tensor->notes;
    notes.prepend(tr("Loaded in %1 ms, statistics in %2 ms.").arg(r->loadMs, 0, 'f', 1).arg(r->statsMs, 0, 'f', 1));
    m_status->setText(notes.join(QLatin1Char('\n')));
    showStats();
    m_hist->setHistogram(r->histogram.value_or(Histogram{}), r->stats);
    m_headroom->setHeadroom(r->stats.headroom, r->stats.finite);
    emit reportReady();
}

void TensorInspector::showMetadata()
{
    const auto &op = m_index->op(m_ref);
    const auto &t = m_index->tensor(m_ref);
    m_meta->clear();
    if (!formatReader(op.source).opsAreFiles()) {
        showFrameworkMetadata();
        return;
    }
    addRow(m_meta, tr("Tensor"), ioKindName(t.io()) + QLatin1Char(' ') + QString::number(t.index()));
    addRow(m_meta, tr("Data type"), dataTypeName(t.dataType()));
    addRow(m_meta, tr("Device format"), formatName(t.format()));
    addRow(m_meta, tr("Device shape"), shapeToString(t.shape()));
    addRow(m_meta, tr("Logical shape"), t.originalShape().empty() ? shapeToString(t.shape()) : shapeToString(t.originalShape()));
    if (t.subFormat())
        addRow(m_meta, tr("Sub-format (groups)"), QString::number(t.subFormat()));
    addRow(m_meta, tr("Operator"), op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName());
    addRow(m_meta, tr("Operator type"), op.opType);
    if (!t.originalOpName().isEmpty())
        addRow(m_meta, tr("Original operator"), t.originalOpName() + QStringLiteral(" : %1").arg(t.originalOutputIndex()));
    addRow(m_meta, tr("Task / stream"), QStringLiteral("%1 / %2").arg(op.taskId()).arg(op.streamId()));
    addRow(m_meta, tr("Timestamp"), QString::number(op.timestamp));
    addRow(m_meta, tr("File"), m_index->absolutePath(op));
    addRow(m_meta, tr("Byte offset / size"), QStringLiteral("%1 / %2").arg(t.offset()).arg(t.size()));
    if (!op.mappedFrom().isEmpty())
        addRow(m_meta, tr("Mapped name"), op.mappedFrom());
    for (const auto &w : op.warnings())
        addRow(m_meta, tr("Warning"), w);
}

/// msprobe, ptdbg, h5 and npy leaves: the leaf path, what the producer recorded (statistics,
/// checksum, value) and the call stack of the operator.
void TensorInspector::showFrameworkMetadata()
{
    const auto &op = m_index->op(m_ref);
    const auto &t = m_index->tensor(m_ref);
    addRow(m_meta, tr("Leaf"), t.name().isEmpty() ? ioKindName(t.io()) + QLatin1Char(' ') + QString::number(t.index()) : t.name());
    if (!t.typeName().isEmpty())
        addRow(m_meta, tr("Recorded type"), t.typeName());
    if (t.isTensor()) {
        addRow(m_meta, tr("Data type"), dataTypeName(t.dataType()));
        addRow(m_meta, tr("Shape"), shapeToString(t.shape()));
    } else {
        addRow(m_meta, tr("Value"), t.value());
    }
    addRow(m_meta, tr("Operator"), op.opName.isEmpty() ? op.relPath.section(QLatin1Char('/'), -1) : op.opName.toString());
    if (!op.opType.isEmpty())
        addRow(m_meta, tr("Operator type"), op.opType);
    addRow(m_meta, tr("Format"), sourceFormatName(op.source));
    if (const QString producer = producerLabel(op); !producer.isEmpty())
        addRow(m_meta, tr("Written by"), producer);
    if (!op.levels->step.isEmpty() || !op.levels->rank.isEmpty())
        addRow(m_meta, tr("Step / rank"), QStringLiteral("%1 / %2").arg(op.levels->step, op.levels->rank));
    if (!op.parent.isEmpty())
        addRow(m_meta, tr("Parent module"), op.parent);
    addRow(m_meta, tr("Record file"), m_index->absolutePath(op));
    switch (t.storage()) {
    case TensorStorage::NpyFile:
    case TensorStorage::PtFile: addRow(m_meta, tr("Tensor file"), m_index->absolute(t.location())); break;
    case TensorStorage::H5Dataset: addRow(m_meta, tr("Dataset"), t.location()); break;
    case TensorStorage::Absent: addRow(m_meta, tr("Tensor file"), tr("none saved (statistics only)")); break;
    default: break;
    }
    const RecordedStats r = t.recorded();
    const std::pair<RecordedStats::Field, std::pair<QString, double>> recorded[] = {
        {RecordedStats::Max, {tr("Recorded max"), r.max}},
        {RecordedStats::Min, {tr("Recorded min"), r.min}},
        {RecordedStats::Mean, {tr("Recorded mean"), r.mean}},
        {RecordedStats::Norm, {tr("Recorded L2 norm"), r.norm}},
    };
    for (const auto &[field, row] : recorded)
        if (r.has(field))
            addRow(m_meta, row.first, std::isnan(row.second) ? QStringLiteral("NaN")
                                      : std::isinf(row.second) ? QString::fromLatin1(row.second > 0 ? "+Inf" : "-Inf")
                                                               : QString::number(row.second, 'g', 8));
    if (!t.checksum().isEmpty())
        addRow(m_meta, tr("Recorded checksum"), t.checksum());
    for (const auto &w : op.warnings())
        addRow(m_meta, tr("Warning"), w);
    if (op.stack >= 0 && size_t(op.stack) < m_index->stacks.size()) {
        const QStringList &lines = m_index->stacks[size_t(op.stack)];
        for (qsizetype i = 0; i < lines.size(); ++i)
            addRow(m_meta, i == 0 ? tr("Call stack") : QString(), QString(lines[i]).replace(QLatin1Char('\n'), QStringLiteral(" \u2014 ")));
    }
}

/// The statistics a statistics-only leaf recorded, in the statistics table.
void TensorInspector::showRecordedStats()
{
    const auto &t = m_index->tensor(m_ref);
    showRecordedStats(t.recorded(), elementCount(t.shape()), tr("recorded by the dump (no values)"));
}

void TensorInspector::showRecordedStats(const RecordedStats &r, std::optional<std::uint64_t> elements, const QString &source)
{
    m_stats->clear();
    addRow(m_stats, tr("Source"), source);
    if (elements)
        addRow(m_stats, tr("Elements"), QString::number(*elements));
    const std::pair<RecordedStats::Field, std::pair<QString, double>> fields[] = {
        {RecordedStats::Min, {tr("Min"), r.min}},
        {RecordedStats::Max, {tr("Max"), r.max}},
        {RecordedStats::Mean, {tr("Mean"), r.mean}},
        {RecordedStats::Norm, {tr("L2 norm"), r.norm}},
    };
    for (const auto &[field, row] : fields)
        if (r.has(field))
            addRow(m_stats, row.first, std::isnan(row.second) ? QStringLiteral("NaN")
                                       : std::isinf(row.second) ? QString::fromLatin1(row.second > 0 ? "+Inf" : "-Inf")
                                                                : QString::number(row.second, 'g', 8));
}

void TensorInspector::showGraphNode(const GraphNode &node, const QString &where, const VisDbRowsKey &rows)
{
    dropJobs();
    const int request = m_rowsRequest;
    m_index.reset();
    m_report.reset();
    m_loaded.reset();
    m_raw->setEnabled(false);
    const GraphAttr *entry = node.attr(QString::fromLatin1(kVisNodeAttr));
    const QString name = entry ? entry->value : node.name;
    m_title->setText(name);
    m_status->setText(tr("An msprobe graph database node: the statistics msprobe recorded (open its dump for the tensors)."));
    m_meta->clear();
    addRow(m_meta, tr("Node"), name);
    addRow(m_meta, tr("Node type"), node.type);
    addRow(m_meta, tr("Graph"), where);
    const std::pair<const char *, QString> states[] = {{kVisOverflowAttr, tr("Overflow level")},
                                                       {kVisPrecisionLevelAttr, tr("Precision level")},
                                                       {kVisPrecisionAttr, tr("Precision index")},
                                                       {kVisMatchedAttr, tr("Matched node")}};
    for (const auto &[key, label] : states)
        if (const GraphAttr *a = node.attr(QString::fromLatin1(key)))
            addRow(m_meta, label, a->value.isEmpty() ? tr("(none)") : a->value);
    if (rows.isValid() && node.inputDescs.empty() && node.outputDescs.empty()) {
        // A big database's rows stay in the file until a node is shown: read this node's on a
        // worker, then show the node again with them.
        const QString reading = tr("reading the node's rows from the graph database\u2026");
        addRow(m_meta, tr("Rows"), reading);
        m_stats->clear();
        m_hist->clear(reading);
        m_headroom->clear(reading);
        m_values->clear(reading);
        m_heatmap->clear(reading);
        m_rowsPending = true;
        auto *watcher = new QFutureWatcher<std::shared_ptr<Result<VisDbNodeRows>>>(this);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request, node, where] {
            watcher->deleteLater();
            if (request != m_rowsRequest) // another node or tensor was shown meanwhile
                return;
            m_rowsPending = false;
            const auto read = watcher->result();
            if (!read->ok()) {
                addRow(m_meta, tr("Rows"), tr("cannot read them: %1").arg(read->errorText()));
                const QString none = tr("A graph database node holds no values: no histogram.");
                m_hist->clear(none);
                m_headroom->clear(none);
                m_values->clear(none);
                m_heatmap->clear(none);
                return;
            }
            GraphNode withRows = node;
            withRows.inputDescs = std::move((*read)->inputs);
            withRows.outputDescs = std::move((*read)->outputs);
            showGraphNode(withRows, where);
        });
        watcher->setFuture(QtConcurrent::run(backgroundPool(), [rows] {
            const BackgroundPriority background;
            return std::make_shared<Result<VisDbNodeRows>>(readVisDbNodeRows(rows));
        }));
        return;
    }
    for (const GraphTensorDesc &row : node.inputDescs)
        addRow(m_meta, tr("Input"), visDbRowSummary(row));
    for (const GraphTensorDesc &row : node.outputDescs)
        addRow(m_meta, tr("Output"), visDbRowSummary(row));
    // The first output that recorded statistics stands for the node in the statistics table.
    const GraphTensorDesc *shown = nullptr;
    for (const GraphTensorDesc &row : node.outputDescs)
        if (visDbRowStats(row).present) {
            shown = &row;
            break;
        }
    const QString none = tr("A graph database node holds no values: no histogram.");
    if (shown) {
        showRecordedStats(visDbRowStats(*shown), std::nullopt, tr("recorded in the graph database: %1").arg(shown->name));
        m_headroom->setRecorded(visDbRowStats(*shown));
        m_hist->showRecorded(visDbRowStats(*shown), none + QLatin1Char(' ') + shown->name + QLatin1Char(':'));
    } else {
        m_stats->clear();
        m_hist->clear(none);
        m_headroom->clear(none);
    }
    m_values->clear(none);
    m_heatmap->clear(none);
}

void TensorInspector::showStats()
{
    const auto &s = m_report->stats;
    m_stats->clear();
    addRow(m_stats, tr("Elements"), QString::number(s.count));
    addRow(m_stats, tr("Min"), num(s.min));
    addRow(m_stats, tr("Max"), num(s.max));
    addRow(m_stats, tr("Mean"), num(s.mean));
    addRow(m_stats, tr("Std"), num(s.std));
    addRow(m_stats, tr("L2 norm"), num(s.l2norm));
    addRow(m_stats, tr("NaN"), QString::number(s.nan));
    addRow(m_stats, tr("+Inf"), QString::number(s.posinf));
    addRow(m_stats, tr("-Inf"), QString::number(s.neginf));
    addRow(m_stats, tr("Zeros"), QString::number(s.zero));
    addRow(m_stats, tr("Shape shown"), shapeToString(m_report->tensor->shape));
}

} // namespace ds
