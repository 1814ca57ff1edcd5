// The value grid and the heatmap on real widgets (offscreen): slice controls, go-to, paging,
// a 10^9-element tensor, NaN markers and downsampling. DUMPSCOPE_SCREENSHOTS=<dir> saves
// valuegrid.png and heatmap.png of a sample tensor there.
#include "heatmapwidget.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "sliceselector.h"
#include "valuegridwidget.h"

#include <QComboBox>
#include <QTemporaryDir>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <qcustomplot.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace ds;

namespace {

using Index = std::vector<std::uint64_t>;

std::uint16_t halfOfInt(int n)
{
    if (n == 0)
        return 0;
    int e = 0;
    while ((1 << (e + 1)) <= n)
        ++e;
    return std::uint16_t(((e + 15) << 10) | ((n - (1 << e)) * 1024 / (1 << e)));
}

/// A tensor over zero-filled memory from calloc: large allocations are mapped lazily, so only
/// the pages a test touches cost memory.
std::shared_ptr<LoadedTensor> lazyTensor(Elem e, Shape shape, int dataType)
{
    const auto count = *elementCount(shape);
    void *mem = std::calloc(count, elemBytes(e));
    if (!mem)
        return {};
    auto t = std::shared_ptr<LoadedTensor>(new LoadedTensor, [mem](LoadedTensor *p) {
        delete p;
        std::free(mem);
    });
    t->view = TensorView{e, static_cast<const std::byte *>(mem), size_t(count)};
    t->shape = std::move(shape);
    t->dataType = dataType;
    return t;
}

/// Pages of [p, p + bytes) that are mapped (mincore): of a lazily zeroed allocation, the pages
/// something has read or written. -1 when mincore fails.
qint64 touchedPages(const void *p, size_t bytes)
{
    const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) / page * page;
    std::vector<unsigned char> resident((end - begin) / page);
    if (::mincore(reinterpret_cast<void *>(begin), end - begin, resident.data()) != 0)
        return -1;
    return std::count_if(resident.begin(), resident.end(), [](unsigned char c) { return (c & 1) != 0; });
}

template<typename T>
T *writable(const std::shared_ptr<LoadedTensor> &t) { return reinterpret_cast<T *>(const_cast<std::byte *>(t->view.data)); }

/// [2, 3, 4] float16 holding its flat index, 5 = NaN, 6 = +Inf, 7 = -Inf, 13 = 65504.
std::shared_ptr<LoadedTensor> specialHalfTensor()
{
    auto t = lazyTensor(Elem::F16, {2, 3, 4}, int(DataType::Float16));
    auto *v = writable<std::uint16_t>(t);
    for (int i = 0; i < 24; ++i)
        v[i] = halfOfInt(i);
    v[5] = 0x7E00;
    v[6] = 0x7C00;
    v[7] = 0xFC00;
    v[13] = 0x7BFF;
    return t;
}

QToolButton *arrowButton(QWidget *w, Qt::ArrowType type)
{
    for (auto *b : w->findChildren<QToolButton *>())
        if (b->arrowType() == type)
            return b;
    return nullptr;
}

void hover(QWidget *w, QPointF pos)
{
    QMouseEvent move(QEvent::MouseMove, pos, w->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(w, &move);
}

} // namespace

