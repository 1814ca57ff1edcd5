// The paged value model, the element classes and slice downsampling, on hand-made tensors.
#include "models/tensorvaluesmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>

using namespace ds;

namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// float16 bits of a small integer (exact).
std::uint16_t halfOfInt(int n)
{
    if (n == 0)
        return 0;
    const std::uint16_t sign = n < 0 ? 0x8000 : 0;
    n = std::abs(n);
    int e = 0;
    while ((1 << (e + 1)) <= n)
        ++e;
    const int mant = (n - (1 << e)) * 1024 / (1 << e);
    return std::uint16_t(sign | ((e + 15) << 10) | mant);
}

template<typename T>
std::shared_ptr<LoadedTensor> tensorOf(Elem e, std::vector<T> values, Shape shape, int dataType)
{
    auto t = std::make_shared<LoadedTensor>();
    t->owned.resize(values.size() * sizeof(T));
    if (!values.empty())
        std::memcpy(t->owned.data(), values.data(), t->owned.size());
    t->view = TensorView{e, t->owned.data(), values.size()};
    t->shape = std::move(shape);
    t->dataType = dataType;
    return t;
}

/// [2, 3, 4] float16 holding its flat index, except 5 = NaN, 6 = +Inf, 7 = -Inf,
/// 13 = 65504 and 14 = -65504 (saturated).
std::shared_ptr<LoadedTensor> specialHalfTensor()
{
    std::vector<std::uint16_t> v(24);
    for (int i = 0; i < 24; ++i)
        v[size_t(i)] = halfOfInt(i);
    v[5] = 0x7E00;
    v[6] = 0x7C00;
    v[7] = 0xFC00;
    v[13] = 0x7BFF;
    v[14] = 0xFBFF;
    return tensorOf(Elem::F16, v, {2, 3, 4}, int(DataType::Float16));
}

std::shared_ptr<LoadedTensor> iotaFloat(Shape shape)
{
    const auto n = *elementCount(shape);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = float(i);
    return tensorOf(Elem::F32, std::move(v), std::move(shape), int(DataType::Float32));
}

QString text(const TensorValuesModel &m, int row, int col) { return m.index(row, col).data().toString(); }
int cls(const TensorValuesModel &m, int row, int col) { return m.index(row, col).data(TensorValuesModel::ClassRole).toInt(); }

using Index = std::vector<std::uint64_t>;

} // namespace

class TestTensorValuesModel : public QObject
{
    Q_OBJECT
private slots:
    void saturationLimits_data()
    {
        QTest::addColumn<int>("elem");
        QTest::addColumn<QByteArray>("maxBytes"); // little-endian bit pattern of the finite maximum
        QTest::addColumn<double>("limit");
        QTest::addRow("float16") << int(Elem::F16) << QByteArray("\xff\x7b", 2) << 65504.0;
        QTest::addRow("bfloat16") << int(Elem::BF16) << QByteArray("\x7f\x7f", 2) << 3.3895313892515355e38;
        QTest::addRow("float8_e5m2") << int(Elem::F8E5M2) << QByteArray("\x7b", 1) << 57344.0;
        QTest::addRow("float8_e4m3fn") << int(Elem::F8E4M3FN) << QByteArray("\x7e", 1) << 448.0;
        QTest::addRow("hifloat8") << int(Elem::HiF8) << QByteArray("\x6e", 1) << 32768.0;
        QTest::addRow("float32") << int(Elem::F32) << QByteArray("\xff\xff\x7f\x7f", 4) << double(std::numeric_limits<float>::max());
    }
    void saturationLimits()
    {
        QFETCH(int, elem);
        QFETCH(QByteArray, maxBytes);
        QFETCH(double, limit);
        const Elem e = Elem(elem);
        QCOMPARE(saturationLimit(e), limit);
        const auto *data = reinterpret_cast<const std::byte *>(maxBytes.constData());
        QCOMPARE(elemToDouble(e, data, 0), limit); // the decoder agrees that this is the maximum
        QCOMPARE(classifyElement(e, data, 0), ValueClass::Saturated);
        QCOMPARE(classifyValue(e, -limit), ValueClass::Saturated);
        QCOMPARE(classifyValue(e, limit / 2), ValueClass::Normal);
        QCOMPARE(classifyValue(e, kNan), ValueClass::NaN);
        QCOMPARE(classifyValue(e, kInf), ValueClass::PosInf);
        QCOMPARE(classifyValue(e, -kInf), ValueClass::NegInf);
    }

