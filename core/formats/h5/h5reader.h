#pragma once

#include "dump/reader.h"

namespace ds {

/// torch.utils.dumper HDF5 files (h5-dumper.md): each .h5/.hdf5 file is its own part of the
/// tree; libhdf5 runs in a child process. Selected operators export to a new .h5 file.
class H5Reader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("h5"); }
    QString description() const override { return QStringLiteral("torch.utils.dumper HDF5 (.h5)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::Files; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
    const OpExporter *exporter() const override;
};

} // namespace ds
