// views/trendspanel: the heatmap as drawn. The oracle is the trend table itself: every row
// with a value must be coloured at its centre, on a run of one step (a single column) and on
// a rank of thousands of rows (drawn as bands).
#include "compare/comparematch.h"
#include "index/buildindex.h"
#include "models/optablemodel.h"
#include "run/runtree.h"
#include "trendspanel.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QToolButton>
#include <QTemporaryDir>
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

    /// A hundred steps: the step axis labels every k-th step, k round, so that no label is
    /// drawn over the next (all hundred were drawn, on top of each other, on a 1,024 x 100 run).
    void stepLabelsDoNotOverlap()
    {
        QTemporaryDir dir;
        const QString rank0 = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix/step0/rank0");
        constexpr int kSteps = 100;
        for (int step = 0; step < kSteps; ++step) {
            const QString to = dir.filePath(QStringLiteral("step%1/rank0").arg(step));
            QVERIFY(QDir().mkpath(to));
            for (const QString &f : QDir(rank0).entryList(QDir::Files))
                QVERIFY(QFile::copy(rank0 + QLatin1Char('/') + f, to + QLatin1Char('/') + f));
        }
        const auto built = buildIndex(dir.path());
        QVERIFY(built);
        TrendsPanel panel;
        panel.resize(600, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy ready(&panel, &TrendsPanel::tableReady);
        panel.setStatistics(*built, QStringLiteral("steps"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        QCOMPARE(int(panel.table()->steps.size()), kSteps);
        QCustomPlot *plot = panel.heatmap();
        plot->replot();
        const auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        const QFontMetrics fm(plot->xAxis->tickLabelFont());
        QVERIFY(ticker->ticks().size() >= 3); // still labelled
        double lastRight = -1e9;
        for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
            const double x = plot->xAxis->coordToPixel(it.key()), half = fm.horizontalAdvance(it.value()) / 2.0;
            QVERIFY2(x - half > lastRight, qPrintable(QStringLiteral("step label '%1' overlaps the one before").arg(it.value())));
            QCOMPARE(it.value(), QString::number(panel.table()->steps[size_t(it.key())])); // the step it stands under
            lastRight = x + half;
        }
    }

    /// "Fraction that underflows in <dtype>" (issue 34) on a real msprobe tensor dump (two steps,
    /// two ranks): every operator's cell is the fraction of its outputs' finite values that
    /// underflows in the target, computed here from the core API the graph's colour uses
    /// (computeOpStats: the tensors read, their headroom counts); an operator whose outputs were
    /// not saved as tensors has no value (cannot tell), not zero. On a statistics dump of the same
    /// model every cell is empty.
    void underflowFractionPerTarget()
    {
        const auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix"));
        QVERIFY(built);
        const DumpIndex &index = **built;
        TrendsPanel panel;
        panel.resize(1280, 800);
        panel.show();
        QSignalSpy ready(&panel, &TrendsPanel::tableReady);
        panel.setStatistics(*built, QStringLiteral("tensor run"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        // the oracle: per operator (not parameters_grad, whose rows are per gradient)
        std::vector<OpStats> oracle(index.ops.size());
        for (size_t op = 0; op < index.ops.size(); ++op)
            oracle[op] = computeOpStats(index, int(op));
        for (const HeadroomLimits &l : headroomLimits()) {
            QComboBox *metric = panel.metricCombo();
            const int item = metric->findData(int(underflowMetric(l.target)));
            QVERIFY2(item >= 0, l.name);
            ready.clear();
            metric->setCurrentIndex(item);
            emit metric->activated(item);
            QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 120000);
            const TrendTable &t = *panel.table();
            QCOMPARE(t.metric, underflowMetric(l.target));
            QCOMPARE(t.steps.size(), size_t(2));
            QCOMPARE(t.ranks.size(), size_t(2));
            int withValue = 0, empty = 0, nonzero = 0;
            for (size_t op = 0; op < index.ops.size(); ++op) {
                const OpRecord &record = index.ops[op];
                const QString name = opMatchKey(record);
                if (!parametersGradBase(name).isEmpty())
                    continue;
                const int row = int(t.rows.indexOf(name));
                const int step = int(t.stepLabels.indexOf(scopeStepLabel(*record.levels)));
                const int rank = int(t.rankLabels.indexOf(scopeRankLabel(*record.levels)));
                QVERIFY2(row >= 0 && step >= 0 && rank >= 0, qPrintable(name));
                const double expected = oracle[op].underflowFraction(l.target), got = t.value(row, step, rank);
                if (std::isnan(expected)) {
                    QVERIFY2(std::isnan(got), qPrintable(QStringLiteral("%1 %2: %3, expected no value").arg(l.name, name).arg(got)));
                    ++empty;
                } else {
                    QVERIFY2(got == expected, qPrintable(QStringLiteral("%1 %2: %3, expected %4").arg(l.name, name).arg(got).arg(expected)));
                    ++withValue;
                    nonzero += got > 0;
                }
            }
            QVERIFY(withValue > 20);
            QVERIFY(empty > 0); // the outputs saved as scalars or not at all
            if (l.target == HeadroomTarget::Float8E4M3FN || l.target == HeadroomTarget::Float8E5M2)
                QVERIFY2(nonzero > 0, l.name); // small values vanish in float8
            // the line chart's value axis names the metric within the axis (a longer label is cut at both ends)
            for (QCustomPlot *plot : panel.findChildren<QCustomPlot *>()) {
                const QCPAxis *y = plot->yAxis;
                if (y->label().isEmpty())
                    continue;
                QVERIFY2(QFontMetrics(y->labelFont()).horizontalAdvance(y->label()) <= std::max(80, y->axisRect()->height()),
                         qPrintable(QStringLiteral("%1: '%2' along %3 px").arg(l.name, y->label()).arg(y->axisRect()->height())));
            }
            if (const QString dir = qEnvironmentVariable("DUMPSCOPE_SCREENSHOTS"); !dir.isEmpty())
                panel.grab().save(dir + QStringLiteral("/trends_underflow_%1.png").arg(QString::fromLatin1(l.name)));
        }
        // a statistics-only run: cannot tell anywhere
        const auto stats = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_statistics_mix"));
        QVERIFY(stats);
        ready.clear();
        panel.setStatistics(*stats, QStringLiteral("statistics run"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        QCOMPARE(panel.table()->metric, TrendMetric::UnderflowHiFloat8);
        QVERIFY(!panel.table()->rows.isEmpty());
        QVERIFY(std::all_of(panel.table()->values.begin(), panel.table()->values.end(), [](double v) { return std::isnan(v); }));
        QVERIFY(!panel.stopButton()->isVisible());
        const auto labels = panel.findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](QLabel *l) { return l->text().contains(QLatin1String("blank: cannot tell")); }));
    }

    /// Stop ends the tensor reading; the panel says so and then builds other metrics again.
    void underflowStops()
    {
        const auto built = buildIndex(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/dumps/base_tensor_mix"));
        QVERIFY(built);
        TrendsPanel panel;
        panel.show();
        QSignalSpy ready(&panel, &TrendsPanel::tableReady);
        panel.setStatistics(*built, QStringLiteral("tensor run"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        QComboBox *metric = panel.metricCombo();
        const int item = metric->findData(int(TrendMetric::UnderflowFloat8E4M3FN));
        QVERIFY(item >= 0);
        ready.clear();
        metric->setCurrentIndex(item);
        emit metric->activated(item);
        QVERIFY(panel.isBusy() && panel.stopButton()->isVisibleTo(&panel));
        // the title says where an underflow fraction comes from: the tensors, not the recorded statistics
        auto titled = [&panel](const QString &text) {
            const auto labels = panel.findChildren<QLabel *>();
            return std::any_of(labels.begin(), labels.end(), [&](QLabel *l) { return l->text() == text; });
        };
        QVERIFY(titled(trendMetricName(TrendMetric::UnderflowFloat8E4M3FN) + QStringLiteral(", read from the tensors of tensor run")));
        QVERIFY(!titled(QStringLiteral("Recorded statistics of tensor run")));
        panel.stopButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy(), 60000);
        QVERIFY(!panel.stopButton()->isVisibleTo(&panel));
        if (!panel.table()) { // (the job may have finished before the click)
            const auto status = panel.findChildren<QLabel *>();
            QVERIFY(std::any_of(status.begin(), status.end(), [](QLabel *l) { return l->text().startsWith(QLatin1String("Stopped")); }));
        }
        ready.clear();
        const int norm = metric->findData(int(TrendMetric::Norm));
        metric->setCurrentIndex(norm);
        emit metric->activated(norm);
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && !panel.isBusy() && panel.table(), 60000);
        QCOMPARE(panel.table()->metric, TrendMetric::Norm);
        QVERIFY(titled(QStringLiteral("Recorded statistics of tensor run")));
    }
};

QTEST_MAIN(TestTrendsPanel)
#include "tst_trendspanel.moc"