    void integersNeverSaturate()
    {
        QCOMPARE(saturationLimit(Elem::I8), 0.0);
        QCOMPARE(classifyValue(Elem::I8, 127), ValueClass::Normal);
        QCOMPARE(classifyValue(Elem::F64, std::numeric_limits<double>::max()), ValueClass::Normal);
    }

    void formatting()
    {
        const std::vector<float> c{1.5f, -2.0f, 0.25f, 3.0f, float(kNan), 1.0f};
        const auto *d = reinterpret_cast<const std::byte *>(c.data());
        QCOMPARE(formatElement(Elem::C64, d, 0), QStringLiteral("1.5-2j"));
        QCOMPARE(formatElement(Elem::C64, d, 1), QStringLiteral("0.25+3j"));
        QCOMPARE(formatElement(Elem::C64, d, 2), QStringLiteral("nan+1j"));
        QCOMPARE(classifyElement(Elem::C64, d, 2), ValueClass::NaN);
        const std::vector<std::int64_t> big{std::numeric_limits<std::int64_t>::max()};
        QCOMPARE(formatElement(Elem::I64, reinterpret_cast<const std::byte *>(big.data()), 0), QStringLiteral("9223372036854775807"));
        const std::vector<double> pi{3.14159265358979, -kInf};
        QCOMPARE(formatElement(Elem::F64, reinterpret_cast<const std::byte *>(pi.data()), 0), QStringLiteral("3.1415927"));
        QCOMPARE(formatElement(Elem::F64, reinterpret_cast<const std::byte *>(pi.data()), 0, 'g', 4), QStringLiteral("3.142"));
        QCOMPARE(formatElement(Elem::F64, reinterpret_cast<const std::byte *>(pi.data()), 1), QStringLiteral("-inf"));
        const std::vector<std::uint8_t> b{0, 1};
        QCOMPARE(formatElement(Elem::Bool, reinterpret_cast<const std::byte *>(b.data()), 1), QStringLiteral("True"));
    }

    void parsing()
    {
        const Shape shape{2, 3, 4};
        Index idx;
        QVERIFY(parseNdIndex(QStringLiteral("1, 2, 3"), shape, idx));
        QCOMPARE(idx, (Index{1, 2, 3}));
        QVERIFY(parseNdIndex(QStringLiteral(" [0,0 ,1] "), shape, idx));
        QCOMPARE(idx, (Index{0, 0, 1}));
        QVERIFY(parseNdIndex(QStringLiteral("-1, -3, -4"), shape, idx));
        QCOMPARE(idx, (Index{1, 0, 0}));
        QVERIFY(!parseNdIndex(QStringLiteral("1, 2"), shape, idx));
        QVERIFY(idx.empty());
        QVERIFY(!parseNdIndex(QStringLiteral("2, 0, 0"), shape, idx));
        QVERIFY(!parseNdIndex(QStringLiteral("0, -4, 0"), shape, idx));
        QVERIFY(!parseNdIndex(QStringLiteral("a, 0, 0"), shape, idx));
        QVERIFY(parseNdIndex(QString(), Shape{}, idx)); // a scalar's only element
        QVERIFY(idx.empty());
    }

