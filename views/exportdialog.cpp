#include "exportdialog.h"

#include "background.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <set>

namespace ds {

namespace {
constexpr int kH5Format = 100; ///< format combo value of the .h5 export (not an ExportFormat)
}

ExportDialog::ExportDialog(std::vector<ExportItem> items, QWidget *parent) : QDialog(parent), m_items(std::move(items))
{
    setWindowTitle(tr("Export tensors"));
    QSettings settings;
    // Whole operators into a new .h5: offered when every tensor is from one dumper .h5 dump
    // (the operators' reader can write its own format).
    std::set<int> h5Ops;
    for (const ExportItem &item : m_items) {
        if (item.index != m_items.front().index) {
            h5Ops.clear();
            break;
        }
        h5Ops.insert(item.ref.op);
    }
    const std::vector<int> ops(h5Ops.begin(), h5Ops.end());
    if (!ops.empty() && opExportSuffix(*m_items.front().index, ops) == QLatin1String(".h5")) {
        m_h5Index = m_items.front().index;
        m_h5Ops = ops;
    }
    for (const ExportItem &item : m_items) {
        const ExportBlock block = exportBlock(item.index->tensor(item.ref));
        m_counts.add(block);
        if (block == ExportBlock::None)
            m_exportable.push_back(item);
    }
    m_selection = new QLabel(m_counts.text(), this);
    m_selection->setWordWrap(true);
    m_format = new QComboBox(this);
    m_format->addItem(tr("NumPy array (.npy)"), int(ExportFormat::Npy));
    m_format->addItem(tr("Text, one value per line (.txt)"), int(ExportFormat::Txt));
    if (offersH5())
        m_format->addItem(tr("HDF5 dumper file, whole operators (.h5)"), kH5Format);
    m_layout = new QComboBox(this);
    m_layout->addItem(tr("Logical (ND, converted from private layouts)"), int(LayoutChoice::Logical));
    m_layout->addItem(tr("Raw device layout"), int(LayoutChoice::Raw));
    m_precision = new QSpinBox(this);
    m_precision->setRange(0, 30);
    m_precision->setValue(settings.value(QStringLiteral("export/precision"), 18).toInt());
    m_precision->setToolTip(tr("Digits after the decimal point in .txt files (numpy.savetxt uses 18)"));
    m_dir = new QLineEdit(settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString(), this);
    auto *browse = new QToolButton(this);
    browse->setText(tr("Browse\u2026"));
    m_h5Name = new QLineEdit(QStringLiteral("selected_ops.h5"), this);
    m_h5Name->setToolTip(tr("A new .h5 file in the target folder with each selected operator's /{op}/{seqid} group"));
    m_overwrite = new QCheckBox(tr("Overwrite existing files"), this);
    m_progress = new QProgressBar(this);
    m_summary = new QPlainTextEdit(this);
    m_summary->setReadOnly(true);

    auto *dirRow = new QHBoxLayout;
    dirRow->addWidget(m_dir, 1);
    dirRow->addWidget(browse);
    m_form = new QFormLayout;
    m_form->addRow(tr("Format:"), m_format);
    m_form->addRow(tr("Layout:"), m_layout);
    m_form->addRow(tr("Text precision:"), m_precision);
    m_form->addRow(tr("Target folder:"), dirRow);
    m_form->addRow(tr("File name:"), m_h5Name);
    m_form->addRow(QString(), m_overwrite);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_run = m_buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_selection);
    layout->addLayout(m_form);
    layout->addWidget(m_progress);
    layout->addWidget(m_summary, 1);
    layout->addWidget(m_buttons);
    resize(620, 420);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export to folder"), m_dir->text());
        if (!dir.isEmpty())
            m_dir->setText(dir);
    });
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::updateFormatRows);
    updateFormatRows();
    connect(m_run, &QPushButton::clicked, this, &ExportDialog::start);
    connect(m_buttons, &QDialogButtonBox::rejected, this, [this] {
        if ((m_watcher.isRunning() || m_h5Watcher.isRunning()) && m_cancel)
            *m_cancel = true; // Close while running cancels; the dialog stays until the job stops
        else
            reject();
    });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &ExportDialog::onFinished);
    connect(&m_h5Watcher, &QFutureWatcherBase::finished, this, &ExportDialog::onH5Finished);
    connect(&m_watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
}

ExportDialog::~ExportDialog()
{
    if (m_cancel)
        *m_cancel = true;
    m_watcher.waitForFinished();
    m_h5Watcher.waitForFinished();
}

bool ExportDialog::h5Chosen() const { return m_format->currentData().toInt() == kH5Format; }

void ExportDialog::updateFormatRows()
{
    const bool h5 = h5Chosen();
    m_precision->setEnabled(m_format->currentData().toInt() == int(ExportFormat::Txt));
    m_form->setRowVisible(m_layout, !h5);
    m_form->setRowVisible(m_precision, !h5);
    m_form->setRowVisible(m_h5Name, h5);
    m_progress->setRange(0, h5 ? 1 : std::max(1, int(m_exportable.size())));
    m_progress->setValue(0);
    m_summary->setPlaceholderText(h5 ? tr("%n operator(s) selected.", nullptr, int(m_h5Ops.size()))
                                     : m_exportable.empty() ? tr("Nothing to export: no selected leaf has values. Select tensors of a "
                                                                 "dump that saved them (msprobe task tensor, CANN, .npy, .pt, .h5).")
                                                            : tr("%n tensor(s) will be exported.", nullptr, int(m_exportable.size())));
    const bool can = h5 || !m_exportable.empty();
    m_run->setEnabled(can && !m_watcher.isRunning() && !m_h5Watcher.isRunning());
    m_run->setToolTip(can ? QString() : m_counts.text());
}