class TestValueGrid : public QObject
{
    Q_OBJECT
private slots:
    void gridSwitchesDims()
    {
        ValueGridWidget w;
        w.resize(900, 500);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTensor(specialHalfTensor(), int(DataType::Float16));
        QCOMPARE(w.model()->rowCount(), 3);
        QCOMPARE(w.model()->columnCount(), 4);
        QCOMPARE(w.model()->index(1, 1).data().toString(), QStringLiteral("nan"));

        // Columns: dim 0 instead of dim 2; dim 2 gets an index spin box.
        QComboBox *cols = w.sliceSelector()->colDimCombo();
        cols->setCurrentIndex(cols->findData(0));
        QCOMPARE(w.model()->slice().rowDim(), 1);
        QCOMPARE(w.model()->slice().colDim(), 0);
        QCOMPARE(w.model()->columnCount(), 2);
        QCOMPARE(w.model()->rowCount(), 3);
        QSpinBox *spin = w.sliceSelector()->indexSpin(2);
        QVERIFY(spin && spin->isVisible());
        QVERIFY(!w.sliceSelector()->indexSpin(0));
        spin->setValue(3);
        QCOMPARE(w.model()->slice().fixed()[2], 3u);
        QCOMPARE(w.model()->index(1, 1).data().toString(), QStringLiteral("19")); // [1, 1, 3]
        QCOMPARE(w.model()->headerData(1, Qt::Horizontal).toString(), QStringLiteral("1"));

        // Picking the column dim for the rows swaps the two.
        QComboBox *rows = w.sliceSelector()->rowDimCombo();
        rows->setCurrentIndex(rows->findData(0));
        QCOMPARE(w.model()->slice().rowDim(), 0);
        QCOMPARE(w.model()->slice().colDim(), 1);
        QCOMPARE(cols->currentData().toInt(), 1);
    }

    void gridGoTo()
    {
        ValueGridWidget w;
        w.resize(900, 500);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTensor(specialHalfTensor(), int(DataType::Float16));
        QTest::keyClicks(w.goToEdit(), QStringLiteral("1, 2, 3"));
        QTest::keyClick(w.goToEdit(), Qt::Key_Return);
        QCOMPARE(w.currentIndex(), (Index{1, 2, 3}));
        QCOMPARE(w.view()->currentIndex().data().toString(), QStringLiteral("23"));
        QCOMPARE(w.sliceSelector()->indexSpin(0)->value(), 1); // the fixed index followed
        QVERIFY(w.view()->selectionModel()->isSelected(w.view()->currentIndex()));

        w.goToEdit()->clear();
        QTest::keyClicks(w.goToEdit(), QStringLiteral("9, 9, 9"));
        QTest::keyClick(w.goToEdit(), Qt::Key_Return);
        QVERIFY(w.message()->isVisible());
        QVERIFY(w.message()->text().contains(QStringLiteral("[2, 3, 4]")));
        QCOMPARE(w.currentIndex(), (Index{1, 2, 3}));

        QVERIFY(w.goTo(QStringLiteral("[0, -1, -1]")));
        QCOMPARE(w.currentIndex(), (Index{0, 2, 3}));
        QVERIFY(!w.message()->isVisible());
        QCOMPARE(w.view()->currentIndex().data(TensorValuesModel::ClassRole).toInt(), int(ValueClass::Normal));
        QVERIFY(w.goTo(QStringLiteral("1,0,1")));
        QCOMPARE(w.view()->currentIndex().data(TensorValuesModel::ClassRole).toInt(), int(ValueClass::Saturated));

        // A tensor of the same shape keeps the slice and the current cell; another shape resets.
        w.sliceSelector()->colDimCombo()->setCurrentIndex(w.sliceSelector()->colDimCombo()->findData(0));
        QVERIFY(w.goTo(QStringLiteral("1, 2, 3")));
        w.setTensor(specialHalfTensor(), int(DataType::Float16));
        QCOMPARE(w.model()->slice().colDim(), 0);
        QCOMPARE(w.currentIndex(), (Index{1, 2, 3}));
        w.setTensor(lazyTensor(Elem::F32, {5, 5}, int(DataType::Float32)));
        QCOMPARE(w.model()->slice().rowDim(), 0);
        QCOMPARE(w.model()->slice().colDim(), 1);
        QVERIFY(w.currentIndex().empty());
    }