    void sliceGeometry()
    {
        const TensorSlice s(Shape{2, 3, 4}, 2, 0, {0, 2, 0}); // rows = dim 2, columns = dim 0
        QCOMPARE(s.rows(), 4u);
        QCOMPARE(s.cols(), 2u);
        QCOMPARE(s.flatIndex(3, 1), 12u + 8u + 3u);
        QCOMPARE(s.ndIndex(3, 1), (Index{1, 2, 3}));
        QCOMPARE(sliceRangeToString(s, 0, 4, 1, 2), QStringLiteral("[1, 2, 0:4]"));
        const TensorSlice bad(Shape{2, 3, 4}, 1, 1, {9, 9, 9}); // equal dims: default, indices clamped
        QCOMPARE(bad.rowDim(), 1);
        QCOMPARE(bad.colDim(), 2);
        QCOMPARE(bad.fixed(), (Index{1, 0, 0}));
        QCOMPARE(TensorSlice(Shape{3, 0, 2}, 0, 2).elementCount(), 0u);
    }

    void valuesAndClasses()
    {
        TensorValuesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTensor(specialHalfTensor());
        QCOMPARE(m.slice().rowDim(), 1);
        QCOMPARE(m.slice().colDim(), 2);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.columnCount(), 4);
        QCOMPARE(text(m, 0, 1), QStringLiteral("1"));
        QCOMPARE(text(m, 2, 3), QStringLiteral("11"));
        QCOMPARE(text(m, 1, 1), QStringLiteral("nan"));
        QCOMPARE(cls(m, 1, 1), int(ValueClass::NaN));
        QCOMPARE(text(m, 1, 2), QStringLiteral("inf"));
        QCOMPARE(cls(m, 1, 2), int(ValueClass::PosInf));
        QCOMPARE(text(m, 1, 3), QStringLiteral("-inf"));
        QCOMPARE(cls(m, 1, 3), int(ValueClass::NegInf));
        QCOMPARE(cls(m, 0, 0), int(ValueClass::Normal));
        QCOMPARE(m.index(2, 3).data(TensorValuesModel::ValueRole).toDouble(), 11.0);
        QCOMPARE(m.index(2, 3).data(TensorValuesModel::FlatIndexRole).toULongLong(), 11ull);
        QCOMPARE(m.headerData(3, Qt::Horizontal).toString(), QStringLiteral("3"));
        QCOMPARE(m.headerData(2, Qt::Vertical).toString(), QStringLiteral("2"));
        QVERIFY(m.index(1, 1).data(Qt::ToolTipRole).toString().contains(QStringLiteral("[0, 1, 1]")));

