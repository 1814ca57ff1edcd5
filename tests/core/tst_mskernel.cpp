// MindSpore kernel-level dumps (issue 32 items 2, 3, 5): samples/mindspore_kernel, rendered from
// a real torch run by samples/mindspore_kernel/tools/make_mindspore_kernel.py. The oracles are
// msprobe's own MindSpore graph compare of those trees (oracle/*.csv: msprobe read the same
// statistic.csv and .npy files, numpy computed the tensor statistics) and MindSpore's execution
// order files; nothing expected here is computed by DumpScope.
#include "compare/msgraphcompare.h"
#include "dump/levels.h"
#include "formats/mindspore/mskernelreader.h"
#include "formats/mindspore/statisticcsv.h"
#include "formats/readers.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "run/runtree.h"
#include "tensor/stats.h"
#include "testcsv.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ds;

namespace {

const QString kRoot = QStringLiteral(DUMPSCOPE_SAMPLES "/mindspore_kernel");

/// The full names of ms_execution_order_graph_0.csv in order.
QStringList executionOrder(const QString &tree, const QString &rank)
{
    QFile f(kRoot + QLatin1Char('/') + tree + QLatin1Char('/') + rank + QStringLiteral("/execution_order/ms_execution_order_graph_0.csv"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    lines.removeFirst(); // NodeExecutionOrder-FullNameWithScope
    return lines;
}

std::shared_ptr<DumpIndex> open(const QString &rel)
{
    auto index = buildIndex(kRoot + QLatin1Char('/') + rel);
    if (!index)
        qFatal("cannot index %s: %s", qPrintable(rel), qPrintable(index.errorText()));
    return *index;
}

float f32(const QString &s) { return s.trimmed().toFloat(); }

} // namespace

class TestMsKernel : public QObject
{
    Q_OBJECT
private slots:
    void statisticTreeIsRanksAndSteps();
    void kernelsFollowTheExecutionOrder();
    void scopesAreSplitOut_data();
    void scopesAreSplitOut();
    void recordedStatisticsAreMsprobes_data();
    void recordedStatisticsAreMsprobes();
    void tensorTreeLoads();
    void graphCompareIsMsprobes_data();
    void graphCompareIsMsprobes();
    void badInput_data();
    void badInput();
    void mixedFrameworksInOneRun();
    void fileNames_data();
    void fileNames();
    void levelSpellings_data();
    void levelSpellings();
};

void TestMsKernel::statisticTreeIsRanksAndSteps()
{
    auto runs = discoverRuns(kRoot + QStringLiteral("/statistic/npu"));
    QVERIFY(runs);
    QCOMPARE(runs->runs.size(), size_t(1));
    const RunInfo &run = runs->runs.front();
    QCOMPARE(run.formats, QStringList{QStringLiteral("mindspore-kernel")});
    QCOMPARE(run.steps, (std::vector<qint64>{0, 1}));
    QCOMPARE(run.ranks, (std::vector<qint64>{0, 1}));
    QCOMPARE(run.scopes.size(), size_t(4));

    auto index = open(QStringLiteral("statistic/npu"));
    QVERIFY2(index->errors.empty(), qPrintable(index->errors.empty() ? QString() : index->errors.front().text()));
    // 2 ranks x 2 iterations x the kernels of the execution order, each once per iteration.
    const qsizetype kernels = executionOrder(QStringLiteral("statistic/npu"), QStringLiteral("rank_0")).size();
    QVERIFY(kernels > 0);
    QCOMPARE(qsizetype(index->ops.size()), 4 * kernels);
    for (const OpRecord &op : index->ops) {
        QCOMPARE(op.levels->modelName, QStringLiteral("Net"));
        QCOMPARE(op.levels->modelId, QStringLiteral("0"));
        for (const TensorRecord &t : op.tensors) {
            QCOMPARE(t.storage(), TensorStorage::Absent);
            QVERIFY(t.recorded().has(RecordedStats::Max) && t.recorded().has(RecordedStats::Norm));
        }
    }
}

void TestMsKernel::kernelsFollowTheExecutionOrder()
{
    auto index = open(QStringLiteral("statistic/npu"));
    for (const auto &[scope, ops] : opsByScope(*index)) {
        const QString rank = scope.section(QLatin1Char('/'), 1, 1);
        QStringList expected = executionOrder(QStringLiteral("statistic/npu"), rank);
        for (QString &n : expected)
            n.replace(QLatin1Char('/'), QLatin1Char('_'));
        QStringList got;
        for (int o : ops)
            got << index->ops[size_t(o)].opName.toString();
        QCOMPARE(got, expected);
    }
}

void TestMsKernel::scopesAreSplitOut_data()
{
    QTest::addColumn<QString>("fullName");
    for (const QString &n : executionOrder(QStringLiteral("statistic/npu"), QStringLiteral("rank_0")))
        QTest::newRow(qPrintable(n)) << n;
}

void TestMsKernel::scopesAreSplitOut()
{
    QFETCH(QString, fullName);
    const QString expected = fullName.left(fullName.lastIndexOf(QLatin1Char('/')));
    QString flat = fullName;
    flat.replace(QLatin1Char('/'), QLatin1Char('_'));
    // From the execution order, and from the file name alone (no execution order).
    QCOMPARE(mindspore::kernelScope(flat, fullName), expected);
    QCOMPARE(mindspore::kernelScope(flat), expected);
    auto index = open(QStringLiteral("statistic/npu"));
    bool found = false;
    for (const OpRecord &op : index->ops)
        if (op.opName == flat) {
            QCOMPARE(op.parent.toString(), expected);
            found = true;
        }
    QVERIFY(found);
}

void TestMsKernel::recordedStatisticsAreMsprobes_data()
{
    QTest::addColumn<QString>("oracle");
    QTest::addColumn<QString>("step");
    QTest::addColumn<QString>("rank");
    for (const char *rs : {"0_0", "0_1", "1_0", "1_1"}) {
        const QString r = QString::fromLatin1(rs);
        QTest::newRow(rs) << QStringLiteral("oracle/statistic_compare_result_%1.csv").arg(r) << r.section(QLatin1Char('_'), 1, 1)
                          << QStringLiteral("rank_") + r.section(QLatin1Char('_'), 0, 0);
    }
}

void TestMsKernel::recordedStatisticsAreMsprobes()
{
    // msprobe's table holds what it read from statistic.csv as float32 (ms_graph_compare.py,
    // np.float32): every NPU and bench statistic DumpScope recorded must be the same float.
    QFETCH(QString, oracle);
    QFETCH(QString, step);
    QFETCH(QString, rank);
    const QList<QStringList> rows = testcsv::readFile(kRoot + QLatin1Char('/') + oracle);
    QVERIFY(rows.size() > 1);
    const QStringList head = rows.front();
    for (const char *side : {"NPU", "Bench"}) {
        const QString s = QString::fromLatin1(side);
        auto index = open(QStringLiteral("statistic/") + (s == QLatin1String("NPU") ? QStringLiteral("npu") : QStringLiteral("bench")));
        QHash<QString, const TensorRecord *> byKey; // msprobe's "{op name}.{task}.{io}.{slot}"
        for (const OpRecord &op : index->ops)
            if (op.levels->step == step && op.levels->rank == rank)
                for (const TensorRecord &t : op.tensors)
                    byKey.insert(QStringLiteral("%1.%2.%3").arg(op.opName.toString()).arg(op.taskId()).arg(t.name()), &t);
        int checked = 0;
        for (qsizetype i = 1; i < rows.size(); ++i) {
            const QStringList &r = rows[i];
            const QString name = r[head.indexOf(s + QStringLiteral(" Name"))];
            const TensorRecord *t = byKey.value(name);
            QVERIFY2(t, qPrintable(name));
            const RecordedStats st = t->recorded();
            QCOMPARE(float(st.max), f32(r[head.indexOf(s + QStringLiteral(" max"))]));
            QCOMPARE(float(st.min), f32(r[head.indexOf(s + QStringLiteral(" min"))]));
            QCOMPARE(float(st.mean), f32(r[head.indexOf(s + QStringLiteral(" mean"))]));
            QCOMPARE(float(st.norm), f32(r[head.indexOf(s + QStringLiteral(" l2norm"))]));
            QCOMPARE(t->typeName(), r[head.indexOf(s + QStringLiteral(" Dtype"))]);
            // msprobe prints the shape "(3,4)" as "[3,4]"
            QStringList dims;
            for (auto d : t->shape())
                dims << QString::number(d);
            QCOMPARE(QStringLiteral("[%1]").arg(dims.join(QLatin1Char(','))), r[head.indexOf(s + QStringLiteral(" Tensor Shape"))]);
            ++checked;
        }
        QCOMPARE(checked, int(rows.size() - 1));
        QCOMPARE(qsizetype(byKey.size()), rows.size() - 1); // every tensor of the scope is a row
    }
}

void TestMsKernel::tensorTreeLoads()
{
    // npy mode: numpy's statistics of the same files are in msprobe's table (NPU max ... l2norm).
    auto index = open(QStringLiteral("tensor/npu"));
    QVERIFY(index->errors.empty());
    const QList<QStringList> rows = testcsv::readFile(kRoot + QStringLiteral("/oracle/tensor_compare_result_0_0.csv"));
    const QStringList head = rows.front();
    QHash<QString, DumpIndex::TensorRef> byFile;
    for (size_t o = 0; o < index->ops.size(); ++o)
        for (size_t t = 0; t < index->ops[o].tensors.size(); ++t)
            byFile.insert(index->ops[o].tensors[t].location(), {int(o), int(t)});
    QCOMPARE(qsizetype(byFile.size()), rows.size() - 1);
    for (qsizetype i = 1; i < rows.size(); ++i) {
        const QString file = QStringLiteral("tensor/npu/") + QString(rows[i][0]).remove(QStringLiteral("tensor/npu/"));
        const auto ref = byFile.value(rows[i][0].section(QStringLiteral("tensor/npu/"), 1));
        const TensorRecord &rec = index->ops[size_t(ref.op)].tensors[size_t(ref.tensor)];
        QCOMPARE(rec.storage(), TensorStorage::NpyFile);
        auto loaded = loadTensor(*index, ref, LayoutChoice::Logical);
        QVERIFY2(loaded, qPrintable(file));
        TensorStats st;
        computeStats((*loaded)->view, st);
        QCOMPARE(float(st.max), f32(rows[i][head.indexOf(QStringLiteral("NPU max"))]));
        QCOMPARE(float(st.min), f32(rows[i][head.indexOf(QStringLiteral("NPU min"))]));
        QVERIFY(std::abs(st.mean - rows[i][head.indexOf(QStringLiteral("NPU mean"))].toDouble()) <= 1e-6 * (1 + std::abs(st.mean)));
    }
    // The kernels are in the execution order.
    QStringList expected = executionOrder(QStringLiteral("tensor/npu"), QStringLiteral("rank_0"));
    QStringList got;
    for (const OpRecord &op : index->ops)
        got << op.opName.toString();
    for (QString &n : expected)
        n.replace(QLatin1Char('/'), QLatin1Char('_'));
    QCOMPARE(got, expected);
}

void TestMsKernel::graphCompareIsMsprobes_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("rankStep");
    for (const char *rs : {"0_0", "0_1", "1_0", "1_1"})
        QTest::addRow("statistic %s", rs) << QStringLiteral("statistic") << QString::fromLatin1(rs);
    QTest::addRow("tensor 0_0") << QStringLiteral("tensor") << QStringLiteral("0_0");
}

void TestMsKernel::graphCompareIsMsprobes()
{
    // msprobe's GraphMSComparator wrote oracle/{mode}_compare_result_{rank}_{step}.csv from the
    // same two trees: the rows, their order and (statistics mode) every cell's text.
    QFETCH(QString, mode);
    QFETCH(QString, rankStep);
    auto npu = open(mode + QStringLiteral("/npu"));
    auto bench = open(mode + QStringLiteral("/bench"));
    const auto scopes = compareMsGraph(*npu, *bench);
    const qint64 rank = rankStep.section(QLatin1Char('_'), 0, 0).toLongLong(), step = rankStep.section(QLatin1Char('_'), 1, 1).toLongLong();
    const MsGraphScope *scope = nullptr;
    for (const MsGraphScope &s : scopes)
        if (s.rank == rank && s.step == step)
            scope = &s;
    QVERIFY(scope);
    const QList<QStringList> oracle = testcsv::readFile(kRoot + QStringLiteral("/oracle/%1_compare_result_%2.csv").arg(mode, rankStep));
    QCOMPARE(msGraphHeader(scope->mode), oracle.front());
    QCOMPARE(qsizetype(scope->rows.size()), oracle.size() - 1);
    const QString root = QDir::cleanPath(QDir(kRoot).absolutePath()) + QLatin1Char('/');
    QHash<QString, QStringList> wantByName; // npy mode: msprobe's rows are in glob's (directory) order
    for (qsizetype i = 1; i < oracle.size(); ++i)
        wantByName.insert(oracle[i][0], oracle[i]);
    for (size_t i = 0; i < scope->rows.size(); ++i) {
        QStringList got = msGraphCells(scope->rows[i], scope->mode);
        for (QString &c : got)
            c.remove(root); // msprobe's absolute paths were made relative to the samples folder
        const QStringList want = scope->mode == MsGraphMode::Statistics ? oracle[qsizetype(i) + 1] : wantByName.value(got[0]);
        QVERIFY2(!want.isEmpty(), qPrintable(got[0]));
        if (scope->mode == MsGraphMode::Statistics) {
            QCOMPARE(got, want);
            continue;
        }
        // npy mode: names, dtypes, shapes and verdict as text; numbers to float32 precision
        // (numpy reduces in float32 with its own summation order, EucDist goes through BLAS).
        for (int c = 0; c < 6; ++c)
            QCOMPARE(got[c], want[c]);
        QCOMPARE(got[14], want[14]);
        for (int c : {6, 7, 10, 11})
            QCOMPARE(got[c].toFloat(), want[c].toFloat());
        for (int c : {8, 9, 12, 13, 16, 17, 18, 19, 20, 21}) {
            const double a = got[c].toDouble(), b = want[c].toDouble();
            QVERIFY2(std::abs(a - b) <= 1e-5 * (1 + std::abs(b)), qPrintable(QStringLiteral("%1: %2 vs %3").arg(oracle.front()[c], got[c], want[c])));
        }
    }
}

void TestMsKernel::badInput_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("tensors");
    QTest::addColumn<QStringList>("errors");
    const QString csv = QStringLiteral("/rank_0/Net/0/0/statistic.csv: ");
    QTest::newRow("missing columns") << QStringLiteral("missing_columns") << 0
                                     << QStringList{QStringLiteral("missing_columns") + csv + QStringLiteral("line 1: the header lacks the column(s) Stream ID, Timestamp, Shape; no row of this file is read")};
    QTest::newRow("short row") << QStringLiteral("short_row") << 2
                               << QStringList{QStringLiteral("short_row") + csv + QStringLiteral("line 3: 6 cells where the header has 14; row left out")};
    QTest::newRow("non-numeric cells") << QStringLiteral("non_numeric") << 2
                                       << QStringList{QStringLiteral("non_numeric") + csv + QStringLiteral("line 3, column 'Max Value': 'big' is not a number; left out"),
                                                      QStringLiteral("non_numeric") + csv + QStringLiteral("line 4, column 'Task ID': 'zero' is not an integer; row left out")};
    QTest::newRow("header only") << QStringLiteral("header_only") << 0
                                 << QStringList{QStringLiteral("header_only") + csv + QStringLiteral("a header and no rows: no tensor statistics recorded")};
    QTest::newRow("npy name") << QStringLiteral("bad_npy_name") << 1
                              << QStringList{QStringLiteral("bad_npy_name/rank_0/Net/0/0/not_a_kernel_name.npy: not a MindSpore kernel tensor name "
                                                            "({op_type}.{op_name}.{task}.{stream}.{timestamp}.{input|output}.{slot}.{format}[.{dtype}].npy); file left out")};
}

