// dumpscope: the desktop workbench.
#include "documentcontext.h"
#include "mainwindow.h"
#include "settingsdialog.h"
#include "tensorinspector.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QTimer>
#include <QTranslator>

using namespace ds;

namespace {

/// --screenshot: open, select, wait for the inspector, save the window as PNG, exit.
int screenshot(MainWindow &window, const QString &file, const QString &tensorId)
{
    window.context()->waitForIndexing();
    bool waiting = false;
    if (!tensorId.isEmpty()) {
        if (!window.selectTensor(tensorId)) {
            qWarning("no tensor %s", qPrintable(tensorId));
            return 1;
        }
        waiting = true;
    }
    QEventLoop loop;
    QObject::connect(window.inspector(), &TensorInspector::reportReady, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    if (waiting && !window.inspector()->report())
        loop.exec();
    QCoreApplication::processEvents();
    return window.grab().save(file) ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("DumpScope"));
    QCoreApplication::setApplicationName(QStringLiteral("DumpScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DUMPSCOPE_VERSION));

    // Translations: ours are embedded (:/i18n), Qt's own come from the system.
    QTranslator ours, qtBase;
    QString lang = SettingsDialog::effectiveLanguage();
    if (const qsizetype i = app.arguments().indexOf(QStringLiteral("--language")); i > 0 && i + 1 < app.arguments().size())
        lang = app.arguments().at(i + 1);
    if (lang != QLatin1String("en")) {
        if (ours.load(QStringLiteral(":/i18n/dumpscope_") + lang))
            app.installTranslator(&ours);
        if (qtBase.load(QStringLiteral("qtbase_") + lang, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
            app.installTranslator(&qtBase);
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate("main", "Workbench for Ascend NPU dump data."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption shot(QStringLiteral("screenshot"),
                                  QCoreApplication::translate("main", "Render the window to FILE (PNG) and exit."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption select(QStringLiteral("select"), QCoreApplication::translate("main", "Select the tensor with this id."),
                                    QStringLiteral("TENSOR_ID"));
    const QCommandLineOption size(QStringLiteral("size"), QCoreApplication::translate("main", "Window size WxH (screenshot mode)."),
                                  QStringLiteral("WxH"), QStringLiteral("1400x860"));
    const QCommandLineOption language(QStringLiteral("language"),
                                      QCoreApplication::translate("main", "User interface language (en, zh_CN) for this run."),
                                      QStringLiteral("LANG"));
    parser.addOptions({shot, select, size, language});
    parser.addPositionalArgument(QStringLiteral("PATH"), QCoreApplication::translate("main", "Dump directories or files to open."));
    parser.process(app);

    MainWindow window;
    if (parser.isSet(shot)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    for (const QString &path : parser.positionalArguments())
        window.openPath(path);
    if (parser.isSet(shot))
        return screenshot(window, parser.value(shot), parser.value(select));
    return app.exec();
}
