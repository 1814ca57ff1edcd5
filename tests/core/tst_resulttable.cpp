// msprobe's compare tables opened as a comparison (core/compare/resulttable.h, issue 33 item 1).
// Oracle: the CSV and xlsx files the real msprobe 26.0.0 wrote (samples/msprobe_real/compare,
// samples/msprobe_fixtures/compare) against what DumpScope computes from the same dump pair:
// the same rows in the same order, the same Results and Err_messages, and the same first
// divergence once the computed rows are judged by their Result too. Bad input: truncated and
// garbled CSV and xlsx, missing columns, another tool's table: an error naming the file, the
// line and the column.
#include "compare/compare.h"
#include "compare/comparereport.h"
#include "compare/resulttable.h"
#include "compare/tabledumps.h"
#include "index/buildindex.h"
#include "models/comparetablemodel.h"
#include "copytree.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace ds;
using ds::testing::copyTree;

namespace {

const QString kReal = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

std::shared_ptr<const DumpIndex> open(const QString &path)
{
    auto r = buildIndex(path);
    return r ? std::shared_ptr<const DumpIndex>(*r) : nullptr;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

/// The dumps a table of msprobe_real/compare/<case>/step<N>/<kind>/..._rank<R>_... was written
/// from: the case's npu and bench runs in expected.json (its README: read it rather than guess
/// names; the align_* cases pair align_<variant>_statistics_mix with align_base_statistics_mix),
/// dumps/<run>/step<N>/rank<R>.
std::pair<QString, QString> dumpsOf(const QString &table)
{
    static const QHash<QString, std::pair<QString, QString>> cases = [] {
        QHash<QString, std::pair<QString, QString>> out;
        const QJsonObject expected = QJsonDocument::fromJson(readAll(kReal + QStringLiteral("/expected.json"))).object();
        const QJsonObject runs = expected.value(QStringLiteral("runs")).toObject();
        for (const QJsonValue c : expected.value(QStringLiteral("cases")).toArray()) {
            const QJsonObject o = c.toObject();
            if (o.value(QStringLiteral("kind")).toString() != QLatin1String("pair"))
                continue;
            auto path = [&](const QString &key) {
                return runs.value(o.value(key).toString()).toObject().value(QStringLiteral("path")).toString();
            };
            out.insert(o.value(QStringLiteral("id")).toString(), {path(QStringLiteral("npu")), path(QStringLiteral("bench"))});
        }
        return out;
    }();
    static const QRegularExpression re(QStringLiteral(R"(/compare/(\w+)/(step\d+)/\w+/compare_result_(rank\d+)_)"));
    const auto m = re.match(table);
    const auto c = cases.constFind(m.captured(1));
    if (!m.hasMatch() || c == cases.cend() || c->first.isEmpty() || c->second.isEmpty())
        return {};
    const QString tail = QLatin1Char('/') + m.captured(2) + QLatin1Char('/') + m.captured(3);
    return {kReal + QLatin1Char('/') + c->first + tail, kReal + QLatin1Char('/') + c->second + tail};
}

QString originName(const CompareResult &r)
{
    return r.divergences.empty() ? QString() : r.rows[size_t(r.divergences.front().originRow)].npuName;
}

} // namespace

class TestResultTable : public QObject
{
    Q_OBJECT
    /// The test's HOME, where the tables' dump search stops: the trees the tests make lie below
    /// it, so the search never reaches the system's temporary folder, where other tests running
    /// at the same time keep copies of these dumps (found there, a table linked that must not be).
    QTemporaryDir m_home;
    QString belowHome() const { return m_home.filePath(QStringLiteral("t-XXXXXX")); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("HOME", m_home.path().toUtf8());
    }
    void sameAsComputed_data();
    void sameAsComputed();
    void xlsxSameAsCsv_data();
    void xlsxSameAsCsv();
    void fixtures();
    void csvParser();
    void badInput_data();
    void badInput();
    void tableModel();
    void findsDumpsBeside_data();
    void findsDumpsBeside();
    void dumpsFromCompareJson();
    void noDumpsBeside();
    void hugeDumpBesideNotRead();
    void searchStopsAtTheNearestDumps();
    void largeTreeNotDescended();
};

void TestResultTable::sameAsComputed_data()
{
    QTest::addColumn<QString>("table");
    int n = 0;
    for (QDirIterator it(kReal + QStringLiteral("/compare"), {QStringLiteral("*.csv")}, QDir::Files, QDirIterator::Subdirectories);
         it.hasNext();) {
        const QString path = it.next();
        if (path.contains(QLatin1String("/data_mapping/")))
            continue; // msprobe -dm tables pair by the mapping file (compare_write_mapping checks them)
        QTest::addRow("%s", qPrintable(QDir(kReal).relativeFilePath(path))) << path;
        ++n;
    }
    QVERIFY(n >= 40);
}

void TestResultTable::sameAsComputed()
{
    QFETCH(QString, table);
    const auto [npuPath, benchPath] = dumpsOf(table);
    QVERIFY2(!npuPath.isEmpty() && QFileInfo::exists(npuPath) && QFileInfo::exists(benchPath), qPrintable(npuPath));
    if (table.contains(QLatin1String("/compare/align_")))
        QSKIP("msprobe pairs these op streams (they do not line up by name) by two rules DumpScope's name pairing "
              "does not copy yet: an argument that is None on one side never pairs with a tensor (Functional.linear.1."
              "forward.input.2), and backward call numbers are counted again (NPU Tensor.__mul__.0.backward with "
              "bench Tensor.__mul__.1.backward); -fm tables pair by names without counters");
    const auto npu = open(npuPath), bench = open(benchPath);
    QVERIFY(npu && bench);
    // DumpScope's answer from the dumps with msprobe's pairing (names, as --style msprobe: the
    // structure aligner of rule 4 pairs the align_* runs differently), judged by its Result
    CompareOptions byName;
    byName.align = false;
    CompareResult computed = compareIndexes(*npu, *bench, byName);
    for (CompareRow &row : computed.rows)
        row.verdict = row.compared() ? msprobeVerdict(row) : Verdict::None;
    findDivergences(*npu, computed);

    const auto unlinked = openCompareTable(table);
    QVERIFY2(unlinked, qPrintable(unlinked.errorText()));
    const auto linked = openCompareTable(table, npu, bench);
    QVERIFY2(linked, qPrintable(linked.errorText()));
    QCOMPARE(linked->unlinkedRows, 0);
    QCOMPARE(linked->result->tablePath, table);
    for (const OpenedTable *t : {&*unlinked, &*linked}) {
        const CompareResult &r = *t->result;
        QCOMPARE(r.mode, computed.mode);
        QCOMPARE(r.rows.size(), computed.rows.size());
        for (size_t i = 0; i < r.rows.size(); ++i) {
            const CompareRow &a = r.rows[i], &b = computed.rows[i];
            QCOMPARE(a.npuName, b.npuName);
            QCOMPARE(a.bench.op >= 0, b.bench.op >= 0);
            if (b.bench.op >= 0)
                QCOMPARE(a.benchName, b.benchName);
            QCOMPARE(a.result, b.result);
            QCOMPARE(a.resultMessages, b.resultMessages);
            QCOMPARE(a.verdict, b.verdict);
            QCOMPARE(a.io, b.io);
        }
    }
    // linked, the rows are the dumps' tensors and the first divergence is the computed one
    const CompareResult &l = *linked->result;
    for (size_t i = 0; i < l.rows.size(); ++i)
        QCOMPARE(linked->npu->tensorId(l.rows[i].npu), npu->tensorId(computed.rows[i].npu));
    QCOMPARE(l.divergences.size(), computed.divergences.size());
    QCOMPARE(originName(l), originName(computed));
    if (!computed.divergences.empty()) {
        QCOMPARE(l.divergences.front().cause, computed.divergences.front().cause);
        QCOMPARE(l.divergences.front().chain, computed.divergences.front().chain);
    }
    // without the dumps (no construct.json) a module entry is not known to hold its calls: the
    // origin is the first disagreeing operator in the table's order, the same row or its module's
    if (!computed.divergences.empty())
        QVERIFY(!unlinked->result->divergences.empty());
}

void TestResultTable::xlsxSameAsCsv_data()
{
    QTest::addColumn<QString>("xlsx");
    QTest::addColumn<QString>("csv");
    int n = 0;
    for (QDirIterator it(kReal + QStringLiteral("/compare"), {QStringLiteral("*.xlsx")}, QDir::Files, QDirIterator::Subdirectories);
         it.hasNext();) {
        const QString x = it.next();
        const QString rank = QRegularExpression(QStringLiteral("rank\\d+")).match(QFileInfo(x).fileName()).captured();
        const QDir csvDir(QFileInfo(x).absolutePath() + QStringLiteral("/../csv"));
        const QStringList csv = csvDir.entryList({QStringLiteral("compare_result_") + rank + QStringLiteral("_*.csv")});
        QCOMPARE(csv.size(), 1);
        QTest::addRow("%s", qPrintable(QDir(kReal).relativeFilePath(x))) << x << csvDir.absoluteFilePath(csv.front());
        ++n;
    }
    QVERIFY(n >= 12);
}

void TestResultTable::xlsxSameAsCsv()
{
    QFETCH(QString, xlsx);
    QFETCH(QString, csv);
    const auto x = readXlsxTable(xlsx);
    QVERIFY2(x, qPrintable(x.errorText()));
    const auto c = readCsvTable(csv);
    QVERIFY2(c, qPrintable(c.errorText()));
    QCOMPARE(x->header, c->header);
    QCOMPARE(x->rows.size(), c->rows.size());
    for (size_t r = 0; r < c->rows.size(); ++r)
        for (qsizetype k = 0; k < c->header.size(); ++k) {
            const QString &a = x->rows[r][k], &b = c->rows[r][k];
            if (a == b)
                continue;
            // msprobe's xlsx holds numbers as Excel does: 15 to 17 significant digits
            bool okA = false, okB = false;
            const double va = a.toDouble(&okA), vb = b.toDouble(&okB);
            QVERIFY2(okA && okB && std::fabs(va - vb) <= 1e-14 * std::max(std::fabs(va), std::fabs(vb)),
                     qPrintable(QStringLiteral("row %1, %2: xlsx %3, csv %4").arg(r).arg(c->header[k], a, b)));
        }
    const auto ox = openedTableFrom(*x), oc = openedTableFrom(*c);
    QVERIFY(ox && oc);
    QCOMPARE(originName(*ox->result), originName(*oc->result));
    QCOMPARE(ox->result->count(Verdict::Error), oc->result->count(Verdict::Error));
}

void TestResultTable::fixtures()
{
    // msprobe_fixtures: tables of pairs without rank folders; every one opens, its Results kept
    const QDir dir(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_fixtures/compare"));
    const QStringList files = dir.entryList({QStringLiteral("*.csv")});
    QVERIFY(files.size() >= 10);
    for (const QString &f : files) {
        const auto t = openCompareTable(dir.absoluteFilePath(f));
        QVERIFY2(t, qPrintable(t.errorText()));
        const auto text = readCsvTable(dir.absoluteFilePath(f));
        QCOMPARE(t->result->rows.size(), text->rows.size());
        const int resultCol = int(text->header.indexOf(QStringLiteral("Result")));
        for (size_t r = 0; r < text->rows.size(); ++r)
            QCOMPARE(t->result->rows[r].result, text->rows[r][resultCol]);
    }
    // a table with nothing matched: every row not compared, no divergence
    const auto none = openCompareTable(dir.absoluteFilePath(QStringLiteral("nothing_matched.csv")));
    QVERIFY(none);
    QCOMPARE(none->result->count(Verdict::None), none->result->rows.size());
    QVERIFY(none->result->divergences.empty());
    QVERIFY(none->result->rows.front().hasReason(ReasonCode::UnmatchedBench));
}

void TestResultTable::csvParser()
{
    // quoted fields with commas, quotes and line breaks; CRLF; a BOM; the line of each row
    const auto t = parseCsvTable("\xEF\xBB\xBF" "a,b,c\r\n1,\"x, \"\"y\"\"\",\"two\nlines\"\r\n2,,\n", QStringLiteral("t.csv"));
    QVERIFY2(t, qPrintable(t.errorText()));
    QCOMPARE(t->header, (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    QCOMPARE(t->rows.size(), size_t(2));
    QCOMPARE(t->rows[0][1], QStringLiteral("x, \"y\""));
    QCOMPARE(t->rows[0][2], QStringLiteral("two\nlines"));
    QCOMPARE(t->rows[1], (QStringList{QStringLiteral("2"), QString(), QString()}));
    QCOMPARE(t->lines, (std::vector<int>{2, 4}));
    // stack lines and Err_message are Python lists as repr() prints them
    const QString csv = kReal + QStringLiteral("/compare/weight_tensor_mix/step0/csv/compare_result_rank0_20261124151713.csv");
    const auto o = openCompareTable(csv);
    QVERIFY(o);
    const OpRecord &first = o->npu->op(o->result->rows.front().npu);
    QVERIFY(first.stack >= 0);
    const QStringList &stack = o->npu->stacks[size_t(first.stack)];
    QVERIFY(stack.size() >= 5);
    QCOMPARE(stack.front(), QStringLiteral("File /usr/lib/python3/dist-packages/torch/nn/modules/conv.py, line 459, in _conv_forward, \n"
                                           " return F.conv2d(input, weight, bias, self.stride,"));
    // the JSON says where the rows came from
    const QByteArray json = compareJson(*o->npu, *o->bench, *o->result);
    QVERIFY(json.contains(QByteArray("\"table\": \"" + csv.toUtf8() + '"')));
}

void TestResultTable::badInput_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error"); // a regular expression the error text must match
    const QByteArray good = readAll(kReal + QStringLiteral("/compare/weight_statistics_mix/step0/csv/compare_result_rank0_20261124151648.csv"));
    QVERIFY(good.size() > 10000);
    // cut inside the stack list of the first row: the quote never ends
    const qsizetype stackAt = good.indexOf("\"['File");
    QTest::addRow("truncated in a quoted field") << "compare_result_rank0_1.csv" << good.left(stackAt + 100)
                                                 << R"(compare_result_rank0_1\.csv: line 2, column 28 \(NPU_Stack_Info\): a quoted field that never ends)";
    // cut in the middle of a row (in its third field)
    const qsizetype line3 = good.indexOf("\nFunctional.conv2d.0.forward.input.1") + 1;
    const qsizetype cut = good.indexOf("torch.float32", line3) + 5;
    QTest::addRow("truncated row") << "compare_result_rank0_2.csv" << good.left(cut)
                                   << R"(compare_result_rank0_2\.csv: line 3: 3 fields where the header has 28)";
    QByteArray garbled = good;
    for (qsizetype i = line3 + 40; i < line3 + 60; ++i)
        garbled[i] = char(0xff);
    QTest::addRow("not UTF-8") << "compare_result_rank0_3.csv" << garbled << R"(line 3, column \d+.*: the text is not UTF-8)";
    QByteArray quote = good;
    quote.insert(line3 + 5, '"');
    QTest::addRow("quote inside a field") << "compare_result_rank0_4.csv" << quote
                                          << R"(line 3, column 1 \(NPU Name\): a quote inside an unquoted field)";
    QByteArray noResult = good;
    noResult.replace(",Result,", ",Outcome,");
    QTest::addRow("missing Result") << "compare_result_rank0_5.csv" << noResult << R"(the column "Result" is missing)";
    QByteArray noDiff = good;
    noDiff.replace(",Mean diff,", ",Mean_diff,");
    QTest::addRow("missing column") << "compare_result_rank0_6.csv" << noDiff
                                    << R"(the column "Mean diff" is missing \(msprobe's summary table has it\))";
    QByteArray badResult = good;
    badResult.replace(",True,pass,[],", ",True,passed,[],");
    QTest::addRow("bad Result") << "compare_result_rank0_7.csv" << badResult
                                << R"(line 2, column 26 \(Result\): "passed" is not a Result)";
    const QByteArray tensor = readAll(kReal + QStringLiteral("/compare/weight_tensor_mix/step0/csv/compare_result_rank0_20261124151713.csv"));
    QByteArray badCosine = tensor;
    badCosine.replace(",False,False,1.0,0.0,", ",False,False,one,0.0,");
    QTest::addRow("bad Cosine") << "compare_result_rank0_8.csv" << badCosine
                                << R"(line 2, column 9 \(Cosine\): "one" is neither a number nor)";
    QTest::addRow("another tool's table") << "accuracy_checking_result_1.csv"
                                          << QByteArray("API name,Forward Test Success,Backward Test Success,Message\nTorch.add.0,pass,pass,\n")
                                          << R"(not an msprobe compare table: no column "NPU Name")";
    QTest::addRow("no mode columns") << "compare_result_9.csv" << QByteArray("NPU Name,Bench Name,Result\na,a,pass\n")
                                     << R"(none of the columns "Cosine")";
    QTest::addRow("empty") << "compare_result_10.csv" << QByteArray() << R"(the file is empty)";
    // xlsx
    const QByteArray xlsx = readAll(kReal + QStringLiteral("/compare/weight_tensor_mix/step0/xlsx/compare_result_rank0_20261124151718.xlsx"));
    QVERIFY(xlsx.size() > 1000);
    QTest::addRow("xlsx truncated") << "compare_result_11.xlsx" << xlsx.left(xlsx.size() / 2) << R"(compare_result_11\.xlsx: not a readable \.xlsx)";
    QTest::addRow("xlsx of CSV text") << "compare_result_12.xlsx" << good << R"(compare_result_12\.xlsx: not a readable \.xlsx)";
    QByteArray flipped = xlsx;
    for (qsizetype i = xlsx.size() / 3; i < xlsx.size() / 3 + 64; ++i)
        flipped[i] = char(flipped[i] ^ 0x5a);
    QTest::addRow("xlsx garbled") << "compare_result_13.xlsx" << flipped << R"(compare_result_13\.xlsx: )";
}

void TestResultTable::badInput()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    QTemporaryDir dir(belowHome());
    const QString path = dir.filePath(name);
    write(path, bytes);
    const auto t = openCompareTable(path);
    QVERIFY(!t);
    QVERIFY2(t.errorText().startsWith(path), qPrintable(t.errorText()));
    QVERIFY2(QRegularExpression(error).match(t.errorText()).hasMatch(), qPrintable(t.errorText()));
}

void TestResultTable::tableModel()
{
    // the table model of a computed compare shows a table: rows, Results, the pinned first divergence
    const QString csv = kReal + QStringLiteral("/compare/rank1_md5_mix/step0/csv/compare_result_rank1_20261124152059.csv");
    const auto t = openCompareTable(csv);
    QVERIFY(t);
    CompareTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setResult(t->result, t->npu, t->bench);
    QCOMPARE(model.rowCount(), int(t->result->rows.size()));
    QVERIFY(model.pinnedRow() >= 0);
    QCOMPARE(model.index(model.pinnedRow(), CompareTableModel::NpuName).data().toString(),
             QStringLiteral("Functional.linear.0.forward.input.1"));
    QCOMPARE(model.differingRows(), 0); // the verdicts are the Results
    QCOMPARE(model.msprobeCounts().error, qint64(t->result->count(Verdict::Error)));
    CompareFilterProxy proxy;
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setMinimumVerdict(Verdict::Error);
    QCOMPARE(proxy.rowCount(), int(t->result->count(Verdict::Error)));
}


void TestResultTable::findsDumpsBeside_data()
{
    QTest::addColumn<QString>("table");
    int n = 0;
    for (QDirIterator it(kReal + QStringLiteral("/compare"), {QStringLiteral("*.csv"), QStringLiteral("*.xlsx")}, QDir::Files,
                         QDirIterator::Subdirectories);
         it.hasNext();) {
        const QString path = it.next();
        if (path.contains(QLatin1String("/data_mapping/")))
            continue; // msprobe -dm tables: not in expected.json's commands (compare_write_mapping checks them)
        QTest::addRow("%s", qPrintable(QDir(kReal).relativeFilePath(path))) << path;
        ++n;
    }
    QVERIFY(n >= 60);
}

/// Every table msprobe wrote in msprobe_real finds, by itself, the two dumps its command named
/// (expected.json's commands: compare/<case>/step<N> from dumps/npu_<case> and dumps/base_<...>),
/// and opens linked exactly as with those dumps given.
void TestResultTable::findsDumpsBeside()
{
    QFETCH(QString, table);
    const auto [npuPath, benchPath] = dumpsOf(table);
    QVERIFY(!npuPath.isEmpty());
    if (table.contains(QLatin1String("/fuzzy_csv/")))
        QSKIP("msprobe -fm pairs by names without call counters: its rows' values are not those of the same-named "
              "rows of the dumps, so the dumps beside it are (rightly) not taken as its own");
    const auto opened = openCompareTableWithDumps(table);
    QVERIFY2(opened, qPrintable(opened.errorText()));
    QVERIFY2(opened->linked, qPrintable(opened->result->tableDumps));
    QCOMPARE(opened->npu->openedPath, QFileInfo(npuPath).absoluteFilePath());
    QCOMPARE(opened->bench->openedPath, QFileInfo(benchPath).absoluteFilePath());
    QCOMPARE(opened->unlinkedRows, 0);
    QVERIFY(opened->result->tableDumps.startsWith(QStringLiteral("found beside the table in ")));
    const auto given = openCompareTable(table, open(npuPath), open(benchPath));
    QVERIFY(given);
    QCOMPARE(opened->result->rows.size(), given->result->rows.size());
    for (size_t i = 0; i < given->result->rows.size(); ++i)
        QCOMPARE(opened->npu->tensorId(opened->result->rows[i].npu), given->npu->tensorId(given->result->rows[i].npu));
    QCOMPARE(originName(*opened->result), originName(*given->result));
    const QByteArray json = compareJson(*opened->npu, *opened->bench, *opened->result);
    QVERIFY(json.contains("\"table_dumps\": \"found beside the table in "));
}

/// A table alone in a folder with msprobe's compare JSON (`-i`): the dumps it names, relative to it.
void TestResultTable::dumpsFromCompareJson()
{
    const QString table = QDir(kReal + QStringLiteral("/compare/weight_statistics_mix/step0/csv"))
                              .entryInfoList({QStringLiteral("compare_result_rank1_*.csv")}).value(0).absoluteFilePath();
    QVERIFY(!table.isEmpty());
    // The table's folder is the only one searched: a folder below the home folder, where the
    // search stops (copies of these dumps elsewhere in the system's temporary folder would hold
    // the table's values and be found, rightly, when the JSON is not believed).
    QTemporaryDir home;
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toUtf8());
    const auto restoreHome = qScopeGuard([&] { qputenv("HOME", oldHome); });
    QVERIFY(QDir(home.path()).mkdir(QStringLiteral("table")));
    QDir tmp(home.filePath(QStringLiteral("table")));
    const QString copy = tmp.filePath(QFileInfo(table).fileName());
    QVERIFY(QFile::copy(table, copy));
    const QString npu = QFileInfo(kReal + QStringLiteral("/dumps/npu_weight_statistics_mix/step0/rank1")).absoluteFilePath();
    const QString bench = QFileInfo(kReal + QStringLiteral("/dumps/base_statistics_mix/step0/rank1")).absoluteFilePath();
    write(tmp.filePath(QStringLiteral("compare.json")),
          QStringLiteral("{\"npu_path\": \"%1/dump.json\", \"bench_path\": \"%2\", \"stack_path\": \"%1/stack.json\", "
                         "\"is_print_compare_log\": true}")
              .arg(tmp.relativeFilePath(npu), bench).toUtf8());
    auto opened = openCompareTableWithDumps(copy);
    QVERIFY2(opened && opened->linked, opened ? qPrintable(opened->result->tableDumps) : qPrintable(opened.errorText()));
    QCOMPARE(opened->npu->openedPath, npu);
    QCOMPARE(opened->bench->openedPath, bench);
    QVERIFY(opened->result->tableDumps.startsWith(QStringLiteral("named by the compare JSON ")));
    // a JSON naming the wrong pair (sides swapped) is not believed, and says why
    write(tmp.filePath(QStringLiteral("compare.json")),
          QStringLiteral("{\"npu_path\": \"%1\", \"bench_path\": \"%2\"}").arg(bench, npu).toUtf8());
    opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY(!opened->linked);
    QVERIFY(opened->result->warnings.join(QLatin1Char('\n')).contains(QStringLiteral("their values are not the table's")));
}

/// Nothing beside the table: the rows are the table's, and the summary says how to give the dumps.
void TestResultTable::noDumpsBeside()
{
    const QString table = QDir(kReal + QStringLiteral("/compare/weight_tensor_mix/step1/xlsx"))
                              .entryInfoList({QStringLiteral("*.xlsx")}).value(0).absoluteFilePath();
    QTemporaryDir tmp(belowHome());
    QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("a/b")));
    const QString copy = tmp.filePath(QStringLiteral("a/b/") + QFileInfo(table).fileName());
    QVERIFY(QFile::copy(table, copy));
    const auto opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY(!opened->linked);
    QVERIFY(opened->result->tableDumps.contains(QStringLiteral("--npu PATH --bench PATH")));
    QCOMPARE(opened->result->rows.size(), openCompareTable(table)->result->rows.size());
}

