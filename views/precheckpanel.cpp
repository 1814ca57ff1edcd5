#include "precheckpanel.h"

#include "background.h"
#include "heatmapwidget.h"
#include "models/prechecktablemodel.h"
#include "tensor/dtype.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QScrollArea>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cmath>

namespace ds {

namespace {

// msprobe's verdict as a cell colour (the model gives the verdict, the view the colour)
class StatusDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QColor c;
        switch (precheck::Status(index.data(PrecheckTableModel::StatusRole).toInt())) {
        case precheck::Status::Error:
        case precheck::Status::Unknown: c = QColor(230, 80, 70, 70); break;
        case precheck::Status::Warning: c = QColor(240, 170, 40, 70); break;
        case precheck::Status::Skip: c = QColor(150, 150, 150, 50); break;
        default: break;
        }
        if (c.isValid())
            painter->fillRect(option.rect, c);
        QStyledItemDelegate::paint(painter, option, index);
    }
};

QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("-"); }

QString shapeText(const Shape &s)
{
    QStringList parts;
    for (auto d : s)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace

PrecheckPanel::PrecheckPanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tables(new QComboBox(this)), m_view(new QTableView(this)),
      m_model(new PrecheckTableModel(this)), m_failed(new QListWidget(this)), m_detail(new QLabel(this)),
      m_heatmap(new HeatmapWidget(this))
{
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Open msprobe's precheck results (File \u2192 Open): an accuracy_checking_*.csv, an api_precision_compare_*.csv or their folder."));
    m_view->setModel(m_model);
    m_view->setItemDelegate(new StatusDelegate(m_view));
    m_view->horizontalHeader()->setDefaultSectionSize(130);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_detail->setWordWrap(true);
    m_detail->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setTextFormat(Qt::RichText);
    // the comparison scrolls inside its own area: its width never squeezes the list of failed outputs
    auto *detailArea = new QScrollArea(this);
    detailArea->setWidget(m_detail);
    detailArea->setWidgetResizable(true);
    detailArea->setFrameShape(QFrame::NoFrame);
    detailArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the text wraps to the pane's width
    m_failed->setMinimumWidth(180);
    // beside the numbers, where the two outputs differ: the heatmap of |device - bench|, on a
    // tab of its own (under the numbers it left them two lines at 1280x800)
    auto *right = new QTabWidget(this);
    right->setDocumentMode(true);
    right->addTab(detailArea, tr("Comparison"));
    right->addTab(m_heatmap, tr("|device \u2212 bench| heatmap"));
    auto *bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_failed);
    bottom->addWidget(right);
    bottom->setStretchFactor(0, 1);
    bottom->setStretchFactor(1, 2);
    bottom->setSizes({250, 500}); // a third for the list, the rest for the comparison
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tables);
    layout->addWidget(split, 1);
    connect(m_tables, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_model->setTable(m_doc, i);
        fitColumns();
    });
    connect(m_failed, &QListWidget::currentRowChanged, this, &PrecheckPanel::showFailed);
    connect(&m_load, &QFutureWatcherBase::finished, this, &PrecheckPanel::showDocument);
    connect(&m_compare, &QFutureWatcherBase::finished, this, [this] {
        const auto &c = m_compare.result();
        if (m_compareRow != m_failed->currentRow() || !m_doc)
            return; // a newer selection is on its way
        if (!c) {
            m_detail->setText(c.errorText().toHtmlEscaped());
            m_heatmap->clear(tr("No element-wise difference: see the message above."));
            return;
        }
        if (c->absError)
            m_heatmap->setTensor(c->absError, int(DataType::Float32));
        else
            m_heatmap->clear(tr("The outputs are too large for the heatmap."));
        const precheck::FailedPair &p = m_doc->failed[size_t(m_compareRow)];
        const PairMetrics &m = c->metrics;
        const double cosine = m.npuNorm > 0 && m.benchNorm > 0 ? m.dot / (m.npuNorm * m.benchNorm) : std::nan("");
        // one paragraph per side, not side-by-side columns: in the tab's width the bench column was
        // cut off (the paragraphs wrap); file names only, the folder said once
        QString html = QStringLiteral("<b>%1.%2</b>").arg(p.api.toHtmlEscaped(), p.output());
        const auto side = [&](const QString &label, const QString &file, int type, const Shape &shape, const PairSide &st) {
            return QStringLiteral("<p><b>%1</b><br>%2: %3<br>%4: %5 %6<br>%7: %8 / %9 / %10</p>")
                .arg(label, tr("file"), QFileInfo(file).fileName().toHtmlEscaped(), tr("dtype, shape"), dataTypeName(type), shapeText(shape),
                     tr("min / max / mean"), num(st.min), num(st.max))
                .arg(num(st.mean));
        };
        html += side(tr("device (NPU)"), p.deviceFile, c->deviceType, c->deviceShape, m.npu);
        html += side(tr("bench (CPU)"), p.benchFile, c->benchType, c->benchShape, m.bench);
        html += QStringLiteral("<p>%1</p>").arg(tr("in %1").arg(QFileInfo(p.deviceFile.isEmpty() ? p.benchFile : p.deviceFile).path().toHtmlEscaped()));
        html += QStringLiteral("<p>%1</p>")
                    .arg(tr("DumpScope's comparison of %1 elements: cosine %2, max abs error %3, max relative error %4, RMSE %5, %6 exactly equal, %7 NaN/Inf mismatches.")
                             .arg(m.count).arg(num(cosine), num(m.maxAbsErr), num(m.maxRelErr), num(m.rmse)).arg(c->detail.exactlyEqual).arg(m.infNanMismatch));
        html += QStringLiteral("<p>%1</p><table cellspacing=6><tr><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                    .arg(tr("The elements that differ most:"), tr("position"), tr("device"), tr("bench"), tr("abs error"));
        for (size_t i = 0; i < std::min<size_t>(c->detail.worst.size(), 8); ++i) {
            const ElementDiff &d = c->detail.worst[i];
            html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td></tr>").arg(shapeText(d.position), num(d.npu), num(d.bench), num(d.absErr));
        }
        m_detail->setText(html + QStringLiteral("</table>"));
    });
}

