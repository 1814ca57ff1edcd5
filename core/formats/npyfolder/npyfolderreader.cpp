#include "npyfolderreader.h"

#include "dump/levels.h"
#include "formats/npy/npyloader.h"
#include "npyfolder.h"

namespace ds {

bool NpyFolderReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    const auto removed = dir.files.removeIf([](const QString &f) { return f.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive); });
    if (removed == 0)
        return false;
    DumpLevels levels = frameworkLevels(dir.absDir);
    levels.modelName = dir.relDir.section(QLatin1Char('/'), -1); // one node per folder below the opened one
    claims.push_back({{}, dir.relDir, levels, {}, {}});
    return false;
}

Result<IndexPart> NpyFolderReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    return npyfolder::indexDir(rootDir, claim.relPath, claim.levels, job);
}

Result<LoadedTensorPtr> NpyFolderReader::load(const DumpIndex &index, const OpRecord &, const TensorRecord &rec,
                                              LayoutChoice, const JobControl *job) const
{
    return loadNpyTensor(index, rec, job);
}

} // namespace ds
