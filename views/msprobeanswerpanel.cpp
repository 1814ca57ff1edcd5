#include "msprobeanswerpanel.h"

#include "background.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ds {

MsprobeAnswerPanel::MsprobeAnswerPanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_view(new QTableView(this)), m_model(new QStandardItemModel(0, ColumnCount, this)),
      m_detail(new QPlainTextEdit(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_model->setHorizontalHeaderLabels({tr("Rank"), tr("msprobe's op"), tr("DumpScope's op"), tr("Agreement")});
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    connect(&m_load, &QFutureWatcherBase::finished, this, &MsprobeAnswerPanel::showDocument);
    connect(m_view, &QAbstractItemView::activated, this, [this](const QModelIndex &i) {
        if (!m_doc || i.row() < 0 || size_t(i.row()) >= m_doc->rows.size())
            return;
        const AnswerRow &r = m_doc->rows[size_t(i.row())];
        emit opRequested(r.rank, m_doc->step, r.msprobeOp.isEmpty() ? r.oursOp : r.msprobeOp);
    });
    m_view->setToolTip(tr("Double-click a rank to select its op in an open dump of the same step and rank."));
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showRow(current.row()); });
}

MsprobeAnswerPanel::~MsprobeAnswerPanel() { m_load.waitForFinished(); }

void MsprobeAnswerPanel::open(const QString &path)
{
    m_ready = false;
    m_summary->setText(tr("Reading msprobe's answer %1 and looking for the dumps beside it\u2026").arg(path));
    m_load.setFuture(QtConcurrent::run(backgroundPool(), [path] {
        const BackgroundPriority background;
        return openMsprobeAnswer(path);
    }));
}

void MsprobeAnswerPanel::showDocument()
{
    const Result<AnswerDocument> loaded = m_load.result();
    m_model->removeRows(0, m_model->rowCount());
    m_detail->clear();
    if (!loaded) {
        m_doc.reset();
        m_summary->setText(loaded.errorText());
        m_ready = true;
        emit opened();
        return;
    }
    m_doc = std::make_shared<const AnswerDocument>(*loaded);
    const bool overflow = m_doc->kind == AnswerDocument::Kind::OverflowCheck;
    int same = 0, differ = 0;
    for (const AnswerRow &r : m_doc->rows) {
        QList<QStandardItem *> items;
        for (int c = 0; c < ColumnCount; ++c)
            items << new QStandardItem;
        items[RankColumn]->setText(r.rank);
        items[MsprobeColumn]->setText(r.msprobeOp.isEmpty() ? tr("(none)") : r.msprobeOp);
        items[DumpScopeColumn]->setText(!m_doc->dumpsFound ? tr("(no dump)") : r.oursOp.isEmpty() ? tr("(none)") : r.oursOp);
        if (!r.oursOp.isEmpty()) // where and why: the tooltip and the pane below
            items[DumpScopeColumn]->setToolTip(tr("%1 in %2 (%3)").arg(r.oursOp, r.oursScope, r.oursDetail));
        QString agreement = tr("no dump to check");
        QColor colour;
        if (r.agreement == AnswerRow::Agreement::Same) {
            agreement = tr("the same");
            colour = QColor(80, 180, 90, 60);
            ++same;
        } else if (r.agreement == AnswerRow::Agreement::Differs) {
            agreement = tr("differs");
            colour = QColor(240, 170, 40, 80);
            ++differ;
        }
        items[AgreementColumn]->setText(agreement);
        if (colour.isValid())
            items[AgreementColumn]->setBackground(colour);
        m_model->appendRow(items);
    }
    m_view->resizeColumnsToContents();
    const QString name = QFileInfo(m_doc->path).fileName();
    QString what;
    switch (m_doc->kind) {
    case AnswerDocument::Kind::OverflowCheck:
        what = tr("msprobe overflow_check's answer %1: the first anomaly node of each rank.").arg(name);
        break;
    case AnswerDocument::Kind::DiffAnalyze:
        what = tr("msprobe compare -da's answer %1: the first differing op of each rank.").arg(name);
        break;
    case AnswerDocument::Kind::CompareResult:
        what = tr("msprobe compare -da's per-rank result %1: %2 entries, %3 not the same; the first of them.").arg(name).arg(m_doc->entries).arg(m_doc->differing);
        break;
    }
    // the first screen: in one sentence what this is and where to go next; where the dumps came from below
    QString next;
    if (m_doc->dumpsFound)
        next = (overflow ? tr("Beside it DumpScope's own first anomaly on the same dump: %1 the same, %2 differ. Next: select a rank for "
                              "msprobe's call stack, or open the dump and use Analysis \u2192 Go to First Overflow.")
                         : tr("Beside it DumpScope's own first divergence on the same dumps: %1 the same, %2 differ. Next: select a rank "
                              "for msprobe's call stack, or open the NPU dump and use Analysis \u2192 Compare with\u2026 on the bench dump."))
                   .arg(same).arg(differ);
    else
        next = overflow ? tr("No dump found beside it for DumpScope's own answer. Next: select a rank for msprobe's call stack, or "
                             "open the step folder overflow_check read (File \u2192 Open) and use Analysis \u2192 Go to First Overflow.")
                        : tr("No dumps found beside it for DumpScope's own answer. Next: select a rank for msprobe's call stack, or "
                             "open the NPU dump and use Analysis \u2192 Compare with\u2026 on the bench dump.");
    m_summary->setText(what + QLatin1Char(' ') + next);
    m_summary->setToolTip(tr("Dumps: %1").arg(m_doc->dumpsHow));
    if (m_model->rowCount() > 0)
        m_view->selectRow(0);
    else
        m_detail->setPlainText((overflow ? tr("msprobe found no anomaly.") : tr("msprobe found no differing op.")) + QLatin1Char('\n')
                               + tr("Dumps: %1").arg(m_doc->dumpsHow));
    m_ready = true;
    emit opened();
}

