// The window's conveniences on real widgets: the first selection after a dump opens, the
// context menus of the tree, the operator table and the graph, Ctrl+F, the file dialogs'
// folder, Help -> First Steps (the same steps as README.md), Qt's own dialogs in Chinese.
#include "compareview.h"
#include "documentcontext.h"
#include "exportdialog.h"
#include "graphpanel.h"
#include "graphview.h"
#include "helpdialog.h"
#include "mainwindow.h"
#include "models/dumptreemodel.h"
#include "optablepanel.h"
#include "overflowpanel.h"
#include "tensorinspector.h"
#include "translations.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFileDialog>
#include <QLibraryInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QTranslator>
#include <QTreeView>

#include <functional>
#include <memory>
#include <set>

using namespace ds;

namespace {

const QString kCannModel = QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump");
const QString kStep0 = QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0");
const QString kGraphDump = QStringLiteral(DUMPSCOPE_SAMPLES "/graph/dump");

std::unique_ptr<MainWindow> openWindow(const QString &path = {})
{
    auto w = std::make_unique<MainWindow>();
    w->resize(1280, 800);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get()))
        return nullptr;
    if (!path.isEmpty()) {
        QSignalSpy finished(w->context(), &DocumentContext::indexingFinished);
        w->openPath(path);
        if (!finished.wait(20000))
            return nullptr;
    }
    // The first operator is selected on the next turn of the event loop.
    if (!QTest::qWaitFor([&] { return path.isEmpty() || w->tree()->currentIndex().isValid(); }, 5000))
        return nullptr;
    return w;
}

/// Sends a context menu event (as a right click does) and returns the menu it opened.
QMenu *contextMenu(QWidget *receiver, QPoint pos)
{
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, receiver->mapToGlobal(pos));
    QApplication::sendEvent(receiver, &event);
    QMenu *menu = nullptr;
    return QTest::qWaitFor([&] { return (menu = qobject_cast<QMenu *>(QApplication::activePopupWidget())) != nullptr; }, 3000)
               ? menu
               : nullptr;
}

QAction *menuAction(QMenu *menu, const QString &name)
{
    for (QAction *a : menu->actions())
        if (a->objectName() == name)
            return a;
    return nullptr;
}

/// Clicks the entry of an open menu (press and release on it, as the mouse does).
void clickEntry(QMenu *menu, QAction *action) { QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(action).center()); }

/// The File menu's entry with this (untranslated) text.
QAction *fileAction(MainWindow &w, const char *text)
{
    const QString wanted = QCoreApplication::translate("ds::MainWindow", text);
    for (QAction *menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction *a : menu->menu()->actions())
                if (a->text() == wanted)
                    return a;
    return nullptr;
}

/// Answers the next modal file dialog: records the folder it starts in, then `act` (reject
/// when null). Returns the recorded folder through `folder`.
void answerFileDialog(QString *folder, std::function<void(QFileDialog *)> act = {})
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, folder, act] {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        timer->stop();
        timer->deleteLater();
        *folder = dialog->directory().canonicalPath();
        if (act)
            act(dialog);
        else
            dialog->reject();
    });
    timer->start();
}

QString canonical(const QString &path) { return QDir(path).canonicalPath(); }

/// The first operator of step 0 in execution order, from the sample's file names (CANN
/// `{type}.{name}.{task}.{stream}.{timestamp}`, mapping.csv for a name too long for a file).
QString firstOperatorOfStep0()
{
    const QString dir = kCannModel + QLatin1Char('/') + kStep0;
    QStringList names = QDir(dir).entryList(QDir::Files);
    QFile mapping(dir + QStringLiteral("/mapping.csv"));
    if (mapping.open(QIODevice::ReadOnly))
        for (const QByteArray &line : mapping.readAll().split('\n'))
            if (const QList<QByteArray> cols = line.trimmed().split(','); cols.size() == 2)
                names.replaceInStrings(QRegularExpression(QStringLiteral("^%1$").arg(QString::fromUtf8(cols[0]))), QString::fromUtf8(cols[1]));
    QString first;
    qulonglong earliest = ~0ULL;
    for (const QString &name : names) {
        const QStringList parts = name.split(QLatin1Char('.'));
        bool ok = false;
        const qulonglong timestamp = parts.size() >= 5 ? parts.last().toULongLong(&ok) : 0;
        if (ok && timestamp < earliest) {
            earliest = timestamp;
            first = name;
        }
    }
    return first;
}

} // namespace

