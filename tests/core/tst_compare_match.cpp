// Matching (exact, occurrence order, scopes, fuzzy, CANN OriginalOp, user names and groups),
// mapping files, thresholds JSON, summary/MD5/value rows, verdict rules and the first
// divergence, on indexes built in memory (statistics-only and value rows need no files).
#include "formats/readers.h"
#include "compare/compare.h"
#include "compare/comparereport.h"
#include "compare/msprobenames.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ds;

namespace {

TensorFields tensor(IoKind io, std::uint32_t index, Shape shape = {4}, QString name = {})
{
    TensorFields t;
    t.io = io;
    t.index = index;
    t.shape = std::move(shape);
    t.dataType = int(DataType::Float32);
    t.name = std::move(name);
    return t;
}

/// Records are immutable: change a copy of the fields and rebuild.
template<typename F>
void edit(TensorRecord &t, F change)
{
    TensorFields f = t.fields();
    change(f);
    t = TensorRecord(f);
}

void setChecksum(TensorRecord &t, const QString &sum)
{
    TensorFields f = t.fields();
    f.checksum = sum;
    t = TensorRecord(f);
}

OpRecord cannOp(const QString &name, const QString &type = QStringLiteral("Add"), const QString &dataIndex = QStringLiteral("0"))
{
    OpRecord op;
    op.opName = name;
    op.extra().headerOpName = name;
    op.opType = type;
    op.relPath = type + QLatin1Char('.') + name + QLatin1Char('.') + dataIndex;
    DumpLevels levels;
    levels.dataIndex = dataIndex;
    op.levels = SharedLevels(levels);
    TensorFields out = tensor(IoKind::Output, 0);
    out.originalOpName = name;
    op.tensors = {TensorRecord(tensor(IoKind::Input, 0)), TensorRecord(out)};
    return op;
}

/// A framework entry holding statistics only: max, min, mean, norm as given.
OpRecord statsOp(const QString &entry, std::vector<std::array<double, 4>> stats)
{
    OpRecord op;
    op.source = *sourceFormatByName(u"msprobe");
    op.relPath = QStringLiteral("rank0/") + entry;
    for (size_t i = 0; i < stats.size(); ++i) {
        TensorFields t = tensor(i + 1 == stats.size() ? IoKind::Output : IoKind::Input, 0, {2, 2},
                                i + 1 == stats.size() ? QStringLiteral("output.0") : QStringLiteral("input_args.%1").arg(i));
        t.storage = TensorStorage::Absent;
        t.recorded = {stats[i][0], stats[i][1], stats[i][2], stats[i][3], 0xF};
        op.tensors.push_back(TensorRecord(t));
    }
    return op;
}

DumpIndex index(std::vector<OpRecord> ops)
{
    DumpIndex d;
    d.ops = std::move(ops);
    return d; // no finalize(): keep the given order
}

QStringList names(const DumpIndex &npu, const DumpIndex &bench, const MatchResult &m)
{
    QStringList out;
    for (const auto &r : m.rows)
        out << rowName(npu.op(r.npu), npu.tensor(r.npu)) + QStringLiteral(" -> ")
                   + (r.bench.op < 0 ? reasonCodeName(r.reason) : QString::number(r.bench.op) + QLatin1Char(':') + matchSourceName(r.source));
    Q_UNUSED(bench);
    return out;
}

CompareRow tensorRow(IoKind io, double cos, double ratio, double maxAbs)
{
    CompareRow r;
    r.io = io;
    r.mode = CompareMode::Tensor;
    r.bench = {0, 0};
    r.metrics.fill(MetricValue::of(0.0));
    r.metrics[size_t(Metric::Cosine)] = MetricValue::of(cos);
    r.metrics[size_t(Metric::OneThousandthErrRatio)] = MetricValue::of(ratio);
    r.metrics[size_t(Metric::MaxAbsErr)] = MetricValue::of(maxAbs);
    return r;
}

} // namespace

class TestCompareMatch : public QObject
{
    Q_OBJECT
private slots:
    void fuzzyNamesFollowMsprobe()
    {
        QCOMPARE(fuzzyOpName("Functional.conv2d.0.forward"), QString("Functional.conv2d.forward"));
        QCOMPARE(fuzzyOpName("Torch.matmul.12.backward"), QString("Torch.matmul.backward"));
        QCOMPARE(fuzzyOpName("Module.conv1.Conv2d.forward.0"), QString("Module.conv1.forward.0"));
        QCOMPARE(fuzzyOpName("layer.3.attn_rank1/MatMul"), QString("layer.attn/MatMul"));
    }