/// A table saved beside a dump far bigger than its own (a 20 GiB run in the same scratch
/// folder) opens without indexing that dump, and says it was skipped and why. The big dump.json
/// is a sparse file: indexed, it would be an error, and the search would take its time.
void TestResultTable::hugeDumpBesideNotRead()
{
    const QString table = QDir(kReal + QStringLiteral("/compare/weight_tensor_mix/step1/xlsx"))
                              .entryInfoList({QStringLiteral("*.xlsx")}).value(0).absoluteFilePath();
    QTemporaryDir tmp(belowHome());
    QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("a/b")));
    QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("a/big/step1/rank0")));
    const QString copy = tmp.filePath(QStringLiteral("a/b/") + QFileInfo(table).fileName());
    QVERIFY(QFile::copy(table, copy));
    QFile big(tmp.filePath(QStringLiteral("a/big/step1/rank0/dump.json")));
    QVERIFY(big.open(QIODevice::WriteOnly));
    const qint64 size = std::max(qint64(64) << 20, 64 * QFileInfo(copy).size()) + 1;
    QVERIFY(big.resize(size));
    big.close();
    const auto opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY(!opened->linked);
    const QString note = opened->result->warnings.join(QLatin1Char('\n'));
    QVERIFY2(note.contains(QStringLiteral("big/step1/rank0 was not read")) && note.contains(QStringLiteral("%1 MiB").arg(size >> 20)),
             qPrintable(note));
}

