// isInsideDir: the one check every writer makes before writing (DumpScope never writes into an
// opened dump directory), on real directories and links in a temporary tree.
#include "io/pathguard.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

class TestPathGuard : public QObject
{
    Q_OBJECT
private slots:
    void insideAndOutside()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString root = tmp.path();
        QVERIFY(QDir(root).mkpath(QStringLiteral("dump/rank0")));
        QVERIFY(QDir(root).mkpath(QStringLiteral("dump2")));
        QVERIFY(QDir(root).mkpath(QStringLiteral("out")));
        QVERIFY(QFile::link(root + QStringLiteral("/dump/rank0"), root + QStringLiteral("/out/into_dump")));
        QVERIFY(QFile::link(root + QStringLiteral("/dump"), root + QStringLiteral("/dump_link")));
        const QString dump = root + QStringLiteral("/dump");

        QVERIFY(isInsideDir(dump, dump));                                             // the folder itself
        QVERIFY(isInsideDir(dump + QStringLiteral("/a.npy"), dump));                  // a new file in it
        QVERIFY(isInsideDir(dump + QStringLiteral("/rank0/new/deeper/x.h5"), dump));  // not existing yet
        QVERIFY(isInsideDir(root + QStringLiteral("/out/../dump/x.csv"), dump));      // dot-dot
        QVERIFY(isInsideDir(root + QStringLiteral("/out/into_dump/x.npy"), dump));    // a link into it
        QVERIFY(isInsideDir(dump + QStringLiteral("/x"), root + QStringLiteral("/dump_link"))); // dump opened through a link
        QVERIFY(!isInsideDir(root + QStringLiteral("/dump2/x.npy"), dump));           // same prefix, other folder
        QVERIFY(!isInsideDir(root + QStringLiteral("/out/x.npy"), dump));
        QVERIFY(!isInsideDir(root, dump));                                            // the parent
        QVERIFY(!isInsideDir(QString(), dump));
        QVERIFY(!isInsideDir(dump, QString()));
    }
};

QTEST_GUILESS_MAIN(TestPathGuard)
#include "tst_pathguard.moc"