void TestMsKernel::badInput()
{
    QFETCH(QString, dir);
    QFETCH(int, tensors);
    QFETCH(QStringList, errors);
    auto index = open(QStringLiteral("bad"));
    QStringList got;
    for (const FileError &e : index->errors)
        if (e.file.startsWith(dir + QLatin1Char('/')))
            got << e.text();
    QCOMPARE(got, errors);
    int n = 0;
    for (const OpRecord &op : index->ops)
        if (op.relPath.toString().startsWith(dir + QLatin1Char('/')))
            n += int(op.tensors.size());
    QCOMPARE(n, tensors);
    // The good rows are read exactly (non_numeric: the Max cell left out, the rest kept).
    if (dir == QLatin1String("non_numeric")) {
        for (const OpRecord &op : index->ops)
            if (op.relPath.toString().startsWith(dir + QLatin1Char('/'))) {
                const TensorRecord *out = op.tensor(IoKind::Output, 0);
                QVERIFY(out);
                QVERIFY(!out->recorded().has(RecordedStats::Max));
                QCOMPARE(out->recorded().norm, 2.5);
                QCOMPARE(op.tensor(IoKind::Input, 0)->recorded().min, -1.0);
            }
    }
}

void TestMsKernel::mixedFrameworksInOneRun()
{
    // A PyTorch msprobe rank (samples/msprobe, framework "pytorch") beside a MindSpore kernel
    // rank in one run folder: both load, and one warning names the run and a folder of each.
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString run = tmp.path() + QStringLiteral("/run");
    QVERIFY(QDir().mkpath(run + QStringLiteral("/step0/rank1")));
    QVERIFY(QFile::copy(QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe/step0/proc2016/dump.json"), run + QStringLiteral("/step0/rank1/dump.json")));
    const QString kernel = QStringLiteral("/rank_0/Net/0/0");
    QVERIFY(QDir().mkpath(run + kernel));
    QVERIFY(QFile::copy(kRoot + QStringLiteral("/statistic/npu") + kernel + QStringLiteral("/statistic.csv"), run + kernel + QStringLiteral("/statistic.csv")));
    auto index = buildIndex(tmp.path());
    QVERIFY(index);
    QStringList mixed;
    for (const FileError &e : (*index)->errors)
        if (e.message.contains(QLatin1String("several frameworks")))
            mixed << e.text();
    QCOMPARE(mixed, QStringList{QStringLiteral("run: one run folder holds dumps of several frameworks: mindspore (run/rank_0/Net/0/0), "
                                               "pytorch (run/step0/rank1); each is read, but their steps and ranks are shown as one run")});
    int kernels = 0, entries = 0;
    for (const OpRecord &op : (*index)->ops)
        (sourceFormatName(op.source) == QLatin1String("mindspore-kernel") ? kernels : entries) += 1;
    QVERIFY(kernels > 0 && entries > 0);
}

void TestMsKernel::fileNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("opName");
    QTest::addColumn<QString>("dtype");
    QTest::addRow("documented") << QStringLiteral("Conv2d.Conv2D-op12.0.0.1623124369613540.output.0.DefaultFormat.float16.npy") << true
                                << QStringLiteral("Conv2D-op12") << QStringLiteral("float16");
    QTest::addRow("no dtype") << QStringLiteral("op_type.op_1.0.0.1721724968854345.input.0.DefaultFormat.npy") << true
                              << QStringLiteral("op_1") << QString();
    QTest::addRow("not io") << QStringLiteral("A.b.0.0.1.weight.0.DefaultFormat.npy") << false << QString() << QString();
    QTest::addRow("no timestamp") << QStringLiteral("A.b.0.0.output.0.DefaultFormat.npy") << false << QString() << QString();
}

void TestMsKernel::fileNames()
{
    QFETCH(QString, name);
    QFETCH(bool, ok);
    QFETCH(QString, opName);
    QFETCH(QString, dtype);
    const auto k = mindspore::parseKernelFileName(name);
    QCOMPARE(k.has_value(), ok);
    if (k) {
        QCOMPARE(k->opName, opName);
        QCOMPARE(k->dtype, dtype);
    }
}

void TestMsKernel::levelSpellings_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("step");
    QTest::addColumn<QString>("rank");
    QTest::addColumn<qint64>("stepNumber");
    QTest::addColumn<qint64>("rankNumber");
    QTest::addRow("msprobe") << QStringLiteral("/d/step3/rank2") << QStringLiteral("step3") << QStringLiteral("rank2") << qint64(3) << qint64(2);
    QTest::addRow("verl step_N/rank_M") << QStringLiteral("/d/step_3/rank_2") << QStringLiteral("step_3") << QStringLiteral("rank_2") << qint64(3) << qint64(2);
    QTest::addRow("aclgraph pid") << QStringLiteral("/d/step0/pid4711") << QStringLiteral("step0") << QStringLiteral("pid4711") << qint64(0) << qint64(-1);
    QTest::addRow("rank_ without step") << QStringLiteral("/d/rank_7") << QString() << QStringLiteral("rank_7") << qint64(-1) << qint64(7);
}

void TestMsKernel::levelSpellings()
{
    QFETCH(QString, path);
    QFETCH(QString, step);
    QFETCH(QString, rank);
    QFETCH(qint64, stepNumber);
    QFETCH(qint64, rankNumber);
    const DumpLevels l = frameworkLevels(path);
    QCOMPARE(l.step, step);
    QCOMPARE(l.rank, rank);
    QCOMPARE(levelNumber(l.step), stepNumber);
    QCOMPARE(levelNumber(l.rank, true), rankNumber);
}

QTEST_GUILESS_MAIN(TestMsKernel)
#include "tst_mskernel.moc"