/// The search for a table's dumps stops at the nearest folder above it holding msprobe dumps of
/// its scope (issue 35: it climbed on into /work and indexed other people's runs): with an
/// unrelated dump there, the table's own dumps one folder further up are not looked at, and the
/// note says where it stopped. The same tree without the unrelated dump links them.
void TestResultTable::searchStopsAtTheNearestDumps()
{
    const QString table = QDir(kReal + QStringLiteral("/compare/bf16_statistics_mix/step0/csv"))
                              .entryInfoList({QStringLiteral("compare_result_rank0_*.csv")}).value(0).absoluteFilePath();
    QTemporaryDir tmp(belowHome());
    const QString top = tmp.filePath(QStringLiteral("top"));
    QVERIFY(copyTree(kReal + QStringLiteral("/dumps/npu_bf16_statistics_mix/step0/rank0"), top + QStringLiteral("/npu/step0/rank0")));
    QVERIFY(copyTree(kReal + QStringLiteral("/dumps/base_statistics_mix/step0/rank0"), top + QStringLiteral("/base/step0/rank0")));
    QVERIFY(QDir().mkpath(top + QStringLiteral("/a/b/step0/csv")));
    const QString copy = top + QStringLiteral("/a/b/step0/csv/") + QFileInfo(table).fileName();
    QVERIFY(QFile::copy(table, copy));
    auto opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY2(opened->linked, qPrintable(opened->result->tableDumps));
    QCOMPARE(opened->npu->openedPath, top + QStringLiteral("/npu/step0/rank0"));
    QVERIFY(opened->result->tableDumps.contains(QStringLiteral("npu/step0/rank0")));
    // an unrelated dump of the same scope nearer the table
    QVERIFY(copyTree(kReal + QStringLiteral("/dumps/npu_weight_tensor_mix/step0/rank0"), top + QStringLiteral("/a/other/step0/rank0")));
    opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY(!opened->linked);
    const QString notes = opened->result->warnings.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("the search stopped at %1,").arg(top + QStringLiteral("/a"))), qPrintable(notes));
}

