// Overflow analysis throughput: index a tree of OpDebug records plus operator files, then
// decode every record and link it to its operator (software scan off). Prints JSON.
// Usage: bench_overflow DIR   (DIR from bench/gen_overflow_tree.py)
#include "index/buildindex.h"
#include "overflow/overflowreport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <cstdio>

using namespace ds;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_overflow DIR\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    (void)buildIndex(path); // warm the page cache
    double indexMs = 1e300, analyzeMs = 1e300;
    size_t records = 0, linked = 0;
    for (int rep = 0; rep < 3; ++rep) {
        QElapsedTimer t;
        t.start();
        auto index = buildIndex(path);
        indexMs = std::min(indexMs, double(t.nsecsElapsed()) / 1e6);
        t.restart();
        OverflowOptions options;
        options.softwareScan = false;
        const OverflowReport report = analyzeOverflow(**index, options);
        analyzeMs = std::min(analyzeMs, double(t.nsecsElapsed()) / 1e6);
        records = report.records.size();
        linked = 0;
        for (const auto &e : report.records)
            for (const auto &l : e.links)
                linked += l.op >= 0;
    }
    std::printf("{\"records\": %zu, \"linked\": %zu, \"index_ms\": %.1f, \"decode_link_ms\": %.1f, \"total_ms\": %.1f}\n",
                records, linked, indexMs, analyzeMs, indexMs + analyzeMs);
    return 0;
}
