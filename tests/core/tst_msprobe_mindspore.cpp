// MindSpore msprobe dumps (issue 32 item 1): samples/msprobe_mindspore, rendered from real msprobe 26
// PyTorch dumps by samples/msprobe_mindspore/tools/render_mindspore.py the way msprobe's MindSpore
// processor writes them. The oracles are the recorded statistics of the real run and the .npy files
// numpy wrote (never DumpScope's own output).
#include "compare/compare.h"
#include "dump/levels.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "run/commclock.h"
#include "run/runtree.h"
#include "tensor/dtype.h"
#include "tensor/stats.h"
#include "copytree.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;
using ds::testing::copyTree;

namespace {

const QString kRoot = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_mindspore");

std::shared_ptr<DumpIndex> index(const QString &path)
{
    auto r = buildIndex(path);
    return r ? *r : nullptr;
}

} // namespace

class TestMsprobeMindspore : public QObject
{
    Q_OBJECT

private slots:
    /// acc_check -save_error_data writes its tensors to error_data/ beside dump.json and says so in
    /// dump_data_dir (an absolute path of the machine that dumped): every tensor is found there and
    /// loads with the statistics msprobe recorded.
    void tensorsWhereDumpDataDirSays()
    {
        auto idx = index(kRoot + QStringLiteral("/acc_check_error_data"));
        QVERIFY(idx);
        int tensors = 0;
        for (size_t o = 0; o < idx->ops.size(); ++o)
            for (size_t t = 0; t < idx->ops[o].tensors.size(); ++t) {
                const TensorRecord &rec = idx->ops[o].tensors[t];
                if (rec.storage() != TensorStorage::NpyFile)
                    continue;
                ++tensors;
                QVERIFY2(rec.location().startsWith(QLatin1String("error_data/")), qPrintable(rec.location()));
                auto loaded = loadTensor(*idx, {int(o), int(t)}, LayoutChoice::Logical);
                QVERIFY2(loaded, qPrintable(rec.location()));
                TensorStats st;
                computeStats((*loaded)->view, st);
                QCOMPARE(st.max, rec.recorded().max);
                QCOMPARE(st.min, rec.recorded().min);
            }
        QCOMPARE(tensors, 6); // the six files numpy wrote into error_data/
    }

    /// A PyNative tensor dump: framework mindspore, Cell/Mint names, bf16 recorded as "BFloat16"
    /// and saved as fp32 (the file's dtype is float32); layout and hsdp_shard_size are kept on
    /// their tensor, not walked as tensors of their own.
    void pynativeTensorDump()
    {
        auto idx = index(kRoot + QStringLiteral("/pynative_bf16_tensor_mix"));
        QVERIFY(idx);
        QCOMPARE(idx->producerFrameworks, QStringList{QStringLiteral("mindspore")});
        int weightOp = -1;
        for (size_t o = 0; o < idx->ops.size(); ++o) {
            if (idx->ops[o].opName.toString() == QLatin1String("Cell.fc1.Dense.forward.0"))
                weightOp = int(o);
            for (const TensorRecord &t : idx->ops[o].tensors)
                QVERIFY2(!t.name().contains(QLatin1String("layout")) && !t.name().contains(QLatin1String("hsdp")),
                         qPrintable(t.name()));
        }
        QVERIFY(weightOp >= 0);
        const OpRecord &op = idx->ops[size_t(weightOp)];
        int w = -1;
        for (size_t t = 0; t < op.tensors.size(); ++t)
            if (op.tensors[t].name() == QLatin1String("parameters.weight") || op.tensors[t].name() == QLatin1String("weight"))
                w = int(t);
        QVERIFY(w >= 0);
        const TensorRecord &weight = op.tensors[size_t(w)];
        QCOMPARE(weight.typeName(), QStringLiteral("BFloat16"));
        QCOMPARE(DataType(weight.dataType()), DataType::BFloat16);
        QVERIFY2(weight.value().contains(QLatin1String("Device Matrix")), qPrintable(weight.value()));
        QVERIFY2(weight.value().contains(QLatin1String("hsdp_shard_size")), qPrintable(weight.value()));
        auto loaded = loadTensor(*idx, {weightOp, w}, LayoutChoice::Logical);
        QVERIFY(loaded);
        QCOMPARE(DataType((*loaded)->dataType), DataType::Float32);
    }

