// dumpscope: the desktop workbench.
#include "documentcontext.h"
#include "compareview.h"
#include "mainwindow.h"
#include "models/prechecktablemodel.h"
#include "precheckpanel.h"
#include "models/monitortrendmodel.h"
#include "monitorpanel.h"
#include "msprobeanswerpanel.h"
#include "settingsdialog.h"
#include "graphcompareview.h"
#include "graphpanel.h"
#include "graphview.h"
#include "headroomtable.h"
#include "histogramwidget.h"
#include "overflowpanel.h"
#include "runspanel.h"
#include "runsetpanel.h"
#include "tensorinspector.h"
#include "trendspanel.h"
#include "translations.h"

#include <QApplication>
#include <QDockWidget>
#include <QIcon>
#include <QCommandLineParser>
#include <QStringList>
#include <QTabWidget>
#include <QTreeWidget>
#include <QThread>
#include <QTimer>

#include <memory>

using namespace ds;

namespace {

/// --screenshot: open, select, wait for the inspector, save the window as PNG, exit.
int screenshot(MainWindow &window, const QString &file, const QString &tensorId, const QString &tab, const QString &bench)
{
    window.context()->waitForIndexing();
    // an opened compare table is read in the background: wait for its rows and first row's detail
    for (int i = 0; i < 3000 && bench.isEmpty() && window.compareView()->isRunning(); ++i) {
        QThread::msleep(10);
        QCoreApplication::processEvents();
    }
    // msprobe's precheck results: their tab is made when the path is opened (after the first
    // paint); wait for the tables and the first failed output's comparison
    for (int i = 0; i < 3000; ++i) {
        const auto *precheck = window.findChild<PrecheckPanel *>(QStringLiteral("precheckPanel"));
        if (precheck && !precheck->isBusy() && precheck->model()->rowCount() > 0)
            break;
        if (i > 300 && !precheck)
            break;
        QThread::msleep(10);
        QCoreApplication::processEvents();
    }
    for (int i = 0; i < 3000; ++i) { // msprobe's monitor output, likewise
        const auto *monitor = window.findChild<MonitorPanel *>(QStringLiteral("monitorPanel"));
        if ((monitor && !monitor->isBusy() && monitor->model()->rowCount() > 0) || (i > 300 && !monitor))
            break;
        QThread::msleep(10);
        QCoreApplication::processEvents();
    }
    for (int i = 0; i < 6000; ++i) { // msprobe's answer files: read, dumps found, DumpScope's answer computed
        const auto *answer = window.findChild<MsprobeAnswerPanel *>(QStringLiteral("msprobeAnswerPanel"));
        if ((answer && answer->isReady()) || (i > 300 && !answer))
            break;
        QThread::msleep(10);
        QCoreApplication::processEvents();
    }
    bool waiting = false;
    if (!bench.isEmpty()) { // compare, then show the first divergence with its detail
        QEventLoop loop;
        QObject::connect(window.compareView(), &CompareView::detailReady, &loop, &QEventLoop::quit);
        QObject::connect(window.runsPanel(), &RunsPanel::compareUpdated, &loop,
                         [&loop](int, const QString &, qulonglong, qulonglong, bool finished) { if (finished) loop.quit(); });
        window.compareWith(bench);
        // a run opened scope by scope compares pair by pair (1,024 x 20: minutes): waited for longer
        QTimer::singleShot(window.runsPanel()->isComparing() ? 1800000 : 60000, &loop, &QEventLoop::quit);
        loop.exec();
        for (int i = 0; i < 50; ++i) { // plots replot on the next event loop turn
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    if (tab == QLatin1String("mapping"))
        window.compareView()->showMappingPanel();
    if (tab == QLatin1String("overflow")) {
                for (int i = 0; i < 3000 && window.overflow()->isRunning(); ++i) {
            QThread::msleep(10);
            QCoreApplication::processEvents();
        }
        QCoreApplication::processEvents();
        window.goToFirstOverflow();
        waiting = true;
    }
    if (!tensorId.isEmpty()) {
        const auto id = TensorId::parse(tensorId);
        if (!id || !window.selectTensor(*id)) {
            qWarning("no tensor %s", qPrintable(tensorId));
            return 1;
        }
        waiting = true;
    }
    QEventLoop loop;
    QObject::connect(window.inspector(), &TensorInspector::reportReady, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    if (waiting && (!window.inspector()->report() || window.inspector()->isBusy()))
        loop.exec();
    if (tab == QLatin1String("runset")) { // the run set of the folder opened last (three or more runs)
        const QStringList paths = QCoreApplication::arguments();
        window.centralTabs()->setCurrentWidget(window.runSetPanel());
        QEventLoop loop;
        QObject::connect(window.runSetPanel(), &RunSetPanel::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        window.compareRunsIn(paths.last());
        loop.exec();
        for (int i = 0; i < 30; ++i) {
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    if (tab == QLatin1String("runs") || tab == QLatin1String("trends")) {
        if (tab == QLatin1String("runs"))
            window.centralTabs()->setCurrentWidget(window.runsPanel());
        else
            window.centralTabs()->setCurrentWidget(window.trendsPanel());
        for (int i = 0; i < 3000 && (window.runsPanel()->isBusy() || window.trendsPanel()->isBusy() || window.overflow()->isRunning()); ++i) {
            QThread::msleep(10);
            QCoreApplication::processEvents();
        }
        for (int i = 0; i < 30; ++i) { // plots replot on the next event loop turn
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    if (tab == QLatin1String("graph") || tab == QLatin1String("graph-compare")) {
        window.centralTabs()->setCurrentWidget(window.graph());
        if (auto *inspector = window.findChild<QDockWidget *>(QStringLiteral("inspectorDock"))) // room for the graph
            window.resizeDocks({inspector}, {window.width() / 5}, Qt::Horizontal);
        // Graph files are read, mapped and laid out in the background; the bench graph too.
        const auto laidOut = [](GraphView *v) { return v->currentLayout() && !v->isLayoutPending(); };
        for (int i = 0; i < 1500 && !laidOut(window.graph()->view()); ++i) {
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
        if (tab == QLatin1String("graph-compare")) {
            for (int i = 0; i < 1500 && !window.graph()->hasBenchGraph(); ++i) {
                QThread::msleep(20);
                QCoreApplication::processEvents();
            }
            window.graph()->setSideBySide(true);
            GraphCompareView *cv = window.graph()->compareView();
            for (int i = 0; i < 1500 && !(laidOut(cv->npuView()) && laidOut(cv->benchView())); ++i) {
                QThread::msleep(20);
                QCoreApplication::processEvents();
            }
        }
        for (int i = 0; i < 10; ++i) { // the overflow marks and the legend follow
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    if (tab == QLatin1String("headroom") || tab == QLatin1String("bands")) { // float8_e4m3fn: the narrowest OCP type
        window.inspector()->headroom()->table()->setCurrentItem(
            window.inspector()->headroom()->table()->topLevelItem(int(HeadroomTarget::Float8E4M3FN)));
        window.inspector()->histogram()->setBandTarget(int(HeadroomTarget::Float8E4M3FN));
        if (tab == QLatin1String("headroom"))
            window.inspector()->tabs()->setCurrentWidget(window.inspector()->headroom());
        for (int i = 0; i < 10; ++i) {
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    if (tab == QLatin1String("values") || tab == QLatin1String("heatmap")) {
        QTabWidget *tabs = window.inspector()->tabs();
        tabs->setCurrentIndex(tab == QLatin1String("values") ? 1 : 2);
        for (int i = 0; i < 100; ++i) { // let the heatmap's background job finish
            QThread::msleep(20);
            QCoreApplication::processEvents();
        }
    }
    QCoreApplication::processEvents();
    return window.grab().save(file) ? 0 : 1;
}

/// The options of the command line; their descriptions are translated when made after the
/// translators are installed.
struct Options
{
    QCommandLineOption shot{QStringLiteral("screenshot"), QCoreApplication::translate("main", "Render the window to FILE (PNG) and exit."),
                            QStringLiteral("FILE")};
    QCommandLineOption select{QStringLiteral("select"), QCoreApplication::translate("main", "Select the tensor with this id."),
                              QStringLiteral("TENSOR_ID")};
    QCommandLineOption size{QStringLiteral("size"), QCoreApplication::translate("main", "Window size WxH (screenshot mode)."),
                            QStringLiteral("WxH"), QStringLiteral("1400x860")};
    QCommandLineOption language{QStringLiteral("language"),
                                QCoreApplication::translate("main", "User interface language (en, zh_CN) for this run."),
                                QStringLiteral("LANG")};
    QCommandLineOption tab{QStringLiteral("tab"),
                           QCoreApplication::translate("main", "Screenshot mode: show this view (values, heatmap, headroom, bands: float8_e4m3fn's ranges over the histogram, overflow, graph, graph-compare, mapping, runs, trends, runset: the run set of the last PATH)."),
                           QStringLiteral("NAME")};
    QCommandLineOption compare{QStringLiteral("compare"), QCoreApplication::translate("main", "Compare the opened dump with this bench dump."),
                               QStringLiteral("BENCH")};
    QCommandLineOption mapping{QStringLiteral("mapping"),
                               QCoreApplication::translate("main", "User mapping file (YAML or JSON) of the comparison."),
                               QStringLiteral("FILE")};

    void addTo(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(QCoreApplication::translate("main", "Workbench for Ascend NPU dump data."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({shot, select, size, language, tab, compare, mapping});
        parser.addPositionalArgument(QStringLiteral("PATH"), QCoreApplication::translate("main", "Dump directories or files to open."));
    }
};

/// False for --help, --help-all, --version and a command line that does not parse: those are
/// answered by a QCoreApplication, without a display (a QApplication aborts without one).
bool needsDisplay(int argc, char **argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser probe;
    Options().addTo(probe);
    return probe.parse(args) && !probe.isSet(QStringLiteral("help")) && !probe.isSet(QStringLiteral("help-all"))
           && !probe.isSet(QStringLiteral("version"));
}

} // namespace

int main(int argc, char **argv)
{
    const std::unique_ptr<QCoreApplication> app =
        needsDisplay(argc, argv) ? std::make_unique<QApplication>(argc, argv) : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("DumpScope"));
    QCoreApplication::setApplicationName(QStringLiteral("DumpScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DUMPSCOPE_VERSION));

    // Translations (ours and Qt's own dialogs): the setting, or --language for this run.
    QString lang = SettingsDialog::effectiveLanguage();
    if (const qsizetype i = QCoreApplication::arguments().indexOf(QStringLiteral("--language"));
        i > 0 && i + 1 < QCoreApplication::arguments().size())
        lang = QCoreApplication::arguments().at(i + 1);
    installTranslations(lang);

    QCommandLineParser parser;
    const Options options;
    options.addTo(parser);
    parser.process(*app); // --help, --version and errors print and exit here, before any window
    const QCommandLineOption &shot = options.shot, &select = options.select, &size = options.size, &tab = options.tab,
                             &compare = options.compare, &mapping = options.mapping;

    QIcon icon;
    for (int px : {16, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/dumpscope-%1.png").arg(px), QSize(px, px));
    QApplication::setWindowIcon(icon);

    MainWindow window;
    if (parser.isSet(mapping)) {
        if (auto loaded = window.compareView()->loadMapping(parser.value(mapping)); !loaded) {
            qWarning("%s", qPrintable(loaded.errorText()));
            return 1;
        }
    }
    if (parser.isSet(shot)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (parser.isSet(shot)) {
        for (const QString &path : parser.positionalArguments())
            window.openPath(path);
        return screenshot(window, parser.value(shot), parser.value(select), parser.value(tab), parser.value(compare));
    }
    if (parser.isSet(compare)) { // once every path is indexed
        DocumentContext *context = window.context();
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = QObject::connect(context, &DocumentContext::indexingFinished, &window, [&window, context, once, bench = parser.value(compare)] {
            if (!context->isIndexing() && !context->hasQueued()) {
                QObject::disconnect(*once);
                window.compareWith(bench);
            }
        });
    }
    window.openAfterFirstPaint(parser.positionalArguments());
    return QCoreApplication::exec();
}
