// File name grammar of cann-dump.md §3.
#include "dump/dumpname.h"

#include <QTest>

using namespace ds::cann;

class TestDumpName : public QObject
{
    Q_OBJECT
private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("opType");
        QTest::addColumn<QString>("opName");
        QTest::addColumn<qint64>("task");
        QTest::addColumn<qint64>("stream");
        QTest::addColumn<quint64>("timestamp");
        QTest::addColumn<bool>("ffts");
        QTest::addRow("standard") << "Add.Add.45.0.1675157077183551" << "Add" << "Add" << 45ll << 0ll << 1675157077183551ull << false;
        QTest::addRow("legacy no stream") << "Pooling.pool1.1147.1589195081588018" << "Pooling" << "pool1" << 1147ll << -1ll << 1589195081588018ull << false;
        QTest::addRow("ffts+") << "Add.partition0_rank1_new_sub_graph1_sgt_graph_0_Add.0.3.1673383728093446.4.1.0.0" << "Add"
                               << "partition0_rank1_new_sub_graph1_sgt_graph_0_Add" << 0ll << 3ll << 1673383728093446ull << true;
        QTest::addRow("op name ends in digits") << "Conv2D.conv1_lxslice0.12.1.1673383728093446" << "Conv2D" << "conv1_lxslice0" << 12ll << 1ll << 1673383728093446ull << false;
        QTest::addRow("stats csv") << "Add.Add.45.0.1675157077183551.csv" << "Add" << "Add" << 45ll << 0ll << 1675157077183551ull << false;
        QTest::addRow("converted npy") << "Pooling.pool1.1147.1589195081588018.output.0.npy" << "Pooling" << "pool1" << 1147ll << -1ll << 1589195081588018ull << false;
        QTest::addRow("opdebug") << "Opdebug.Node_OpDebug.59.1.1710490512000000" << "Opdebug" << "Node_OpDebug" << 59ll << 1ll << 1710490512000000ull << false;
    }
    void parse()
    {
        QFETCH(QString, name);
        auto n = parseDumpName(name);
        QVERIFY(n.has_value());
        QTEST(n->opType, "opType");
        QTEST(n->opName, "opName");
        QTEST(qint64(n->taskId), "task");
        QTEST(qint64(n->streamId), "stream");
        QTEST(quint64(n->timestamp), "timestamp");
        QTEST(n->ffts, "ffts");
    }
    void opDebugIsCaseInsensitive()
    {
        QVERIFY(parseDumpName(QStringLiteral("OpDebug.Node_Opdebug.59.1710490512000000"))->opDebug);
        QVERIFY(!parseDumpName(QStringLiteral("Add.Add.45.0.1675157077183551"))->opDebug);
    }
    void rejects_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("plain file") << "README.md";
        QTest::addRow("mapping") << "mapping.csv";
        QTest::addRow("too few fields") << "Add.1675157077183551";
        QTest::addRow("short timestamp") << "Add.Add.45.0.12345";
        QTest::addRow("text after timestamp") << "Add.Add.45.0.1675157077183551.bak";
    }
    void rejects()
    {
        QFETCH(QString, name);
        QVERIFY(!parseDumpName(name).has_value());
    }
    void sanitize() { QCOMPARE(sanitizeName(QStringLiteral("a/b.c\\d e")), QStringLiteral("a_b_c_d_e")); }
};

QTEST_GUILESS_MAIN(TestDumpName)
#include "tst_dumpname.moc"
