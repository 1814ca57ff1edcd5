// bench_msprobe ROOT [REL_DIR]: time and peak memory of msprobe::indexRankDir over one rank
// directory (default REL_DIR step0/rank0, as written by bench/gen_msprobe_json.py).
// One cold-ish run (whatever the page cache holds); peak RSS is the process maximum
// (getrusage ru_maxrss), i.e. parse + the resulting records, before anything is freed.
// cpu_seconds (user + system of the whole process) tells the work from waiting on a loaded
// machine. Prints {"entries", "records", "errors", "seconds", "cpu_seconds", "entries_per_s", "mb_per_s",
// "peak_rss_mb", "sizeof_op", "sizeof_tensor"}.
#include "benchutil.h"
#include "formats/msprobe/msprobereader.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <sys/resource.h>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s ROOT [REL_DIR]\n", argv[0]);
        return 2;
    }
    const QString root = QString::fromLocal8Bit(argv[1]);
    const QString rel = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QStringLiteral("step0/rank0");
    const qint64 bytes = QFileInfo(root + QLatin1Char('/') + rel + QStringLiteral("/dump.json")).size();
    ds::DumpLevels levels;
    levels.step = QStringLiteral("step0");
    levels.rank = QStringLiteral("rank0");

    size_t entries = 0, records = 0, errors = 0;
    std::optional<ds::Result<ds::FrameworkPart>> keep; // freed after the measurement
    const double seconds = bench::timeOnce([&] {
        keep.emplace(ds::msprobe::indexRankDir(root, rel, levels));
    });
    if (!keep->ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(keep->error()));
        return 1;
    }
    const ds::FrameworkPart &part = keep->value();
    entries = part.ops.size();
    for (const auto &op : part.ops)
        records += op.tensors.size();
    errors = part.errors.size();
    for (const auto &e : part.errors)
        std::fprintf(stderr, "%s: %s\n", qPrintable(e.file), qPrintable(e.message));
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    bench::Json()
        .add("entries", (unsigned long long)entries)
        .add("records", (unsigned long long)records)
        .add("errors", (unsigned long long)errors)
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
