#pragma once

#include "dump/dumpindex.h"
#include "index/tensorexport.h"

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
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
/// then lists what was written and what failed. Only leaves with values are exported: the
/// dialog says how many of the selection can be and why the others cannot (statistics only,
/// not a tensor), and Export is disabled when none can. When every selected tensor belongs to a
/// torch.utils.dumper .h5 dump, their operators can also be written whole into a new .h5 file
/// with the dumper layout (what `h5copy -s /op/seqid/` does).
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
    /// What the selection holds: tensors with values, statistics only, other leaves.
    const ExportCounts &counts() const { return m_counts; }
    QPushButton *exportButton() const { return m_run; }
    QLabel *selectionLabel() const { return m_selection; }

    /// The outcome of an .h5 export: operators written, or why nothing was.
    struct H5Outcome
    {
        int written = 0;
        QString file, error;
    };
    /// True when the selection can be exported as .h5 (the format is offered).
    bool offersH5() const { return !m_h5Ops.empty(); }
    /// Chooses the .h5 format and the output file name (inside the target folder).
    void chooseH5(const QString &fileName);
    const H5Outcome &h5Outcome() const { return m_h5Outcome; }

signals:
    void exportFinished();

private:
    void onFinished();
    void onH5Finished();
    void startH5();
    void updateFormatRows();
    bool h5Chosen() const;
    ExportRequest request() const;

    std::vector<ExportItem> m_items;
    std::vector<ExportItem> m_exportable; ///< the items with values, in order
    ExportCounts m_counts;
    QLabel *m_selection;
    QComboBox *m_format, *m_layout;
    QSpinBox *m_precision;
    QLineEdit *m_dir, *m_h5Name;
    QFormLayout *m_form;
    QCheckBox *m_overwrite;
    QProgressBar *m_progress;
    QPlainTextEdit *m_summary;
    QDialogButtonBox *m_buttons;
    QPushButton *m_run;
    QFutureWatcher<std::vector<ExportResult>> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::vector<ExportResult> m_results;
    std::shared_ptr<const DumpIndex> m_h5Index; ///< the .h5 dump of every selected tensor
    std::vector<int> m_h5Ops;                   ///< their operators, in index order
    QFutureWatcher<H5Outcome> m_h5Watcher;
    H5Outcome m_h5Outcome;
};

} // namespace ds