    /// msprobe's MindSpore-only API kinds (names_statistics_mix): MintDistributed.* calls (mint.distributed)
    /// and Primitive.{attribute}.{Class}.{n} calls keep their type and their construct.json
    /// parent, and the communication clock counts the MintDistributed calls of both ranks.
    void mindsporeOnlyNames()
    {
        auto idx = index(kRoot + QStringLiteral("/names_statistics_mix"));
        QVERIFY(idx);
        QCOMPARE(idx->producerFrameworks, QStringList{QStringLiteral("mindspore")});
        int distributed = 0, primitive = 0, parents = 0;
        for (const char *rank : {"rank0", "rank1"}) {
            const QString dir = QStringLiteral("step0/") + QLatin1String(rank);
            QFile f(kRoot + QStringLiteral("/names_statistics_mix/") + dir + QStringLiteral("/construct.json"));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject construct = QJsonDocument::fromJson(f.readAll()).object();
            QVERIFY(!construct.isEmpty());
            for (const OpRecord &op : idx->ops) {
                const QString path = op.relPath.toString();
                if (!path.startsWith(dir + QLatin1Char('/')))
                    continue;
                const QString name = op.opName.toString();
                if (name.startsWith(QLatin1String("MintDistributed."))) {
                    ++distributed;
                    QCOMPARE(op.opType.toString(), QStringLiteral("MintDistributed.all_reduce"));
                }
                if (name.startsWith(QLatin1String("Primitive."))) {
                    ++primitive;
                    QCOMPARE(op.opType.toString(), QStringLiteral("Primitive.relu.ReLU"));
                }
                QCOMPARE(isClockOp(op), name.startsWith(QLatin1String("MintDistributed.")));
                if (!construct.contains(name) || !name.endsWith(QLatin1String(".forward")))
                    continue; // backward parents are repaired by the reader (msprobereader.cpp)
                const QString parent = construct.value(name).toString(); // null: top level
                QVERIFY2(op.parent.toString() == parent, qPrintable(name + QStringLiteral(": ") + op.parent.toString() + QStringLiteral(" vs ") + parent));
                parents += !parent.isEmpty();
            }
        }
        QCOMPARE(distributed, 4); // all_reduce 0 and 1 on each rank
        QCOMPARE(primitive, 4);   // forward and backward on each rank
        QVERIFY(parents > 10);
    }

    /// jit split: dump_path/{graph,pynative}/step0/rank0 is one run of one step and rank, made of
    /// two parts.
    void jitSplitIsOneRun()
    {
        auto tree = discoverRuns(kRoot + QStringLiteral("/jit_split/npu"));
        QVERIFY(tree);
        QCOMPARE(tree->runs.size(), size_t(1));
        const RunInfo &run = tree->runs.front();
        QCOMPARE(run.relPath, QString());
        QCOMPARE(run.scopes.size(), size_t(1));
        QCOMPARE(run.scopes.front().id, QStringLiteral("step0/rank0"));
        QCOMPARE(run.scopes.front().dirs, (QStringList{QStringLiteral("graph/step0/rank0"), QStringLiteral("pynative/step0/rank0")}));
        auto idx = index(kRoot + QStringLiteral("/jit_split/npu"));
        QVERIFY(idx);
        QSet<QString> parts;
        for (const OpRecord &op : idx->ops) {
            parts.insert(op.levels->part);
            // graph/ holds the jit cells, pynative/ the rest.
            QCOMPARE(op.levels->part, op.opName.toString().startsWith(QLatin1String("Cell.")) ? QStringLiteral("graph")
                                                                                                : QStringLiteral("pynative"));
        }
        QCOMPARE(parts, (QSet<QString>{QStringLiteral("graph"), QStringLiteral("pynative")}));
    }

    /// Compare pairs graph with graph and pynative with pynative, as msprobe's mix compare runs
    /// one compare per mode: every row pairs within its part, and a bench whose graph/ and
    /// pynative/ are swapped pairs nothing (msprobe compares graph/ with the other graph/).
    void jitSplitComparePairsByPart()
    {
        auto npu = index(kRoot + QStringLiteral("/jit_split/npu"));
        auto bench = index(kRoot + QStringLiteral("/jit_split/bench"));
        QVERIFY(npu && bench);
        const CompareResult r = compareIndexes(*npu, *bench);
        int paired = 0;
        for (const CompareRow &row : r.rows) {
            if (row.bench.op < 0)
                continue;
            ++paired;
            QCOMPARE(bench->op(row.bench).levels->part, npu->op(row.npu).levels->part);
        }
        QVERIFY(paired > 0);
        QCOMPARE(paired, int(r.rows.size()));

        QTemporaryDir tmp;
        QVERIFY(copyTree(kRoot + QStringLiteral("/jit_split/bench/graph"), tmp.path() + QStringLiteral("/pynative")));
        QVERIFY(copyTree(kRoot + QStringLiteral("/jit_split/bench/pynative"), tmp.path() + QStringLiteral("/graph")));
        auto swapped = index(tmp.path());
        QVERIFY(swapped);
        const CompareResult s = compareIndexes(*npu, *swapped);
        for (const CompareRow &row : s.rows)
            QVERIFY2(row.bench.op < 0, qPrintable(row.npuName));
    }

    /// The graph part is a static-graph L0 dump as msprobe generates it afterwards: stack.json of
    /// empty lists, dump_data_dir null. It loads without errors and its cells have no stack.
    void staticGraphL0()
    {
        auto idx = index(kRoot + QStringLiteral("/jit_split/npu/graph"));
        QVERIFY(idx);
        QVERIFY(!idx->ops.empty());
        for (const auto &e : idx->errors)
            QVERIFY2(false, qPrintable(e.file + QStringLiteral(": ") + e.message));
    }
};

QTEST_GUILESS_MAIN(TestMsprobeMindspore)
#include "tst_msprobe_mindspore.moc"
