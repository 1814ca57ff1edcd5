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

    /// The heatmap's row names do not overlap and stay inside the panel, at sizes from small to
    /// large (31 names over 230 pixels were drawn on top of each other): as many as fit, each
    /// its row's name or the end of that name after an ellipsis, the first row always named.
    void rowLabelsDoNotOverlap_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("small") << QSize(300, 420);
        QTest::newRow("dock at 1280x800") << QSize(290, 680);
        QTest::newRow("wide") << QSize(900, 900);
        QTest::newRow("tall") << QSize(600, 1400);
    }
    void rowLabelsDoNotOverlap()
    {
        QFETCH(QSize, size);
        const auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix"));
        QVERIFY(built);
        TrendsPanel panel;
        panel.resize(size);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy ready(&panel, &TrendsPanel::tableReady);
        panel.setStatistics(*built, QStringLiteral("labels"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        const TrendTable &t = *panel.table();
        QVERIFY(t.rows.size() >= 30);
        panel.heatmap()->replot(); // the queued replots, now
        panel.heatmap()->replot();
        const auto labels = panel.rowLabelRects();
        QVERIFY(!labels.isEmpty());
        const QRect axis = panel.heatmap()->axisRect()->rect();
        const int fit = axis.height() / QFontMetrics(panel.heatmap()->yAxis->tickLabelFont()).height();
        QVERIFY2(labels.size() >= std::min<qsizetype>(t.rows.size(), fit / 2),
                 qPrintable(QStringLiteral("%1 names for %2 rows in %3 px").arg(labels.size()).arg(t.rows.size()).arg(axis.height())));
        QCOMPARE(labels.front().second.isEmpty(), false);
        for (qsizetype i = 0; i < labels.size(); ++i) {
            const QRectF r = labels[i].first;
            QVERIFY2(r.left() >= 0 && r.right() <= axis.left(), qPrintable(labels[i].second));
            if (i > 0)
                QVERIFY2(!r.intersects(labels[i - 1].first),
                         qPrintable(QStringLiteral("'%1' overlaps '%2'").arg(labels[i].second, labels[i - 1].second)));
            // the label is its row's name, or the end of it
            const int row = int(std::lround(panel.heatmap()->yAxis->pixelToCoord(r.center().y())));
            const QString name = t.rows[row], label = labels[i].second;
            QVERIFY2(label.startsWith(QChar(0x2026)) ? name.endsWith(label.mid(1)) && label.size() > 8 : label == name, qPrintable(label));
        }
        QCOMPARE(int(std::lround(panel.heatmap()->yAxis->pixelToCoord(labels.front().first.center().y()))), 0);
        if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
            panel.grab().save(dir + QStringLiteral("/trends_labels_%1x%2.png").arg(size.width()).arg(size.height()));
    }
};

QTEST_MAIN(TestTrendsPanel)
#include "tst_trendspanel.moc"
