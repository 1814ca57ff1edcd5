// Cross-framework matching (issue 31, items 1 and 5): a MindSpore-shaped dump of a real
// PyTorch run against its real PyTorch bench, and msprobe's own mindspore_ut fixtures. The
// oracle is the CSV the real msprobe 26.0.0 wrote for each pair (samples/msprobe_crossframework,
// pairs.json; its README says how every file was made).
//
// Where msprobe's pairs differ, the test says why and checks the reason on the data: msprobe's
// -am looks the NPU's raw backward counters up among the bench's backward names renumbered by
// backward call order (update_backward_call renumbers both sides, but the api_mapping compare
// key is built from the raw NPU name), so it pairs the backward of the second dense call (fc2)
// with the backward of the first linear call (fc1). DumpScope pairs equal counters.
#include "compare/compare.h"
#include "compare/comparematch.h"
#include "compare/comparereport.h"
#include "compare/crossframework.h"
#include "crossframeworkfiles.h"
#include "index/buildindex.h"

#include <QFile>
#include <QHash>
#include <QTest>

using namespace ds;

namespace {

using namespace crossframework;

/// msprobe's key of a backward entry: its counter replaced by the entry's backward call order
/// (the number of earlier backward entries of the same API in dump order), as its
/// update_backward_call does. Other entries keep their name.
QHash<QString, QString> renumberedBackward(const DumpIndex &index)
{
    QHash<QString, QString> out;
    QHash<QString, int> count;
    for (const OpRecord &op : index.ops) {
        const QString name = opMatchKey(op);
        QStringList t = name.split(QLatin1Char('.'));
        if (t.size() < 3 || t.last() != QLatin1String("backward"))
            continue;
        const QString api = t.mid(0, t.size() - 2).join(QLatin1Char('.'));
        t[t.size() - 2] = QString::number(count[api]++);
        out.insert(t.join(QLatin1Char('.')), name);
    }
    return out;
}

} // namespace

class TestCompareCrossFramework : public QObject
{
    Q_OBJECT

private slots:
    void frameworksAreRecorded()
    {
        const auto ms = open(QStringLiteral("ms_npu/npu_weight")), pt = open(QStringLiteral("pt_bench"));
        QVERIFY(ms && pt);
        QCOMPARE(ms->producerFrameworks, QStringList{"mindspore"});
        QCOMPARE(pt->producerFrameworks, QStringList{"pytorch"});
        QVERIFY(isCrossFramework(*ms, *pt));
        QVERIFY(!isCrossFramework(*pt, *pt));
        QVERIFY(!isCrossFramework(*pt, *ms)); // msprobe: cross when the bench is PyTorch
        QCOMPARE(msToPtTableSize(), 399);     // every line of msprobe's ms_to_pt_api.yaml
        QCOMPARE(msToPtEntryName("Mint.flatten.0.forward"), QString("Torch.flatten.0.forward"));
        QCOMPARE(msToPtEntryName("MintFunctional.softmax.0.backward"), QString("Functional.softmax.0.backward"));
        QCOMPARE(msToPtEntryName("Functional.dense.1.forward"), QString("Functional.linear.1.forward"));
        QCOMPARE(msToPtEntryName("Cell.fc1.Dense.forward.0"), QString("Cell.fc1.Dense.forward.0"));
    }

