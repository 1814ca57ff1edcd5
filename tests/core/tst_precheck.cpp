// msprobe's API precheck results (core/precheck, issue 33 item 2) against the files the real
// msprobe 26.0.0 wrote (samples/msprobe_precheck, tools/make_precheck.sh): every row and verdict
// of the four tables as Python's csv module reads them (an independent reading written into the
// expectations below from the files, not from DumpScope), the failed-API tensors paired and
// compared, and bad input named by file, line and column.
#include "precheck/precheck.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;
using namespace ds::precheck;

namespace {

const QString kBf16 = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_bf16");
const QString kFixture = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_precheck/pytorch_fixture");

const PrecheckTable *table(const PrecheckDocument &doc, TableKind kind)
{
    for (const PrecheckTable &t : doc.tables)
        if (t.kind == kind)
            return &t;
    return nullptr;
}

} // namespace

class TestPrecheck : public QObject
{
    Q_OBJECT
private slots:
    void resultTable();
    void detailsTable();
    void precisionTables();
    void fixtureTables();
    void failedPairs();
    void columnsExplained();
    void badInput_data();
    void badInput();
    void notPrecheck();
};

void TestPrecheck::resultTable()
{
    auto doc = openPrecheck(kBf16);
    QVERIFY2(doc, qPrintable(doc.errorText()));
    QVERIFY2(doc->errors.empty(), qPrintable(doc->errors.empty() ? QString() : doc->errors.front().text()));
    const PrecheckTable *t = table(*doc, TableKind::Result);
    QVERIFY(t);
    // accuracy_checking_result_20261128110100.csv as csv.reader reads it: 11 APIs; rows that
    // were run stop after Backward Test Success (msprobe's write_summary_csv), SKIP rows carry a
    // Message
    QCOMPARE(t->rows.size(), size_t(11));
    const struct { const char *api, *fwd, *bwd; } expected[] = {
        {"Functional.conv2d.0", "warning", "warning"}, {"Functional.relu.0", "pass", "pass"},
        {"Functional.linear.0", "error", "error"},     {"Functional.layer_norm.0", "error", "error"},
        {"Functional.softmax.0", "pass", "pass"},      {"Tensor.__mul__.0", "warning", "pass"},
        {"Functional.linear.1", "error", "error"},     {"Functional.cross_entropy.0", "pass", "warning"},
        {"Distributed.all_reduce.0", "SKIP", "SKIP"},  {"Distributed.all_reduce.1", "SKIP", "SKIP"},
        {"Tensor.__truediv__.0", "pass", ""},
    };
    for (size_t i = 0; i < t->rows.size(); ++i) {
        QCOMPARE(t->rows[i].api, QString::fromLatin1(expected[i].api));
        QCOMPARE(statusWord(t->rows[i].forward), QString::fromLatin1(expected[i].fwd));
        QCOMPARE(statusWord(t->rows[i].backward), QString::fromLatin1(expected[i].bwd));
        QCOMPARE(t->rows[i].line, int(i) + 2);
    }
    QCOMPARE(t->count(Status::Error), 3);
    QCOMPARE(t->count(Status::Warning), 3);
    QCOMPARE(t->count(Status::Pass), 3);
    QCOMPARE(t->count(Status::Skip), 2);
    QCOMPARE(t->rows[8].cells[t->column(QStringLiteral("Message"))], QStringLiteral("API Distributed.all_reduce.0 not support for acc_check. SKIP."));
}

void TestPrecheck::detailsTable()
{
    auto doc = openPrecheck(kBf16);
    QVERIFY(doc);
    const PrecheckTable *t = table(*doc, TableKind::Details);
    QVERIFY(t);
    QCOMPARE(t->header.size(), qsizetype(23)); // DETAIL_TEST_ROWS
    // every row names an API of the result table and one of its outputs
    const PrecheckTable *result = table(*doc, TableKind::Result);
    for (const PrecheckRow &r : t->rows) {
        QVERIFY2(std::any_of(result->rows.begin(), result->rows.end(), [&](const PrecheckRow &x) { return x.api == r.api; }), qPrintable(r.api));
        QVERIFY2(r.output.startsWith(u"forward.output.") || r.output.startsWith(u"backward.output."), qPrintable(r.output));
    }
    // the result's verdict of an API is the worst Status of its outputs (msprobe's docs)
    for (const PrecheckRow &api : result->rows) {
        if (api.forward == Status::Skip)
            continue;
        Status fwd = Status::None;
        for (const PrecheckRow &r : t->rows)
            if (r.api == api.api && r.output.startsWith(u"forward"))
                fwd = worse(fwd, r.status);
        QCOMPARE(statusWord(fwd), statusWord(api.forward));
    }
    // a multi-line quoted Message keeps its line breaks and the next row its own line number
    const PrecheckRow &first = t->rows.front();
    QCOMPARE(first.line, 2);
    QVERIFY(first.cells.last().contains(QLatin1Char('\n')));
    QVERIFY(t->rows[1].line > 3);
}

