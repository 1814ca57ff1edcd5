#include "streamedinfo.h"

#include "index/buildindex.h"

#include "util/parallel.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace ds {

std::optional<std::vector<InfoPart>> streamedInfoParts(const RunTree &tree, const JobControl *job, size_t scopesPerBatch)
{
    const TreeWalk &walk = tree.walk;
    if (walk.singleFile || scopesPerBatch == 0)
        return std::nullopt;
    // Batches of whole scopes, in run then step/rank order; claims no run holds on their own.
    std::vector<std::vector<size_t>> batches;
    std::vector<bool> held(walk.claims.size(), false);
    size_t inBatch = scopesPerBatch;
    for (const RunInfo &run : tree.runs)
        for (const RunScope &s : run.scopes) {
            if (inBatch == scopesPerBatch) {
                batches.emplace_back();
                inBatch = 0;
            }
            batches.back().insert(batches.back().end(), s.claims.begin(), s.claims.end());
            for (size_t c : s.claims)
                held[c] = true;
            ++inBatch;
        }
    std::vector<size_t> rest;
    for (size_t c = 0; c < held.size(); ++c)
        if (!held[c])
            rest.push_back(c);
    if (!rest.empty())
        batches.push_back(std::move(rest));
    if (batches.size() < 2)
        return std::nullopt;

    // Batches on all cores, a lane per core, each batch read on its lane alone (no threads
    // started per batch): a batch's index is read, counted and freed on its lane, so the
    // reading, the counting and the freeing of consecutive batches overlap. Parts are kept by batch number: the merge
    // sees them in batch order whichever lane finished first.
    const size_t n = batches.size();
    std::vector<std::optional<InfoPart>> done(n);
    std::vector<std::map<QString, std::set<QString>>> frameworksOf(n); // run label -> producers' frameworks
    std::vector<int> permilleOf(n, 0);
    std::mutex progressMutex;
    std::atomic<size_t> firstCancelled{n};
    parallelChunks(n, 1, [&](size_t b, size_t, size_t) {
        if (b > firstCancelled.load())
            return false;
        const ParallelLimit oneThread(1); // the lanes take the cores: each batch on its lane alone
        std::vector<size_t> &claims = batches[b];
        std::sort(claims.begin(), claims.end());
        JobControl sub;
        sub.cancelFlag = job ? job->cancelFlag : nullptr;
        if (job && job->progress)
            sub.progress = [&, b](int permille) {
                std::lock_guard lock(progressMutex);
                permilleOf[b] = permille;
                size_t sum = 0;
                for (int p : permilleOf)
                    sum += size_t(p);
                job->report(int(sum / n));
            };
        std::shared_ptr<DumpIndex> index = indexClaims(walk, claims, &sub, {}, IndexLabels::Always);
        if (b == 0) { // the walk's own errors (unreadable folders), once
            index->errors.insert(index->errors.end(), walk.errors.begin(), walk.errors.end());
            index->finalize();
        }
        for (const OpRecord &op : index->ops)
            if (!op.levels->framework.isEmpty())
                frameworksOf[b][op.levels->run].insert(op.levels->framework);
        done[b] = infoPart(*index);
        index.reset(); // freed on this lane, beside the other lane's reading
        if (done[b]->cancelled) {
            size_t seen = firstCancelled.load();
            while (b < seen && !firstCancelled.compare_exchange_weak(seen, b)) {
            }
            return false;
        }
        return true;
    }, std::max(2u, workerCount()));
    // As one batch after another: the parts up to the first cancelled one.
    std::vector<InfoPart> parts;
    std::map<QString, std::set<QString>> frameworks;
    for (size_t b = 0; b < n && b <= firstCancelled.load(); ++b) {
        if (!done[b])
            break;
        parts.push_back(std::move(*done[b]));
        for (auto &[run, set] : frameworksOf[b])
            frameworks[run].insert(set.begin(), set.end());
    }
    for (const auto &[run, set] : frameworks)
        if (set.size() > 1)
            return std::nullopt;
    return parts;
}

} // namespace ds
