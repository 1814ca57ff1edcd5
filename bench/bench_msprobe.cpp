// bench_msprobe ROOT [REL_DIR]: time and peak memory of msprobe::indexRankDir over one rank
// directory (default REL_DIR step0/rank0, as written by bench/gen_msprobe_json.py).
// One cold-ish run (whatever the page cache holds); peak RSS is the process maximum
// (getrusage ru_maxrss), i.e. parse + the resulting records, before anything is freed.
// cpu_seconds (user + system of the whole process) tells the work from waiting on a loaded
// machine. Prints {"entries", "records", "errors", "seconds", "cpu_seconds", "entries_per_s", "mb_per_s",
// "peak_rss_mb", "sizeof_op", "sizeof_tensor"}.
// --readers FILE: RapidJSON against the tokenizer on one file (walk: every entry into a
// JsonTree; index: the file read into records with each JsonEngine: streamed from RapidJSON's
// events, RapidJSON trees walked, tokenizer trees walked; best of 3, wall and CPU).
#include "benchutil.h"
#include "formats/msprobe/msprobereader.h"

#include "formats/msprobe/fastjson.h"
#include "formats/msprobe/jsonstream.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>

namespace {
double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// --tokenize FILE: our tokenizer (skipping the whole document) against nlohmann's SAX parser
// with a handler that does nothing, on the same strict-JSON file (nlohmann rejects NaN).
struct NullSax : nlohmann::json_sax<nlohmann::json>
{
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }
};

int tokenize(const char *path)
{
    const QString file = QString::fromLocal8Bit(path);
    const double mb = double(QFileInfo(file).size()) / 1e6;
    bool ours = false, theirs = false;
    const double tOurs = bench::timeOnce([&] {
        ds::msprobe::JsonStreamReader r;
        ours = r.open(file) && r.skipValue();
    });
    const double tTheirs = bench::timeOnce([&] {
        std::ifstream in(path, std::ios::binary);
        NullSax sax;
        theirs = nlohmann::json::sax_parse(in, &sax);
    });
    bench::Json()
        .add("mb", mb)
        .add("ours_ok", ours ? 1 : 0)
        .add("ours_mb_per_s", mb / tOurs)
        .add("nlohmann_ok", theirs ? 1 : 0)
        .add("nlohmann_mb_per_s", mb / tTheirs)
        .print();
    return ours && theirs ? 0 : 1;
}
// --readers FILE: the walk the msprobe reader does over dump.json (every entry of "data"
// parsed into a JsonTree) with the tokenizer and with RapidJSON (FastJsonReader), best of 3 each,
// on the same real-format file (NaN / Infinity included).
template<typename Reader>
bool walkData(Reader &r, size_t &entries)
{
    std::string key;
    bool first = true;
    ds::msprobe::JsonTree tree;
    if (!r.beginObject())
        return false;
    for (int m; (m = r.nextMember(key, first)) != 0;) {
        if (m < 0)
            return false;
        if (key != "data") {
            if (!r.parseValue(tree))
                return false;
            continue;
        }
        bool inner = true;
        if (!r.beginObject())
            return false;
        for (int e; (e = r.nextMember(key, inner)) != 0; ++entries)
            if (e < 0 || !r.parseValue(tree))
                return false;
    }
    return true;
}

