#include "streamedinfo.h"

#include "index/buildindex.h"

#include <algorithm>
#include <map>
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

    std::vector<InfoPart> parts;
    std::map<QString, std::set<QString>> frameworks; // run label -> producers' frameworks
    for (size_t b = 0; b < batches.size(); ++b) {
        std::vector<size_t> &claims = batches[b];
        std::sort(claims.begin(), claims.end());
        JobControl sub;
        sub.cancelFlag = job ? job->cancelFlag : nullptr;
        if (job && job->progress)
            sub.progress = [job, b, n = batches.size()](int permille) { job->report(int((b * 1000 + size_t(permille)) / n)); };
        std::shared_ptr<DumpIndex> index = indexClaims(walk, claims, &sub, {}, IndexLabels::Always);
        if (b == 0) { // the walk's own errors (unreadable folders), once
            index->errors.insert(index->errors.end(), walk.errors.begin(), walk.errors.end());
            index->finalize();
        }
        for (const OpRecord &op : index->ops)
            if (!op.levels->framework.isEmpty())
                frameworks[op.levels->run].insert(op.levels->framework);
        parts.push_back(infoPart(*index));
        if (index->cancelled)
            break;
    }
    for (const auto &[run, set] : frameworks)
        if (set.size() > 1)
            return std::nullopt;
    return parts;
}

} // namespace ds
