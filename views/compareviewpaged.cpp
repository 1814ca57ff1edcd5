// A compare table too large to open as a comparison, on the Compare tab (compareview.h,
// core/compare/resulttablepaged.h): its first rows as soon as they are read, then every row,
// parsed a page at a time by PagedCompareTableModel; the summary counts the Results.
#include "compareview.h"

#include "background.h"
#include "compare/resulttablepaged.h"
#include "models/pagedcomparetablemodel.h"
#include "util/cancel.h"
#include "wrappedtextarea.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QFileInfo>
#include <QHeaderView>
#include <QPointer>
#include <QProgressBar>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <cstdio>

namespace ds {

namespace {

/// Rows read for the first screen before the whole table is indexed.
constexpr qint64 kFirstScreenRows = 2000;

} // namespace

bool CompareView::isPaged() const { return m_pagedBox && m_pagedBox->isVisible() && m_pagedModel->table(); }

bool CompareView::openPagedTable(const QString &path)
{
    const QFileInfo info(path);
    if (info.suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) != 0 || info.size() < pagedTableThreshold())
        return false;
    beginTableRun();
    m_summary->setText(tr("Reading msprobe's compare table %1 (%2 MiB): its first rows come first, then every row is indexed\u2026")
                           .arg(path).arg(info.size() >> 20));
    watchProgress();
    m_pagedClock.start();
    QPointer<CompareView> self(this);
    m_run.setFuture(QtConcurrent::run(backgroundPool(), [self, path, cancel = m_cancelRun, progress = m_runProgress] {
        const BackgroundPriority background;
        RunResult out;
        JobControl job;
        job.cancelFlag = cancel.get();
        // the first screen: the header and the first rows, shown while the whole file is read
        if (auto head = PagedCsvTable::open(path, &job, kFirstScreenRows); head && !(*head)->complete()) {
            QMetaObject::invokeMethod(qApp, [self, cancel, table = *head] {
                if (self && !*cancel && self->m_cancelRun == cancel)
                    self->showPagedTable(table, CompareMode::None);
            }, Qt::QueuedConnection);
        }
        job.progress = [progress](int permille) { progress->store(permille); };
        auto opened = openPagedCompareTable(path, &job);
        if (!opened) {
            out.error = opened.errorText();
            return out;
        }
        out.paged = opened->table;
        out.pagedMode = opened->mode;
        return out;
    }));
    return true;
}

void CompareView::showPagedTable(std::shared_ptr<const PagedCsvTable> table, CompareMode mode)
{
    if (!m_pagedBox) {
        m_pagedBox = new QWidget(this);
        auto *layout = new QVBoxLayout(m_pagedBox);
        layout->setContentsMargins(0, 0, 0, 0);
        m_pagedNotPass = new QCheckBox(tr("Only the rows that are not a pass"), m_pagedBox);
        m_pagedNotPass->setToolTip(tr("Rows whose Result is warning or error (read from the whole table)"));
        m_pagedModel = new PagedCompareTableModel(this);
        m_pagedModel->setPool(backgroundPool()); // rows parsed off the GUI thread, a page at a time
        connect(m_pagedModel, &PagedCompareTableModel::pageLoaded, this, &CompareView::pagedPageLoaded);
        m_pagedTable = new QTableView(m_pagedBox);
        m_pagedTable->setModel(m_pagedModel);
        m_pagedTable->setSelectionBehavior(QAbstractItemView::SelectRows);
        m_pagedTable->setWordWrap(false);
        m_pagedTable->verticalHeader()->setDefaultSectionSize(m_pagedTable->fontMetrics().height() + 6);
        m_pagedTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        m_pagedTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
        m_pagedTable->horizontalHeader()->setDefaultSectionSize(110);
        layout->addWidget(m_pagedNotPass);
        layout->addWidget(m_pagedTable);
        m_top->insertWidget(0, m_pagedBox);
        m_top->setStretchFactor(0, 3);
        connect(m_pagedNotPass, &QCheckBox::toggled, this, [this](bool on) { m_pagedModel->setNotPassOnly(on); });
    }
    m_filter->setEnabled(false); // the comparison's filters: the paged table has its own
    m_verdictFilter->setEnabled(false);
    const qint64 top = m_pagedTable->rowAt(0);
    m_pagedModel->setTable(table);
    m_table->hide();
    m_pagedBox->show();
    // its rows are the file's cells, not pairs of tensors: no bench operators to pair by hand, no
    // statistics, histograms or heatmap of a selected pair (they would stay empty grids)
    m_side->hide();
    m_detailPane->hide();
    const bool complete = table->complete();
    m_pagedNotPass->setEnabled(complete);
    if (!complete)
        m_pagedNotPass->setChecked(false);
    if (top > 0 && !m_pagedModel->notPassOnly()) // the whole table replaced the first rows: keep the place
        m_pagedTable->scrollTo(m_pagedModel->index(int(top), 0), QAbstractItemView::PositionAtTop);
    m_pagedColumnsSized = false; // sized when the first page of cells arrives (pagedPageLoaded)
    const QString file = QFileInfo(table->path()).fileName();
    if (!complete) {
        m_summary->setText(tr("%1: the first %2 rows of msprobe's compare table (%3 MiB) while the rest is read\u2026")
                               .arg(file).arg(table->rowCount()).arg(table->fileBytes() >> 20));
        return;
    }
    const auto &c = table->verdictCounts();
    m_summary->setText(tr("%1: %2 rows of msprobe's compare table (%3 MiB, %4 mode) read paged: pass %5, warning %6, error %7, "
                          "not compared %8. A table of %9 MiB or more shows msprobe's cells as the file holds them; its dumps "
                          "are not searched and its first divergence is not traced (dumpscope-cli compare TABLE.csv gives the same "
                          "counts).")
                           .arg(file).arg(table->rowCount()).arg(table->fileBytes() >> 20).arg(compareModeName(mode))
                           .arg(c[size_t(Verdict::Pass)]).arg(c[size_t(Verdict::Warning)]).arg(c[size_t(Verdict::Error)])
                           .arg(c[size_t(Verdict::None)]).arg(pagedTableThreshold() >> 20));
}

void CompareView::pagedPageLoaded()
{
    if (m_pagedColumnsSized || !m_pagedModel->table())
        return;
    m_pagedColumnsSized = true;
    for (int c = 0; c < 2 && c < m_pagedModel->columnCount(); ++c) { // the names, up to 360 px
        m_pagedTable->resizeColumnToContents(c);
        m_pagedTable->setColumnWidth(c, std::clamp(m_pagedTable->columnWidth(c), 110, 360));
    }
    const PagedCsvTable &table = *m_pagedModel->table();
    if (qEnvironmentVariableIsSet("DS_TRACE_TABLE_OPEN")) // bench/bench_big_files.py table --gui
        std::fprintf(stderr, "paged table: %lld rows shown after %lld ms (%s)\n", static_cast<long long>(table.rowCount()),
                     static_cast<long long>(m_pagedClock.elapsed()), table.complete() ? "every row" : "first rows");
}

void CompareView::leavePaged()
{
    if (!m_pagedBox)
        return;
    m_pagedModel->setTable(nullptr);
    m_pagedBox->hide();
    m_table->show();
    m_side->show();
    m_detailPane->show();
    m_filter->setEnabled(true);
    m_verdictFilter->setEnabled(true);
}

} // namespace ds
