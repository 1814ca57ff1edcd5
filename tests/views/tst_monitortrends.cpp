// msprobe's monitor series in the Trends tab (views/trendspanel "msprobe monitor series",
// core/run/monitortrend; issue 33 item 5). Oracle: the CSVs of samples/msprobe_monitor read here
// with a plain split (the rank from the folder name, the last micro step of each step), against
// every cell of the table the panel draws.
#include "monitor/monitor.h"
#include "trendspanel.h"

#include <QComboBox>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <cmath>
#include <map>
#include <tuple>

using namespace ds;

class TestMonitorTrends : public QObject
{
    Q_OBJECT
private slots:
    void actvNorm()
    {
        const QString root = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_monitor/monitor_output");
        // (rank, module, step) -> (micro step, norm) of the last micro step
        std::map<std::tuple<int, QString, qint64>, std::pair<int, double>> want;
        static const QRegularExpression rankRe(QStringLiteral("-rank(\\d+)-"));
        QDirIterator it(root, {QStringLiteral("actv_*.csv")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const int rank = rankRe.match(file).captured(1).toInt();
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QStringList header = QString::fromUtf8(f.readLine()).trimmed().split(QLatin1Char(','));
            const int name = int(header.indexOf(QStringLiteral("name"))), step = int(header.indexOf(QStringLiteral("step")));
            const int micro = int(header.indexOf(QStringLiteral("micro_step"))), norm = int(header.indexOf(QStringLiteral("norm")));
            QVERIFY(name >= 0 && step >= 0 && norm >= 0);
            while (!f.atEnd()) {
                const QStringList cells = QString::fromUtf8(f.readLine()).trimmed().split(QLatin1Char(','));
                if (cells.size() != header.size())
                    continue;
                const int m = micro >= 0 ? cells[micro].toInt() : 0;
                auto &slot = want[{rank, cells[name], cells[step].toLongLong()}];
                if (slot.first <= m)
                    slot = {m, cells[norm].toDouble()};
            }
        }
        QVERIFY(want.size() >= 8);

        auto doc = monitor::openMonitor(root);
        QVERIFY2(doc, qPrintable(doc.errorText()));
        TrendsPanel panel;
        panel.resize(900, 700);
        panel.show();
        panel.setMonitor(std::make_shared<const monitor::MonitorDocument>(std::move(*doc)), QStringLiteral("monitor"));
        QCOMPARE(panel.sourceCombo()->currentText(), QStringLiteral("msprobe monitor series"));
        const int actv = panel.metricCombo()->findText(QStringLiteral("actv / norm"));
        QVERIFY(actv >= 0);
        panel.metricCombo()->setCurrentIndex(actv);
        emit panel.metricCombo()->activated(actv);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy() && panel.table(), 10000);
        const TrendTable &t = *panel.table();
        int cells = 0;
        for (const auto &[key, value] : want) {
            const auto &[rank, module, step] = key;
            const int row = int(t.rows.indexOf(module));
            const int s = t.stepIndex(step);
            const int r = int(std::find(t.ranks.begin(), t.ranks.end(), qint64(rank)) - t.ranks.begin());
            QVERIFY2(row >= 0 && s >= 0 && size_t(r) < t.ranks.size(), qPrintable(module));
            QCOMPARE(t.value(row, s, r), value.second); // a NaN norm (the anomaly sample) as NaN
            cells += !std::isnan(value.second);
        }
        int withValue = 0;
        for (double v : t.values)
            withValue += !std::isnan(v);
        QCOMPARE(withValue, cells); // nothing else in the table
    }
};

QTEST_MAIN(TestMonitorTrends)
#include "tst_monitortrends.moc"
