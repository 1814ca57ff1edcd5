// A folder or file where DumpScope recognises nothing: the main window's status bar says so,
// with what was looked for: the core message the CLI prints (index/buildindex.h), translated.
#include "formats/readers.h"
#include "index/buildindex.h"
#include "mainwindow.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

using namespace ds;

class TestNothingRecognised : public QObject
{
    Q_OBJECT

private slots:
    void init() { QCoreApplication::setOrganizationName(QStringLiteral("DumpScopeTest")); }

    void statusSaysWhatWasLookedFor_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("open");
        QTest::addColumn<bool>("chinese");
        QTest::addRow("empty folder") << QStringList{} << QString() << false;
        QTest::addRow("text files") << QStringList{QStringLiteral("a.txt"), QStringLiteral("b/c.log")} << QString() << false;
        QTest::addRow("a lone file") << QStringList{QStringLiteral("a.txt")} << QStringLiteral("a.txt") << false;
        QTest::addRow("text files, zh_CN") << QStringList{QStringLiteral("a.txt"), QStringLiteral("b/c.log")} << QString() << true;
    }

    void statusSaysWhatWasLookedFor()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, open);
        QFETCH(bool, chinese);
        QTranslator translator;
        if (chinese) {
            QVERIFY(translator.load(QStringLiteral(":/i18n/dumpscope_zh_CN.qm")));
            QCoreApplication::installTranslator(&translator);
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const QString &f : files) {
            QVERIFY(QDir(dir.path()).mkpath(QFileInfo(dir.filePath(f)).path()));
            QFile file(dir.filePath(f));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("not a dump\n");
        }
        const QString path = open.isEmpty() ? dir.path() : dir.filePath(open);
        const QString expected = nothingRecognisedMessage(QFileInfo(path).absoluteFilePath(), !open.isEmpty(),
                                                          open.isEmpty() ? std::optional<std::uint64_t>(files.size()) : std::nullopt);
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openPath(path);
        auto *status = w.statusBar()->findChild<QLabel *>();
        QVERIFY(status);
        QTRY_COMPARE_WITH_TIMEOUT(status->text(), expected, 20000);
        if (chinese) {
            QVERIFY2(!expected.contains(QStringLiteral("Nothing recognised")), qPrintable(expected)); // translated
            QCoreApplication::removeTranslator(&translator);
        } else {
            QVERIFY(expected.startsWith(QStringLiteral("Nothing recognised here: ")));
        }
        for (const DumpReader *reader : dumpReaders()) // every format looked for is named
            QVERIFY2(status->text().contains(reader->description()), qPrintable(status->text()));
    }
};

QTEST_MAIN(TestNothingRecognised)
#include "tst_nothingrecognised.moc"