    void gridPages()
    {
        auto t = lazyTensor(Elem::F32, {20000, 3}, int(DataType::Float32));
        auto *v = writable<float>(t);
        for (int i = 0; i < 60000; ++i)
            v[i] = float(i);
        ValueGridWidget w;
        w.resize(900, 500);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTensor(t);
        QToolButton *next = arrowButton(&w, Qt::DownArrow), *prev = arrowButton(&w, Qt::UpArrow);
        QVERIFY(next && prev);
        QVERIFY(next->isVisible() && next->isEnabled() && !prev->isEnabled());
        QVERIFY(!arrowButton(&w, Qt::RightArrow)->isVisible()); // 3 columns: one column page
        QTest::mouseClick(next, Qt::LeftButton);
        QCOMPARE(w.model()->pageRow(), 10000u);
        QCOMPARE(w.model()->headerData(0, Qt::Vertical).toString(), QStringLiteral("10000"));
        QCOMPARE(w.model()->index(0, 0).data().toString(), QStringLiteral("30000"));
        QVERIFY(!next->isEnabled() && prev->isEnabled());
        QVERIFY(w.goTo(QStringLiteral("3, 1")));
        QCOMPARE(w.model()->pageRow(), 0u);
        QCOMPARE(w.view()->currentIndex().data().toString(), QStringLiteral("10"));
    }

    void gridOpensBillionElementsInstantly()
    {
        // 10^9 float16 elements (2 GB of address space, touched only where shown).
        auto t = lazyTensor(Elem::F16, {100000, 10000}, int(DataType::Float16));
        if (!t)
            QSKIP("cannot reserve 2 GB of address space");
        const std::byte *data = t->view.data;
        const size_t bytes = t->view.count * 2;
        // Huge pages would make one touched element cost 512 pages: count 4 KiB pages.
        ::madvise(const_cast<std::byte *>(data) - reinterpret_cast<std::uintptr_t>(data) % ::sysconf(_SC_PAGESIZE),
                  bytes, MADV_NOHUGEPAGE);
        writable<std::uint16_t>(t)[t->view.count - 1] = 0x7E00; // the last element is NaN
        const qint64 allPages = qint64(bytes / ::sysconf(_SC_PAGESIZE));
        const qint64 before = touchedPages(data, bytes);
        QVERIFY2(before >= 1 && before <= 2, qPrintable(QString::number(before))); // mincore works here
        ValueGridWidget w;
        w.resize(1000, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));

        w.setTensor(t, int(DataType::Float16));
        const QImage first = w.grab().toImage(); // lays out and paints the visible cells
        QVERIFY(!first.isNull());
        QCOMPARE(w.model()->rowCount(), 10000);
        QCOMPARE(w.model()->columnCount(), 1000);

        QVERIFY(w.goTo(QStringLiteral("99999, 9999")));
        w.grab();
        QCOMPARE(w.model()->pageRow(), 90000u);
        QCOMPARE(w.model()->pageCol(), 9000u);
        QCOMPARE(w.view()->currentIndex().data().toString(), QStringLiteral("nan"));
        QCOMPARE(w.currentIndex(), (Index{99999, 9999}));