    void exactMatchInExecutionOrderWithNpuOnlyAndBenchOnly()
    {
        auto npuIdx = index({cannOp("trans", "TransData"), cannOp("a"), cannOp("a"), cannOp("b"), cannOp("x")});
        auto benchIdx = index({cannOp("a"), cannOp("b"), cannOp("a"), cannOp("only")});
        const MatchResult m = matchIndexes(npuIdx, benchIdx);
        QCOMPARE(names(npuIdx, benchIdx, m),
                 (QStringList{"trans.input.0 -> NPU_ONLY", "trans.output.0 -> NPU_ONLY", "a.input.0 -> 0:exact",
                              "a.output.0 -> 0:exact", "a.input.0 -> 2:exact", "a.output.0 -> 2:exact",
                              "b.input.0 -> 1:exact", "b.output.0 -> 1:exact", "x.input.0 -> UNMATCHED_BENCH",
                              "x.output.0 -> UNMATCHED_BENCH"}));
        QCOMPARE(m.benchOnly.size(), size_t(2));
        QCOMPARE(m.benchOnly[0].bench.op, 3);
    }

    void scopesMustAgreeWhenTheBenchHasSeveral()
    {
        auto npuIdx = index({cannOp("a", "Add", "1")});
        auto oneScope = index({cannOp("a", "Add", "0")});
        auto twoScopes = index({cannOp("a", "Add", "0"), cannOp("a", "Add", "1")});
        QCOMPARE(matchIndexes(npuIdx, oneScope).rows[0].bench.op, 0);
        QCOMPARE(matchIndexes(npuIdx, twoScopes).rows[0].bench.op, 1);
    }

    void fusedOutputMatchesItsOriginalOp()
    {
        OpRecord fused = cannOp("conv_bn_relu");
        edit(fused.tensors[1], [](TensorFields &f) {
            f.originalOpName = "bn/Relu";
            f.originalOutputIndex = 0;
        });
        auto npuIdx = index({fused});
        auto benchIdx = index({cannOp("conv"), cannOp("bn/Relu")});
        const MatchResult m = matchIndexes(npuIdx, benchIdx);
        QCOMPARE(m.rows[1].bench, (DumpIndex::TensorRef{1, 1}));
        QCOMPARE(m.rows[1].source, MatchSource::Mapping);
        QCOMPARE(m.rows[0].reason, ReasonCode::UnmatchedBench);
    }

    void fuzzyNeedsEqualShapes()
    {
        auto npuIdx = index({statsOp("Functional.relu.3.forward", {{1, 0, 0.5, 1}, {1, 0, 0.5, 1}})});
        auto benchIdx = index({statsOp("Functional.relu.0.forward", {{1, 0, 0.5, 1}, {1, 0, 0.5, 1}})});
        edit(benchIdx.ops[0].tensors[1], [](TensorFields &f) { f.shape = {4}; });
        // rule 6 alone: rule 4's structure aligner pairs the two calls (same op, counters ignored)
        MatchOptions byName;
        byName.align = false;
        QCOMPARE(matchIndexes(npuIdx, benchIdx, byName).rows[0].source, MatchSource::None);
        QCOMPARE(matchIndexes(npuIdx, benchIdx).rows[0].source, MatchSource::Aligned);
        MatchOptions fuzzy = byName;
        fuzzy.fuzzy = true;
        const MatchResult m = matchIndexes(npuIdx, benchIdx, fuzzy);
        QCOMPARE(m.rows[0].source, MatchSource::Fuzzy);
        QVERIFY(m.rows[0].notes.join(' ').contains("Fuzzy matching data"));
        QCOMPARE(m.rows[1].source, MatchSource::None); // output shapes differ
    }