    // DumpScope's pairs and --style msprobe rows with no option are msprobe's `compare -am`
    // CSV, row for row and byte for byte, but for the backward rows above.
    void rowsAreMsprobeAm_data()
    {
        QTest::addColumn<QString>("npu");
        QTest::addColumn<QString>("bench");
        QTest::addColumn<QString>("mapping");
        QTest::addColumn<QString>("csv");
        QTest::addColumn<int>("renumbered"); // rows msprobe pairs by the bench's renumbered backward names
        QTest::addRow("weight_am") << "ms_npu/npu_weight" << "pt_bench" << "" << "compare/weight_am.csv" << 7;
        QTest::addRow("bf16_am") << "ms_npu/npu_bf16" << "pt_bench" << "" << "compare/bf16_am.csv" << 7;
        QTest::addRow("bf16_md5_am") << "ms_npu/npu_bf16_md5" << "pt_bench_bf16_md5" << "" << "compare/bf16_md5_am.csv" << 7;
        QTest::addRow("mindtorch_weight") << "ms_npu/mt_npu_weight" << "pt_bench" << "" << "compare/mindtorch_weight.csv" << 0;
        QTest::addRow("fixtures_am") << "fixtures/mindspore_data" << "fixtures/pytorch_data" << "" << "compare/fixtures_am.csv" << 0;
        QTest::addRow("weight_am_file") << "ms_npu/npu_weight" << "pt_bench" << "mappings/api_mapping.yaml"
                                        << "compare/weight_am_file.csv" << 4;
    }
    void rowsAreMsprobeAm()
    {
        QFETCH(QString, npu);
        QFETCH(QString, bench);
        QFETCH(QString, mapping);
        QFETCH(QString, csv);
        QFETCH(int, renumbered);
        const auto n = open(npu), b = open(bench);
        QVERIFY(n && b);
        CompareOptions o;
        if (!mapping.isEmpty()) {
            auto m = UserMapping::load(kDir + mapping);
            QVERIFY2(m, qPrintable(m.errorText()));
            QCOMPARE(m->kind, MappingKind::Api);
            o.mapping = *m;
        }
        const CompareResult r = compareIndexes(*n, *b, o);
        QVERIFY(r.crossFramework);
        const auto ours = records(compareCsv(*n, *b, r, ReportStyle::Msprobe)), theirs = records(readAll(kDir + csv));
        QCOMPARE(ours.size(), theirs.size());
        QVERIFY(theirs.size() > 1);
        const QHash<QString, QString> backward = renumberedBackward(*b);
        QSet<QString> renumberedOps;
        int differ = 0;
        for (size_t i = 1; i < ours.size(); ++i) {
            const QString npuName = ours[i][0], bench = theirs[i][1];
            QCOMPARE(npuName, theirs[i][0]);
            if (ours[i][1] == bench)
                continue;
            // msprobe's bench row is the renumbered backward entry with the NPU's raw counter
            // (or N/A when that entry has no such row); ours is the same counter's entry
            ++differ;
            const QString ourBench = ours[i][1];
            const qsizetype cut = ourBench.indexOf(QLatin1String(".backward.")) + 9;
            QVERIFY2(cut > 9, qPrintable(ourBench));
            const QString entry = ourBench.left(cut), row = ourBench.mid(cut);
            if (bench != QLatin1String("N/A"))
                QCOMPARE(bench, backward.value(entry) + row);
            renumberedOps << npuName.left(npuName.indexOf(QLatin1String(".backward.")) + 9);
        }
        QCOMPARE(differ, renumbered);
        // every other row is msprobe's text, field for field (the Result and Err_message of an
        // operator whose rows msprobe paired otherwise can differ: its checkers read all of them)
        const int result = int(theirs[0].indexOf(QStringLiteral("Result"))), message = result + 1;
        for (size_t i = 1; i < ours.size(); ++i) {
            const QString op = ours[i][0].left(ours[i][0].indexOf(QLatin1String(".backward.")) + 9);
            if (ours[i][1] != theirs[i][1])
                continue;
            for (int f = 0; f < int(ours[i].size()); ++f) {
                if ((f == result || f == message) && renumberedOps.contains(op))
                    continue;
                QVERIFY2(ours[i][f] == theirs[i][f], qPrintable(QStringLiteral("%1 column %2: %3 vs msprobe %4")
                                                                    .arg(ours[i][0], theirs[0][f], ours[i][f], theirs[i][f])));
            }
        }
    }