class TestWindowMenus : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeMenusTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_windowmenus"));
    }
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }

    /// `dumpscope samples/cann/model_dump` opens on the model's first operator (its output in
    /// the inspector), never on "Files that could not be read" or on a bare level.
    void cannSampleOpensOnTheFirstOperator()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(w.context(), &DocumentContext::indexingFinished);
        QSignalSpy ready(w.inspector(), &TensorInspector::reportReady);
        w.openAfterFirstPaint({kCannModel}); // as the command line does
        QVERIFY(finished.wait(20000));
        QTRY_VERIFY_WITH_TIMEOUT(w.tree()->currentIndex().isValid(), 5000);
        const QModelIndex current = w.tree()->currentIndex().siblingAtColumn(0);
        QCOMPARE(DumpTreeModel::Kind(current.data(DumpTreeModel::KindRole).toInt()), DumpTreeModel::Kind::Op);
        for (QModelIndex i = current; i.isValid(); i = i.parent()) {
            const auto kind = DumpTreeModel::Kind(i.data(DumpTreeModel::KindRole).toInt());
            QVERIFY(kind != DumpTreeModel::Kind::ErrorGroup && kind != DumpTreeModel::Kind::Error);
        }
        const QString first = firstOperatorOfStep0();
        QCOMPARE(first, QStringLiteral("Conv2D.resnet_conv1_Conv2D.12.3.1710490512000001")); // the oracle read the sample
        QCOMPARE(current.data(DumpTreeModel::OpPathRole).toString(), kStep0 + QLatin1Char('/') + first);
        // The inspector shows its first output.
        QTRY_VERIFY_WITH_TIMEOUT(w.inspector()->report(), 10000);
        QCOMPARE(w.inspector()->report()->id.toString(), kStep0 + QLatin1Char('/') + first + QStringLiteral(".output.0"));
        // The unreadable files are still listed.
        QVERIFY(w.problemsDock()->isVisible());
    }

    /// Right click on the tree: copy the name, the tensor id and the path; export the
    /// operator's tensors (the ids the sample's manifest lists for it).
    void treeContextMenu()
    {
        auto w = openWindow(kCannModel);
        QVERIFY(w);
        auto *model = w->context()->treeModel();
        const QString opPath = kStep0 + QStringLiteral("/MatMulV2.fc_MatMul.14.3.1710490512000003");
        const QString tensorId = opPath + QStringLiteral(".input.1");
        const QModelIndex tensor = model->findTensor(0, *TensorId::parse(tensorId));
        QVERIFY(tensor.isValid());
        w->tree()->scrollTo(tensor);

        QMenu *menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(tensor).center());
        QVERIFY(menu);
        QAction *copyId = menuAction(menu, QStringLiteral("copyTensorId"));
        QVERIFY(copyId);
        clickEntry(menu, copyId);
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), tensorId);

        menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(tensor).center());
        QVERIFY(menu);
        clickEntry(menu, menuAction(menu, QStringLiteral("copyPath")));
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), QDir(kCannModel).absoluteFilePath(opPath));
        QVERIFY(QFile::exists(QGuiApplication::clipboard()->text()));

        const QModelIndex op = model->findOp(0, opPath);
        w->tree()->scrollTo(op);
        menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(op).center());
        QVERIFY(menu);
        clickEntry(menu, menuAction(menu, QStringLiteral("copyName")));
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("fc/MatMul")); // the dump header's op_name
        QVERIFY(!menuAction(menu, QStringLiteral("showInGraph"))
                || !menuAction(menu, QStringLiteral("showInGraph"))->isEnabled()); // no GE graph next to this sample

        // Export...: the operator's tensors, as the manifest (numpy) lists them.
        menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(op).center());
        QVERIFY(menu);
        QAction *exportEntry = menuAction(menu, QStringLiteral("exportItems"));
        QVERIFY(exportEntry && exportEntry->isEnabled());
        clickEntry(menu, exportEntry);
        ExportDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = w->findChild<ExportDialog *>()) && dialog->isVisible());
        QTemporaryDir out;
        dialog->setTargetDir(out.path());
        QSignalSpy done(dialog, &ExportDialog::exportFinished);
        dialog->start();
        QVERIFY(done.wait(10000));
        std::set<QString> exported, expected;
        for (const ExportResult &r : dialog->results()) {
            QVERIFY2(!r.error, qPrintable(r.error ? r.error->text() : QString()));
            exported.insert(r.id.toString());
        }
        QFile manifest(QStringLiteral(DUMPSCOPE_SAMPLES "/manifest.json"));
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        for (const QByteArray &line : manifest.readAll().split('"'))
            if (line.startsWith(QByteArray(opPath.toUtf8() + '.')))
                expected.insert(QString::fromUtf8(line));
        QVERIFY(expected.size() >= 3);
        QCOMPARE(exported, expected);
        dialog->close();
    }

    /// Right click on a tree item of one of two open dumps: Close Dump closes that dump, the
    /// other stays with its tree.
    void treeContextMenuClosesItsDump()
    {
        auto w = openWindow(kCannModel);
        QVERIFY(w);
        QSignalSpy finished(w->context(), &DocumentContext::indexingFinished);
        w->openPath(kGraphDump);
        QVERIFY(finished.wait(20000));
        auto *model = w->context()->treeModel();
        QCOMPARE(model->dumpIds().size(), 2);
        const int first = model->dumpIds().front(), second = model->dumpIds().back();
        const QModelIndex item = model->dumpItem(first);
        w->tree()->scrollTo(item);
        QMenu *menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(item).center());
        QVERIFY(menu);
        QAction *close = menuAction(menu, QStringLiteral("closeDump"));
        QVERIFY(close && close->isEnabled());
        clickEntry(menu, close);
        QTRY_COMPARE(model->dumpIds(), QList<int>{second});
        QCOMPARE(QFileInfo(model->dumpPath(second)).canonicalFilePath(), QFileInfo(kGraphDump).canonicalFilePath());
        QVERIFY(model->rowCount(model->dumpItem(second)) > 0);
    }

    /// Opening a result that is no dump (precheck, monitor, compare table) says so in the status
    /// bar instead of "Open a dump directory to begin".
    void statusBarNamesAnOpenedResult_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addRow("precheck") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16");
        QTest::addRow("monitor") << QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_monitor/monitor_v2_output");
    }
    void statusBarNamesAnOpenedResult()
    {
        QFETCH(QString, path);
        auto w = openWindow();
        QVERIFY(w);
        w->openPath(path);
        bool named = false;
        for (QLabel *l : w->statusBar()->findChildren<QLabel *>())
            named = named || (l->isVisible() && l->text().contains(path));
        QVERIFY2(named, qPrintable(path));
    }

    /// Right click on an operator row: copy its name (the table's Op name cell), Compare with...
    /// makes it the current item and asks for the bench dump.
    void opTableContextMenu()
    {
        auto w = openWindow(kCannModel);
        QVERIFY(w);
        QTableView *table = w->opTable()->view();
        QTRY_VERIFY(table->model()->rowCount() >= 3);
        const QModelIndex row = table->model()->index(2, OpTableModel::Name);
        QMenu *menu = contextMenu(table->viewport(), table->visualRect(row).center());
        QVERIFY(menu);
        clickEntry(menu, menuAction(menu, QStringLiteral("copyName")));
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), row.data().toString());

        menu = contextMenu(table->viewport(), table->visualRect(row).center());
        QVERIFY(menu);
        QAction *compare = menuAction(menu, QStringLiteral("compareWith"));
        QVERIFY(compare);
        QString startFolder;
        answerFileDialog(&startFolder);
        clickEntry(menu, compare); // returns when the dialog is answered
        QTRY_VERIFY(!startFolder.isEmpty());
        const int op = row.data(OpTableModel::OpRole).toInt();
        QCOMPARE(w->tree()->currentIndex().siblingAtColumn(0), w->context()->treeModel()->findOp(0, op));
    }

    /// The graph's nodes and the tree's "Show in Graph" (samples/graph: a GE graph beside the dump).
    void graphContextMenus()
    {
        auto w = openWindow(kGraphDump);
        QVERIFY(w);
        GraphPanel *panel = w->graph();
        GraphView *view = panel->view();
        w->centralTabs()->setCurrentWidget(panel);
        QTRY_VERIFY_WITH_TIMEOUT(view->currentLayout() && !view->isLayoutPending() && panel->mapping(), 20000);

        // A node with dump data, in view.
        const auto layout = view->currentLayout();
        int item = -1;
        for (size_t i = 0; i < layout->items.size() && item < 0; ++i) {
            const LayoutItem &it = layout->items[i];
            const QPoint at = view->mapFromScene(it.rect.center()).toPoint();
            if (it.kind == LayoutItem::Kind::Node && !panel->opsOfNode(it.node()).empty() && view->rect().contains(at)
                && view->itemAt(at) == int(i))
                item = int(i);
        }
        QVERIFY(item >= 0);
        const NodeId node = layout->items[size_t(item)].node();
        const int op = panel->opsOfNode(node).front();
        QMenu *menu = contextMenu(view, view->mapFromScene(layout->items[size_t(item)].rect.center()).toPoint());
        QVERIFY(menu);
        clickEntry(menu, menuAction(menu, QStringLiteral("copyName")));
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), view->graph()->node(node).name);
        menu = contextMenu(view, view->mapFromScene(layout->items[size_t(item)].rect.center()).toPoint());
        QVERIFY(menu);
        clickEntry(menu, menuAction(menu, QStringLiteral("showInOperators")));
        QTRY_COMPARE(w->centralTabs()->currentWidget(), static_cast<QWidget *>(w->opTable()));
        QCOMPARE(w->tree()->currentIndex().siblingAtColumn(0), w->context()->treeModel()->findOp(0, op));

        // Back in the tree, "Show in Graph" on another operator with a node.
        int other = -1;
        for (int o = 0; o < int(w->context()->index(0)->ops.size()) && other < 0; ++o)
            if (o != op && panel->nodeOfOp(o).isValid())
                other = o;
        QVERIFY(other >= 0);
        const QModelIndex otherItem = w->context()->treeModel()->findOp(0, other);
        w->tree()->scrollTo(otherItem);
        menu = contextMenu(w->tree()->viewport(), w->tree()->visualRect(otherItem).center());
        QVERIFY(menu);
        QAction *show = menuAction(menu, QStringLiteral("showInGraph"));
        QVERIFY(show && show->isEnabled());
        clickEntry(menu, show);
        QTRY_COMPARE(w->centralTabs()->currentWidget(), static_cast<QWidget *>(panel));
        QTRY_COMPARE(view->selectedNode(), panel->nodeOfOp(other));
    }

    /// Ctrl+F goes to the operator filter, or to the graph's search box on the Graph tab, or to
    /// the rows' filter on the Compare tab.
    void ctrlFFocusesTheSearchBox()
    {
        auto w = openWindow(kCannModel);
        QVERIFY(w);
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        w->centralTabs()->setCurrentWidget(w->overflow()); // no search box there: the operators' filter
        w->tree()->setFocus();
        QTest::keyClick(w->tree(), Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(w->opTable()->filterEdit()));
        QCOMPARE(w->centralTabs()->currentWidget(), static_cast<QWidget *>(w->opTable()));
        w->centralTabs()->setCurrentWidget(w->graph());
        w->tree()->setFocus();
        QTest::keyClick(w->tree(), Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(w->graph()->searchBox()));
        w->centralTabs()->setCurrentWidget(w->compareView()); // the rows' filter there
        w->tree()->setFocus();
        QTest::keyClick(w->tree(), Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(w->compareView()->filterEdit()));
        QCOMPARE(w->centralTabs()->currentWidget(), static_cast<QWidget *>(w->compareView()));
    }

    /// Every file dialog starts in the folder used last (beside the last dump opened), also
    /// after a restart.
    void fileDialogsStartInTheLastFolder()
    {
        const QString parent = canonical(QStringLiteral(DUMPSCOPE_SAMPLES "/cann"));
        QString first, second, third;
        {
            auto w = openWindow();
            QVERIFY(w);
            QAction *openFolder = fileAction(*w, "&Open Dump Folder\u2026");
            QAction *openFile = fileAction(*w, "Open Dump &File\u2026");
            QVERIFY(openFolder && openFile);
            QSignalSpy started(w->context(), &DocumentContext::indexingStarted);
            answerFileDialog(&first, [](QFileDialog *dialog) {
                dialog->setDirectory(kCannModel); // a folder dialog accepts the folder it shows
                static_cast<QDialog *>(dialog)->accept(); // QFileDialog::accept checks the choice
            });
            openFolder->trigger();
            QVERIFY(!first.isEmpty());
            QTRY_COMPARE(started.count(), 1);
            QCOMPARE(canonical(started.first().first().toString()), canonical(kCannModel));
            answerFileDialog(&second);
            openFile->trigger();
            QCOMPARE(second, parent);
        }
        auto w = openWindow();
        QVERIFY(w);
        QAction *addGraphs = fileAction(*w, "Add &Graph Folder\u2026");
        QVERIFY(addGraphs);
        answerFileDialog(&third);
        addGraphs->trigger();
        QCOMPARE(third, parent);
    }

    /// Help -> First Steps shows README.md's first steps (the same text, tr()'d).
    void helpShowsTheFirstSteps()
    {
        auto w = openWindow();
        QVERIFY(w);
        QAction *steps = w->menuBar()->findChild<QAction *>(QStringLiteral("firstSteps"));
        QVERIFY(steps);
        QVERIFY(w->menuBar()->findChild<QAction *>(QStringLiteral("about")));
        steps->trigger();
        FirstStepsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = w->findChild<FirstStepsDialog *>()) && dialog->isVisible());

        // README's "First steps": numbered items, continued on indented lines.
        QFile readme(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(readme.readAll()).split(QLatin1Char('\n'));
        const qsizetype start = lines.indexOf(QStringLiteral("### First steps"));
        QVERIFY(start >= 0);
        QStringList items;
        static const QRegularExpression number(QStringLiteral("^\\d+\\. "));
        for (qsizetype i = start + 1; i < lines.size() && !lines[i].startsWith(QLatin1Char('#')); ++i) {
            if (number.match(lines[i]).hasMatch())
                items << lines[i].mid(number.match(lines[i]).capturedLength());
            else if (!items.isEmpty() && lines[i].startsWith(QLatin1String("   ")) && !lines[i].trimmed().isEmpty())
                items.last() += QLatin1Char(' ') + lines[i].trimmed();
            else if (!items.isEmpty() && lines[i].trimmed().isEmpty())
                break;
        }
        const auto dialogSteps = FirstStepsDialog::steps();
        QCOMPARE(items.size(), dialogSteps.size());
        const QString shown = dialog->browser()->toPlainText().simplified();
        for (qsizetype i = 0; i < items.size(); ++i) {
            const QString markdown = items[i].remove(QStringLiteral("**")).remove(QLatin1Char('`'));
            QCOMPARE(markdown, dialogSteps[i].first + QStringLiteral(": ") + dialogSteps[i].second);
            QVERIFY2(shown.contains(dialogSteps[i].second.simplified()), qPrintable(dialogSteps[i].first));
        }
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            dialog->grab().save(dir + QStringLiteral("/first_steps.png"));
        // One dialog at a time.
        steps->trigger();
        QCOMPARE(w->findChildren<FirstStepsDialog *>().size(), 1);
    }

    /// --language zh_CN: Qt's own buttons and dialogs speak Chinese too (qtbase_zh_CN.qm from
    /// Debian's qt6-translations-l10n, packaging/install-deps.sh), and so does DumpScope.
    void qtDialogsInChinese()
    {
        // The oracle: Qt's own catalogue, read directly.
        QTranslator catalogue;
        QVERIFY2(catalogue.load(QStringLiteral("qtbase_zh_CN"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)),
                 "qtbase_zh_CN.qm is missing: apt install qt6-translations-l10n");
        const QString cancel = catalogue.translate("QPlatformTheme", "Cancel");
        QVERIFY(!cancel.isEmpty() && cancel != QLatin1String("Cancel"));

        QVERIFY(installTranslations(QStringLiteral("zh_CN")));
        QDialogButtonBox box(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
        QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), cancel);
        QVERIFY(QCoreApplication::translate("ds::MainWindow", "&View") != QLatin1String("&View"));
        QVERIFY(QCoreApplication::translate("ds::FirstStepsDialog", "First Steps") != QLatin1String("First Steps"));
        for (QTranslator *t : QCoreApplication::instance()->findChildren<QTranslator *>()) {
            QCoreApplication::removeTranslator(t);
            delete t;
        }
        QCOMPARE(QDialogButtonBox(QDialogButtonBox::Cancel).button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Cancel"));
    }
};

QTEST_MAIN(TestWindowMenus)
#include "tst_windowmenus.moc"
