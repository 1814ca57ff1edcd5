// msprobe's compare tables paged (core/compare/resulttablepaged.h, issue 35 item 5). Oracle: the
// full parser (parseCsvTable, which read every table before) on the CSVs the real msprobe 26
// wrote (samples/msprobe_real, samples/msprobe_fixtures) and on a multi-MB table made of their
// rows with cells that hold line breaks, quotes and commas: the same header, cells and lines for
// random rows; the same verdicts as openedTableFrom; the same errors for bad files.
#include "compare/comparereport.h"
#include "compare/resulttable.h"
#include "compare/resulttablepaged.h"
#include "models/pagedcomparetablemodel.h"

#include <QAbstractItemModelTester>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace ds;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList committedTables()
{
    QStringList out;
    for (const char *dir : {DUMPSCOPE_SAMPLES "/msprobe_real", DUMPSCOPE_SAMPLES "/msprobe_fixtures"})
        for (QDirIterator it(QString::fromUtf8(dir), {QStringLiteral("*compare_result*.csv")}, QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();)
            out << it.next();
    out.sort();
    return out;
}

} // namespace

class TestResultTablePaged : public QObject
{
    Q_OBJECT

private slots:
    /// Every committed msprobe table: the paged reader gives the full parser's header, cells and
    /// lines, and openedTableFrom's verdict per row.
    void committedTablesEqualTheFullParser()
    {
        const QStringList tables = committedTables();
        QVERIFY2(tables.size() >= 60, qPrintable(QString::number(tables.size())));
        for (const QString &path : tables) {
            const auto full = parseCsvTable(readAll(path), path);
            QVERIFY2(full, qPrintable(full.errorText()));
            const auto paged = PagedCsvTable::open(path);
            QVERIFY2(paged, qPrintable(paged.errorText()));
            const PagedCsvTable &t = **paged;
            QCOMPARE(t.header(), full->header);
            QCOMPARE(size_t(t.rowCount()), full->rows.size());
            for (qint64 r = 0; r < t.rowCount(); ++r) {
                QCOMPARE(t.row(r), full->rows[size_t(r)]);
                QCOMPARE(t.line(r), full->lines[size_t(r)]);
            }
            const auto opened = openedTableFrom(*full);
            if (!opened) { // not an msprobe compare table: the paged open says the same
                const auto pagedOpen = openPagedCompareTable(path);
                QVERIFY(!pagedOpen);
                QCOMPARE(pagedOpen.errorText(), opened.errorText());
                continue;
            }
            std::array<qint64, 4> counts{};
            for (size_t r = 0; r < opened->result->rows.size(); ++r) {
                QCOMPARE(t.verdict(qint64(r)), opened->result->rows[r].verdict);
                ++counts[size_t(opened->result->rows[r].verdict)];
            }
            QCOMPARE(t.verdictCounts(), counts);
            QVERIFY(openPagedCompareTable(path));
        }
    }

    /// The paged summary (dumpscope-cli compare of a large table) counts every committed table's
    /// rows as the compare JSON of the whole table does, and lists its first rows that are not a
    /// pass in order.
    void pagedSummaryEqualsTheWholeTable()
    {
        int checked = 0;
        for (const QString &path : committedTables()) {
            const auto whole = openCompareTable(path);
            if (!whole)
                continue;
            const auto paged = openPagedCompareTable(path);
            QVERIFY2(paged, qPrintable(paged.errorText()));
            QCOMPARE(paged->mode, whole->result->mode);
            const QJsonObject full = QJsonDocument::fromJson(compareJson(*whole->npu, *whole->bench, *whole->result)).object();
            const QJsonObject mine = QJsonDocument::fromJson(pagedTableJson(*paged)).object();
            QCOMPARE(mine.value(QStringLiteral("summary")), full.value(QStringLiteral("summary")));
            QStringList expected;
            for (const CompareRow &row : whole->result->rows)
                if ((row.verdict == Verdict::Warning || row.verdict == Verdict::Error) && expected.size() < kPagedNotPassListed)
                    expected << row.npuName;
            QStringList listed;
            for (const QJsonValue &v : mine.value(QStringLiteral("not_pass")).toArray())
                listed << v.toObject().value(QStringLiteral("npu_name")).toString();
            QCOMPARE(listed, expected);
            ++checked;
        }
        QVERIFY(checked >= 60);
    }