void MsprobeAnswerPanel::showRow(int row)
{
    if (!m_doc || row < 0 || size_t(row) >= m_doc->rows.size())
        return;
    const AnswerRow &r = m_doc->rows[size_t(row)];
    QString text;
    const QString dumps = tr("Dumps: %1").arg(m_doc->dumpsHow) + QLatin1Char('\n');
    QString problems;
    for (const QString &e : m_doc->errors)
        problems += tr("Problem: %1").arg(e) + QLatin1Char('\n');
    for (const QString &n : m_doc->notes)
        problems += tr("Note: %1").arg(n) + QLatin1Char('\n');
    if (r.msprobeOp.isEmpty()) {
        text = tr("msprobe names no op for %1; DumpScope's answer: %2 in %3 (%4).").arg(r.rank, r.oursOp, r.oursScope, r.oursDetail);
    } else {
        text = tr("%1, msprobe: %2").arg(r.rank, r.msprobeOp) + QLatin1Char('\n');
        if (!r.oursOp.isEmpty())
            text += tr("DumpScope: %1 in %2 (%3)").arg(r.oursOp, r.oursScope, r.oursDetail) + QLatin1Char('\n');
        if (!r.rows.isEmpty())
            text += QLatin1Char('\n') + tr("msprobe's rows of the op:") + QLatin1Char('\n') + QStringLiteral("  ") + r.rows.join(QStringLiteral("\n  ")) + QLatin1Char('\n');
        text += QLatin1Char('\n') + tr("msprobe's call stack (innermost first):") + QLatin1Char('\n');
        for (const QString &frame : r.stack)
            text += QStringLiteral("  ") + QString(frame).replace(QStringLiteral(", \n"), QStringLiteral("\n      ")) + QLatin1Char('\n');
    }
    m_detail->setPlainText(text + QLatin1Char('\n') + dumps + problems);
}

} // namespace ds
