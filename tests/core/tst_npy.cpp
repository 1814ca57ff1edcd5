// .npy and .txt writers: header bytes as numpy writes them, atomic no-overwrite semantics.
#include "tensor/exportwriter.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

class TestNpy : public QObject
{
    Q_OBJECT
private slots:
    void headerMatchesNumpy_data()
    {
        QTest::addColumn<QByteArray>("descr");
        QTest::addColumn<QList<qulonglong>>("shape");
        QTest::addColumn<QByteArray>("dict");
        // Dicts as numpy 1.24 np.save writes them (before padding).
        QTest::addRow("2-D") << QByteArray("<f4") << QList<qulonglong>{2, 3} << QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
        QTest::addRow("1-D") << QByteArray("|i1") << QList<qulonglong>{5} << QByteArray("{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }");
        QTest::addRow("scalar") << QByteArray("<f2") << QList<qulonglong>{} << QByteArray("{'descr': '<f2', 'fortran_order': False, 'shape': (), }");
    }
    void headerMatchesNumpy()
    {
        QFETCH(QByteArray, descr);
        QFETCH(QList<qulonglong>, shape);
        QFETCH(QByteArray, dict);
        const QByteArray h = npyHeader(descr.constData(), Shape(shape.begin(), shape.end()));
        QCOMPARE(h.left(8), QByteArray("\x93NUMPY\x01\x00", 8));
        QCOMPARE(h.size() % 64, 0);
        const int len = quint8(h[8]) | (quint8(h[9]) << 8);
        QCOMPARE(len, h.size() - 10);
        QCOMPARE(h.mid(10, dict.size()), dict);
        QCOMPARE(h.back(), '\n');
        QCOMPARE(h.mid(10 + dict.size(), h.size() - 11 - 10 - dict.size() + 1).trimmed(), QByteArray());
    }

    void refusesOverwriteUnlessForced()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.npy"));
        const float data[] = {1, 2};
        const auto *bytes = reinterpret_cast<const std::byte *>(data);
        QVERIFY(!writeNpy(path, Elem::F32, bytes, 2, {2}, {}));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        const float other[] = {7, 8};
        const auto refused = writeNpy(path, Elem::F32, reinterpret_cast<const std::byte *>(other), 2, {2}, {});
        QVERIFY(refused && refused->message.contains(QLatin1String("exists")));
        QCOMPARE(refused->kind, ErrorKind::Usage);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        f.close();
        WriteOptions force;
        force.force = true;
        QVERIFY(!writeNpy(path, Elem::F32, reinterpret_cast<const std::byte *>(other), 2, {2}, force));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().endsWith(QByteArray(reinterpret_cast<const char *>(other), 8)));
    }

    void bfloat16ExportsAsFloat32()
    {
        QTemporaryDir dir;
        const std::uint16_t bf[] = {0x3F80, 0xC0A0}; // 1, -5
        const QString path = dir.filePath(QStringLiteral("b.npy"));
        QVERIFY(!writeNpy(path, Elem::BF16, reinterpret_cast<const std::byte *>(bf), 2, {2}, {}));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray all = f.readAll();
        QVERIFY(all.contains("'descr': '<f4'"));
        float out[2];
        std::memcpy(out, all.constData() + all.size() - 8, 8);
        QCOMPARE(out[0], 1.0f);
        QCOMPARE(out[1], -5.0f);
    }

    void txtLikeSavetxt()
    {
        QTemporaryDir dir;
        const double v[] = {1.5, -0.0, std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()};
        const QString path = dir.filePath(QStringLiteral("t.txt"));
        WriteOptions o;
        QVERIFY(!writeTxt(path, Elem::F64, reinterpret_cast<const std::byte *>(v), 4, o));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        // "%.18e" % x for each value, as numpy.savetxt writes them
        QCOMPARE(f.readAll(), QByteArray("1.500000000000000000e+00\n-0.000000000000000000e+00\nnan\n-inf\n"));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
