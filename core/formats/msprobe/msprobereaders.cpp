#include "msprobereaders.h"

#include "dump/levels.h"
#include "formats/npy/npyloader.h"
#include "formats/torch/ptloader.h"
#include "msprobereader.h"

#include <algorithm>

namespace ds {

namespace {

/// msprobe and ptdbg tensors are .npy or .pt files next to the record.
Result<LoadedTensorPtr> loadTensorFile(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                       const JobControl *job)
{
    switch (rec.storage()) {
    case TensorStorage::NpyFile: return loadNpyTensor(index, rec, job);
    case TensorStorage::PtFile: return loadPtTensor(index, rec, job);
    default: break;
    }
    return Error(ErrorKind::Unsupported, op.relPath, QStringLiteral("%1 is not stored in a tensor file").arg(rec.name()));
}

} // namespace

bool MsprobeReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    // msprobe.md §1: dump.json (or debug.json) first; its sub-directories hold only tensors.
    if (!dir.files.contains(QLatin1String("dump.json")) && !dir.files.contains(QLatin1String("debug.json")))
        return false;
    claims.push_back({{}, dir.relDir, frameworkLevels(dir.absDir), {}, {}});
    return true;
}

Result<IndexPart> MsprobeReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    return msprobe::indexRankDir(rootDir, claim.relPath, claim.levels, job);
}

Result<LoadedTensorPtr> MsprobeReader::load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                            LayoutChoice, const JobControl *job) const
{
    return loadTensorFile(index, op, rec, job);
}

bool PtdbgReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    const bool anyPkl = std::any_of(dir.files.begin(), dir.files.end(),
                                    [](const QString &f) { return f.endsWith(QLatin1String(".pkl")); });
    if (anyPkl && ptdbg::looksLikePtdbgRankDir(dir.absDir)) {
        claims.push_back({{}, dir.relDir, frameworkLevels(dir.absDir), {}, {}});
        return true;
    }
    for (auto it = dir.files.begin(); it != dir.files.end();) {
        if (ptdbg::isOverflowInfoFile(*it)) {
            // An overflow-info claim names its file in `files` too.
            const QString file = dir.relPath(*it);
            claims.push_back({{}, file, frameworkLevels(dir.absDir), {file}, {}});
            it = dir.files.erase(it);
        } else {
            ++it;
        }
    }
    return false;
}

Result<IndexPart> PtdbgReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    if (!claim.files.isEmpty())
        return ptdbg::indexOverflowInfo(rootDir, claim.relPath, claim.levels, job);
    return ptdbg::indexRankDir(rootDir, claim.relPath, claim.levels, job);
}

Result<LoadedTensorPtr> PtdbgReader::load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                          LayoutChoice, const JobControl *job) const
{
    return loadTensorFile(index, op, rec, job);
}

} // namespace ds