    // msprobe marks every MindSpore tensor row error ("The Required_Grad of NPU and Bench are
    // inconsistent": MindSpore records no requires_grad; and the dtype spelling): --style msprobe
    // keeps that (above). DumpScope's own verdict does not: Float32 is torch.float32, and a
    // missing requires_grad is not a difference. Rows before the designed first divergence
    // (fc1.weight, Functional.dense.0.forward input 1) pass.
    void ownVerdictIgnoresMissingRequiresGrad()
    {
        const auto n = open(QStringLiteral("ms_npu/npu_weight")), b = open(QStringLiteral("pt_bench"));
        QVERIFY(n && b);
        const CompareResult r = compareIndexes(*n, *b);
        int conv = 0;
        for (const CompareRow &row : r.rows) {
            if (!row.npuName.startsWith(QLatin1String("Functional.conv2d.0.forward")) || row.bench.op < 0)
                continue;
            QCOMPARE(row.verdict, Verdict::Pass);
            QVERIFY(!row.dtypeDiffers);
            if (n->tensor(row.npu).isTensor()) {
                ++conv;
                QCOMPARE(row.result, QString("error")); // msprobe's Result for the same row
            }
        }
        QCOMPARE(conv, 3); // input.0, input.1 (conv.weight), output.0
        QVERIFY(!r.divergences.empty());
        QCOMPARE(opMatchKey(n->ops[size_t(r.divergences.front().originOp)]), QString("Functional.dense.0.forward"));
        // bfloat16 against float32 is a real dtype difference
        const auto bf = open(QStringLiteral("ms_npu/npu_bf16"));
        const CompareResult rb = compareIndexes(*bf, *b);
        const auto it = std::find_if(rb.rows.begin(), rb.rows.end(), [](const CompareRow &x) {
            return x.npuName == QLatin1String("Functional.conv2d.0.forward.input.0");
        });
        QVERIFY(it != rb.rows.end() && it->dtypeDiffers);
    }