void ExportDialog::chooseH5(const QString &fileName)
{
    const int i = m_format->findData(kH5Format);
    if (i >= 0)
        m_format->setCurrentIndex(i);
    m_h5Name->setText(fileName);
}

void ExportDialog::setTargetDir(const QString &dir) { m_dir->setText(dir); }

ExportRequest ExportDialog::request() const
{
    ExportRequest req;
    req.format = ExportFormat(m_format->currentData().toInt());
    req.layout = LayoutChoice(m_layout->currentData().toInt());
    req.write.force = m_overwrite->isChecked();
    req.write.txtPrecision = m_precision->value();
    req.outDir = QDir(m_dir->text()).absolutePath();
    return req;
}

void ExportDialog::start()
{
    if (m_watcher.isRunning() || m_h5Watcher.isRunning() || m_items.empty())
        return;
    if (h5Chosen()) {
        startH5();
        return;
    }
    if (m_exportable.empty()) // nothing has values: no job, no folder
        return;
    const ExportRequest req = request();
    QSettings settings;
    settings.setValue(QStringLiteral("export/dir"), req.outDir);
    settings.setValue(QStringLiteral("export/precision"), req.write.txtPrecision);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    const auto items = m_exportable;
    m_run->setEnabled(false);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Cancel"));
    m_summary->setPlainText(tr("Exporting\u2026"));
    m_watcher.setFuture(QtConcurrent::run(backgroundPool(), [items, req, cancel](QPromise<std::vector<ExportResult>> &promise) {
        const BackgroundPriority background;
        promise.setProgressRange(0, int(items.size()));
        std::vector<ExportResult> results;
        JobControl job;
        job.cancelFlag = cancel.get();
        for (size_t i = 0; i < items.size() && !*cancel; ++i) {
            results.push_back(exportTensor(*items[i].index, items[i].ref, req, &job));
            promise.setProgressValue(int(i + 1));
        }
        promise.addResult(std::move(results));
    }));
}

void ExportDialog::onFinished()
{
    m_results = m_watcher.future().resultCount() ? m_watcher.result() : std::vector<ExportResult>{};
    QStringList lines;
    int ok = 0;
    for (const auto &r : m_results) {
        if (!r.error) {
            ++ok;
            lines << tr("wrote %1 (%2, %3)").arg(r.file, r.exportedDtype, shapeToString(r.shape));
        } else {
            lines << tr("FAILED %1: %2").arg(r.id.toString(), r.error->text());
        }
    }
    const bool cancelled = m_cancel && *m_cancel;
    lines.prepend(tr("%1 of %2 tensor(s) written%3.").arg(ok).arg(m_exportable.size()).arg(cancelled ? tr(" (cancelled)") : QString()));
    if (m_exportable.size() < m_items.size())
        lines.insert(1, m_counts.text());
    m_summary->setPlainText(lines.join(QLatin1Char('\n')));
    m_run->setEnabled(true);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Close"));
    emit exportFinished();
}

void ExportDialog::startH5()
{
    const QString dir = QDir(m_dir->text()).absolutePath();
    QString name = m_h5Name->text().trimmed();
    if (name.isEmpty())
        name = QStringLiteral("selected_ops.h5");
    if (!name.endsWith(QLatin1String(".h5"), Qt::CaseInsensitive))
        name += QStringLiteral(".h5");
    QSettings().setValue(QStringLiteral("export/dir"), dir);
    const QString file = QDir(dir).filePath(name);
    const bool force = m_overwrite->isChecked();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_run->setEnabled(false);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Cancel"));
    m_progress->setRange(0, 0); // busy: the copy reports no progress
    m_summary->setPlainText(tr("Writing %1\u2026").arg(file));
    m_h5Watcher.setFuture(QtConcurrent::run(backgroundPool(), [index = m_h5Index, ops = m_h5Ops, file, force, cancel = m_cancel] {
        const BackgroundPriority background;
        JobControl job;
        job.cancelFlag = cancel.get();
        const auto r = exportOps(*index, ops, file, force, &job);
        return r.ok() ? H5Outcome{*r, file, QString()} : H5Outcome{0, file, r.errorText()};
    }));
}

void ExportDialog::onH5Finished()
{
    m_h5Outcome = m_h5Watcher.result();
    m_progress->setRange(0, 1); // stop the busy indicator
    m_progress->setValue(m_h5Outcome.error.isEmpty() ? 1 : 0);
    m_summary->setPlainText(m_h5Outcome.error.isEmpty()
                                ? tr("wrote %1: %n operator(s)", nullptr, m_h5Outcome.written).arg(m_h5Outcome.file)
                                : tr("FAILED %1: %2").arg(m_h5Outcome.file, m_h5Outcome.error));
    m_run->setEnabled(true);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Close"));
    emit exportFinished();
}

} // namespace ds
