// msprobe's layer_mapping applied (issue 31, item 1): the data_mapping DumpScope derives from
// msprobe's own mindspore_ut fixtures and their layer_mapping.yaml is the one the real
// msprobe 26 derived (samples/msprobe_crossframework/compare/fixtures_lm_data_mapping.yaml,
// read here entry by entry), its entry-level api_mapping is the fixed expected dict of
// msprobe's unit test (test/msprobe_test/mindspore_ut/compare/test_layer_mapping.py,
// test_generate_api_mapping_by_layer_mapping_then_pass), and `compare --mapping
// layer_mapping.yaml --style msprobe` pairs every row as msprobe's `compare -lm` CSV does
// (compare/fixtures_lm.csv).
#include "compare/compare.h"
#include "compare/comparematch.h"
#include "compare/comparereport.h"
#include "compare/layermapping.h"
#include "crossframeworkfiles.h"
#include "index/buildindex.h"

#include <QFile>
#include <QHash>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace ds;

namespace {

using namespace crossframework;

std::map<QString, QString> asMap(const std::vector<std::pair<QString, QString>> &v)
{
    return {v.cbegin(), v.cend()};
}

} // namespace

class TestLayerMapping : public QObject
{
    Q_OBJECT

private slots:
    void derivedDataMappingIsMsprobes()
    {
        const auto n = open(QStringLiteral("fixtures/mindspore_data")), b = open(QStringLiteral("fixtures/pytorch_data"));
        QVERIFY(n && b);
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        QVERIFY2(layer, qPrintable(layer.errorText()));
        QCOMPARE(layer->kind, MappingKind::Layer);
        const LayerMappingResult r = layerMappingToDataMapping(*n, *b, layer->layers, layer->fileName);
        QVERIFY2(r.warnings.isEmpty(), qPrintable(r.warnings.join(QLatin1Char('\n'))));

        // oracle 1: the data_mapping the real msprobe wrote, entry for entry
        auto theirs = UserMapping::load(kDir + QStringLiteral("compare/fixtures_lm_data_mapping.yaml"));
        QVERIFY2(theirs, qPrintable(theirs.errorText()));
        QCOMPARE(theirs->names.size(), size_t(44));
        QCOMPARE(r.dataMapping.size(), theirs->names.size());
        const auto ours = asMap(r.dataMapping), expected = asMap(theirs->names);
        QCOMPARE(ours.size(), r.dataMapping.size()); // no row twice
        for (const auto &[npu, bench] : expected) {
            QVERIFY2(ours.count(npu), qPrintable(npu));
            QVERIFY2(ours.at(npu) == bench, qPrintable(QStringLiteral("%1: %2, msprobe %3").arg(npu, ours.at(npu), bench)));
        }

        // oracle 2: msprobe's unit test, the entry-level api_mapping (its expected dict)
        const std::map<QString, QString> api = {
            {"Tensor.__add__.0.forward", "N/A"},
            {"Tensor.__bool__.1.forward", "N/A"},
            {"Tensor.__add__.1.forward", "Tensor.__add__.0.forward"},
            {"Mint.logical_or.0.forward", "Tensor.__or__.0.forward"},
            {"Distributed.all_reduce.0.forward", "Distributed.all_reduce.0.forward"},
            {"Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
             "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0"},
            {"Primitive.norm.RmsNorm.0.forward", "NPU.npu_rms_norm.0.forward"},
            {"Cell.network_with_loss.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0",
             "Module.module.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0"},
            {"Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0", "N/A"},
            {"Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0",
             "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0"},
            {"Mint.cos.0.forward", "Torch.cos.0.forward"},
            {"Functional.flash_attention_score.0.forward", "NPU.npu_fusion_attention.0.forward"},
            {"Functional.flash_attention_score.0.backward", "NPU.npu_fusion_attention.0.backward"},
        };
        QCOMPARE(asMap(r.apiMapping), api);
    }

    // msprobe's own test_postprocess_pass.py (core_ut/compare), its inputs and expected values:
    // the number after a prefix, and ParallelTransformer layers renumbered from the smallest.
    void postprocessPassIsMsprobes()
    {
        QCOMPARE(nextItemNumber("conv1.Conv2d.forward.input", "Conv2d"), std::nullopt);
        QCOMPARE(nextItemNumber("conv1.Conv2d.forward.input.conv1", "conv1"), std::optional<qint64>(2));
        const QStringList types{"ParallelTransformer", "ParallelTransformer", "FakeLayer"};
        const QStringList layers{"fake_data.layers", "fake_data.layers", "fake_data.layers.a.b"};
        QStringList full{"fake_data.layers.10", "fake_data.layers.12", "fake_data.layers.10.a.b.c"};
        renumberIndexes(types, full, layers, "ParallelTransformer", QString());
        QCOMPARE(full, QStringList({"fake_data.layers.0", "fake_data.layers.2", "fake_data.layers.0.a.b.c"}));
    }