    void userMappingNamesAndGroups()
    {
        auto parsed = UserMapping::parse(R"({"map": {"npu_a": "bench_a", "c.output.0": "d.output.0"},
                                             "groups": [{"npu": ["f1", "f2"], "bench": ["g"]}]})", "m.json");
        QVERIFY2(parsed, qPrintable(parsed.errorText()));
        auto npuIdx = index({cannOp("npu_a"), cannOp("c"), cannOp("f1"), cannOp("f2")});
        auto benchIdx = index({cannOp("bench_a"), cannOp("d"), cannOp("g")});
        MatchOptions o;
        o.mapping = &*parsed;
        const MatchResult m = matchIndexes(npuIdx, benchIdx, o);
        QCOMPARE(names(npuIdx, benchIdx, m),
                 (QStringList{"npu_a.input.0 -> 0:user", "npu_a.output.0 -> 0:user", "c.input.0 -> UNMATCHED_BENCH",
                              "c.output.0 -> 1:user", "f1.input.0 -> 2:user", "f1.output.0 -> FUSED_AWAY",
                              "f2.input.0 -> FUSED_AWAY", "f2.output.0 -> 2:user"}));
        QCOMPARE(m.benchOnly.size(), size_t(1)); // d.input.0
        QVERIFY(m.warnings.isEmpty());
    }

    // An entry that pairs nothing it names is not dropped without a word: a bench name the
    // bench dump does not hold, a bench row already paired with another NPU row, a bench
    // operator without the row. Each gets a warning naming the entry and why; the rows are
    // what they are without the entry.
    void mappingEntriesThatPairNothingAreNamed()
    {
        auto parsed = UserMapping::parse(R"({"map": {"a": "no_such_op", "b": "taken", "c.output.0": "taken.output.0",
                                                    "d.input.0": "e.input.1"},
                                             "groups": [{"npu": ["f"], "bench": ["missing_g"]}]})", "m.json");
        QVERIFY2(parsed, qPrintable(parsed.errorText()));
        // "taken" is matched exactly by the NPU operator of that name before "b" asks for it
        auto npuIdx = index({cannOp("taken"), cannOp("a"), cannOp("b"), cannOp("c"), cannOp("d"), cannOp("f")});
        auto benchIdx = index({cannOp("taken"), cannOp("a"), cannOp("b"), cannOp("e")});
        MatchOptions o;
        o.mapping = &*parsed;
        const MatchResult m = matchIndexes(npuIdx, benchIdx, o);
        QCOMPARE(m.warnings,
                 (QStringList{
                     R"(mapping group m.json: bench "missing_g" (group f -> missing_g) names no operator of the bench dump)",
                     R"(mapping m.json: "a" -> "no_such_op": the bench dump has no operator or row "no_such_op"; not used)",
                     R"(mapping m.json: "b" -> "taken": b.input.0 (taken.input.0) and 1 more: the bench row is already paired with another NPU row; matched as without the entry)",
                     R"(mapping m.json: "c.output.0" -> "taken.output.0": c.output.0 (taken.output.0): the bench row is already paired with another NPU row; matched as without the entry)",
                     R"(mapping m.json: "d.input.0" -> "e.input.1": the bench dump has no operator or row "e.input.1"; not used)"}));
        // nothing else changes: the rows are those of a mapping without these entries (the
        // group still marks f's rows, as before)
        UserMapping groupOnly;
        groupOnly.groups = parsed->groups;
        MatchOptions g;
        g.mapping = &groupOnly;
        QCOMPARE(names(npuIdx, benchIdx, m), names(npuIdx, benchIdx, matchIndexes(npuIdx, benchIdx, g)));
        // a bench operator without the mapped row
        auto rowMap = UserMapping::parse(R"({"x": "y"})", "r.json");
        OpRecord x = cannOp("x"), y = cannOp("y");
        x.tensors.push_back(TensorRecord(tensor(IoKind::Input, 1)));
        MatchOptions r;
        r.mapping = &*rowMap;
        const MatchResult rm = matchIndexes(index({x}), index({y}), r);
        QCOMPARE(rm.warnings, QStringList{R"(mapping r.json: "x" -> "y": x.input.1: "y" has no such row; matched as without the entry)"});
        QCOMPARE(rm.rows[0].source, MatchSource::User);
        // a group whose bench row an exact pair took first: named, the row stays FUSED_AWAY
        auto groupMap = UserMapping::parse(R"({"groups": [{"npu": ["g1", "g2"], "bench": ["h"]}]})", "g.json");
        QVERIFY2(groupMap, qPrintable(groupMap.errorText()));
        MatchOptions go;
        go.mapping = &*groupMap;
        auto gNpu = index({cannOp("h"), cannOp("g1"), cannOp("g2")});
        auto gBench = index({cannOp("h")});
        const MatchResult gm = matchIndexes(gNpu, gBench, go);
        QCOMPARE(names(gNpu, gBench, gm), (QStringList{"h.input.0 -> 0:exact", "h.output.0 -> 0:exact", "g1.input.0 -> FUSED_AWAY",
                                                         "g1.output.0 -> FUSED_AWAY", "g2.input.0 -> FUSED_AWAY",
                                                         "g2.output.0 -> FUSED_AWAY"}));
        QCOMPARE(gm.warnings,
                 (QStringList{R"(mapping group g.json: g1 (g1+g2 -> h): g1.input.0 (h.input.0): the bench row is already paired with another NPU row; not paired)",
                              R"(mapping group g.json: g2 (g1+g2 -> h): g2.output.0 (h.output.0): the bench row is already paired with another NPU row; not paired)"}));
    }

    void mappingFileFormatsAndErrors()
    {
        auto yaml = UserMapping::parse("# comment\nFunctional.a.0.forward: 'Functional.b.0.forward'\nx: y # tail\n", "map.yaml");
        QVERIFY2(yaml, qPrintable(yaml.errorText()));
        QCOMPARE(yaml->names.size(), size_t(2));
        QCOMPARE(yaml->names[0].second, QString("Functional.b.0.forward"));
        auto nested = UserMapping::parse("a:\n  - b\n", "map.yml");
        QVERIFY(!nested);
        QVERIFY(nested.errorText().startsWith("map.yml:1:")); // "a:" opens a nested block
        auto list = UserMapping::parse(R"([{"npu_key": "a", "bench_key": "b", "source": "user"}])", "m.json");
        QVERIFY(list && list->names.size() == 1);
        auto bad = UserMapping::parse("{\"a\": 3}", "bad.json");
        QVERIFY(!bad);
        QVERIFY(bad.errorText().contains("bad.json"));
        auto broken = UserMapping::parse("{", "broken.json");
        QVERIFY(!broken && broken.errorText().contains("broken.json: invalid JSON"));
        QVERIFY(!UserMapping::load("/nonexistent/map.json"));
    }

    void mappingEditsReplaceEntries()
    {
        UserMapping m;
        m.names = {{"a.output.0", "x.output.0"}, {"b", "y"}, {"ab", "z"}};
        m.groups = {{{"c", "d"}, {"w"}}};
        m.assign({"a"}, {"x2"}); // the row entry of a goes, "ab" is another operator
        QCOMPARE(m.names, (std::vector<std::pair<QString, QString>>{{"b", "y"}, {"ab", "z"}, {"a", "x2"}}));
        m.assign({"b", "d"}, {"v", "u"}); // b's name and the group holding d go
        QCOMPARE(m.names, (std::vector<std::pair<QString, QString>>{{"ab", "z"}, {"a", "x2"}}));
        QCOMPARE(m.groups.size(), size_t(1));
        QCOMPARE(m.groups[0].npu, (QStringList{"b", "d"}));
        QCOMPARE(m.groups[0].bench, (QStringList{"v", "u"}));
        QVERIFY(m.mentionsNpu("d") && m.mentionsNpu("a") && !m.mentionsNpu("c"));
        m.assign({"ab"}, {});
        QCOMPARE(m.entryCount(), size_t(3)); // nothing to map to: unchanged
        m.removeEntry(2); // the group
        QVERIFY(m.groups.empty() && !m.mentionsNpu("d"));
        m.removeEntry(0);
        QCOMPARE(m.names, (std::vector<std::pair<QString, QString>>{{"a", "x2"}}));
    }

    void mappingWriterRoundTrip()
    {
        // JSON: names (also one called "version", which the plain object form would skip) and N:M groups
        UserMapping m;
        m.assign({"fc/MatMul"}, {"dense/MatMul"});
        m.assign({"Functional.linear.0.forward"}, {"Functional.linear.1.forward"});
        m.names.emplace_back("version", "v2");
        m.names.emplace_back("Functional.relu.0.forward.output.0", "Functional.relu.1.forward.output.0");
        m.assign({"f1", "f2", "f3"}, {"g1", "g2"});
        m.assign({"h"}, {"k1", "k2"});
        QTemporaryDir dir;
        const QString json = dir.filePath("map.json");
        auto saved = m.save(json);
        QVERIFY2(saved, qPrintable(saved.errorText()));
        auto back = UserMapping::load(json);
        QVERIFY2(back, qPrintable(back.errorText()));
        UserMapping sorted = m; // JSON objects keep their keys sorted
        std::sort(sorted.names.begin(), sorted.names.end());
        QCOMPARE(back->names, sorted.names);
        QCOMPARE(back->groups, m.groups);
        QVERIFY(*back == sorted);
        // the file matches as the mapping it came from
        auto npuIdx = index({cannOp("fc/MatMul"), cannOp("f1"), cannOp("f2"), cannOp("f3"), cannOp("h")});
        auto benchIdx = index({cannOp("dense/MatMul"), cannOp("g1"), cannOp("g2"), cannOp("k1"), cannOp("k2")});
        MatchOptions a, b;
        a.mapping = &m;
        b.mapping = &*back;
        QCOMPARE(names(npuIdx, benchIdx, matchIndexes(npuIdx, benchIdx, a)), names(npuIdx, benchIdx, matchIndexes(npuIdx, benchIdx, b)));
        QCOMPARE(names(npuIdx, benchIdx, matchIndexes(npuIdx, benchIdx, b)),
                 (QStringList{"fc/MatMul.input.0 -> 0:user", "fc/MatMul.output.0 -> 0:user", "f1.input.0 -> 1:user",
                              "f1.output.0 -> FUSED_AWAY", "f2.input.0 -> FUSED_AWAY", "f2.output.0 -> FUSED_AWAY",
                              "f3.input.0 -> FUSED_AWAY", "f3.output.0 -> 2:user", "h.input.0 -> 3:user",
                              "h.output.0 -> 4:user"}));

        // YAML holds names only, in their order, quoting what the line format would change
        UserMapping names;
        names.names = {{"Functional.a.0.forward", "Functional.b.0.forward"}, {"'quoted'", "#hash"}, {"-dash", "a:b"},
                       {" padded ", "bench: with colon"}, {"\"dq\"", "x"}};
        const QString yaml = dir.filePath("map.yaml");
        saved = names.save(yaml);
        QVERIFY2(saved, qPrintable(saved.errorText()));
        back = UserMapping::load(yaml);
        QVERIFY2(back, qPrintable(back.errorText()));
        QCOMPARE(back->names, names.names);
        QVERIFY(back->groups.empty());
        QFile text(yaml);
        QVERIFY(text.open(QIODevice::ReadOnly));
        QVERIFY(text.readAll().contains("\nFunctional.a.0.forward: Functional.b.0.forward\n")); // plain where it can be

        // what YAML lines cannot hold is refused (and nothing is written)
        const QString refused = dir.filePath("refused.yaml");
        auto groups = m.save(refused);
        QVERIFY(!groups);
        QVERIFY2(groups.errorText().contains("JSON"), qPrintable(groups.errorText()));
        UserMapping colon;
        colon.names = {{"npu: name", "b"}};
        QVERIFY(!colon.save(refused));
        UserMapping hash;
        hash.names = {{"a", "b #c"}};
        QVERIFY(!hash.save(refused));
        UserMapping newline;
        newline.names = {{"a\nb", "c"}};
        QVERIFY(!newline.serialize("x.yml"));
        QVERIFY(!QFile::exists(refused));
        QVERIFY(newline.serialize("x.json")); // JSON holds any string
        QCOMPARE(UserMapping::parse(*newline.serialize("x.json"), "x.json")->names, newline.names);
        QVERIFY(!m.save(dir.filePath("missing/dir/map.json")));
    }

    void thresholdsRoundTrip()
    {
        CompareThresholds t;
        t.profile = "custom";
        t.cosineMin = 0.95;
        t.redOutputRatio = 0.1;
        QTemporaryDir dir;
        const QString path = dir.filePath("t.json");
        QVERIFY(t.save(path).isEmpty());
        auto back = CompareThresholds::load(path);
        QVERIFY(back);
        QCOMPARE(*back, t);
        QVERIFY(!CompareThresholds::fromJson(QJsonObject{{"kl_max", "x"}}));
        QCOMPARE(CompareThresholds::fromJson(QJsonObject{{"kl_max", 0.1}})->klMax, 0.1);
    }

    void summaryModeFromRecordedStatistics()
    {
        auto npuIdx = index({statsOp("Functional.linear.0.forward", {{2, -1, 0.5, 3}, {10, 0, 5, 20}})});
        auto benchIdx = index({statsOp("Functional.linear.0.forward", {{2, -1, 0.5, 3}, {4, 0, 2, 8}})});
        const CompareResult r = compareIndexes(npuIdx, benchIdx);
        QCOMPARE(r.mode, CompareMode::Summary);
        QCOMPARE(r.rows[0].verdict, Verdict::Pass);
        const CompareRow &out = r.rows[1];
        QCOMPARE(out.statDiff[0].value, 6.0);
        QCOMPARE(out.statRelErr[0].value, 150.0);              // |6 / 4| * 100 %
        QCOMPARE(out.statRelErr[1].state, MetricValue::State::NotAvailable); // bench min 0
        QVERIFY(out.highlights.contains("Need double check api accuracy.")); // §5: 6 / (10 + 1e-10) > 0.5
        QCOMPARE(out.verdict, Verdict::Error);                 // R4: output MaxRelativeErr 1.5 > 0.5
        // msprobe 26: the input's NormRelativeErr is 0 (< 0.1) and the output's 150 % (> 0.5):
        // error; and more than 0.1 where the input's is 0: warning, on the first output
        QCOMPARE(r.rows[0].result, QString("pass"));
        QCOMPARE(out.result, QString("error"));
        QCOMPARE(out.resultMessages, QStringList({"error: The NormRelativeErr of output is greater than 0.5.",
                                                  "warning: The norm relative error of output is 10 times that of input."}));
        QCOMPARE(r.divergences.size(), size_t(1));
        QCOMPARE(r.divergences[0].originOp, 0);
    }

    void md5AndValueRows()
    {
        OpRecord a = statsOp("Torch.add.0.forward", {{1, 1, 1, 1}, {1, 1, 1, 1}});
        OpRecord b = a;
        setChecksum(a.tensors[0], "0a1b2c3d");
        setChecksum(b.tensors[0], "0A1B2C3D");
        setChecksum(a.tensors[1], "00000001");
        setChecksum(b.tensors[1], "00000002");
        TensorFields v = tensor(IoKind::Input, 1, {}, "input_args.1");
        v.storage = TensorStorage::Value;
        v.typeName = "int";
        v.value = "3";
        a.tensors.push_back(TensorRecord(v));
        v.value = "4";
        b.tensors.push_back(TensorRecord(v));
        CompareOptions o;
        o.mode = CompareMode::Md5;
        const CompareResult r = compareIndexes(index({a}), index({b}), o);
        QCOMPARE(r.mode, CompareMode::Md5);
        QCOMPARE(r.rows[0].result, QString("pass"));
        QCOMPARE(r.rows[0].npuName, QString("Torch.add.0.forward.input.0")); // msprobe 26: input_args -> input
        // rows in msprobe's order: the inputs (the int value included) before the output
        QCOMPARE(r.rows[1].npuName, QString("Torch.add.0.forward.input.1"));
        QCOMPARE(r.rows[1].mode, CompareMode::Value);
        QCOMPARE(r.rows[1].verdict, Verdict::Error);
        QCOMPARE(r.rows[1].result, QString("error")); // md5 mode: crc32("3") != crc32("4")
        QCOMPARE(r.rows[2].result, QString("error"));
        QCOMPARE(r.rows[2].resultMessages, QStringList{"error: The CRC-32 value of NPU differs from that of the bench."});
        QCOMPARE(r.rows[2].verdict, Verdict::Error);
        // msprobe 26's MD5 columns (compare.md §10.2), then §10.4 and the notes
        const QStringList basic{"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
                                "Bench Tensor Shape", "NPU Requires_grad", "Bench Requires_grad"};
        const QStringList ours{"Verdict", "ReasonCode", "MatchSource", "NPU Saturated Count", "Notes"};
        const QStringList md5{"NPU MD5", "BENCH MD5", "Requires_grad Consistent", "Result", "Err_message"};
        QCOMPARE(compareCsvHeader(CompareMode::Md5), basic + md5 + ours);
        QCOMPARE(compareCsvHeader(CompareMode::Md5, ReportStyle::Msprobe, true), basic + md5 + QStringList{"NPU_Stack_Info"});
        const QByteArray csv = compareCsv(index({a}), index({b}), r);
        QVERIFY(csv.contains("Torch.add.0.forward.output.0,Torch.add.0.forward.output.0,"));
        QVERIFY(csv.contains(R"(,00000001,00000002,True,error,"[""error: The CRC-32 value of NPU differs from that of the bench.""]",error,)"));
        // the int argument: dtype and CRC-32 of str(value) as msprobe writes them
        QVERIFY(csv.contains(QStringLiteral("Torch.add.0.forward.input.1,Torch.add.0.forward.input.1,<class 'int'>,<class 'int'>,[],[],N/A,N/A,%1,%2,")
                                 .arg(crc32Hex("3"), crc32Hex("4")).toUtf8()));
    }

    void summaryCsvColumns()
    {
        const QStringList h = compareCsvHeader(CompareMode::Summary);
        const QStringList expected{"Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
                                   "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
                                   "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent",
                                   "Result", "Err_message"};
        QCOMPARE(h.mid(8, expected.size()), expected);
        QCOMPARE(h.mid(8 + expected.size()), QStringList({"Verdict", "ReasonCode", "MatchSource", "NPU Saturated Count", "Notes"}));
    }

    void missingDataIsNotCompared()
    {
        OpRecord a = statsOp("Torch.add.0.forward", {{1, 1, 1, 1}});
        edit(a.tensors[0], [](TensorFields &f) { f.recorded.present = 0; });
        const CompareResult r = compareIndexes(index({a}), index({a}));
        QVERIFY(r.rows[0].hasReason(ReasonCode::MissingFile));
        QCOMPARE(r.rows[0].verdict, Verdict::None);
        QVERIFY(!r.any(Verdict::Warning));
    }

    void accuracyReachedFollowsMsprobe()
    {
        const CompareThresholds t;
        auto acc = [&](double c, double a) { return accuracyReached(MetricValue::of(c), MetricValue::of(a), t); };
        QCOMPARE(acc(0.995, 0.5), QString("Yes"));
        QCOMPARE(acc(0.98, 0.0005), QString("Yes"));
        QCOMPARE(acc(0.98, 0.002), QString("No"));
        QCOMPARE(acc(0.89, 0.0001), QString("No"));
        QCOMPARE(acc(0.999, 1.5), QString("No"));
    }

    void operatorRulesAndFirstDivergence()
    {
        // op0 passes; op1: inputs agree, output ratio collapses (R3) -> origin; op2: inputs differ
        // too -> chain; a second scope diverges at its first operator with differing inputs.
        auto npuIdx = index({cannOp("op0"), cannOp("op1"), cannOp("op2"), cannOp("s2", "Add", "7")});
        CompareResult r;
        r.rows = {tensorRow(IoKind::Input, 1, 1, 0), tensorRow(IoKind::Output, 1, 1, 0),
                  tensorRow(IoKind::Input, 1, 0.95, 0), tensorRow(IoKind::Output, 0.999, 0.5, 0.0005),
                  tensorRow(IoKind::Input, 0.5, 0.1, 3), tensorRow(IoKind::Output, 0.5, 0.1, 3),
                  tensorRow(IoKind::Input, 0.5, 0.1, 3), tensorRow(IoKind::Output, 1, 1, 0)};
        const int ops[] = {0, 0, 1, 1, 2, 2, 3, 3};
        for (size_t i = 0; i < r.rows.size(); ++i)
            r.rows[i].npu = {ops[i], int(i % 2)};
        applyVerdicts(npuIdx, r, {});
        QCOMPARE(r.rows[1].verdict, Verdict::Pass);
        QCOMPARE(r.rows[3].verdict, Verdict::Error);
        QVERIFY(r.rows[3].highlights.join(' ').contains("One Thousandth"));
        QCOMPARE(r.divergences.size(), size_t(2));
        QCOMPARE(r.divergences[0].originOp, 1);
        QCOMPARE(r.divergences[0].originRow, 3);
        QVERIFY(r.divergences[0].inputsAgree);
        QCOMPARE(r.divergences[0].chain, std::vector<int>{2});
        QCOMPARE(r.divergences[1].originOp, 3);
        QVERIFY(!r.divergences[1].inputsAgree);

        // Y4: cosine drop between input and output is a warning
        r.rows[3] = tensorRow(IoKind::Output, 0.995, 0.95, 0.0005);
        r.rows[2] = tensorRow(IoKind::Input, 1, 0.95, 0);
        r.rows[2].npu = {1, 0};
        r.rows[3].npu = {1, 1};
        CompareThresholds loose;
        loose.yellowCosineDrop = 0.001;
        applyVerdicts(npuIdx, r, loose);
        QCOMPARE(r.rows[3].verdict, Verdict::Warning);
    }
};

QTEST_GUILESS_MAIN(TestCompareMatch)
#include "tst_compare_match.moc"
