// dumpscope-cli: the headless face of the DumpScope engine (links core only).
#include "comparecommand.h"
#include "msgraphcommand.h"
#include "resultscommand.h"
#include "runsetcommand.h"
#ifdef DUMPSCOPE_MPI
#include "distributed.h"
#endif
#include "graphcommand.h"
#include "scancommand.h"
#include "formats/readers.h"
#include "index/buildindex.h"
#include "index/jsonreport.h"
#include "index/problems.h"
#include "index/tensormeasure.h"
#include "index/tensorexport.h"
#include "overflow/anomalyanalyze.h"
#include "overflow/overflowreport.h"
#include "run/runcompare.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>
#include <nlohmann/json.hpp>

#include <cstdio>

using namespace ds;

namespace {

// Exit codes (README "Exit codes").
enum Exit { Ok = 0, Failed = 1, Usage = 2, NoPath = 3 };

void out(const QByteArray &text) { std::fwrite(text.constData(), 1, size_t(text.size()), stdout); }
void out(const QString &text) { out(text.toUtf8()); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", qPrintable(text)); }

QString num(double v) { return std::isfinite(v) ? QString::number(v, 'g', 10) : QStringLiteral("-"); }

int distributedRankOrZero()
{
#ifdef DUMPSCOPE_MPI
    return distributedRank();
#else
    return 0;
#endif
}

/// Indexes `path`.
std::shared_ptr<DumpIndex> openIndex(const QString &path, bool quiet)
{
    JobControl job;
    if (!quiet && isatty(fileno(stderr)))
        job.progress = [](int permille) { std::fprintf(stderr, "\rindexing %5.1f%%", permille / 10.0); };
    auto walk = walkTree(path, &job);
    if (!walk) {
        err(walk.errorText());
        return nullptr;
    }
    auto index = indexClaims(*walk, {}, &job);
    if (!quiet && isatty(fileno(stderr)))
        std::fprintf(stderr, "\r                 \r");
    return index;
}

void printErrors(const DumpIndex &index)
{
    if (index.errors.empty())
        return;
    out(QStringLiteral("\n%1 file(s) could not be read:\n").arg(index.errors.size()));
    for (const auto &e : index.errors)
        out(QStringLiteral("  %1: %2\n").arg(e.file, e.message));
}

int cmdList(const DumpIndex &index, bool asJson)
{
    if (asJson) {
        out(listJson(index));
        return Ok;
    }
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const auto &op = index.ops[o];
        const bool opIsFile = formatReader(op.source).opsAreFiles();
        if (opIsFile)
            out(QStringLiteral("%1  [%2] %3  task %4 stream %5\n")
                    .arg(op.relPath, op.opType, op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName())
                    .arg(op.taskId()).arg(op.streamId()));
        else
            out(QStringLiteral("%1  [%2]%3\n").arg(op.relPath, op.opType,
                                                   op.parent.isEmpty() ? QString() : QStringLiteral("  in ") + op.parent));
        for (size_t t = 0; t < op.tensors.size(); ++t) {
            const auto &tr = op.tensors[t];
            if (tr.io() == IoKind::Buffer || tr.io() == IoKind::Workspace)
                continue;
            if (!opIsFile) {
                const QString name = tr.name().isEmpty() ? ioKindName(tr.io()) + QLatin1Char('.') + QString::number(tr.index()) : tr.name();
                out(tr.isTensor() ? QStringLiteral("    %1  %2 %3%4\n").arg(name, dataTypeName(tr.dataType()), shapeToString(tr.shape()),
                                                                        tr.storage() == TensorStorage::Absent ? QStringLiteral("  (statistics only)") : QString())
                                  : QStringLiteral("    %1  %2 = %3\n").arg(name, tr.typeName(), tr.value()));
                continue;
            }
            out(QStringLiteral("    %1.%2  %3 %4 %5 -> %6\n")
                    .arg(ioKindName(tr.io())).arg(tr.index()).arg(dataTypeName(tr.dataType()), formatName(tr.format()),
                                                             shapeToString(tr.shape()), shapeToString(tr.originalShape())));
        }
    }
    printErrors(index);
    return Ok;
}

/// Resolves tensor ids (all inputs/outputs when none are given). Unknown ids are reported.
bool resolve(const DumpIndex &index, const QStringList &ids, std::vector<DumpIndex::TensorRef> &refs)
{
    bool ok = true;
    if (ids.isEmpty()) {
        for (size_t o = 0; o < index.ops.size(); ++o)
            for (size_t t = 0; t < index.ops[o].tensors.size(); ++t) {
                const auto &rec = index.ops[o].tensors[t];
                if (rec.isTensor() && rec.storage() != TensorStorage::Absent && rec.io() != IoKind::Buffer && rec.io() != IoKind::Workspace)
                    refs.push_back({int(o), int(t)});
            }
        return true;
    }
    for (const QString &text : ids) {
        const auto id = TensorId::parse(text);
        if (!id) {
            err(QStringLiteral("%1 is not a tensor id (<op path>.<input|output|parameter>.<index>)").arg(text));
            ok = false;
        } else if (auto ref = index.find(*id)) {
            refs.push_back(*ref);
        } else {
            err(QStringLiteral("no tensor %1 in %2").arg(text, index.openedPath));
            ok = false;
        }
    }
    return ok;
}

int cmdStats(const DumpIndex &index, const QStringList &ids, bool asJson, int bins, LayoutChoice layout)
{
    std::vector<DumpIndex::TensorRef> refs;
    const bool allFound = resolve(index, ids, refs);
    MeasureOptions options;
    options.bins = bins;
    options.layout = layout;
    std::vector<TensorMeasure> entries;
    for (const auto &ref : refs)
        entries.push_back(measureTensor(index, ref, options));
    bool failed = !allFound;
    for (const auto &e : entries)
        failed |= bool(e.error);
    if (asJson) {
        out(statsJson(index, entries));
        return failed ? Failed : Ok;
    }
    for (const auto &e : entries) {
        if (e.error) {
            out(QStringLiteral("%1\n  error: %2\n").arg(e.id.toString(), e.error->text()));
            if (e.error->kind == ErrorKind::NoData)
                out(recordedHeadroomText(index.tensor(e.ref).recorded(), QStringLiteral("  ")));
            continue;
        }
        const auto &t = index.tensor(e.ref);
        const auto &s = e.stats;
        out(QStringLiteral("%1\n  %2 %3 %4 (original %5)\n  count %6  min %7  max %8  mean %9  std %10  l2norm %11\n"
                           "  nan %12  +inf %13  -inf %14  zero %15\n")
                .arg(e.id.toString(), dataTypeName(t.dataType()), formatName(t.format()), shapeToString(t.shape()),
                     shapeToString(t.originalShape()))
                .arg(s.count).arg(num(s.min), num(s.max), num(s.mean), num(s.std), num(s.l2norm))
                .arg(s.nan).arg(s.posinf).arg(s.neginf).arg(s.zero));
        if (s.headroom.valid)
            out(headroomText(s.headroom, QStringLiteral("  ")));
        for (const auto &n : e.notes)
            out(QStringLiteral("  note: %1\n").arg(n));
        for (const Problem &p : opProblems(index, e.ref.op))
            out(QStringLiteral("  warning: %1\n").arg(problemText(p)));
        if (e.histogram) {
            const auto edges = e.histogram->edges();
            for (size_t b = 0; b < e.histogram->counts.size(); ++b)
                out(QStringLiteral("    [%1, %2%3  %4\n").arg(num(edges[b]), num(edges[b + 1]),
                                                            b + 1 == e.histogram->counts.size() ? QStringLiteral("]") : QStringLiteral(")"))
                        .arg(e.histogram->counts[b]));
        }
    }
    return failed ? Failed : Ok;
}

int cmdExport(const DumpIndex &index, const QStringList &ids, const ExportRequest &req, bool asJson)
{
    std::vector<DumpIndex::TensorRef> refs;
    const bool allFound = resolve(index, ids, refs);
    std::vector<ExportResult> results;
    bool failed = !allFound;
    for (const auto &ref : refs) {
        results.push_back(exportTensor(index, ref, req));
        failed |= bool(results.back().error);
    }
    if (asJson) {
        out(exportJson(index, results));
    } else {
        for (const auto &r : results)
            out(!r.error ? QStringLiteral("%1 -> %2 (%3 %4)\n").arg(r.id.toString(), r.file, r.exportedDtype, shapeToString(r.shape))
                         : QStringLiteral("%1: error: %2\n").arg(r.id.toString(), r.error->text()));
    }
    return failed ? Failed : Ok;
}

/// `export --format h5`: the operators named by op paths (or tensor ids) into a new file of
/// their own format (the .h5 dumper's: the same layout, like `h5copy -s /op/seqid/`, h5-dumper.md §6).
int cmdExportOps(const DumpIndex &index, const QStringList &ids, const QString &outFile, bool force, bool asJson)
{
    std::vector<int> ops;
    for (const QString &id : ids) {
        int op = index.opIndex(id);
        if (op < 0)
            if (const auto tensorId = TensorId::parse(id))
                if (const auto ref = index.find(*tensorId))
                    op = ref->op;
        if (op < 0) {
            err(QStringLiteral("no operator or tensor %1 in %2").arg(id, index.openedPath));
            return Failed;
        }
        if (std::find(ops.begin(), ops.end(), op) == ops.end())
            ops.push_back(op);
    }
    const auto written = exportOps(index, ops, outFile, force);
    if (!written) {
        err(written.errorText());
        return Failed;
    }
    if (asJson)
        out(QJsonDocument(QJsonObject{{QStringLiteral("path"), index.openedPath}, {QStringLiteral("file"), outFile},
                                      {QStringLiteral("ops"), *written}})
                .toJson());
    else
        out(QStringLiteral("%1 operator(s) -> %2\n").arg(*written).arg(outFile));
    return Ok;
}

} // namespace

