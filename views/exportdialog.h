#pragma once

#include "index/dumpindex.h"
#include "index/tensorexport.h"

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QSpinBox;

namespace ds {

/// One tensor to export: the dump's index and the tensor in it.
struct ExportItem
{
    std::shared_ptr<const DumpIndex> index;
    DumpIndex::TensorRef ref;
};

/// Exports the selected tensors to .npy or .txt in a background job with progress and cancel,
/// then lists what was written and what failed.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(std::vector<ExportItem> items, QWidget *parent = nullptr);
    ~ExportDialog() override;

    void setTargetDir(const QString &dir);
    /// Starts the export (the Export button does this).
    void start();
    bool isRunning() const { return m_watcher.isRunning(); }
    const std::vector<ExportResult> &results() const { return m_results; }

signals:
    void exportFinished();

private:
    void onFinished();
    ExportRequest request() const;

    std::vector<ExportItem> m_items;
    QComboBox *m_format, *m_layout;
    QSpinBox *m_precision;
    QLineEdit *m_dir;
    QCheckBox *m_overwrite;
    QProgressBar *m_progress;
    QPlainTextEdit *m_summary;
    QDialogButtonBox *m_buttons;
    QPushButton *m_run;
    QFutureWatcher<std::vector<ExportResult>> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::vector<ExportResult> m_results;
};

} // namespace ds
