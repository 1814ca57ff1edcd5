#include "ptfolderreader.h"

#include "dump/levels.h"
#include "formats/torch/ptloader.h"
#include "ptfolder.h"

namespace ds {

bool PtFolderReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    QStringList files; // the .pt files offered (one when a single file was opened)
    dir.files.removeIf([&](const QString &f) {
        const bool pt = f.endsWith(QLatin1String(".pt"), Qt::CaseInsensitive);
        if (pt)
            files << dir.relPath(f);
        return pt;
    });
    if (files.isEmpty())
        return false;
    DumpLevels levels = frameworkLevels(dir.absDir);
    levels.modelName = dir.relDir.section(QLatin1Char('/'), -1); // one node per folder below the opened one
    claims.push_back({{}, dir.relDir, levels, files, {}});
    return false;
}

Result<IndexPart> PtFolderReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    QStringList names; // Claim::files are relative to the root
    for (const QString &f : claim.files)
        names << f.section(QLatin1Char('/'), -1);
    return ptfolder::indexDir(rootDir, claim.relPath, claim.levels, job, names);
}

Result<LoadedTensorPtr> PtFolderReader::load(const DumpIndex &index, const OpRecord &, const TensorRecord &rec,
                                             LayoutChoice, const JobControl *job) const
{
    // `value` holds the key path of a tensor in a file of several (ptfolder::addPtFile).
    return loadPtTensor(index, rec, job, rec.value());
}

} // namespace ds