        arrowButton(&w, Qt::LeftArrow)->click();
        w.grab();
        QCOMPARE(w.model()->pageCol(), 8000u);
        // Opening, jumping to the last element and paging read only what was shown: a few
        // pages per visible row (each row of 10^4 elements is 20 KB), not the tensor's 2 GB.
        // (Timings of this are benchmarks' business; this checks the cause.)
        const qint64 touched = touchedPages(data, bytes);
        qInfo("10^9-element float16 tensor: %lld of %lld pages touched", touched, allPages);
        QVERIFY2(touched >= 0 && touched < 2000, qPrintable(QStringLiteral("%1 of %2 pages").arg(touched).arg(allPages)));
    }

    void heatmapMarksNaN()
    {
        auto t = lazyTensor(Elem::F32, {64, 64}, int(DataType::Float32));
        auto *v = writable<float>(t);
        for (int i = 0; i < 64 * 64; ++i)
            v[i] = float(i % 64);
        v[3 * 64 + 5] = std::numeric_limits<float>::quiet_NaN();
        HeatmapWidget w;
        w.resize(800, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy ready(&w, &HeatmapWidget::blocksReady);
        w.setTensor(t, int(DataType::Float32));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        QVERIFY(w.blocks() && !w.blocks()->downsampled());
        QCOMPARE(w.colorMap()->data()->keySize(), 64);
        QCOMPARE(w.colorMap()->data()->valueSize(), 64);
        QCOMPARE(w.markerMap()->data()->cell(5, 3), double(ValueClass::NaN));
        QCOMPARE(w.markerMap()->data()->cell(6, 3), double(ValueClass::Normal));
        QCOMPARE(w.colorMap()->data()->cell(7, 2), 7.0);
        QCOMPARE(w.colorMap()->dataRange(), QCPRange(0, 63));

        // Hover over element (3, 5) reads out its index and value.
        w.plot()->replot();
        const QPointF at(w.plot()->xAxis->coordToPixel(5), w.plot()->yAxis->coordToPixel(3));
        hover(w.plot(), at);
        QCOMPARE(w.hoverLabel()->text(), QStringLiteral("[3, 5] = nan (NaN)"));
        hover(w.plot(), QPointF(w.plot()->xAxis->coordToPixel(9), w.plot()->yAxis->coordToPixel(2)));
        QCOMPARE(w.hoverLabel()->text(), QStringLiteral("[2, 9] = 9"));

        // Double-click names the element for the grid.
        QSignalSpy activated(&w, &HeatmapWidget::indexActivated);
        QMouseEvent dbl(QEvent::MouseButtonDblClick, at, w.plot()->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(w.plot(), &dbl);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().value<Index>(), (Index{3, 5}));

        // Polar: a range symmetric around zero.
        w.gradientCombo()->setCurrentIndex(1);
        QCOMPARE(w.colorMap()->dataRange(), QCPRange(-63, 63));
        QTemporaryDir tmp;
        const QString png = tmp.filePath(QStringLiteral("heatmap.png"));
        QVERIFY(w.savePng(png));
        QVERIFY(!QImage(png).isNull());
    }

    void heatmapDownsamplesLargeSlice()
    {
        auto t = lazyTensor(Elem::F32, {4096, 4096}, int(DataType::Float32));
        auto *v = writable<float>(t);
        for (size_t r = 0; r < 4096; ++r)
            for (size_t c = 0; c < 4096; ++c)
                v[r * 4096 + c] = float(r);
        v[100 * 4096 + 200] = std::numeric_limits<float>::infinity();
        HeatmapWidget w;
        w.resize(800, 600);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy ready(&w, &HeatmapWidget::blocksReady);
        w.setTensor(t);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 20000);
        const auto b = w.blocks();
        QVERIFY(b->downsampled());
        QCOMPARE(b->blockRows, 4u);
        QCOMPARE(b->blockCols, 4u);
        QCOMPARE(w.colorMap()->data()->keySize(), 1024);
        QCOMPARE(w.colorMap()->data()->valueSize(), 1024);
        QCOMPARE(w.colorMap()->data()->cell(0, 0), 1.5);   // mean of rows 0..3
        QCOMPARE(w.colorMap()->data()->cell(0, 25), 101.5); // rows 100..103
        QCOMPARE(w.colorMap()->data()->cell(50, 25), 1524.0 / 15); // the same without the Inf at (100, 200)
        QCOMPARE(w.markerMap()->data()->cell(50, 25), double(ValueClass::PosInf));
        QCOMPARE(w.markerMap()->data()->cell(51, 25), 0.0);
        QCOMPARE(w.markerDots(0)->dataCount(), 0);
        QCOMPARE(w.markerDots(1)->dataCount(), 1); // the Inf stays visible as a dot
        QCOMPARE(w.markerDots(1)->data()->at(0)->key, 201.5);

        w.plot()->replot();
        hover(w.plot(), QPointF(w.plot()->xAxis->coordToPixel(201), w.plot()->yAxis->coordToPixel(102)));
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            QVERIFY(w.grab().save(dir + QStringLiteral("/heatmap_4096.png")));
        QVERIFY2(w.hoverLabel()->text().startsWith(QStringLiteral("[100:104, 200:204]: mean 101.6, 1 NaN/Inf/saturated")), qPrintable(w.hoverLabel()->text()));

        // Two slice changes in a row: only the last one is drawn.
        ready.clear();
        w.setSlice(TensorSlice(t->shape, 1, 0)); // transposed
        w.setSlice(TensorSlice(t->shape, 0, 1));
        w.setSlice(TensorSlice(t->shape, 1, 0));
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy() && ready.count() >= 1, 20000);
        QTest::qWait(50);
        QCOMPARE(ready.count(), 1);
        QCOMPARE(w.blocks()->slice.rowDim(), 1);
        QCOMPARE(w.colorMap()->data()->cell(1, 0), 5.5); // column block 1 = original rows 4..7
    }

    void heatmapOneDimensional()
    {
        auto t = lazyTensor(Elem::F32, {10}, int(DataType::Float32));
        HeatmapWidget w;
        QSignalSpy ready(&w, &HeatmapWidget::blocksReady);
        w.setTensor(t);
        QTest::qWait(20);
        QCOMPARE(ready.count(), 0); // hidden (like a tab in the background): nothing computed
        QVERIFY(!w.isBusy());
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        // One column is drawn as two halves so that it has a width.
        QCOMPARE(w.colorMap()->data()->keySize(), 2);
        QCOMPARE(w.colorMap()->data()->valueSize(), 10);
        w.clear(QStringLiteral("gone"));
        QVERIFY(!w.blocks());
    }

    void sampleScreenshots()
    {
        const QString id = QStringLiteral("20240315101500/0/ge_default_20240315101512_1/1/0/1234567890.output.0");
        auto index = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/cann/model_dump"));
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const auto ref = (*index)->find(*TensorId::parse(id));
        QVERIFY(ref);
        auto tensor = loadTensor(**index, *ref);
        QVERIFY2(tensor.ok(), qPrintable(tensor.errorText()));
        const int dataType = (*index)->tensor(*ref).dataType();

        ValueGridWidget grid;
        grid.resize(1000, 520);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        grid.setTensor(*tensor, dataType);
        QVERIFY(grid.goTo(QStringLiteral("3, 5")));

        HeatmapWidget heat;
        heat.resize(1000, 620);
        heat.show();
        QVERIFY(QTest::qWaitForWindowExposed(&heat));
        QSignalSpy ready(&heat, &HeatmapWidget::blocksReady);
        heat.setTensor(*tensor, dataType);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        heat.plot()->replot();
        hover(heat.plot(), QPointF(heat.plot()->xAxis->coordToPixel(5), heat.plot()->yAxis->coordToPixel(3)));

        const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS");
        if (!dir.isEmpty()) {
            QVERIFY(grid.grab().save(dir + QStringLiteral("/valuegrid.png")));
            QVERIFY(heat.grab().save(dir + QStringLiteral("/heatmap.png")));
        }

        // A 4-D tensor (NC1HWC0 converted to [1, 20, 7, 7]): two index spin boxes.
        const auto ref4 = (*index)->find(*TensorId::parse(QStringLiteral(
            "20240315101500/0/ge_default_20240315101512_1/1/0/Conv2D.resnet_conv1_Conv2D.12.3.1710490512000001.input.0")));
        QVERIFY(ref4);
        auto t4 = loadTensor(**index, *ref4);
        QVERIFY2(t4.ok(), qPrintable(t4.errorText()));
        QCOMPARE((*t4)->shape, (Shape{1, 20, 7, 7}));
        grid.setTensor(*t4, (*index)->tensor(*ref4).dataType());
        QVERIFY(grid.sliceSelector()->indexSpin(0) && grid.sliceSelector()->indexSpin(1));
        grid.sliceSelector()->indexSpin(1)->setValue(4);
        QCOMPARE(grid.model()->slice().fixed()[1], 4u);
        ready.clear();
        heat.setTensor(*t4, (*index)->tensor(*ref4).dataType());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        heat.sliceSelector()->indexSpin(1)->setValue(4);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 10000);
        QCOMPARE(heat.blocks()->slice.fixed()[1], 4u);
        if (!dir.isEmpty()) {
            heat.plot()->replot();
            QVERIFY(grid.grab().save(dir + QStringLiteral("/valuegrid_4d.png")));
            QVERIFY(heat.grab().save(dir + QStringLiteral("/heatmap_4d.png")));
        }
    }
};

QTEST_MAIN(TestValueGrid)
#include "tst_valuegrid.moc"
