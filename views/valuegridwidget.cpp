#include "valuegridwidget.h"

#include "flowlayout.h"
#include "sliceselector.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ds {

QColor valueClassColor(ValueClass c)
{
    switch (c) {
    case ValueClass::NaN: return QColor(255, 0, 255);                             // magenta
    case ValueClass::PosInf: case ValueClass::NegInf: return QColor(150, 150, 150); // grey
    case ValueClass::Saturated: return QColor(0, 120, 0);                         // dark green
    case ValueClass::Normal: break;
    }
    return {};
}

QString valueClassLegend(Elem elem, const QString &typeName)
{
    if (!isFloating(elem))
        return {};
    auto item = [](ValueClass c, const QString &text) {
        return QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
            .arg(valueClassColor(c).name(), text.toHtmlEscaped());
    };
    QStringList parts{item(ValueClass::NaN, ValueGridWidget::tr("NaN")), item(ValueClass::PosInf, ValueGridWidget::tr("\u00b1Inf"))};
    if (const double limit = saturationLimit(elem); limit > 0)
        parts << item(ValueClass::Saturated, ValueGridWidget::tr("saturated (|v| = %1, the largest finite %2)")
                                                 .arg(QString::number(limit, 'g', 8), typeName));
    return parts.join(QStringLiteral("&nbsp;&nbsp;&nbsp;"));
}

namespace {

/// Paints the cell background from ClassRole (the model gives numbers, this gives colours).
class ValueClassDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const QColor bg = valueClassColor(ValueClass(index.data(TensorValuesModel::ClassRole).toInt()));
        if (!bg.isValid())
            return;
        option->backgroundBrush = bg;
        const QColor fg = bg.lightnessF() > 0.45 ? Qt::black : Qt::white;
        option->palette.setColor(QPalette::Text, fg);
        option->palette.setColor(QPalette::HighlightedText, fg);
    }
};

QString count(std::uint64_t n) { return QLocale().toString(qulonglong(n)); }

} // namespace

ValueGridWidget::ValueGridWidget(QWidget *parent) : QWidget(parent), m_model(new TensorValuesModel(this))
{
    m_selector = new SliceSelector(this);

    auto arrow = [this](Qt::ArrowType type, const QString &tip) {
        auto *b = new QToolButton(this);
        b->setArrowType(type);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    m_prevRows = arrow(Qt::UpArrow, tr("Previous %1 rows").arg(count(TensorValuesModel::kPageRows)));
    m_nextRows = arrow(Qt::DownArrow, tr("Next %1 rows").arg(count(TensorValuesModel::kPageRows)));
    m_prevCols = arrow(Qt::LeftArrow, tr("Previous %1 columns").arg(count(TensorValuesModel::kPageCols)));
    m_nextCols = arrow(Qt::RightArrow, tr("Next %1 columns").arg(count(TensorValuesModel::kPageCols)));
    m_rowsLabel = new QLabel(this);
    m_colsLabel = new QLabel(this);
    m_goTo = new QLineEdit(this);
    m_goTo->setClearButtonEnabled(true);
    m_goTo->setMinimumWidth(140);
    m_goTo->setToolTip(tr("Go to an element: one index per dim, comma separated (negative counts from the end)"));
    m_digits = new QSpinBox(this);
    m_digits->setRange(1, 17);
    m_digits->setValue(m_model->precision());
    m_digits->setPrefix(tr("digits: "));
    m_digits->setToolTip(tr("Significant digits shown (17 shows every float64 exactly)"));

    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setItemDelegate(new ValueClassDelegate(m_view));
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setWordWrap(false);
    m_view->setCornerButtonEnabled(false);
    m_view->setSelectionMode(QAbstractItemView::ContiguousSelection);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    auto *copy = new QAction(tr("Copy"), m_view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view->addAction(copy);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);

    m_info = new QLabel(this);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_message = new QLabel(this);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);

    // Page and go-to controls wrap in a narrow dock instead of widening it (FlowLayout); the
    // legend and the read-out wrap too.
    auto group = [this](std::initializer_list<QWidget *> widgets) {
        auto *g = new QWidget(this);
        auto *l = new QHBoxLayout(g);
        l->setContentsMargins(0, 0, 0, 0);
        for (QWidget *w : widgets) {
            w->setParent(g);
            l->addWidget(w);
        }
        return g;
    };
    auto *goLabel = new QLabel(tr("&Go to:"), this);
    goLabel->setBuddy(m_goTo);
    auto *nav = new FlowLayout;
    nav->addWidget(group({m_prevRows, m_rowsLabel, m_nextRows}));
    nav->addWidget(group({m_prevCols, m_colsLabel, m_nextCols}));
    nav->addWidget(group({goLabel, m_goTo, m_digits}));
    m_legend->setWordWrap(true);
    m_info->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_selector);
    layout->addLayout(nav);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_info);
    layout->addWidget(m_legend);
    layout->addWidget(m_message);

    connect(m_selector, &SliceSelector::sliceChanged, m_model, qOverload<const TensorSlice &>(&TensorValuesModel::setSlice));
    connect(m_model, &TensorValuesModel::sliceChanged, this, [this] {
        m_selector->setSlice(m_model->slice());
        showCurrent();
    });
    connect(m_model, &TensorValuesModel::pageChanged, this, &ValueGridWidget::updatePageControls);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &ValueGridWidget::showCurrent);
    connect(m_prevRows, &QToolButton::clicked, this, [this] {
        m_model->setPage(m_model->pageRow() - std::min(m_model->pageRow(), TensorValuesModel::kPageRows), m_model->pageCol());
    });
    connect(m_nextRows, &QToolButton::clicked, this, [this] {
        m_model->setPage(m_model->pageRow() + TensorValuesModel::kPageRows, m_model->pageCol());
    });
    connect(m_prevCols, &QToolButton::clicked, this, [this] {
        m_model->setPage(m_model->pageRow(), m_model->pageCol() - std::min(m_model->pageCol(), TensorValuesModel::kPageCols));
    });
    connect(m_nextCols, &QToolButton::clicked, this, [this] {
        m_model->setPage(m_model->pageRow(), m_model->pageCol() + TensorValuesModel::kPageCols);
    });
    connect(m_goTo, &QLineEdit::returnPressed, this, [this] { goTo(m_goTo->text()); });
    connect(m_digits, &QSpinBox::valueChanged, this, [this](int digits) {
        m_model->setNumberFormat('g', digits);
        updateColumnWidth();
        showCurrent();
    });
    connect(copy, &QAction::triggered, this, &ValueGridWidget::copySelection);
    clear();
}