    // The same real bfloat16 md5 run as MindSpore hashes it (the CRC-32 of each tensor cast to
    // float32) against PyTorch's own md5 dump (the CRC-32 of its bfloat16 bytes). msprobe marks
    // every bfloat16 row error ("The CRC-32 value of NPU differs from that of the bench."); the
    // values are equal (make_crossframework.py checks the tensor run's bytes against both), so
    // DumpScope leaves exactly those rows not compared, says why, and finds no divergence.
    void md5AfterFloat32CastIsNotADifference()
    {
        const auto n = open(QStringLiteral("ms_npu/npu_bf16_md5")), b = open(QStringLiteral("pt_bench_bf16_md5"));
        QVERIFY(n && b);
        QVERIFY(hashesAfterFloat32Cast(*n) && !hashesAfterFloat32Cast(*b));
        const CompareResult r = compareIndexes(*n, *b);
        QCOMPARE(r.mode, CompareMode::Md5);
        const auto theirs = records(readAll(kDir + QStringLiteral("compare/bf16_md5_am.csv")));
        const int result = int(theirs[0].indexOf(QStringLiteral("Result"))), message = result + 1;
        QHash<QString, QStringList> msprobe;
        for (size_t i = 1; i < theirs.size(); ++i)
            msprobe.insert(theirs[i][0], theirs[i]);
        int crcErrors = 0, passes = 0;
        for (const CompareRow &row : r.rows) {
            if (row.mode != CompareMode::Md5)
                continue;
            const QStringList m = msprobe.value(row.npuName);
            QVERIFY2(!m.isEmpty(), qPrintable(row.npuName));
            if (m[1] != row.benchName)
                continue; // a backward row msprobe pairs by renumbered counters (rowsAreMsprobeAm)
            if (m[message].contains(QLatin1String("CRC-32 value of NPU differs"))) {
                ++crcErrors;
                QVERIFY2(row.checksumsIncomparable, qPrintable(row.npuName));
                QCOMPARE(row.verdict, Verdict::None);
                QVERIFY(castBeforeHash(n->tensor(row.npu).dataType()));
                QVERIFY(row.messages.join(QLatin1Char(' ')).contains(QLatin1String("after casting it to float32")));
                QCOMPARE(row.result, QString("error")); // msprobe's Result stays msprobe's
            } else {
                ++passes;
                QVERIFY2(!row.checksumsIncomparable, qPrintable(row.npuName));
                QCOMPARE(row.verdict, m[result] == QLatin1String("pass") ? Verdict::Pass : row.verdict);
            }
        }
        QVERIFY(crcErrors > 0 && passes > 0);
        QVERIFY(r.divergences.empty());
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(),
                            [](const QString &w) { return w.startsWith(QLatin1String("md5: rows of bfloat16")); }));
        // two MindSpore dumps hash alike: everything compares, and the note says how
        const CompareResult same = compareIndexes(*n, *n);
        QVERIFY(std::none_of(same.rows.begin(), same.rows.end(), [](const CompareRow &x) { return x.checksumsIncomparable; }));
        QCOMPARE(same.count(Verdict::Pass), same.rows.size());
        QVERIFY(std::any_of(same.warnings.begin(), same.warnings.end(),
                            [](const QString &w) { return w.contains(QLatin1String("after casting them to float32")); }));
        // two PyTorch dumps: no note
        const CompareResult pt = compareIndexes(*b, *b);
        QVERIFY(std::none_of(pt.warnings.begin(), pt.warnings.end(), [](const QString &w) { return w.startsWith(QLatin1String("md5:")); }));
    }

    // MSAdapter (framework "mindtorch"): PyTorch's API and Module names, MindSpore's tensors
    // (dtype spellings, no requires_grad). msprobe pairs every row by name (its CSV, above);
    // DumpScope's own answer is the designed one: fc1.weight differs at Functional.linear.0.
    void mindtorchAgainstPytorch()
    {
        const auto n = open(QStringLiteral("ms_npu/mt_npu_weight")), b = open(QStringLiteral("pt_bench"));
        QVERIFY(n && b);
        QCOMPARE(n->producerFrameworks, QStringList{"mindtorch"});
        QVERIFY(isCrossFramework(*n, *b));
        const CompareResult r = compareIndexes(*n, *b);
        QCOMPARE(r.benchOnly.size(), size_t(0));
        QVERIFY(!r.divergences.empty());
        const Divergence &d = r.divergences.front();
        QCOMPARE(opMatchKey(n->ops[size_t(d.originOp)]), QString("Functional.linear.0.forward"));
        QCOMPARE(d.cause, DivergenceCause::Parameter);
        QCOMPARE(d.parameter, QString("fc1.weight"));
        for (const CompareRow &row : r.rows)
            if (row.npuName.startsWith(QLatin1String("Functional.conv2d.0.forward")) && n->tensor(row.npu).isTensor()) {
                QCOMPARE(row.verdict, Verdict::Pass); // Float32 is torch.float32, no requires_grad is no error
                QCOMPARE(row.result, QString("error")); // msprobe's requires_grad verdict
            }
    }

    // DumpScope applies msprobe's built-in table and the user's cell_mapping / data_mapping
    // together (msprobe takes one of -am, -cm, -dm): its pairs are the union of msprobe's pairs
    // under -am and under the other option, for every NPU row either of them paired.
    void userMappingsAddToTheTable_data()
    {
        QTest::addColumn<QString>("mapping");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("csv");
        QTest::addColumn<int>("onlyOption"); // rows only the option pairs (the table does not)
        // cell: Cell.fc1.Dense and Cell.fc2.Dense (by name, by string) and Cell.conv/ln (Cell -> Module)
        QTest::addRow("cell") << "mappings/cell_mapping.yaml" << int(MappingKind::Cell) << "compare/weight_cm_file.csv" << 27;
        // data: the three rows it names are rows the table pairs too
        QTest::addRow("data") << "mappings/data_mapping.yaml" << int(MappingKind::Data) << "compare/weight_dm_file.csv" << 0;
    }
    void userMappingsAddToTheTable()
    {
        QFETCH(QString, mapping);
        QFETCH(int, kind);
        QFETCH(QString, csv);
        QFETCH(int, onlyOption);
        const auto n = open(QStringLiteral("ms_npu/npu_weight")), b = open(QStringLiteral("pt_bench"));
        auto m = UserMapping::load(kDir + mapping);
        QVERIFY2(m, qPrintable(m.errorText()));
        QCOMPARE(int(m->kind), kind);
        QVERIFY(m->warnings.isEmpty());
        CompareOptions o;
        o.mapping = *m;
        const CompareResult r = compareIndexes(*n, *b, o);
        const auto ours = records(compareCsv(*n, *b, r, ReportStyle::Msprobe)), withOption = records(readAll(kDir + csv)),
                   am = records(readAll(kDir + QStringLiteral("compare/weight_am.csv")));
        QCOMPARE(ours.size(), withOption.size());
        int fromOption = 0;
        for (size_t i = 1; i < ours.size(); ++i) {
            const QString option = withOption[i][1], table = am[i][1];
            if (option != QLatin1String("N/A") && option != table) {
                QCOMPARE(ours[i][1], option); // only the option pairs it
                ++fromOption;
            } else if (table != QLatin1String("N/A") && !ours[i][0].contains(QLatin1String(".backward."))) {
                QCOMPARE(ours[i][1], table);
            }
        }
        QCOMPARE(fromOption, onlyOption);
        QVERIFY2(r.warnings.isEmpty(), qPrintable(r.warnings.join(QLatin1Char('\n'))));
    }

    void mappingKindsAreDetected()
    {
        const struct { const char *file; MappingKind kind; } files[] = {
            {"mappings/api_mapping.yaml", MappingKind::Api},   {"mappings/cell_mapping.yaml", MappingKind::Cell},
            {"mappings/data_mapping.yaml", MappingKind::Data}, {"fixtures/layer_mapping.yaml", MappingKind::Layer},
            {"compare/fixtures_lm_data_mapping.yaml", MappingKind::Data},
        };
        for (const auto &f : files) {
            auto m = UserMapping::load(kDir + QLatin1String(f.file));
            QVERIFY2(m, qPrintable(m.errorText()));
            QCOMPARE(m->kind, f.kind);
        }
        auto api = UserMapping::load(kDir + QStringLiteral("mappings/api_mapping.yaml"));
        QCOMPARE(api->apis.size(), size_t(1));
        QCOMPARE(api->apis[0].msArgs, QStringList({"0", "1"}));
        QCOMPARE(api->apis[0].ptOutput, QStringList{"0"});
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        QCOMPARE(layer->layers.size(), size_t(5));
        QCOMPARE(layer->layers[0].layer, QString("TopLayer"));
        // --mapping-kind forces: the cell file read as DumpScope's flat file
        auto flat = UserMapping::load(kDir + QStringLiteral("mappings/cell_mapping.yaml"), MappingKind::Flat);
        QVERIFY(flat && flat->kind == MappingKind::Flat && flat->names.size() == 2);
        MappingKind k = MappingKind::Auto;
        QVERIFY(parseMappingKind("cell", k) && k == MappingKind::Cell);
        QVERIFY(parseMappingKind("api_mapping", k) && k == MappingKind::Api);
        QVERIFY(!parseMappingKind("cells", k));
    }

    // Item 5: bad entries are named (file, entry, why) and left out; everything else pairs as
    // without them.
    void badMappingInputIsNamed()
    {
        const auto n = open(QStringLiteral("ms_npu/npu_weight")), b = open(QStringLiteral("pt_bench"));
        const CompareResult plain = compareIndexes(*n, *b);
        auto pairs = [](const CompareResult &r) {
            QStringList p;
            for (const CompareRow &row : r.rows)
                p << row.npuName + QStringLiteral(" -> ") + row.benchName;
            return p;
        };
        // malformed YAML: an error naming the file, line and column
        auto broken = UserMapping::parse("- ms_api: [Functional.dense\n", "broken.yaml");
        QVERIFY(!broken);
        QVERIFY2(broken.errorText().startsWith("broken.yaml:"), qPrintable(broken.errorText()));
        QVERIFY(broken.errorText().contains("not valid YAML"));
        // api entries: lists of different lengths, an API the NPU dump does not call, a target
        // an exact pair already holds is impossible across frameworks; a cell key found nowhere
        auto api = UserMapping::parse("- ms_api: Functional.dense\n  pt_api: Functional.linear\n  ms_args: [0, 1]\n  pt_args: [0]\n"
                                      "- ms_api: Functional.nothing\n  pt_api: Torch.nothing\n  ms_args: [0]\n  pt_args: [0]\n"
                                      "- 3\n",
                                      "api.yaml");
        QVERIFY2(api, qPrintable(api.errorText()));
        QCOMPARE(api->apis.size(), size_t(1));
        QCOMPARE(api->warnings.size(), 2);
        QVERIFY2(api->warnings[0].startsWith("api.yaml:1:3: api_mapping entry 1") && api->warnings[0].contains("ms_args has 2 indexes"),
                 qPrintable(api->warnings[0]));
        QVERIFY2(api->warnings[1].startsWith("api.yaml:9:3: api_mapping entry 3"), qPrintable(api->warnings[1]));
        CompareOptions o;
        o.mapping = *api;
        const CompareResult r = compareIndexes(*n, *b, o);
        QVERIFY(r.warnings.contains(api->warnings[0]));
        QVERIFY(r.warnings.contains(R"(mapping api.yaml: api_mapping "Functional.nothing" -> "Torch.nothing": the NPU dump calls no "Functional.nothing"; not used)"));
        QCOMPARE(pairs(r), pairs(plain));
        auto cell = UserMapping::parse("nowhere.Dense: fc9.Linear\n", "cell.yaml");
        QVERIFY(cell && cell->kind == MappingKind::Cell);
        o.mapping = *cell;
        const CompareResult rc = compareIndexes(*n, *b, o);
        QCOMPARE(rc.warnings, QStringList{R"(mapping cell.yaml: cell_mapping "nowhere.Dense" -> "fc9.Linear": no Cell entry of the NPU dump holds "nowhere.Dense"; not used)"});
        // data_mapping: a bench row an earlier pair took, and names on neither side
        auto data = UserMapping::parse("Functional.relu.0.forward.input.0: Functional.conv2d.0.forward.output.0\n"
                                       "No.such.0.forward.input.0: Functional.relu.0.forward.input.0\n",
                                       "data.yaml");
        QVERIFY(data && data->kind == MappingKind::Data);
        o.mapping = *data;
        const CompareResult rd = compareIndexes(*n, *b, o);
        QVERIFY2(rd.warnings.contains(R"(mapping data.yaml: "Functional.relu.0.forward.input.0" -> "Functional.conv2d.0.forward.output.0": Functional.relu.0.forward.input.0 (Functional.conv2d.0.forward.output.0): the bench row is already paired with another NPU row; matched as without the entry)"),
                 qPrintable(rd.warnings.join(QLatin1Char('\n'))));
        QVERIFY(rd.warnings.contains(R"(mapping data.yaml: "No.such.0.forward.input.0" names no operator or row of the NPU dump; not used)"));
        QCOMPARE(pairs(rd), pairs(plain));
        // a cell_mapping key whose bench name the bench dump does not hold: the renamed entries
        // are named with their rows, nothing else changes
        auto nowhere = UserMapping::parse("fc1.Dense: fc9.Linear\n", "cell9.yaml");
        QVERIFY(nowhere && nowhere->kind == MappingKind::Cell);
        o.mapping = *nowhere;
        const CompareResult r9 = compareIndexes(*n, *b, o);
        QVERIFY2(r9.warnings.contains(R"(mapping cell9.yaml: cell_mapping renames "Cell.fc1.Dense.forward.0" to "Module.fc9.Linear.forward.0": Cell.fc1.Dense.forward.0.input.0 (Module.fc9.Linear.forward.0.input.0) and 3 more: the bench dump has no such row; not paired)"),
                 qPrintable(r9.warnings.join(QLatin1Char('\n'))));
        for (const QString &w : r9.warnings)
            QVERIFY2(w.contains("Cell.fc1.Dense."), qPrintable(w)); // only fc1's entries are named
        // a cell_mapping target another entry's rows already took (fc1 runs first and takes fc2's
        // Module rows; fc2's own rows then find them paired)
        auto twice = UserMapping::parse("fc1.Dense: fc2.Linear\nfc2.Dense: fc2.Linear\n", "cell2.yaml");
        QVERIFY(twice && twice->kind == MappingKind::Cell);
        o.mapping = *twice;
        const CompareResult r2 = compareIndexes(*n, *b, o);
        QVERIFY2(r2.warnings.contains(R"(mapping cell2.yaml: cell_mapping renames "Cell.fc2.Dense.forward.0" to "Module.fc2.Linear.forward.0": Cell.fc2.Dense.forward.0.input.0 (Module.fc2.Linear.forward.0.input.0) and 2 more: the bench row is already paired with another NPU row; not paired)"),
                 qPrintable(r2.warnings.join(QLatin1Char('\n'))));
        // a key given twice: msprobe reads the file with PyYAML, whose map keeps the last value
        // (yaml.safe_load of this text gives {relu input: conv2d input}); the first is named
        auto dup = UserMapping::parse("Functional.relu.0.forward.input.0: Functional.relu.0.forward.input.0\n"
                                      "Functional.relu.0.forward.input.0: Functional.conv2d.0.forward.input.0\n",
                                      "dup.yaml");
        QVERIFY(dup && dup->kind == MappingKind::Data);
        QCOMPARE(dup->names.size(), size_t(1));
        QCOMPARE(dup->names.front().second, QStringLiteral("Functional.conv2d.0.forward.input.0"));
        QCOMPARE(dup->warnings, QStringList{R"(dup.yaml:2:1: "Functional.relu.0.forward.input.0" is given again (first on line 1): its last value "Functional.conv2d.0.forward.input.0" is used, as msprobe's YAML reader does; "Functional.relu.0.forward.input.0" is not used)"});
        o.mapping = *dup;
        QVERIFY(compareIndexes(*n, *b, o).warnings.contains(dup->warnings.front()));
        // a layer_mapping written for another model (msprobe's fixtures): it is applied
        // (tst_layermapping), and each of its six entries, which no scope of this pair spells,
        // is named as not used
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        o.mapping = *layer;
        const CompareResult rl = compareIndexes(*n, *b, o);
        QCOMPARE(rl.warnings.filter("layer_mapping \"").size(), 6);
        for (const QString &w : rl.warnings.filter("layer_mapping \""))
            QVERIFY2(w.endsWith("; not used"), qPrintable(w));
        QVERIFY(rl.warnings.join(QLatin1Char('\n')).contains(R"(layer_mapping "TopLayer: network_with_loss" -> "module": no NPU entry's scope has "network_with_loss" right inside a TopLayer layer; not used)"));
    }
};

QTEST_GUILESS_MAIN(TestCompareCrossFramework)
#include "tst_compare_crossframework.moc"