    // The layer_mapping is applied as msprobe's -lm: every row's bench row (or N/A) is that of
    // msprobe's CSV, and every field of the --style msprobe row is msprobe's text.
    void rowsAreMsprobeLm()
    {
        const auto n = open(QStringLiteral("fixtures/mindspore_data")), b = open(QStringLiteral("fixtures/pytorch_data"));
        QVERIFY(n && b);
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        QVERIFY2(layer, qPrintable(layer.errorText()));
        CompareOptions o;
        o.mapping = *layer;
        const CompareResult r = compareIndexes(*n, *b, o);
        QVERIFY2(r.warnings.isEmpty(), qPrintable(r.warnings.join(QLatin1Char('\n'))));
        const auto ours = records(compareCsv(*n, *b, r, ReportStyle::Msprobe)),
                   theirs = records(readAll(kDir + QStringLiteral("compare/fixtures_lm.csv")));
        QCOMPARE(ours.size(), theirs.size());
        QCOMPARE(theirs.size(), size_t(45));
        int paired = 0;
        for (size_t i = 1; i < ours.size(); ++i) {
            QCOMPARE(ours[i][0], theirs[i][0]);
            QVERIFY2(ours[i][1] == theirs[i][1], qPrintable(QStringLiteral("%1: %2, msprobe %3").arg(ours[i][0], ours[i][1], theirs[i][1])));
            paired += theirs[i][1] != QLatin1String("N/A");
            QCOMPARE(ours[i].size(), theirs[i].size());
            for (qsizetype f = 0; f < ours[i].size(); ++f)
                QVERIFY2(ours[i][f] == theirs[i][f], qPrintable(QStringLiteral("%1 column %2: %3 vs msprobe %4")
                                                                    .arg(ours[i][0], theirs[0][f], ours[i][f], theirs[i][f])));
        }
        QCOMPARE(paired, 32);
    }

    // An entry no NPU scope matches is named and pairs nothing; the others still apply.
    void unmatchedEntryIsNamed()
    {
        const auto n = open(QStringLiteral("fixtures/mindspore_data")), b = open(QStringLiteral("fixtures/pytorch_data"));
        QVERIFY(n && b);
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        QVERIFY(layer);
        auto extra = UserMapping::parse("ParallelAttention:\n  nowhere: core_attention\nNoSuchLayer:\n  a: b\n", "extra.yaml",
                                        MappingKind::Layer);
        QVERIFY2(extra, qPrintable(extra.errorText()));
        UserMapping m = *layer;
        m.fileName = QStringLiteral("lm.yaml");
        m.layers.insert(m.layers.end(), extra->layers.cbegin(), extra->layers.cend());
        CompareOptions o;
        o.mapping = m;
        const CompareResult r = compareIndexes(*n, *b, o);
        QCOMPARE(r.warnings,
                 QStringList({R"(mapping lm.yaml: layer_mapping "NoSuchLayer: a" -> "b": no NPU entry's scope has "a" right inside a NoSuchLayer layer; not used)",
                              R"(mapping lm.yaml: layer_mapping "ParallelAttention: nowhere" -> "core_attention": no NPU entry's scope has "nowhere" right inside a ParallelAttention layer; not used)"}));
        o.mapping = *layer;
        const CompareResult plain = compareIndexes(*n, *b, o);
        QCOMPARE(r.rows.size(), plain.rows.size());
        for (size_t i = 0; i < r.rows.size(); ++i)
            QCOMPARE(r.rows[i].benchName, plain.rows[i].benchName);
    }

    // Without a construct.json msprobe derives nothing (get_dump_data_items returns no entries):
    // its data_mapping is empty and it pairs as without one, silently; DumpScope does the same
    // and says why.
    void missingConstructIsNamed()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const char *file : {"dump.json", "stack.json"})
            QVERIFY(QFile::copy(kDir + QStringLiteral("fixtures/mindspore_data/") + QLatin1String(file), dir.filePath(QLatin1String(file))));
        auto built = buildIndex(dir.path());
        QVERIFY(built);
        const auto n = *built, b = open(QStringLiteral("fixtures/pytorch_data"));
        QVERIFY(n && b);
        auto layer = UserMapping::load(kDir + QStringLiteral("fixtures/layer_mapping.yaml"));
        QVERIFY(layer);
        const LayerMappingResult r = layerMappingToDataMapping(*n, *b, layer->layers, QStringLiteral("lm.yaml"));
        QVERIFY(r.dataMapping.empty());
        QCOMPARE(r.warnings.size(), 1);
        QVERIFY2(r.warnings.front().startsWith("mapping lm.yaml: the layer_mapping pairs nothing: ")
                     && r.warnings.front().contains("has no construct.json"),
                 qPrintable(r.warnings.front()));
    }
};

QTEST_GUILESS_MAIN(TestLayerMapping)
#include "tst_layermapping.moc"