void ValueGridWidget::setTensor(std::shared_ptr<const LoadedTensor> tensor)
{
    const int type = tensor ? tensor->dataType : 0;
    setTensor(std::move(tensor), type);
}

void ValueGridWidget::setTensor(std::shared_ptr<const LoadedTensor> tensor, int headerDataType)
{
    if (!tensor) {
        clear();
        return;
    }
    // Another tensor of the same shape (the next step's output, a reload) keeps the slice,
    // the page, the scroll position and the current cell, so that the two can be compared.
    const bool sameShape = m_model->tensor() && displayShape(*tensor) == m_model->shape();
    const TensorSlice slice = m_model->slice();
    const std::uint64_t pageRow = m_model->pageRow(), pageCol = m_model->pageCol();
    const QModelIndex current = m_view->currentIndex();
    const int hScroll = m_view->horizontalScrollBar()->value(), vScroll = m_view->verticalScrollBar()->value();
    m_dataType = headerDataType;
    m_model->setTensor(std::move(tensor));
    m_selector->setShape(m_model->shape());
    if (sameShape) {
        m_model->setSlice(slice);
        m_model->setPage(pageRow, pageCol);
        if (current.isValid())
            m_view->setCurrentIndex(m_model->index(current.row(), current.column()));
        m_view->horizontalScrollBar()->setValue(hScroll);
        m_view->verticalScrollBar()->setValue(vScroll);
    } else {
        m_goTo->clear();
    }
    m_selector->setEnabled(true);
    m_goTo->setEnabled(!m_model->shape().empty());
    m_goTo->setPlaceholderText(m_model->shape().empty()
                                   ? tr("scalar")
                                   : tr("e.g. %1").arg(ndIndexToString(std::vector<std::uint64_t>(m_model->shape().size(), 0))
                                                           .mid(1).chopped(1)));
    const Elem elem = m_model->tensor()->view.elem;
    m_legend->setText(valueClassLegend(elem, dataTypeName(m_model->tensor()->dataType)));
    m_message->clear();
    m_message->setVisible(false);
    updateColumnWidth();
    updatePageControls();
    showCurrent();
}

void ValueGridWidget::clear(const QString &message)
{
    m_model->setTensor(nullptr);
    m_selector->setShape({});
    m_selector->setEnabled(false);
    m_goTo->clear();
    m_goTo->setEnabled(false);
    m_legend->clear();
    m_info->clear();
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
    updatePageControls();
}

bool ValueGridWidget::goTo(const QString &text)
{
    if (!m_model->tensor())
        return false;
    std::vector<std::uint64_t> nd;
    const Shape &shape = m_model->shape();
    if (!parseNdIndex(text, shape, nd)) {
        m_message->setText(tr("\u201c%1\u201d is not an element of a tensor of shape %2: enter %n comma-separated "
                              "index(es), e.g. %3.", nullptr, int(shape.size()))
                               .arg(text.trimmed(), shapeToString(shape),
                                    ndIndexToString(std::vector<std::uint64_t>(shape.size(), 0)).mid(1).chopped(1)));
        m_message->setVisible(true);
        return false;
    }
    return goTo(nd);
}

