#include "h5reader.h"

#include "dump/levels.h"
#include "h5dumper.h"
#include "h5loader.h"

namespace ds {

namespace {

class H5Exporter final : public OpExporter
{
public:
    QString fileSuffix() const override { return QStringLiteral(".h5"); }
    Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile, bool force,
                          const JobControl *job) const override
    {
        h5dumper::ExportOptions options;
        options.force = force;
        return h5dumper::exportOps(index, ops, outFile, options, job);
    }
};

bool isH5Name(const QString &name)
{
    return name.endsWith(QLatin1String(".h5"), Qt::CaseInsensitive) || name.endsWith(QLatin1String(".hdf5"), Qt::CaseInsensitive);
}

} // namespace

bool H5Reader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    for (auto it = dir.files.begin(); it != dir.files.end();) {
        if (!isH5Name(*it)) {
            ++it;
            continue;
        }
        DumpLevels levels = frameworkLevels(dir.absDir);
        levels.modelName = *it; // model_npu.h5 and model_gpu.h5 side by side in the tree
        claims.push_back({{}, dir.relPath(*it), levels, {}, {}});
        it = dir.files.erase(it);
    }
    return false;
}

Result<IndexPart> H5Reader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    return h5dumper::indexFile(rootDir, claim.relPath, claim.levels, job);
}

Result<LoadedTensorPtr> H5Reader::load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                       LayoutChoice, const JobControl *job) const
{
    return loadH5Tensor(index, op, rec, job);
}

const OpExporter *H5Reader::exporter() const
{
    static const H5Exporter exporter;
    return &exporter;
}

} // namespace ds