        // The other dim-0 index: same dims, the view keeps its page.
        QSignalSpy pages(&m, &TensorValuesModel::pageChanged);
        m.setSlice(1, 2, {1, 0, 0});
        QCOMPARE(pages.count(), 0);
        QCOMPARE(text(m, 0, 1), QStringLiteral("65504"));
        QCOMPARE(cls(m, 0, 1), int(ValueClass::Saturated));
        QCOMPARE(text(m, 0, 2), QStringLiteral("-65504"));
        QCOMPARE(cls(m, 0, 2), int(ValueClass::Saturated));
        QCOMPARE(m.indexOf(m.index(2, 3)), (Index{1, 2, 3}));
        QCOMPARE(text(m, 2, 3), QStringLiteral("23"));
    }

    void sliceSwitching()
    {
        TensorValuesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTensor(specialHalfTensor());
        m.setSlice(0, 2, {0, 1, 0}); // rows = dim 0, columns = dim 2, dim 1 fixed at 1
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.columnCount(), 4);
        QCOMPARE(text(m, 1, 1), QStringLiteral("17"));
        QCOMPARE(m.indexOf(m.index(1, 1)), (Index{1, 1, 1}));
        QCOMPARE(m.index(1, 1).data(TensorValuesModel::FlatIndexRole).toULongLong(), 17ull);

        m.setSlice(2, 0, {0, 2, 0}); // transposed: rows = dim 2, columns = dim 0
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.columnCount(), 2);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 2; ++c)
                QCOMPARE(m.index(r, c).data(TensorValuesModel::FlatIndexRole).toULongLong(), qulonglong(12 * c + 8 + r));
        QCOMPARE(m.headerData(1, Qt::Horizontal).toString(), QStringLiteral("1"));
        QCOMPARE(m.headerData(3, Qt::Vertical).toString(), QStringLiteral("3"));
    }

    void oneAndZeroDims()
    {
        TensorValuesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTensor(iotaFloat({5}));
        QCOMPARE(m.rowCount(), 5);
        QCOMPARE(m.columnCount(), 1);
        QCOMPARE(text(m, 4, 0), QStringLiteral("4"));
        QCOMPARE(m.headerData(4, Qt::Vertical).toString(), QStringLiteral("4"));
        QCOMPARE(m.locate({3}), m.index(3, 0));

        m.setTensor(iotaFloat({}));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.columnCount(), 1);
        QCOMPARE(text(m, 0, 0), QStringLiteral("0"));
        QCOMPARE(m.indexOf(m.index(0, 0)), Index{});

        // A shape that does not match the element count is shown flat.
        auto t = iotaFloat({6});
        t->shape = {4, 4};
        m.setTensor(t);
        QCOMPARE(m.shape(), (Shape{6}));
        QCOMPARE(m.rowCount(), 6);

        m.setTensor(iotaFloat({3, 0}));
        QCOMPARE(m.rowCount(), 0);
        QVERIFY(!m.locate({0, 0}).isValid());

        m.setTensor(nullptr);
        QCOMPARE(m.rowCount(), 0);
        QCOMPARE(m.columnCount(), 0);
    }

    void paging()
    {
        TensorValuesModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTensor(iotaFloat({20000, 3}));
        QCOMPARE(m.totalRows(), 20000u);
        QCOMPARE(m.rowCount(), 10000);
        QCOMPARE(m.columnCount(), 3);
        QCOMPARE(m.headerData(9999, Qt::Vertical).toString(), QStringLiteral("9999"));

        m.setPage(10000, 0); // page 2
        QCOMPARE(m.pageRow(), 10000u);
        QCOMPARE(m.rowCount(), 10000);
        QCOMPARE(m.headerData(0, Qt::Vertical).toString(), QStringLiteral("10000"));
        QCOMPARE(text(m, 0, 0), QStringLiteral("30000"));
        QCOMPARE(m.indexOf(m.index(9999, 2)), (Index{19999, 2}));

        m.setPage(15000, 0);
        QCOMPARE(m.rowCount(), 5000);
        m.setPage(99999, 0); // clamped to the last row
        QCOMPARE(m.pageRow(), 19999u);
        QCOMPARE(m.rowCount(), 1);

        // locate() moves to the aligned page holding the element.
        QSignalSpy pages(&m, &TensorValuesModel::pageChanged);
        QModelIndex i = m.locate({12345, 1});
        QCOMPARE(m.pageRow(), 10000u);
        QCOMPARE(i, m.index(2345, 1));
        QCOMPARE(i.data().toString(), QStringLiteral("37036"));
        QCOMPARE(pages.count(), 1);
        i = m.locate({10001, 0}); // already on this page: no move
        QCOMPARE(pages.count(), 1);
        QCOMPARE(i, m.index(1, 0));
        i = m.locate({5, 2});
        QCOMPARE(m.pageRow(), 0u);
        QCOMPARE(i, m.index(5, 2));
        QVERIFY(!m.locate({20000, 0}).isValid());
        QVERIFY(!m.locate({1}).isValid());

        // Columns page too.
        m.setTensor(iotaFloat({2, 2500}));
        QCOMPARE(m.columnCount(), 1000);
        i = m.locate({1, 2400});
        QCOMPARE(m.pageCol(), 2000u);
        QCOMPARE(m.columnCount(), 500);
        QCOMPARE(i, m.index(1, 400));
        QCOMPARE(m.headerData(400, Qt::Horizontal).toString(), QStringLiteral("2400"));
        QCOMPARE(i.data().toString(), QStringLiteral("4900"));
    }

    void locateSwitchesFixedIndices()
    {
        TensorValuesModel m;
        m.setTensor(specialHalfTensor());
        QSignalSpy slices(&m, &TensorValuesModel::sliceChanged);
        const QModelIndex i = m.locate({1, 0, 1});
        QCOMPARE(slices.count(), 1);
        QCOMPARE(m.slice().fixed()[0], 1u);
        QCOMPARE(i, m.index(0, 1));
        QCOMPARE(i.data().toString(), QStringLiteral("65504"));
    }

    void downsampling()
    {
        // 8 x 8 float32, 2 x 2 blocks: NaN at (0, 0), +Inf at (7, 7), 448 nowhere special.
        std::vector<float> v(64);
        for (int i = 0; i < 64; ++i)
            v[size_t(i)] = float(i);
        v[0] = float(kNan);
        v[63] = float(kInf);
        v[9] = std::numeric_limits<float>::max();
        const TensorView view{Elem::F32, reinterpret_cast<const std::byte *>(v.data()), v.size()};
        SliceBlocks b;
        QVERIFY(downsampleSlice(view, TensorSlice::defaultFor({8, 8}), 4, b));
        QCOMPARE(b.rows, 4);
        QCOMPARE(b.cols, 4);
        QCOMPARE(b.blockRows, 2u);
        QVERIFY(b.downsampled());
        // Block (0, 0) holds NaN, 1, 8 and FLT_MAX: the NaN marker wins, the mean skips NaN.
        QCOMPARE(b.cls[b.at(0, 0)], std::uint8_t(ValueClass::NaN));
        QCOMPARE(b.special[b.at(0, 0)], 2u);
        QCOMPARE(b.mean[b.at(0, 0)], (1.0 + 8.0 + double(std::numeric_limits<float>::max())) / 3);
        QCOMPARE(b.mean[b.at(1, 2)], (20.0 + 21 + 28 + 29) / 4);
        QCOMPARE(b.cls[b.at(1, 2)], std::uint8_t(ValueClass::Normal));
        QCOMPARE(b.cls[b.at(3, 3)], std::uint8_t(ValueClass::PosInf));
        QCOMPARE(b.mean[b.at(3, 3)], (54.0 + 55 + 62) / 3);

        // Uneven blocks, a transposed slice of a 3-D tensor, float16 through the code table.
        auto t = specialHalfTensor();
        QVERIFY(downsampleSlice(t->view, TensorSlice(t->shape, 2, 1, {1, 0, 0}), 3, b)); // rows = dim 2 (4), cols = dim 1 (3)
        QCOMPARE(b.blockRows, 2u);
        QCOMPARE(b.blockCols, 1u);
        QCOMPARE(b.rows, 2);
        QCOMPARE(b.cols, 3);
        // Block (0, 0) = elements [1, 0, 0:2] = flat 12, 13 (65504): saturated marker.
        QCOMPARE(b.cls[b.at(0, 0)], std::uint8_t(ValueClass::Saturated));
        QCOMPARE(b.mean[b.at(0, 0)], (12.0 + 65504) / 2);
        QCOMPARE(b.mean[b.at(1, 2)], (22.0 + 23) / 2);
        QCOMPARE(b.cls[b.at(1, 0)], std::uint8_t(ValueClass::Saturated)); // [1, 0, 2:4] = -65504, 15
        QCOMPARE(b.min, (-65504.0 + 15) / 2);
        QCOMPARE(b.max, (12.0 + 65504) / 2);

        // Full resolution below the limit; cancellation.
        QVERIFY(downsampleSlice(t->view, TensorSlice::defaultFor(t->shape), 1024, b));
        QVERIFY(!b.downsampled());
        QCOMPARE(b.rows, 3);
        QCOMPARE(b.cols, 4);
        QVERIFY(std::isnan(b.mean[b.at(1, 1)]));
        QCOMPARE(b.cls[b.at(1, 1)], std::uint8_t(ValueClass::NaN));
        std::atomic<bool> cancel{true};
        JobControl job;
        job.cancelFlag = &cancel;
        QVERIFY(!downsampleSlice(t->view, TensorSlice::defaultFor(t->shape), 1024, b, &job));
    }
};

QTEST_GUILESS_MAIN(TestTensorValuesModel)
#include "tst_tensorvaluesmodel.moc"