PrecheckPanel::~PrecheckPanel()
{
    m_load.waitForFinished();
    m_compare.waitForFinished();
}

void PrecheckPanel::open(const QString &path)
{
    m_summary->setText(tr("Reading msprobe's precheck results %1\u2026").arg(path));
    m_load.setFuture(readInBackground<precheck::PrecheckDocument>([path] { return precheck::openPrecheck(path); }));
}

void PrecheckPanel::showDocument()
{
    const Loaded loaded = m_load.result();
    m_doc = loaded.doc;
    m_tables->clear();
    m_failed->clear();
    m_detail->clear();
    m_heatmap->clear();
    if (!m_doc) {
        m_model->setTable(nullptr, -1);
        m_summary->setText(loaded.error);
        emit opened();
        return;
    }
    int errors = 0, warnings = 0;
    for (const precheck::PrecheckTable &t : m_doc->tables) {
        m_tables->addItem(tr("%1 (%2): %3 pass, %4 warning, %5 error, %6 SKIP")
                              .arg(t.file, precheck::tableKindName(t.kind))
                              .arg(t.count(precheck::Status::Pass)).arg(t.count(precheck::Status::Warning))
                              .arg(t.count(precheck::Status::Error)).arg(t.count(precheck::Status::Skip)));
        if (&t == &m_doc->tables.front()) {
            errors = t.count(precheck::Status::Error);
            warnings = t.count(precheck::Status::Warning);
        }
    }
    for (const precheck::FailedPair &p : m_doc->failed) {
        m_failed->addItem(p.api + QLatin1Char('.') + p.output());
        m_failed->item(m_failed->count() - 1)->setToolTip(m_failed->item(m_failed->count() - 1)->text()); // the list is narrow
    }
    QString text = tr("msprobe's API precheck results in %1: %n table(s), ", nullptr, int(m_doc->tables.size())).arg(m_doc->root)
                 + tr("%n failed output(s) with saved tensors. ", nullptr, int(m_doc->failed.size()))
                 + tr("The first table has %1 error and %2 warning rows (red, amber; hover a column header for its meaning and threshold). "
                      "Select a failed output below to compare its device and bench tensors.").arg(errors).arg(warnings);
    if (!m_doc->errors.empty())
        text += QLatin1Char(' ') + tr("%n problem(s): %1", nullptr, int(m_doc->errors.size())).arg(m_doc->errors.front().text());
    m_summary->setText(text);
    m_model->setTable(m_doc, m_doc->tables.empty() ? -1 : 0);
    fitColumns();
    if (!m_doc->failed.empty())
        m_failed->setCurrentRow(0);
    emit opened();
}

void PrecheckPanel::fitColumns()
{
    // every header readable ("Backward Test Success" was cut to "ackward Test Succes"), long
    // messages capped (their full text is the cell's tooltip)
    m_view->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->setColumnWidth(c, std::min(m_view->columnWidth(c), 320));
}

void PrecheckPanel::showFailed(int row)
{
    if (!m_doc || row < 0 || size_t(row) >= m_doc->failed.size())
        return;
    m_compareRow = row;
    m_detail->setText(tr("Comparing %1\u2026").arg(m_failed->item(row)->text()));
    m_compare.setFuture(QtConcurrent::run(backgroundPool(), [doc = m_doc, row] {
        const BackgroundPriority background;
        return precheck::compareFailedPair(doc->root, doc->failed[size_t(row)]);
    }));
}

} // namespace ds