bool ValueGridWidget::goTo(const std::vector<std::uint64_t> &ndIndex)
{
    const QModelIndex idx = m_model->locate(ndIndex);
    if (!idx.isValid())
        return false;
    m_message->clear();
    m_message->setVisible(false);
    m_view->setCurrentIndex(idx);
    m_view->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    return true;
}

std::vector<std::uint64_t> ValueGridWidget::currentIndex() const
{
    return m_model->indexOf(m_view->currentIndex());
}

void ValueGridWidget::updatePageControls()
{
    const std::uint64_t R = m_model->totalRows(), C = m_model->totalCols();
    const std::uint64_t r0 = m_model->pageRow(), c0 = m_model->pageCol();
    const std::uint64_t r1 = r0 + std::uint64_t(m_model->rowCount()), c1 = c0 + std::uint64_t(m_model->columnCount());
    m_rowsLabel->setText(R ? tr("rows %1\u2013%2 of %3").arg(count(r0), count(r1 - 1), count(R)) : tr("no rows"));
    m_colsLabel->setText(C ? tr("columns %1\u2013%2 of %3").arg(count(c0), count(c1 - 1), count(C)) : QString());
    m_prevRows->setEnabled(r0 > 0);
    m_nextRows->setEnabled(r1 < R);
    m_prevCols->setEnabled(c0 > 0);
    m_nextCols->setEnabled(c1 < C);
    const bool rowPages = R > TensorValuesModel::kPageRows, colPages = C > TensorValuesModel::kPageCols;
    m_prevRows->setVisible(rowPages);
    m_nextRows->setVisible(rowPages);
    m_prevCols->setVisible(colPages);
    m_nextCols->setVisible(colPages);
    m_colsLabel->setVisible(C > 1);
}

void ValueGridWidget::updateColumnWidth()
{
    // Wide enough for the longest text of the kind at the current precision, e.g. "-1.2345678e-308".
    const auto t = m_model->tensor();
    const Elem e = t ? t->view.elem : Elem::F32;
    int chars;
    switch (e) {
    case Elem::I64: case Elem::U64: chars = 20; break;
    case Elem::I32: case Elem::U32: chars = 11; break;
    case Elem::I8: case Elem::U8: case Elem::I16: case Elem::U16: case Elem::Bool: chars = 6; break;
    default: chars = m_model->precision() + 7; break;
    }
    if (isComplex(e))
        chars = 2 * chars + 2;
    const QFontMetrics fm(m_view->font());
    m_view->horizontalHeader()->setDefaultSectionSize(fm.horizontalAdvance(QString(chars, QLatin1Char('8'))) + 12);
}

void ValueGridWidget::showCurrent()
{
    const auto t = m_model->tensor();
    if (!t) {
        m_info->clear();
        return;
    }
    QString info = dataTypeName(m_dataType) + QLatin1Char(' ') + shapeToString(m_model->shape());
    if (t->dataType != m_dataType) // a bfloat16 tensor msprobe saved as float32 .npy: these are the file's values
        info += QStringLiteral(", ") + tr("values as stored: %1").arg(dataTypeName(t->dataType));
    const QModelIndex cur = m_view->currentIndex();
    const auto nd = m_model->indexOf(cur);
    if (!nd.empty() || (cur.isValid() && m_model->shape().empty())) {
        const auto flat = size_t(cur.data(TensorValuesModel::FlatIndexRole).toULongLong());
        info += QStringLiteral("   ") + tr("%1 = %2").arg(ndIndexToString(nd), formatElement(t->view.elem, t->view.data, flat, 'g', 17));
    }
    m_info->setText(info);
}

void ValueGridWidget::copySelection()
{
    // Tab-separated values of the selected rectangle (one page at most: 10^7 cells).
    const QItemSelection sel = m_view->selectionModel()->selection();
    if (sel.isEmpty())
        return;
    const QItemSelectionRange r = sel.first();
    if (qint64(r.width()) * r.height() > 1000000) {
        m_message->setText(tr("The selection holds %1 cells; copy at most 1,000,000 at a time (or export the tensor).")
                               .arg(count(std::uint64_t(r.width()) * std::uint64_t(r.height()))));
        m_message->setVisible(true);
        return;
    }
    QString text;
    for (int row = r.top(); row <= r.bottom(); ++row) {
        for (int col = r.left(); col <= r.right(); ++col) {
            if (col > r.left())
                text += QLatin1Char('\t');
            text += m_model->index(row, col).data().toString();
        }
        text += QLatin1Char('\n');
    }
    QApplication::clipboard()->setText(text);
}

} // namespace ds