    /// A multi-MB table (committed rows, renamed per copy, and rows whose cells hold line breaks,
    /// quotes, commas, CRLF ends and blank lines): random rows paged equal the full parser's.
    void generatedTableRandomRows()
    {
        const QString source = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/compare/bf16_statistics_mix/step0/csv");
        const QStringList found = QDir(source).entryList({QStringLiteral("compare_result_rank0_*.csv")});
        QVERIFY(!found.isEmpty());
        const QByteArray src = readAll(source + QLatin1Char('/') + found.front());
        const qsizetype headerEnd = src.indexOf('\n') + 1;
        const QByteArray header = src.left(headerEnd), body = src.mid(headerEnd);
        const int columns = int(parseCsvTable(header, QStringLiteral("h.csv"))->header.size());
        QByteArray text = header;
        for (int copy = 0; text.size() < (6 << 20); ++copy) {
            text += QByteArray(body).replace(".0.forward", QByteArray(".0" + QByteArray::number(copy) + ".forward"));
            // a row of odd cells: a line break and quotes in a name, a comma, a CRLF end, a blank line
            QByteArray odd = QByteArray("\"Odd.\"\"name\"\"\n" + QByteArray::number(copy) + ".forward.input.0\",\"b,\r\nc\"");
            for (int k = 2; k < columns; ++k)
                odd += k == columns - 1 ? ",\"['x\"\"y, z']\"" : ","; // the stack: a Python list
            text += odd + (copy % 2 ? "\r\n" : "\n\n");
        }
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("compare_result_rank0_big.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        const auto full = parseCsvTable(text, path);
        QVERIFY2(full, qPrintable(full.errorText()));
        const auto paged = PagedCsvTable::open(path);
        QVERIFY2(paged, qPrintable(paged.errorText()));
        const PagedCsvTable &t = **paged;
        QCOMPARE(t.header(), full->header);
        QCOMPARE(size_t(t.rowCount()), full->rows.size());
        QVERIFY(t.rowCount() > 10000);
        QRandomGenerator rng(35);
        for (int i = 0; i < 2000; ++i) {
            const qint64 r = i < 2 ? (i ? t.rowCount() - 1 : 0) : qint64(rng.bounded(quint32(t.rowCount())));
            QCOMPARE(t.row(r), full->rows[size_t(r)]);
            QCOMPARE(t.line(r), full->lines[size_t(r)]);
        }
        const auto opened = openedTableFrom(*full);
        QVERIFY2(opened, qPrintable(opened.errorText()));
        for (qint64 r = 0; r < t.rowCount(); r += 97)
            QCOMPARE(t.verdict(r), opened->result->rows[size_t(r)].verdict);
        QCOMPARE(readCsvTable(path)->rows, full->rows);

        // the first screen: only the first rows indexed
        const auto head = PagedCsvTable::open(path, nullptr, 100);
        QVERIFY2(head, qPrintable(head.errorText()));
        QCOMPARE((*head)->rowCount(), 100);
        QVERIFY(!(*head)->complete());
        QVERIFY(t.complete());
        for (qint64 r = 0; r < 100; ++r) {
            QCOMPARE((*head)->row(r), full->rows[size_t(r)]);
            QCOMPARE((*head)->line(r), full->lines[size_t(r)]);
        }

        // the model parses the pages the view asks for, not the table
        PagedCompareTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(*paged);
        QCOMPARE(model.rowCount(), int(t.rowCount()));
        QCOMPARE(model.columnCount(), int(t.header().size()));
        for (int r = 0; r < 40; ++r) // a first screen: one page parsed
            for (int c = 0; c < model.columnCount(); ++c)
                QCOMPARE(model.index(r, c).data(Qt::ToolTipRole).toString(), full->rows[size_t(r)][c]);
        QCOMPARE(model.rowsParsed(), PagedCompareTableModel::kPageRows);
        for (int i = 0; i < 200; ++i) {
            const int r = int(rng.bounded(quint32(t.rowCount())));
            const int c = int(rng.bounded(quint32(t.header().size())));
            QCOMPARE(model.index(r, c).data(PagedCompareTableModel::LineRole).toInt(), full->lines[size_t(r)]);
            QCOMPARE(model.index(r, c).data(Qt::ToolTipRole).toString(), full->rows[size_t(r)][c]);
        }
        QVERIFY2(model.rowsParsed() <= 200 * PagedCompareTableModel::kPageRows, qPrintable(QString::number(model.rowsParsed())));
        model.setNotPassOnly(true);
        int notPass = 0;
        for (const CompareRow &row : opened->result->rows)
            notPass += row.verdict == Verdict::Warning || row.verdict == Verdict::Error;
        QCOMPARE(model.rowCount(), notPass);
        for (int r = 0; r < model.rowCount(); r += 101) {
            const qint64 tableRow = model.index(r, 0).data(PagedCompareTableModel::TableRowRole).toLongLong();
            QVERIFY(opened->result->rows[size_t(tableRow)].verdict >= Verdict::Warning);
            QCOMPARE(model.index(r, 0).data().toString(), full->rows[size_t(tableRow)][0]);
        }

        // with a pool (the GUI), data() never parses: the page is parsed on the pool and its rows
        // change when it arrives, in the whole table and among the rows that are not a pass
        QThreadPool pool;
        PagedCompareTableModel async;
        QAbstractItemModelTester asyncTester(&async, QAbstractItemModelTester::FailureReportingMode::QtTest);
        async.setPool(&pool);
        async.setTable(*paged);
        QTRY_COMPARE(async.pagesLoading(), 0); // the model tester's first look (page 0)
        const qint64 parsedBefore = async.rowsParsed();
        QSignalSpy changed(&async, &QAbstractItemModel::dataChanged);
        const int row = int(3 * PagedCompareTableModel::kPageRows + 5);
        QCOMPARE(async.index(row, 1).data().toString(), QString());
        QCOMPARE(async.rowsParsed(), parsedBefore);
        QCOMPARE(async.pagesLoading(), 1);
        QCOMPARE(async.index(row, 0).data(PagedCompareTableModel::LineRole).toInt(), full->lines[size_t(row)]); // no page needed
        QTRY_COMPARE(async.pagesLoading(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.front().at(0).value<QModelIndex>().row(), int(3 * PagedCompareTableModel::kPageRows));
        QCOMPARE(changed.front().at(1).value<QModelIndex>().row(), int(4 * PagedCompareTableModel::kPageRows) - 1);
        QCOMPARE(async.rowsParsed(), parsedBefore + PagedCompareTableModel::kPageRows);
        for (int c = 0; c < async.columnCount(); ++c)
            QCOMPARE(async.index(row, c).data(Qt::ToolTipRole).toString(), full->rows[size_t(row)][c]);
        async.setNotPassOnly(true);
        QTRY_COMPARE(async.pagesLoading(), 0);
        changed.clear();
        const int shown = async.rowCount() / 2;
        const qint64 tableRow = async.index(shown, 0).data(PagedCompareTableModel::TableRowRole).toLongLong();
        QCOMPARE(async.index(shown, 0).data().toString(), QString());
        QTRY_COMPARE(async.pagesLoading(), 0);
        QCOMPARE(changed.count(), 1);
        const int top = changed.front().at(0).value<QModelIndex>().row(), bottom = changed.front().at(1).value<QModelIndex>().row();
        QVERIFY(top <= shown && shown <= bottom);
        for (int r = top; r <= bottom; ++r) // the changed rows are those of the page's table rows
            QCOMPARE(async.index(r, 0).data(PagedCompareTableModel::TableRowRole).toLongLong() / PagedCompareTableModel::kPageRows,
                     tableRow / PagedCompareTableModel::kPageRows);
        QCOMPARE(async.index(shown, 0).data().toString(), full->rows[size_t(tableRow)][0]);
        // a page asked for before the table changed is dropped when it arrives
        (void)async.index(0, 0).data();
        async.setTable(nullptr);
        pool.waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(async.rowCount(), 0);
    }

    /// Bad files: the paged reader gives the full parser's error, which names the file, the line
    /// and the column.
    void malformedTables_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected"); // a part of the error text
        const QByteArray head = "NPU Name,Bench Name,Result\n";
        QTest::addRow("unterminated quote") << head + "a,b,pass\n\"c,d,error\n" << QStringLiteral("line 3, column 1 (NPU Name): a quoted field that never ends");
        QTest::addRow("truncated in a quoted cell") << head + "a,b,pass\nc,\"d" << QStringLiteral("line 3, column 2 (Bench Name): a quoted field that never ends");
        QTest::addRow("short row") << head + "a,b,pass\nc,d\n" << QStringLiteral("line 3: 2 fields where the header has 3");
        QTest::addRow("truncated row") << head + "a,b,pass\nc,d,pa" << QString();
        QTest::addRow("quote inside a field") << head + "a,b\"x,pass\n" << QStringLiteral("line 2, column 2 (Bench Name): a quote inside an unquoted field");
        QTest::addRow("text after a quote") << head + "a,\"b\"x,pass\n" << QStringLiteral("line 2, column 2 (Bench Name): text after the closing quote");
        QTest::addRow("not UTF-8") << head + "a,\xff\xfe,pass\n" << QStringLiteral("line 2, column 2 (Bench Name): the text is not UTF-8");
        QTest::addRow("not UTF-8 at the end") << head + "a,b,pass\xc3" << QStringLiteral("line 2, column 3 (Result): the text is not UTF-8");
        QTest::addRow("short row before a bad quote") << head + "a,b\nc,\"d" << QStringLiteral("line 3, column 2 (Bench Name): a quoted field");
        QTest::addRow("empty") << QByteArray("\xEF\xBB\xBF\n\n") << QStringLiteral("the file is empty");
    }
    void malformedTables()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("compare_result_rank0_bad.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        const auto full = parseCsvTable(bytes, path);
        const auto paged = PagedCsvTable::open(path);
        QCOMPARE(bool(paged), bool(full));
        if (!full) {
            QCOMPARE(paged.errorText(), full.errorText());
            QVERIFY2(paged.errorText().contains(path), qPrintable(paged.errorText()));
            QVERIFY2(paged.errorText().contains(expected), qPrintable(paged.errorText()));
        } else {
            QCOMPARE((*paged)->toTextTable().rows, full->rows);
        }
    }

    /// A Result cell that is not one: openedTableFrom's error, from the paged open too.
    void badResultCell()
    {
        const QString src = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/compare/bf16_statistics_mix/step0/csv");
        const QString name = QDir(src).entryList({QStringLiteral("compare_result_rank0_*.csv")}).value(0);
        QByteArray bytes = readAll(src + QLatin1Char('/') + name);
        const qsizetype at = bytes.indexOf(",pass,", bytes.indexOf('\n', bytes.indexOf('\n') + 1));
        QVERIFY(at > 0);
        bytes.replace(at, 6, ",passed,");
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        const auto full = openCompareTable(path);
        QVERIFY(!full);
        const auto paged = openPagedCompareTable(path);
        QVERIFY(!paged);
        QCOMPARE(paged.errorText(), full.errorText());
    }
};

QTEST_GUILESS_MAIN(TestResultTablePaged)
#include "tst_resulttablepaged.moc"