int readers(const char *path)
{
    const QString file = QString::fromLocal8Bit(path);
    const double mb = double(QFileInfo(file).size()) / 1e6;
    size_t entriesT = 0, entriesF = 0;
    bool okT = true, okF = true;
    std::uint64_t fallbacks = 0;
    const double tTok = bench::bestOf(3, [&] {
        ds::msprobe::JsonStreamReader r;
        entriesT = 0;
        okT = r.open(file) && walkData(r, entriesT);
    });
    const double tFast = bench::bestOf(3, [&] {
        ds::msprobe::FastJsonReader r;
        entriesF = 0;
        okF = r.open(file) && walkData(r, entriesF);
        fallbacks = r.fallbacks();
    });
    // Best of 3 of each, wall and CPU time of this thread (the figure a loaded machine does
    // not change much).
    struct Timing
    {
        double wall = 1e300, cpu = 1e300;
        size_t ops = 0;
    };
    auto index = [&](ds::msprobe::JsonEngine engine) {
        Timing t;
        for (int i = 0; i < 3; ++i) {
            const double c0 = threadCpuSeconds();
            ds::IndexPart part; // freed after the measurement
            const double w = bench::timeOnce([&] {
                ds::msprobe::readDumpJson(file, QStringLiteral("r"), QStringLiteral("r/dump.json"), ds::DumpLevels{}, part,
                                          nullptr, engine);
                t.ops = part.ops.size();
            });
            t.wall = std::min(t.wall, w);
            t.cpu = std::min(t.cpu, threadCpuSeconds() - c0);
        }
        return t;
    };
    const Timing iTok = index(ds::msprobe::JsonEngine::Tokenizer);
    const Timing iTree = index(ds::msprobe::JsonEngine::RapidJsonTree);
    const Timing iFast = index(ds::msprobe::JsonEngine::RapidJson);
    const std::uint64_t before = ds::msprobe::simdWindowEntries();
    const Timing iSimd = index(ds::msprobe::JsonEngine::SimdJson);
    const std::uint64_t windowEntries = (ds::msprobe::simdWindowEntries() - before) / 3;
    bench::Json()
        .add("mb", mb)
        .add("index_tokenizer_mb_per_s", mb / iTok.wall)
        .add("index_rapidjson_tree_mb_per_s", mb / iTree.wall)
        .add("index_rapidjson_mb_per_s", mb / iFast.wall)
        .add("index_tokenizer_cpu_s", iTok.cpu)
        .add("index_rapidjson_tree_cpu_s", iTree.cpu)
        .add("index_rapidjson_cpu_s", iFast.cpu)
        .add("index_simdjson_mb_per_s", mb / iSimd.wall)
        .add("index_simdjson_cpu_s", iSimd.cpu)
        .add("index_simdjson_window_entries", (unsigned long long)windowEntries)
        .add("index_rapidjson_vs_simdjson_cpu", iFast.cpu / iSimd.cpu)
        .add("index_streamed_vs_tree_cpu", iTree.cpu / iFast.cpu)
        .add("index_streamed_vs_tokenizer_cpu", iTok.cpu / iFast.cpu)
        .add("index_same_ops", iTok.ops == iFast.ops && iTree.ops == iFast.ops && iSimd.ops == iFast.ops && iFast.ops > 0 ? 1 : 0)
        .add("entries", (unsigned long long)entriesF)
        .add("same_entries", entriesT == entriesF ? 1 : 0)
        .add("tokenizer_mb_per_s", mb / tTok)
        .add("rapidjson_mb_per_s", mb / tFast)
        .add("rapidjson_vs_tokenizer", tTok / tFast)
        .add("rapidjson_fallbacks", (unsigned long long)fallbacks)
        .print();
    return okT && okF && entriesT == entriesF ? 0 : 1;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s ROOT [REL_DIR] | --tokenize FILE | --readers FILE\n", argv[0]);
        return 2;
    }
    if (argc == 3 && std::strcmp(argv[1], "--tokenize") == 0)
        return tokenize(argv[2]);
    if (argc == 3 && std::strcmp(argv[1], "--readers") == 0)
        return readers(argv[2]);
    const QString root = QString::fromLocal8Bit(argv[1]);
    const QString rel = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QStringLiteral("step0/rank0");
    const qint64 bytes = QFileInfo(root + QLatin1Char('/') + rel + QStringLiteral("/dump.json")).size();
    ds::DumpLevels levels;
    levels.step = QStringLiteral("step0");
    levels.rank = QStringLiteral("rank0");

    size_t entries = 0, records = 0, errors = 0;
    std::optional<ds::Result<ds::IndexPart>> keep; // freed after the measurement
    const double seconds = bench::timeOnce([&] {
        keep.emplace(ds::msprobe::indexRankDir(root, rel, levels));
    });
    if (!keep->ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(keep->errorText()));
        return 1;
    }
    const ds::IndexPart &part = keep->value();
    entries = part.ops.size();
    size_t withStack = 0, withParent = 0;
    for (const auto &op : part.ops) {
        records += op.tensors.size();
        withStack += op.stack >= 0;
        withParent += !op.parent.isEmpty();
    }
    errors = part.errors.size();
    for (const auto &e : part.errors)
        std::fprintf(stderr, "%s: %s\n", qPrintable(e.file), qPrintable(e.message));
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    bench::Json()
        .add("entries", (unsigned long long)entries)
        .add("records", (unsigned long long)records)
        .add("errors", (unsigned long long)errors)
        .add("stacks", (unsigned long long)part.stacks.size())
        .add("entries_with_stack", (unsigned long long)withStack)
        .add("entries_with_parent", (unsigned long long)withParent)
        .add("seconds", seconds)
        .add("cpu_seconds", double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6)
        .add("entries_per_s", double(entries) / seconds)
        .add("mb_per_s", double(bytes) / 1e6 / seconds)
        .add("peak_rss_mb", double(ru.ru_maxrss) / 1024.0)
        .add("sizeof_op", (unsigned long long)sizeof(ds::OpRecord))
        .add("sizeof_tensor", (unsigned long long)sizeof(ds::TensorRecord))
        .print();
    return 0;
}
