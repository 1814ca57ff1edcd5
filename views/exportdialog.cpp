#include "exportdialog.h"

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

namespace ds {

ExportDialog::ExportDialog(std::vector<ExportItem> items, QWidget *parent) : QDialog(parent), m_items(std::move(items))
{
    setWindowTitle(tr("Export tensors"));
    QSettings settings;
    m_format = new QComboBox(this);
    m_format->addItem(tr("NumPy array (.npy)"), int(ExportFormat::Npy));
    m_format->addItem(tr("Text, one value per line (.txt)"), int(ExportFormat::Txt));
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
    m_overwrite = new QCheckBox(tr("Overwrite existing files"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, int(m_items.size()));
    m_progress->setValue(0);
    m_summary = new QPlainTextEdit(this);
    m_summary->setReadOnly(true);
    m_summary->setPlaceholderText(tr("%n tensor(s) selected.", nullptr, int(m_items.size())));

    auto *dirRow = new QHBoxLayout;
    dirRow->addWidget(m_dir, 1);
    dirRow->addWidget(browse);
    auto *form = new QFormLayout;
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("Layout:"), m_layout);
    form->addRow(tr("Text precision:"), m_precision);
    form->addRow(tr("Target folder:"), dirRow);
    form->addRow(QString(), m_overwrite);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_run = m_buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_summary, 1);
    layout->addWidget(m_buttons);
    resize(620, 420);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export to folder"), m_dir->text());
        if (!dir.isEmpty())
            m_dir->setText(dir);
    });
    connect(m_format, &QComboBox::currentIndexChanged, this,
            [this] { m_precision->setEnabled(m_format->currentData().toInt() == int(ExportFormat::Txt)); });
    m_precision->setEnabled(false);
    connect(m_run, &QPushButton::clicked, this, &ExportDialog::start);
    connect(m_buttons, &QDialogButtonBox::rejected, this, [this] {
        if (m_watcher.isRunning() && m_cancel)
            *m_cancel = true; // Close while running cancels; the dialog stays until the job stops
        else
            reject();
    });
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &ExportDialog::onFinished);
    connect(&m_watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
}

ExportDialog::~ExportDialog()
{
    if (m_cancel)
        *m_cancel = true;
    m_watcher.waitForFinished();
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
    if (m_watcher.isRunning() || m_items.empty())
        return;
    const ExportRequest req = request();
    QSettings settings;
    settings.setValue(QStringLiteral("export/dir"), req.outDir);
    settings.setValue(QStringLiteral("export/precision"), req.write.txtPrecision);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    const auto items = m_items;
    m_run->setEnabled(false);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Cancel"));
    m_summary->setPlainText(tr("Exporting\u2026"));
    m_watcher.setFuture(QtConcurrent::run([items, req, cancel](QPromise<std::vector<ExportResult>> &promise) {
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
        if (r.error.isEmpty()) {
            ++ok;
            lines << tr("wrote %1 (%2, %3)").arg(r.file, r.exportedDtype, shapeToString(r.shape));
        } else {
            lines << tr("FAILED %1: %2").arg(r.id, r.error);
        }
    }
    const bool cancelled = m_cancel && *m_cancel;
    lines.prepend(tr("%1 of %2 tensor(s) written%3.").arg(ok).arg(m_items.size()).arg(cancelled ? tr(" (cancelled)") : QString()));
    m_summary->setPlainText(lines.join(QLatin1Char('\n')));
    m_run->setEnabled(true);
    m_buttons->button(QDialogButtonBox::Close)->setText(tr("Close"));
    emit exportFinished();
}

} // namespace ds
