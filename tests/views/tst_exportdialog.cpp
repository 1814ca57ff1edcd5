// views/exportdialog on real msprobe dumps: only leaves with values are exported, the dialog
// says how many of the selection can be and why the others cannot, Export is disabled when
// none can, and no folder is made for nothing. The selection is every input and output leaf
// of the operators, as File -> Export Tensors takes a selected operator; the expected counts
// come from the leaves' own records (tst_tensorexport checks those against dump.json).
#include "exportdialog.h"

#include "index/buildindex.h"

#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

std::vector<ExportItem> leavesOfOps(const std::shared_ptr<const DumpIndex> &index, int ops)
{
    std::vector<ExportItem> items;
    for (int o = 0; o < ops && size_t(o) < index->ops.size(); ++o)
        for (size_t t = 0; t < index->ops[size_t(o)].tensors.size(); ++t)
            if (index->ops[size_t(o)].tensors[t].io() == IoKind::Input || index->ops[size_t(o)].tensors[t].io() == IoKind::Output)
                items.push_back({index, {o, int(t)}});
    return items;
}

} // namespace

class TestExportDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// A statistics-only dump: "0 of N", the reasons, Export disabled, and start() makes no folder.
    void statisticsOnlyDumpExportsNothing()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0"));
        QVERIFY(built);
        const auto items = leavesOfOps(*built, 3); // conv2d (input, weight, None bias, int/list args), the module, relu
        int stats = 0, values = 0;
        for (const ExportItem &i : items)
            (i.index->tensor(i.ref).storage() == TensorStorage::Absent ? stats : values)++;
        QVERIFY(stats > 0 && values > 0);
        QTemporaryDir tmp;
        ExportDialog dialog(items);
        dialog.setTargetDir(tmp.path() + QStringLiteral("/out"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.counts().exportable, 0);
        QCOMPARE(dialog.counts().statisticsOnly, stats);
        QCOMPARE(dialog.counts().notTensors, values);
        QVERIFY(!dialog.exportButton()->isEnabled());
        const QString text = dialog.selectionLabel()->text();
        QVERIFY2(text.startsWith(QStringLiteral("0 of %1 selected can be exported").arg(items.size())), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("%1 statistics only").arg(stats)) && text.contains(QStringLiteral("%1 not a tensor").arg(values)),
                 qPrintable(text));
        QTest::mouseClick(dialog.exportButton(), Qt::LeftButton); // disabled: nothing happens
        dialog.start();
        QVERIFY(!dialog.isRunning());
        QVERIFY(dialog.results().empty());
        QVERIFY(!QFileInfo::exists(tmp.path() + QStringLiteral("/out")));
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            dialog.grab().save(dir + QStringLiteral("/export_statistics_only.png"));
    }

    /// A tensor dump: the leaves with a file are exported, the int/None arguments are not
    /// counted as tensors and not tried; the summary counts what could be exported.
    void tensorDumpExportsOnlyTensors()
    {
        auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix/step0/rank0"));
        QVERIFY(built);
        const auto items = leavesOfOps(*built, 3);
        int withValues = 0, others = 0;
        for (const ExportItem &i : items)
            (i.index->tensor(i.ref).isTensor() && i.index->tensor(i.ref).storage() != TensorStorage::Absent ? withValues : others)++;
        QVERIFY(withValues > 0 && others > 0);
        QTemporaryDir tmp;
        ExportDialog dialog(items);
        dialog.setTargetDir(tmp.path() + QStringLiteral("/out"));
        dialog.show();
        QCOMPARE(dialog.counts().exportable, withValues);
        QCOMPARE(dialog.counts().total(), int(items.size()));
        QVERIFY(dialog.exportButton()->isEnabled());
        QSignalSpy done(&dialog, &ExportDialog::exportFinished);
        QTest::mouseClick(dialog.exportButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(int(dialog.results().size()), withValues);
        for (const ExportResult &r : dialog.results())
            QVERIFY2(!r.error && QFileInfo(r.file).size() > 0, r.error ? qPrintable(r.error->text()) : qPrintable(r.file));
        QCOMPARE(int(QDir(tmp.path() + QStringLiteral("/out")).entryList(QDir::Files).size()), withValues);
    }
};

QTEST_MAIN(TestExportDialog)
#include "tst_exportdialog.moc"
