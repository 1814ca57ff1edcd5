// Folders of loose torch.save `.pt` files (formats/ptfolder): the grouping of file names by
// msprobe's naming, and samples/torch (written by real torch.save, generate_torch.py) opened
// as a folder: every good file's tensors (key paths of state dicts, dtypes, shapes) with the
// values of numpy's oracles beside them, and every bad file (unsafe pickle global, damaged
// archive) an error naming it while the rest of the folder loads.
#include "formats/ptfolder/ptfolder.h"
#include "index/buildindex.h"
#include "index/tensorloader.h"
#include "tensor/dtype.h"
#include "tensor/stats.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

using namespace ds;

namespace {

const QString kTorch = QStringLiteral(DUMPSCOPE_SAMPLES "/torch");

QJsonObject manifest()
{
    QFile f(kTorch + QStringLiteral("/manifest.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// The tensor records of `file` (a path relative to the index root), as (op, tensor) ids.
std::vector<DumpIndex::TensorRef> tensorsOf(const DumpIndex &ix, const QString &file)
{
    std::vector<DumpIndex::TensorRef> ids;
    for (size_t o = 0; o < ix.ops.size(); ++o)
        for (size_t t = 0; t < ix.ops[o].tensors.size(); ++t)
            if (ix.ops[o].tensors[t].location() == file)
                ids.push_back({int(o), int(t)});
    return ids;
}

/// The .npy record (numpy's oracle) with location `file`.
DumpIndex::TensorRef npyRecord(const DumpIndex &ix, const QString &file)
{
    const auto ids = tensorsOf(ix, file);
    return ids.empty() ? DumpIndex::TensorRef{-1, -1} : ids.front();
}

bool sameNumber(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

class TestPtFolder : public QObject
{
    Q_OBJECT
private slots:
    void splitName_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");     // "" = not grouped
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<int>("io");
        // msprobe dump_tensor_data (pytorch_processor.py save_tensor)
        QTest::newRow("api output") << "Functional.relu.0.forward.output.0.pt" << "Functional.relu.0.forward" << "output.0" << int(IoKind::Output);
        QTest::newRow("api kwargs") << "Torch.add.1.forward.input_kwargs.alpha.pt" << "Torch.add.1.forward" << "input_kwargs.alpha" << int(IoKind::Input);
        QTest::newRow("module named output") << "Module.output.Linear.forward.0.output.0.pt" << "Module.output.Linear.forward.0" << "output.0" << int(IoKind::Output);
        QTest::newRow("parameters") << "Module.fc1.Linear.forward.0.parameters.weight.pt" << "Module.fc1.Linear.forward.0" << "parameters.weight" << int(IoKind::Parameter);
        QTest::newRow("backward input") << "Functional.linear.0.backward.input.0.pt" << "Functional.linear.0.backward" << "input.0" << int(IoKind::Input);
        // aclgraph tensor_data/{api}.{call}.{input|input_kwargs|output}[.{i}].pt
        QTest::newRow("aclgraph output") << "Tensor.matmul.3.output.pt" << "Tensor.matmul.3" << "output" << int(IoKind::Output);
        // msaccucmp convert -t pt: {dump name}.{input|output}.{n}.pt
        QTest::newRow("msaccucmp") << "Add.add_1.2.1.1700000000.input.1.pt" << "Add.add_1.2.1.1700000000" << "input.1" << int(IoKind::Input);
        // not grouped: acl_save {base}_{seq}, parse -t pt {bin name}, state dicts
        QTest::newRow("acl_save") << "hidden_states_3.pt" << "" << "" << int(IoKind::Output);
        QTest::newRow("state dict") << "P0_hf_original_step1_rank0.pt" << "" << "" << int(IoKind::Output);
        QTest::newRow("category first word") << "output.pt" << "" << "" << int(IoKind::Output);
    }
    void splitName()
    {
        QFETCH(QString, file);
        QFETCH(QString, op);
        QFETCH(QString, tensor);
        QFETCH(int, io);
        const ptfolder::PtName n = ptfolder::splitPtName(file);
        QCOMPARE(n.grouped, !op.isEmpty());
        QCOMPARE(n.op, op.isEmpty() ? file.chopped(3) : op);
        QCOMPARE(n.tensor, tensor);
        QCOMPARE(int(n.io), io);
    }

    /// samples/torch as a folder: each good file of the manifest is there with torch's key
    /// paths, dtypes and shapes, and loads to the values of its numpy oracle.
    void samplesTorchFolder()
    {
        const QJsonObject m = manifest();
        QVERIFY(!m.isEmpty());
        QFile::remove(m[QLatin1String("marker")].toString());
        auto index = buildIndex(kTorch);
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        const DumpIndex &ix = **index;
        int checked = 0;
        for (const QJsonValue g : m[QLatin1String("good")].toArray()) {
            const QString file = g[QLatin1String("file")].toString();
            const QJsonArray want = g[QLatin1String("tensors")].toArray();
            const auto ids = tensorsOf(ix, file);
            QVERIFY2(ids.size() == size_t(want.size()), qPrintable(file));
            const ptfolder::PtName name = ptfolder::splitPtName(file);
            for (qsizetype i = 0; i < want.size(); ++i) {
                const QString path = want[i][QLatin1String("path")].toString();
                const OpRecord &op = ix.ops[size_t(ids[size_t(i)].op)];
                const TensorRecord &rec = op.tensors[size_t(ids[size_t(i)].tensor)];
                if (name.grouped) {
                    QCOMPARE(op.opName.toString(), name.op);
                    QCOMPARE(rec.name(), path.isEmpty() ? name.tensor : name.tensor + QLatin1Char('.') + path);
                } else {
                    QCOMPARE(op.relPath.toString(), file);
                    QCOMPARE(rec.name(), path.isEmpty() ? file.chopped(3) : path);
                }
                QCOMPARE(QString::fromLatin1(dataTypeInfo(rec.dataType()).name), want[i][QLatin1String("dtype")].toString());
                QJsonArray shape;
                for (auto d : rec.shape())
                    shape.append(qint64(d));
                QCOMPARE(shape, want[i][QLatin1String("shape")].toArray());

                const DumpIndex::TensorRef oracle = npyRecord(ix, want[i][QLatin1String("oracle")].toString());
                QVERIFY2(oracle.op >= 0, qPrintable(want[i][QLatin1String("oracle")].toString()));
                auto pt = loadTensor(ix, ids[size_t(i)], LayoutChoice::Logical);
                QVERIFY2(pt.ok(), qPrintable(file + QStringLiteral(": ") + pt.errorText()));
                auto np = loadTensor(ix, oracle, LayoutChoice::Logical);
                QVERIFY2(np.ok(), qPrintable(np.errorText()));
                TensorStats a, b;
                QVERIFY(computeStats((*pt)->view, a));
                QVERIFY(computeStats((*np)->view, b));
                QCOMPARE(a.count, b.count);
                QCOMPARE(a.nan, b.nan);
                QCOMPARE(a.posinf, b.posinf);
                QCOMPARE(a.zero, b.zero);
                QVERIFY2(sameNumber(a.min, b.min) && sameNumber(a.max, b.max) && sameNumber(a.mean, b.mean), qPrintable(file + QLatin1Char(' ') + path));
                ++checked;
            }
        }
        QVERIFY(checked >= 30);

        // Every bad file: an error naming it (unsafe globals, damaged archives); nothing of it indexed.
        for (const QJsonValue b : m[QLatin1String("bad")].toArray()) {
            const QString file = b[QLatin1String("file")].toString();
            const bool named = std::any_of(ix.errors.begin(), ix.errors.end(), [&](const FileError &e) { return e.file == file && !e.message.isEmpty(); });
            QVERIFY2(named, qPrintable(file + QStringLiteral(" (") + b[QLatin1String("what")].toString() + QLatin1Char(')')));
            QVERIFY2(tensorsOf(ix, file).empty(), qPrintable(file));
        }
        const auto posix = std::find_if(ix.errors.begin(), ix.errors.end(), [](const FileError &e) { return e.file == QLatin1String("mal_os_system.pt"); });
        QVERIFY(posix != ix.errors.end());
        QVERIFY2(posix->message.contains(QLatin1String("system")), qPrintable(posix->message)); // names the forbidden global
        QVERIFY(!QFile::exists(m[QLatin1String("marker")].toString()));
    }

    /// One `.pt` opened alone: that file only (a state dict: one tensor per key, torch's order).
    void singleStateDict()
    {
        QJsonArray want;
        for (const QJsonValue g : manifest()[QLatin1String("good")].toArray())
            if (g[QLatin1String("file")].toString() == QLatin1String("state_dict.pt"))
                want = g[QLatin1String("tensors")].toArray();
        QVERIFY(want.size() >= 2);
        auto index = buildIndex(kTorch + QStringLiteral("/state_dict.pt"));
        QVERIFY2(index.ok(), qPrintable(index.errorText()));
        QCOMPARE((*index)->ops.size(), size_t(1));
        const OpRecord &op = (*index)->ops.front();
        QCOMPARE(op.tensors.size(), size_t(want.size()));
        for (qsizetype i = 0; i < want.size(); ++i)
            QCOMPARE(op.tensors[size_t(i)].name(), want[i][QLatin1String("path")].toString());
        QVERIFY((*index)->errors.empty());
    }
};

QTEST_GUILESS_MAIN(TestPtFolder)
#include "tst_ptfolder.moc"