void TestPrecheck::precisionTables()
{
    auto doc = openPrecheck(kBf16);
    QVERIFY(doc);
    const PrecheckTable *r = table(*doc, TableKind::PrecisionResult);
    const PrecheckTable *d = table(*doc, TableKind::PrecisionDetails);
    QVERIFY(r && d);
    QCOMPARE(r->rows.size(), size_t(11));
    QCOMPARE(r->rows[2].api, QStringLiteral("Functional.linear.0"));
    QCOMPARE(r->rows[2].status, Status::Error);
    QCOMPARE(r->rows[3].forward, Status::Pass); // layer_norm: forward pass, backward error
    QCOMPARE(r->rows[3].backward, Status::Error);
    QCOMPARE(r->rows[8].backward, Status::None); // " ": no backward
    QCOMPARE(d->header.size(), qsizetype(28));
    QCOMPARE(d->rows.front().api, QStringLiteral("Functional.conv2d.0"));
    QCOMPARE(d->rows.front().output, QStringLiteral("forward.output.0"));
    QCOMPARE(d->rows.front().status, Status::Pass);
    QCOMPARE(d->rows.front().cells[d->column(QStringLiteral("比对算法"))], QStringLiteral("标杆比对法"));
}

void TestPrecheck::fixtureTables()
{
    // msprobe's own run_ut test fixture, through acc_check: Tensor.__mul__ error, chunk and cat pass
    auto doc = openPrecheck(kFixture);
    QVERIFY2(doc, qPrintable(doc.errorText()));
    const PrecheckTable *t = table(*doc, TableKind::Details);
    QVERIFY(t);
    QCOMPARE(t->rows.size(), size_t(4));
    QCOMPARE(t->rows[0].api, QStringLiteral("Tensor.__mul__.7"));
    QCOMPARE(t->rows[0].status, Status::Error);
    QCOMPARE(t->rows[0].cells[t->column(QStringLiteral("Shape"))], QStringLiteral("(2048, 2, 1, 256)"));
    QCOMPARE(t->rows[1].output, QStringLiteral("forward.output.0"));
    QCOMPARE(t->rows[2].output, QStringLiteral("forward.output.1"));
    QCOMPARE(t->count(Status::Pass), 3);
}

void TestPrecheck::failedPairs()
{
    auto doc = openPrecheck(kBf16);
    QVERIFY(doc);
    // every error or warning output of the details table has its bench and device file
    const PrecheckTable *d = table(*doc, TableKind::Details);
    int failing = 0;
    for (const PrecheckRow &r : d->rows) {
        if (r.status != Status::Error && r.status != Status::Warning)
            continue;
        ++failing;
        auto it = std::find_if(doc->failed.begin(), doc->failed.end(), [&](const FailedPair &p) { return p.api == r.api && p.output() == r.output; });
        QVERIFY2(it != doc->failed.end(), qPrintable(r.api + QLatin1Char('.') + r.output));
        QVERIFY(!it->benchFile.isEmpty() && !it->deviceFile.isEmpty());
    }
    QVERIFY(failing >= 5);
    // the pairs compared: linear.0 was given a designed error of up to 2 % (acc_check_cpu.py
    // --perturb linear=0.02): every element's relative error is at most 2 % plus bfloat16's rounding
    auto it = std::find_if(doc->failed.begin(), doc->failed.end(), [](const FailedPair &p) { return p.api == u"Functional.linear.0" && p.output() == u"forward.output.0"; });
    QVERIFY(it != doc->failed.end());
    QCOMPARE(it->inputFiles.size(), qsizetype(3));
    auto c = compareFailedPair(doc->root, *it);
    QVERIFY2(c, qPrintable(c.errorText()));
    QVERIFY(c->metrics.count > 0);
    QCOMPARE(c->deviceShape, c->benchShape);
    QVERIFY(c->metrics.maxAbsErr > 0);
    QVERIFY2(c->metrics.maxRelErr < 0.02 + 2 * 0.0079, qPrintable(QString::number(c->metrics.maxRelErr)));
    QVERIFY(!c->detail.worst.empty());
    QCOMPARE(c->detail.worst.front().position.size(), c->deviceShape.size());
    // relu was not perturbed and passed: it has no saved tensors
    QVERIFY(std::none_of(doc->failed.begin(), doc->failed.end(), [](const FailedPair &p) { return p.api == u"Functional.relu.0"; }));
}

