// bench_index DIR [--repeat N]: wall time of ds::buildIndex over a dump tree.
// Warm cache: one untimed run first (fills the dentry/page cache), then the best of N (3).
// The timed region is the buildIndex call; destroying the index is left out.
// Prints {"files", "ops", "errors", "seconds", "files_per_s"}; files = ops + errors.
#include "benchutil.h"
#include "index/buildindex.h"

#include <QCoreApplication>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s DIR [--repeat N]\n", argv[0]);
        return 2;
    }
    int repeat = 3;
    for (int i = 2; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[i + 1]));
    const QString dir = QString::fromLocal8Bit(argv[1]);

    size_t ops = 0, errors = 0;
    std::vector<std::shared_ptr<ds::DumpIndex>> keep; // destroyed after timing, not inside it
    auto run = [&] {
        auto index = ds::buildIndex(dir);
        if (!index) {
            std::fprintf(stderr, "%s\n", qPrintable(index.errorText()));
            std::exit(1);
        }
        ops = (*index)->ops.size();
        errors = (*index)->errors.size();
        keep.push_back(*index);
    };
    run(); // warm-up, untimed
    const double seconds = bench::bestOf(repeat, run);
    keep.clear();
    const size_t files = ops + errors;
    bench::Json()
        .add("files", (unsigned long long)files)
        .add("ops", (unsigned long long)ops)
        .add("errors", (unsigned long long)errors)
        .add("seconds", seconds)
        .add("files_per_s", double(files) / seconds)
        .print();
    return 0;
}
