// bench_h5isolate [file.h5] [--repeat N] [--ballast MB] [--echo-mib M]: cost of indexing a
// dumper .h5 in a dumpscope-h5worker process (h5dumper::indexFile) against the same indexing
// in this process (indexFileInProcess). Default file: samples/h5/model_npu.h5; N (default 50)
// timed calls of each, alternating, after one untimed call of each. Also times an empty echo
// request to a pooled worker ("empty_child": one round trip on the socket) and to a new worker
// every time ("new_worker": posix_spawn + exec + the dynamic loader + exit + waitpid). --ballast allocates and
// touches MB of memory first, like a GUI holding loaded tensors (a fork copied the page tables;
// a spawn does not). Then loads the file's largest tensor dataset N times each way
// (loadH5TensorInProcess vs loadH5Tensor: one worker and a sealed memfd). --echo-mib sends M MiB
// to the worker and back (what copying a tensor through the pipes instead would cost).
// Prints one JSON object: median / min / max milliseconds of each.
#include "benchutil.h"
#include "formats/h5/h5dumper.h"
#include "formats/h5/h5isolate.h"
#include "formats/h5/h5loader.h"

#include <QFileInfo>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

bench::Json stats(std::vector<double> seconds)
{
    std::sort(seconds.begin(), seconds.end());
    const size_t n = seconds.size();
    const double median = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
    bench::Json j;
    j.add("median_ms", median * 1e3).add("min_ms", seconds.front() * 1e3).add("max_ms", seconds.back() * 1e3);
    return j;
}

} // namespace

int main(int argc, char **argv)
{
    QString file = QStringLiteral(DUMPSCOPE_SAMPLES "/h5/model_npu.h5");
    int repeat = 50;
    long long ballastMb = 0, echoMib = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--echo-mib") && i + 1 < argc)
            echoMib = std::clamp(std::atoll(argv[++i]), 0LL, 60LL);
        else if (!std::strcmp(argv[i], "--ballast") && i + 1 < argc)
            ballastMb = std::max(0LL, std::atoll(argv[++i]));
        else
            file = QString::fromLocal8Bit(argv[i]);
    }
    std::vector<char> ballast(size_t(ballastMb) << 20);
    for (size_t i = 0; i < ballast.size(); i += 4096)
        ballast[i] = char(i);
    const QFileInfo info(file);
    const QString root = info.absolutePath(), rel = info.fileName();
    std::size_t ops = 0;
    const auto check = [&](const ds::Result<ds::IndexPart> &part) {
        if (!part || part->ops.empty() || (ops && part->ops.size() != ops)) {
            std::fprintf(stderr, "indexing %s failed\n", qPrintable(file));
            std::exit(1);
        }
        ops = part->ops.size();
    };
    check(ds::h5dumper::indexFileInProcess(root, rel, {}));
    check(ds::h5dumper::indexFile(root, rel, {}));
    std::vector<double> local, isolated, empty, spawned;
    for (int i = 0; i < repeat; ++i) {
        local.push_back(bench::timeOnce([&] { check(ds::h5dumper::indexFileInProcess(root, rel, {})); }));
        isolated.push_back(bench::timeOnce([&] { check(ds::h5dumper::indexFile(root, rel, {})); }));
        empty.push_back(bench::timeOnce([] {
            if (!ds::h5::runWorker(ds::h5::Request{}, 1 << 20))
                std::exit(1);
        }));
    }
    // In a loop of its own: starting and ending processes disturbs what runs beside it.
    for (int i = 0; i < repeat; ++i)
        spawned.push_back(bench::timeOnce([] {
            ds::h5::Worker worker(nullptr, ds::h5::Worker::Source::New);
            if (worker.start(ds::h5::Request{}) || !worker.answer(1 << 20) || worker.finish(false))
                std::exit(1);
        }));
    // The largest tensor dataset.
    auto part = ds::h5dumper::indexFileInProcess(root, rel, {});
    ds::DumpIndex index;
    index.rootDir = root;
    index.ops = std::move(part->ops);
    const ds::OpRecord *bigOp = nullptr;
    const ds::TensorRecord *big = nullptr;
    for (const auto &op : index.ops)
        for (const auto &t : op.tensors)
            if (t.storage() == ds::TensorStorage::H5Dataset && (!big || t.size() > big->size())) {
                bigOp = &op;
                big = &t;
            }
    std::vector<double> loadLocal, loadIsolated;
    for (int i = 0; big && i < repeat; ++i) {
        loadLocal.push_back(bench::timeOnce([&] {
            if (!ds::loadH5TensorInProcess(index, *bigOp, *big, nullptr))
                std::exit(1);
        }));
        loadIsolated.push_back(bench::timeOnce([&] {
            if (!ds::loadH5Tensor(index, *bigOp, *big, nullptr))
                std::exit(1);
        }));
    }
    std::vector<double> echo;
    ds::h5::Request echoRequest;
    echoRequest.echo.payload = QByteArray(qsizetype(echoMib) << 20, 'e');
    for (int i = 0; echoMib && i < repeat; ++i)
        echo.push_back(bench::timeOnce([&] {
            const auto r = ds::h5::runWorker(echoRequest, 64u << 20);
            const auto a = r ? ds::h5::decodeEchoAnswer(*r) : std::nullopt;
            if (!a || a->payload.size() != echoRequest.echo.payload.size())
                std::exit(1);
        }));
    bench::Json out;
    out.add("file", qPrintable(rel)).add("bytes", (long long)info.size()).add("ops", (unsigned long long)ops).add("repeat", repeat)
        .add("ballast_mb", ballastMb);
    out.add("in_process", stats(local)).add("isolated", stats(isolated)).add("empty_child", stats(empty))
        .add("new_worker", stats(spawned));
    if (big)
        out.add("tensor_bytes", (unsigned long long)big->size()).add("load_in_process", stats(loadLocal))
            .add("load_isolated", stats(loadIsolated));
    if (echoMib)
        out.add("echo_mib", echoMib).add("echo_round_trip", stats(echo));
    out.print();
    return 0;
}