void TestPrecheck::columnsExplained()
{
    for (TableKind k : {TableKind::Result, TableKind::Details, TableKind::PrecisionResult, TableKind::PrecisionDetails})
        for (const ColumnInfo &c : tableColumns(k))
            QVERIFY2(*c.meaning, c.name);
    // every metric column msprobe's details table holds has an explanation and the verdict columns a threshold
    auto doc = openPrecheck(kBf16);
    QVERIFY(doc);
    for (const PrecheckTable &t : doc->tables)
        for (const QString &h : t.header) {
            const ColumnInfo *c = columnInfo(t.kind, h);
            QVERIFY2(c, qPrintable(t.file + u": " + h));
            if (h.endsWith(u"判定结果") || h == u"Status" || h == u"比对结果" || h == u"余弦相似度" || h == u"最大绝对误差")
                QVERIFY2(*c->threshold, qPrintable(h));
        }
}

void TestPrecheck::badInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("opens");
    QTest::addColumn<QString>("error");
    const QByteArray head = "API name,Forward Test Success,Backward Test Success,Message\r\n";
    QTest::addRow("truncated quote") << head + "a.0,SKIP,SKIP,\"never ends" << false
                                     << QStringLiteral("t.csv: line 2, column 4 (Message): a quoted field that never ends (the file is truncated)");
    QTest::addRow("garbled row") << head + "a.0,pass,pass,,x,y,z\r\nb.0,error,\r\n" << true
                                 << QStringLiteral("t.csv: line 2: 7 fields where the header has 4 (a truncated or garbled row; left out)");
    QTest::addRow("bad verdict") << head + "a.0,maybe,pass\r\n" << true
                                 << QStringLiteral("t.csv: line 2, column 2 (Forward Test Success): \"maybe\" is not pass, warning, error or SKIP");
    QTest::addRow("unknown column") << QByteArray("API name,Forward Test Success,Backward Test Success,Owner\r\na.0,pass,pass,me\r\n") << true
                                    << QStringLiteral("t.csv: line 1, column 4 (Owner): not a column msprobe writes in accuracy_checking_result; its cells are shown as they are");
    QTest::addRow("missing column") << QByteArray("API Name,Bench Dtype,DEVICE Dtype,Shape\r\nx.forward.output.0,a,b,c\r\n") << false
                                    << QStringLiteral("t.csv: line 1: the column(s) Status of an accuracy_checking_details table are missing");
    QTest::addRow("another tool") << QByteArray("NPU Name,Bench Name,NPU Dtype\nx,y,z\n") << false
                                  << QStringLiteral("t.csv: line 1: not a table of msprobe's acc_check or api_precision_compare (the header starts \"NPU Name,Bench Name,NPU Dtype\"; expected \"API name,Forward Test Success,...\" or \"API Name,...\")");
    QTest::addRow("not utf-8") << head + "a\xff.0,pass,pass\r\n" << false << QStringLiteral("t.csv: line 2, column 1 (API name): the text is not UTF-8");
    QTest::addRow("empty") << QByteArray() << false << QStringLiteral("t.csv: the file is empty: no header row");
}

void TestPrecheck::badInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, opens);
    QFETCH(QString, error);
    auto t = parsePrecheckTable(bytes, QStringLiteral("t.csv"));
    QCOMPARE(bool(t), opens);
    QCOMPARE(t ? (t->errors.empty() ? QString() : t->errors.front().text()) : t.errorText(), error);
    if (t && QTest::currentDataTag() == QLatin1String("garbled row")) {
        QCOMPARE(t->rows.size(), size_t(1)); // the good row is kept
        QCOMPARE(t->rows.front().api, QStringLiteral("b.0"));
    }
}

void TestPrecheck::notPrecheck()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto doc = openPrecheck(dir.path());
    QVERIFY(!doc);
    QVERIFY(doc.errorText().contains(u"no precheck results here"));
    QVERIFY(!looksLikePrecheck(dir.path()));
    QVERIFY(looksLikePrecheck(kBf16));
    // a folder with one bad table and one good: the good one loads, the bad one is named
    QFile::copy(QDir(kFixture).filePath(QStringLiteral("accuracy_checking_result_20261128110033.csv")),
                dir.filePath(QStringLiteral("accuracy_checking_result_1.csv")));
    QFile bad(dir.filePath(QStringLiteral("accuracy_checking_details_1.csv")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("API Name,\"Bench");
    bad.close();
    doc = openPrecheck(dir.path());
    QVERIFY(doc);
    QCOMPARE(doc->tables.size(), size_t(1));
    QCOMPARE(doc->errors.size(), size_t(1));
    QCOMPARE(doc->errors.front().file, QStringLiteral("accuracy_checking_details_1.csv"));
}

QTEST_GUILESS_MAIN(TestPrecheck)
#include "tst_precheck.moc"