/// A folder with hundreds of subfolders beside the table (a scratch folder) is not descended into.
void TestResultTable::largeTreeNotDescended()
{
    const QString table = QDir(kReal + QStringLiteral("/compare/bf16_statistics_mix/step0/csv"))
                              .entryInfoList({QStringLiteral("compare_result_rank0_*.csv")}).value(0).absoluteFilePath();
    QTemporaryDir tmp(belowHome());
    QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("t/step0"))));
    for (int i = 0; i < 250; ++i)
        QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("scratch/run%1").arg(i))));
    // the dumps, inside the large folder: not found
    QVERIFY(copyTree(kReal + QStringLiteral("/dumps/npu_bf16_statistics_mix/step0/rank0"), tmp.filePath(QStringLiteral("scratch/run7/npu/step0/rank0"))));
    QVERIFY(copyTree(kReal + QStringLiteral("/dumps/base_statistics_mix/step0/rank0"), tmp.filePath(QStringLiteral("scratch/run7/base/step0/rank0"))));
    const QString copy = tmp.filePath(QStringLiteral("t/step0/") + QFileInfo(table).fileName());
    QVERIFY(QFile::copy(table, copy));
    const auto opened = openCompareTableWithDumps(copy);
    QVERIFY(opened);
    QVERIFY(!opened->linked);
    const QString notes = opened->result->warnings.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("%1 was not searched: more than 200 folders in it").arg(QDir::cleanPath(tmp.filePath(QStringLiteral("scratch"))))),
             qPrintable(notes));
}

QTEST_GUILESS_MAIN(TestResultTable)
#include "tst_resulttable.moc"
