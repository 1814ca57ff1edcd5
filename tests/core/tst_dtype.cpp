// Element decoders against hand-computed values (cann-dump.md §6.2).
#include "tensor/dtype.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace ds;

class TestDtype : public QObject
{
    Q_OBJECT
private slots:
    void half_data()
    {
        QTest::addColumn<int>("bits");
        QTest::addColumn<double>("expected");
        QTest::addRow("one") << 0x3C00 << 1.0;
        QTest::addRow("max") << 0x7BFF << 65504.0;
        QTest::addRow("min normal") << 0x0400 << std::ldexp(1.0, -14);
        QTest::addRow("min subnormal") << 0x0001 << std::ldexp(1.0, -24);
        QTest::addRow("-2") << 0xC000 << -2.0;
        QTest::addRow("+inf") << 0x7C00 << std::numeric_limits<double>::infinity();
        QTest::addRow("-inf") << 0xFC00 << -std::numeric_limits<double>::infinity();
        QTest::addRow("nan") << 0x7E00 << std::numeric_limits<double>::quiet_NaN();
        QTest::addRow("1/3 approx") << 0x3555 << (1.0 + 341.0 / 1024.0) / 4.0;
    }
    void half()
    {
        QFETCH(int, bits);
        QFETCH(double, expected);
        const double v = halfToDouble(std::uint16_t(bits));
        if (std::isnan(expected))
            QVERIFY(std::isnan(v));
        else
            QCOMPARE(v, expected);
    }

    void eightBit_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("byte");
        QTest::addColumn<double>("expected");
        const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
        QTest::addRow("e5m2 1") << int(Elem::F8E5M2) << 0x3C << 1.0;
        QTest::addRow("e5m2 max") << int(Elem::F8E5M2) << 0x7B << 57344.0;
        QTest::addRow("e5m2 inf") << int(Elem::F8E5M2) << 0x7C << inf;
        QTest::addRow("e5m2 subnormal") << int(Elem::F8E5M2) << 0x01 << std::ldexp(0.25, -14);
        QTest::addRow("e4m3fn 1") << int(Elem::F8E4M3FN) << 0x38 << 1.0;
        QTest::addRow("e4m3fn max") << int(Elem::F8E4M3FN) << 0x7E << 448.0;
        QTest::addRow("e4m3fn nan 0x7F") << int(Elem::F8E4M3FN) << 0x7F << nan;
        QTest::addRow("e4m3fn nan 0xFF") << int(Elem::F8E4M3FN) << 0xFF << nan;
        QTest::addRow("e4m3fn subnormal") << int(Elem::F8E4M3FN) << 0x01 << std::ldexp(1.0 / 8.0, -6);
        QTest::addRow("e4m3fn -2") << int(Elem::F8E4M3FN) << 0xC0 << -2.0;
        QTest::addRow("e8m0 1") << int(Elem::F8E8M0) << 127 << 1.0;
        QTest::addRow("e8m0 2^-127") << int(Elem::F8E8M0) << 0 << std::ldexp(1.0, -127);
        QTest::addRow("e8m0 nan") << int(Elem::F8E8M0) << 0xFF << nan;
        QTest::addRow("hif8 max 0x6E") << int(Elem::HiF8) << 0x6E << 32768.0;
        QTest::addRow("hif8 zero") << int(Elem::HiF8) << 0x00 << 0.0;
        QTest::addRow("hif8 nan") << int(Elem::HiF8) << 0x80 << nan;
        QTest::addRow("hif8 +inf") << int(Elem::HiF8) << 0x6F << inf;
        QTest::addRow("hif8 -inf") << int(Elem::HiF8) << 0xEF << -inf;
        // D = 0 (prefix 0001), mantissa 3 bits: 0 0001 100 = 1.5
        QTest::addRow("hif8 D0 1.5") << int(Elem::HiF8) << 0x0C << 1.5;
        // D = 1 (prefix 001), exponent bit 1 (negative) -> 2^-1, mantissa 000
        QTest::addRow("hif8 D1 0.5") << int(Elem::HiF8) << 0x18 << 0.5;
        // denormal 0000 + m = 5 -> 2^(5-23)
        QTest::addRow("hif8 denormal") << int(Elem::HiF8) << 0x05 << std::ldexp(1.0, -18);
        QTest::addRow("fp4 6") << int(Elem::F4E2M1) << 0x7 << 6.0;
        QTest::addRow("fp4 -0.5") << int(Elem::F4E2M1) << 0x9 << -0.5;
        QTest::addRow("int8 -128") << int(Elem::I8) << 0x80 << -128.0;
        QTest::addRow("bool 7 is true") << int(Elem::Bool) << 7 << 1.0;
    }
    void eightBit()
    {
        QFETCH(int, kind);
        QFETCH(int, byte);
        QFETCH(double, expected);
        const std::byte b{std::uint8_t(byte)};
        const double v = elemToDouble(Elem(kind), &b, 0);
        if (std::isnan(expected))
            QVERIFY2(std::isnan(v), qPrintable(QString::number(v)));
        else
            QCOMPARE(v, expected);
    }

    void bf16() { QCOMPARE(bf16ToDouble(0x3F80), 1.0); QCOMPARE(bf16ToDouble(0xC0A0), -5.0); QVERIFY(std::isinf(bf16ToDouble(0x7F80))); }

    void unpackInt4()
    {
        // bytes 0x21 0xF8: elements low nibble first: 1, 2, -8, -1
        const std::uint8_t packed[] = {0x21, 0xF8};
        std::int8_t out[4];
        unpackElements(Packing::Int4LowFirst, reinterpret_cast<const std::byte *>(packed), 4, reinterpret_cast<std::byte *>(out));
        QCOMPARE(out[0], 1);
        QCOMPARE(out[1], 2);
        QCOMPARE(out[2], -8);
        QCOMPARE(out[3], -1);
    }
    void unpackUInt1MsbFirst()
    {
        const std::uint8_t packed[] = {0xA0}; // 1010 0000
        std::uint8_t out[8];
        unpackElements(Packing::UInt1MsbFirst, reinterpret_cast<const std::byte *>(packed), 8, reinterpret_cast<std::byte *>(out));
        const std::uint8_t expected[] = {1, 0, 1, 0, 0, 0, 0, 0};
        QVERIFY(std::equal(out, out + 8, expected));
    }

    void names()
    {
        QCOMPARE(dataTypeName(27), QStringLiteral("bfloat16"));
        QCOMPARE(dataTypeName(1), QStringLiteral("float32"));
        QCOMPARE(dataTypeName(99), QStringLiteral("UNKNOWN(99)"));
        QCOMPARE(dataTypeName(13), QStringLiteral("string"));
        QCOMPARE(storedBytes(DataType::Int4, 5), 3u);
        QCOMPARE(storedBytes(DataType::UInt1, 9), 2u);
        QCOMPARE(storedBytes(DataType::Complex128, 2), 32u);
        QCOMPARE(storedBytes(DataType::String, 2), 0u); // variable size: never guessed
    }
    void everyTableEntryIsDecodedOrNamedUnsupported()
    {
        for (int t = 0; t <= 40; ++t) {
            const auto &info = dataTypeInfo(t);
            QCOMPARE(int(info.type), t);
            QVERIFY(!dataTypeName(t).startsWith(QLatin1String("UNKNOWN")));
            if (info.elem != Elem::None)
                QVERIFY2(info.exportDescr, info.name);
        }
    }
};

QTEST_GUILESS_MAIN(TestDtype)
#include "tst_dtype.moc"