int mainCommand(int argc, char **argv, int processes);

int main(int argc, char **argv)
{
#ifdef DUMPSCOPE_MPI
    // Under mpirun / srun (docs/DISTRIBUTED.md); without a launcher MPI is not initialised.
    const int processes = distributedInit(&argc, &argv);
    const int code = mainCommand(argc, argv, processes);
    distributedFinalize();
    return code;
#else
    return mainCommand(argc, argv, 1);
#endif
}

int mainCommand(int argc, char **argv, int processes)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dumpscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DUMPSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "DumpScope command line: inspect Ascend NPU dumps.\n\n"
        "Commands:\n"
        "  info PATH                      what is in the dump\n"
        "  list PATH                      operators and their tensors\n"
        "  stats PATH [TENSOR...]         statistics (all tensors when none given)\n"
        "  export PATH TENSOR... --format npy|txt --out DIR\n"
        "  export PATH OP... --format h5 --out FILE.h5   torch.utils.dumper operators to a new .h5\n"
        "  overflow PATH [--no-scan]       OpDebug records, linked operators, first overflow,\n"
        "                                 a software NaN/Inf/saturation scan, and the first\n"
        "                                 anomaly across the steps and ranks of a run\n"
        "  overflow anomaly_analyze_*.json [--npu DUMP]\n"
        "                                 msprobe overflow_check's answer (first anomaly of each rank);\n"
        "                                 --npu: DumpScope's own answer on that dump beside it\n"
        "  graph PATH [GRAPH_PATH...]     GE graph dumps (of PATH and of the graph folders given),\n"
        "                                 the computation graph, operators without dump data\n"
        "                                 and dump files without graph nodes\n"
        "  compare NPU_PATH BENCH_PATH [--mapping FILE [--mapping-kind KIND]] [--fuzzy]\n"
        "          [--csv FILE] [--xlsx FILE]\n"
        "          [--style dumpscope|msprobe] [--fail-on error|warning]\n"
        "                                 match and compare an NPU run with a bench run, step by step\n"
        "                                 and rank by rank: metrics, verdicts, the first divergence\n"
        "                                 of every scope and of the run (docs/COMPARE.md)\n"
        "  compare RUN1 RUN2 RUN3 [RUN...] [--json] [--mode MODE]\n"
        "                                 three or more runs, each with the others: identical runs, the run\n"
        "                                 that departs from the majority first, nondeterministic operators\n"
        "  compare NPU_PATH BENCH_PATH --ms-graph DIR\n"
        "                                 MindSpore kernel dumps: msprobe's MindSpore graph compare tables\n"
        "  compare RESULT.csv|RESULT.xlsx [--npu PATH --bench PATH]\n"
        "                                 msprobe's compare table (any mode) read as a comparison:\n"
        "                                 its rows, Results and first divergence; --npu/--bench:\n"
        "                                 the dumps it was written from, to link its rows\n"
        "  compare diff_analyze_*.json|compare_result_rank*.json [--npu PATH --bench PATH]\n"
        "                                 msprobe compare -da's first differing op of each rank, and\n"
        "                                 DumpScope's own first divergence beside it when the dumps\n"
        "                                 are given or found beside the file\n"
        "  precheck PATH                  msprobe's API precheck results (acc_check, api_precision_compare\n"
        "                                 tables; ut_error_data* tensors compared element by element)\n"
        "  monitor PATH                   msprobe's training monitor CSVs and anomaly files: series over\n"
        "                                 step x module x rank, anomalies in msprobe's order\n\n"
        "A TENSOR id is <dump file path relative to PATH>.<input|output>.<index>."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON (see README)."));
    const QCommandLineOption bins(QStringLiteral("bins"), QStringLiteral("stats: also a histogram with N bins over [min, max]."),
                                  QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption raw(QStringLiteral("raw"), QStringLiteral("Use the raw device layout instead of converting to ND."));
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("export: npy (default), txt, or h5 (dumper operators)."),
                                    QStringLiteral("npy|txt|h5"), QStringLiteral("npy"));
    const QCommandLineOption outDir(QStringLiteral("out"), QStringLiteral("export: target directory."), QStringLiteral("DIR"));
    const QCommandLineOption precision(QStringLiteral("precision"), QStringLiteral("export txt: digits after the point (default 18)."),
                                       QStringLiteral("N"), QStringLiteral("18"));
    const QCommandLineOption force(QStringLiteral("force"), QStringLiteral("export: overwrite existing files."));
    const QCommandLineOption quiet(QStringLiteral("quiet"), QStringLiteral("No progress output."));
    const QCommandLineOption noScan(QStringLiteral("no-scan"), QStringLiteral("overflow: skip the software scan of every tensor."));
    const QCommandLineOption mapping(QStringLiteral("mapping"),
                                     QStringLiteral("compare: NPU -> bench name mapping: DumpScope's JSON or YAML, or msprobe's "
                                                    "api_mapping, cell_mapping or data_mapping YAML (told apart by content)."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption mappingKind(QStringLiteral("mapping-kind"),
                                         QStringLiteral("compare: read --mapping as auto (default), flat, api, cell, data or layer."),
                                         QStringLiteral("KIND"));
    const QCommandLineOption fuzzy(QStringLiteral("fuzzy"), QStringLiteral("compare: also match names without call counters."));
    const QCommandLineOption noAlign(QStringLiteral("no-align"),
                                     QStringLiteral("compare: pair by exact names only (no structure alignment when the op "
                                                    "streams do not line up)."));
    const QCommandLineOption writeMapping(QStringLiteral("write-mapping"),
                                          QStringLiteral("compare: write the pairing as msprobe's data_mapping YAML (for msprobe "
                                                         "compare -dm and --mapping); a folder when the runs have several scopes."),
                                          QStringLiteral("FILE|DIR"));
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("compare: write the msprobe-compatible CSV report."),
                                 QStringLiteral("FILE"));
    const QCommandLineOption failOn(QStringLiteral("fail-on"), QStringLiteral("compare: exit with 4 when a row reaches this verdict."),
                                    QStringLiteral("error|warning"));
    const QCommandLineOption thresholds(QStringLiteral("thresholds"), QStringLiteral("compare: thresholds JSON (docs/COMPARE.md)."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption mode(QStringLiteral("mode"), QStringLiteral("compare: force tensor, summary or md5 mode."),
                                  QStringLiteral("tensor|summary|md5"));
    const QCommandLineOption xlsx(QStringLiteral("xlsx"), QStringLiteral("compare: write the report as .xlsx (msprobe's --xlsx)."),
                                  QStringLiteral("FILE"));
    const QCommandLineOption style(QStringLiteral("style"),
                                   QStringLiteral("compare: report columns: dumpscope (msprobe's, then DumpScope's; default) "
                                                  "or msprobe (msprobe's table only)."),
                                   QStringLiteral("dumpscope|msprobe"), QStringLiteral("dumpscope"));
    const QCommandLineOption msGraph(QStringLiteral("ms-graph"),
                                     QStringLiteral("compare: two MindSpore kernel dumps with msprobe's MindSpore graph compare, "
                                                    "one compare_result_{rank}_{step}.csv per rank and step in DIR."),
                                     QStringLiteral("DIR"));
    const QCommandLineOption npuDump(QStringLiteral("npu"), QStringLiteral("compare TABLE: the NPU dump the table was written from."),
                                     QStringLiteral("PATH"));
    const QCommandLineOption benchDump(QStringLiteral("bench"),
                                       QStringLiteral("compare TABLE: the bench dump the table was written from."), QStringLiteral("PATH"));
    parser.addOptions({json, msGraph, bins, raw, format, outDir, precision, force, quiet, noScan, mapping, mappingKind, fuzzy, noAlign, writeMapping, csv, failOn,
                       thresholds, mode, xlsx, style, npuDump, benchDump});
#ifdef DUMPSCOPE_MPI
    const QCommandLineOption mpiTimeout(QStringLiteral("mpi-timeout"),
                                        QStringLiteral("under mpirun: give up on a process silent for this many seconds (default 60)."),
                                        QStringLiteral("SECONDS"), QStringLiteral("60"));
    parser.addOption(mpiTimeout);
#endif
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("info, list, stats, export, overflow, graph, compare, precheck or monitor"));
    parser.addPositionalArgument(QStringLiteral("PATH"), QStringLiteral("dump directory or file"));
    // A bad option is a usage error (exit 2, README "Exit codes"), not process()'s exit 1.
    if (!parser.parse(QCoreApplication::arguments())) {
        err(QStringLiteral("dumpscope-cli: %1 (see --help)").arg(parser.errorText()));
        return Usage;
    }
    parser.process(app); // --help, --help-all and --version print and exit here

    const QStringList args = parser.positionalArguments();
    if (args.size() < 2) {
        err(QStringLiteral("usage: dumpscope-cli info|list|stats|export|overflow|graph|compare PATH [TENSOR...] (see --help)"));
        return Usage;
    }
    const QString command = args[0];
    if (command == QLatin1String("precheck") || command == QLatin1String("monitor")) {
        if (args.size() != 2) {
            err(QStringLiteral("usage: dumpscope-cli %1 PATH [--json]").arg(command));
            return Usage;
        }
        return command == QLatin1String("precheck") ? runPrecheckCommand(args[1], parser.isSet(json))
                                                    : runMonitorCommand(args[1], parser.isSet(json));
    }
    if (!QStringList{QStringLiteral("info"), QStringLiteral("list"), QStringLiteral("stats"), QStringLiteral("export"),
                     QStringLiteral("overflow"), QStringLiteral("graph"), QStringLiteral("compare")}.contains(command)) {
        err(QStringLiteral("unknown command '%1' (info, list, stats, export, overflow, graph, compare, precheck, monitor)").arg(command));
        return Usage;
    }
    ExportRequest req;
    if (command == QLatin1String("export")) {
        const QString f = parser.value(format);
        if (f != QLatin1String("npy") && f != QLatin1String("txt") && f != QLatin1String("h5")) {
            err(QStringLiteral("--format must be npy, txt or h5"));
            return Usage;
        }
        if (!parser.isSet(outDir) || args.size() < 3) {
            err(QStringLiteral("export needs TENSOR ids and --out DIR"));
            return Usage;
        }
        req.format = f == QLatin1String("npy") ? ExportFormat::Npy : ExportFormat::Txt;
        req.outDir = QDir(parser.value(outDir)).absolutePath();
        req.write.force = parser.isSet(force);
        req.write.txtPrecision = parser.value(precision).toInt();
    }
    req.layout = parser.isSet(raw) ? LayoutChoice::Raw : LayoutChoice::Logical;

    const bool spread = command == QLatin1String("compare") || command == QLatin1String("info") || command == QLatin1String("overflow");
    if (processes > 1 && !spread) {
        if (distributedRankOrZero() == 0)
            err(QStringLiteral("under mpirun only compare, info and overflow are spread over processes; run %1 without mpirun").arg(command));
        return Usage;
    }
    double timeout = 60;
#ifdef DUMPSCOPE_MPI
    if (processes > 1) {
        bool okTimeout = false;
        timeout = parser.value(mpiTimeout).toDouble(&okTimeout);
        if (!okTimeout || timeout <= 0) {
            err(QStringLiteral("--mpi-timeout must be a positive number of seconds"));
            return Usage;
        }
    }
#endif
    (void)timeout;
    if (command == QLatin1String("overflow") && isAnomalyAnalyzeName(QFileInfo(args[1]).fileName()))
        return runAnomalyAnalyzeCommand(args[1], parser.value(npuDump), parser.isSet(json));
    if (command == QLatin1String("info") || command == QLatin1String("overflow")) {
        ScanCommand c;
        c.kind = command == QLatin1String("info") ? ScanCommand::Kind::Info : ScanCommand::Kind::Overflow;
        c.path = args[1];
        c.json = parser.isSet(json);
        c.quiet = parser.isSet(quiet);
        c.scan = !parser.isSet(noScan);
#ifdef DUMPSCOPE_MPI
        if (processes > 1)
            return runDistributedScan(c, timeout);
#endif
        return runScanCommand(c);
    }
    if (command == QLatin1String("compare") && args.size() == 2) {
        if (!QFileInfo::exists(args[1])) {
            err(QStringLiteral("no such file or directory: %1").arg(args[1]));
            return NoPath;
        }
        if (QFileInfo(args[1]).isFile() && QFileInfo(args[1]).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0)
            return runDiffAnalyzeCommand(args[1], parser.value(npuDump), parser.value(benchDump), parser.isSet(json));
        if (!isCompareTablePath(args[1])) {
            err(QStringLiteral("usage: dumpscope-cli compare NPU_PATH BENCH_PATH, or compare RESULT.csv|RESULT.xlsx "
                               "(msprobe's compare table; %1 is not a .csv or .xlsx file)").arg(args[1]));
            return Usage;
        }
        CompareCommand c{args[1], QString(), QString(), parser.value(csv), QString(), parser.value(failOn), QString(), false,
                         parser.isSet(json), parser.isSet(quiet), parser.value(xlsx), parser.value(style), QString(), QString(), false};
        return runCompareTableCommand(c, parser.value(npuDump), parser.value(benchDump));
    }
    if (command == QLatin1String("compare")) {
        if (args.size() > 3) // three or more runs: each with the others (core/run/multirun.h)
            return runRunSetCommand({args.mid(1), parser.value(mode), parser.isSet(fuzzy), parser.isSet(json), parser.isSet(quiet)});
        if (args.size() != 3) {
            err(QStringLiteral("usage: dumpscope-cli compare NPU_PATH BENCH_PATH [options] (see --help)"));
            return Usage;
        }
        if (parser.isSet(msGraph))
            return runMsGraphCommand(args[1], args[2], parser.value(msGraph), parser.isSet(quiet));
        CompareCommand c{args[1], args[2], parser.value(mapping), parser.value(csv), parser.value(thresholds),
                         parser.value(failOn), parser.value(mode), parser.isSet(fuzzy), parser.isSet(json), parser.isSet(quiet),
                         parser.value(xlsx), parser.value(style), parser.value(mappingKind), parser.value(writeMapping),
                         parser.isSet(noAlign)};
#ifdef DUMPSCOPE_MPI
        if (processes > 1 && !c.writeMapping.isEmpty()) {
            if (distributedRankOrZero() == 0)
                err(QStringLiteral("--write-mapping is not spread over processes; run the compare without mpirun"));
            return Usage;
        }
        if (processes > 1)
            return runDistributedCompare(c, timeout);
#endif
        return runCompareCommand(c);
    }
    if (command == QLatin1String("graph")) // a graph-only directory holds no dump
        return runGraphCommand(args[1], args.mid(2), parser.isSet(json));
    auto index = openIndex(args[1], parser.isSet(quiet) || parser.isSet(json));
    if (!index)
        return NoPath;
    const QStringList ids = args.mid(2);
    const bool asJson = parser.isSet(json);
    if (command == QLatin1String("export") && parser.value(format) == QLatin1String("h5"))
        return cmdExportOps(*index, ids, QFileInfo(parser.value(outDir)).absoluteFilePath(), parser.isSet(force), asJson);
    int code = Ok;
    if (command == QLatin1String("list"))
        code = cmdList(*index, asJson);
    else if (command == QLatin1String("stats"))
        code = cmdStats(*index, ids, asJson, parser.value(bins).toInt(), req.layout);
    else
        code = cmdExport(*index, ids, req, asJson);
    if (recognisedNothing(*index)) { // what was looked for, after the (empty) output
        err(nothingRecognisedMessage(*index));
        return Failed;
    }
    return code;
}
