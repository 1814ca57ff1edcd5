// Private layout -> ND conversion against the worked examples of cann-dump.md §8.
// The device buffer holds each element's own index, so after conversion host[dst] must be src.
#include "tensor/format.h"
#include "tensor/layout.h"

#include <QTest>
#include <numeric>

using namespace ds;
Q_DECLARE_METATYPE(ds::Shape)

class TestLayout : public QObject
{
    Q_OBJECT
private slots:
    void workedExamples_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("groups");
        QTest::addColumn<Shape>("device");
        QTest::addColumn<Shape>("host");
        QTest::addColumn<int>("dst");
        QTest::addColumn<int>("src");
        QTest::addRow("NC1HWC0 8.2") << int(Format::NC1HWC0) << 0 << Shape{1, 2, 1, 2, 16} << Shape{1, 20, 1, 2} << 35 << 49;
        QTest::addRow("NC1HWC0_C04 8.3") << int(Format::NC1HWC0_C04) << 0 << Shape{1, 1, 1, 2, 4} << Shape{1, 3, 1, 2} << 5 << 6;
        QTest::addRow("NDC1HWC0 8.4") << int(Format::NDC1HWC0) << 0 << Shape{1, 2, 1, 1, 1, 16} << Shape{1, 3, 2, 1, 1} << 5 << 18;
        QTest::addRow("FRACTAL_Z 8.5") << int(Format::FRACTAL_Z) << 0 << Shape{2, 1, 16, 16} << Shape{2, 3, 1, 2} << 11 << 274;
        QTest::addRow("FRACTAL_Z groups 8.6 ex1 g0") << int(Format::FRACTAL_Z) << 2 << Shape{1, 1, 16, 16} << Shape{2, 1, 1, 1} << 0 << 0;
        QTest::addRow("FRACTAL_Z groups 8.6 ex1 g1") << int(Format::FRACTAL_Z) << 2 << Shape{1, 1, 16, 16} << Shape{2, 1, 1, 1} << 1 << 17;
        QTest::addRow("FRACTAL_Z groups 8.6 ex2") << int(Format::FRACTAL_Z) << 4 << Shape{2, 1, 16, 16} << Shape{32, 8, 1, 1} << 253 << 509;
        QTest::addRow("FRACTAL_NZ 8.7") << int(Format::FRACTAL_NZ) << 0 << Shape{2, 1, 16, 16} << Shape{3, 18} << 53 << 289;
        QTest::addRow("C1HWNCoC0 8.8") << int(Format::C1HWNCoC0) << 0 << Shape{1, 1, 1, 2, 16, 16} << Shape{2, 3, 1, 1} << 5 << 290;
        QTest::addRow("FRACTAL_Z_3D 8.9") << int(Format::FRACTAL_Z_3D) << 0 << Shape{2, 1, 16, 16} << Shape{2, 3, 2, 1, 1} << 11 << 274;
    }
    void workedExamples()
    {
        QFETCH(int, format);
        QFETCH(int, groups);
        QFETCH(Shape, device);
        QFETCH(Shape, host);
        QFETCH(int, dst);
        QFETCH(int, src);
        auto plan = planLayout(format, groups, DataType::Float16, device, host);
        QVERIFY2(plan.ok(), qPrintable(plan.errorText()));
        std::vector<std::uint32_t> dev(plan->deviceCount), out(plan->hostCount, 0xFFFFFFFF);
        std::iota(dev.begin(), dev.end(), 0u);
        // Element size is independent of the formulas; 4-byte elements carry the indices.
        convertLayout(*plan, reinterpret_cast<const std::byte *>(dev.data()), reinterpret_cast<std::byte *>(out.data()), 4);
        QCOMPARE(out[size_t(dst)], std::uint32_t(src));
        // Every host element is written from a distinct device element (a permutation minus padding).
        std::vector<std::uint32_t> sorted = out;
        std::sort(sorted.begin(), sorted.end());
        QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
        QVERIFY(sorted.back() < plan->deviceCount);
    }

    void sameForEveryElementSize()
    {
        auto plan = planLayout(int(Format::FRACTAL_NZ), 0, DataType::Float16, {2, 1, 16, 16}, {3, 18});
        QVERIFY(plan.ok());
        for (size_t size : {1u, 2u, 8u, 16u}) {
            std::vector<std::byte> dev(plan->deviceCount * size), out(plan->hostCount * size);
            for (size_t i = 0; i < plan->deviceCount; ++i)
                dev[i * size] = std::byte(i & 0xFF);
            convertLayout(*plan, dev.data(), out.data(), size);
            QCOMPARE(std::to_integer<int>(out[53 * size]), 289 & 0xFF);
        }
    }

    void mismatchesAreRefusedWithAReason_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<Shape>("device");
        QTest::addColumn<Shape>("host");
        QTest::addColumn<QString>("reason");
        QTest::addRow("no original shape") << int(Format::NC1HWC0) << Shape{1, 2, 1, 2, 16} << Shape{} << QStringLiteral("original_shape");
        QTest::addRow("C1 too small") << int(Format::NC1HWC0) << Shape{1, 1, 1, 2, 16} << Shape{1, 20, 1, 2} << QStringLiteral("does not match");
        QTest::addRow("dynamic dim") << int(Format::FRACTAL_NZ) << Shape{2, 1, 16, 16} << Shape{3, ~0ull} << QStringLiteral("dynamic");
        QTest::addRow("unsupported format") << 17 << Shape{4} << Shape{4} << QStringLiteral("no conversion");
        QTest::addRow("NZ batch differs") << int(Format::FRACTAL_NZ) << Shape{3, 2, 1, 16, 16} << Shape{2, 3, 18} << QStringLiteral("does not match");
    }
    void mismatchesAreRefusedWithAReason()
    {
        QFETCH(int, format);
        QFETCH(Shape, device);
        QFETCH(Shape, host);
        QFETCH(QString, reason);
        auto plan = planLayout(format, 0, DataType::Float16, device, host);
        QVERIFY(!plan.ok());
        QVERIFY2(plan.errorText().contains(reason), qPrintable(plan.errorText()));
    }

    void names()
    {
        QCOMPARE(formatName(29), QStringLiteral("FRACTAL_NZ"));
        QCOMPARE(formatName(30), QStringLiteral("NCDHW")); // not RESERVED (version trap, §7)
        QCOMPARE(formatName(4 | (2 << 8)), QStringLiteral("FRACTAL_Z:2"));
        QCOMPARE(formatName(200), QStringLiteral("UNKNOWN(200)"));
    }
};

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
