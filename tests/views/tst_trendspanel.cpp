// views/trendspanel: the heatmap as drawn. The oracle is the trend table itself: every row
// with a value must be coloured at its centre, on a run of one step (a single column) and on
// a rank of thousands of rows (drawn as bands).
#include "index/buildindex.h"
#include "trendspanel.h"

#include <QSignalSpy>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>

using namespace ds;

namespace {

/// Pixels of the heatmap at the centre of every band with a value that differ from the
/// plot's background, and the number of such bands.
std::pair<int, int> colouredBands(TrendsPanel &panel)
{
    const TrendTable &t = *panel.table();
    const TrendBands b = trendBands(t, 600); // TrendsPanel::kMaxBands
    QCustomPlot *plot = panel.heatmap();
    plot->replot();
    const QImage image = plot->toPixmap().toImage();
    const QColor background = image.pixelColor(2, 2);
    int coloured = 0, withValue = 0;
    for (int band = 0; band < b.count; ++band) {
        if (std::isnan(bandValue(t, b, band, 0, -1)))
            continue;
        ++withValue;
        const QPoint at(int(plot->xAxis->coordToPixel(0)), int(plot->yAxis->coordToPixel(band)));
        coloured += image.pixelColor(at) != background;
    }
    return {coloured, withValue};
}

} // namespace

class TestTrendsPanel : public QObject
{
    Q_OBJECT
private slots:
    /// One step: the column spans its cell (its data range was 0.0001 wide, so a one-step run's
    /// heatmap drew nothing).
    void oneStepIsDrawn()
    {
        const auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/npu_bf16_statistics_mix/step0"));
        QVERIFY(built);
        TrendsPanel panel;
        panel.resize(900, 900);
        panel.show();
        QSignalSpy ready(&panel, &TrendsPanel::tableReady);
        panel.setStatistics(*built, QStringLiteral("one step"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        QVERIFY(panel.table()->steps.size() == 1 && panel.table()->rows.size() > 5);
        const auto [coloured, withValue] = colouredBands(panel);
        QVERIFY(withValue > 5);
        QCOMPARE(coloured, withValue);
    }
};

QTEST_MAIN(TestTrendsPanel)
#include "tst_trendspanel.moc"
