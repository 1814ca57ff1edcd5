#pragma once

#include "dump/reader.h"

namespace ds {

/// Folders of .npy files (msaccucmp `convert` output regrouped per operator, MindSpore names,
/// any other .npy): the .npy files of one directory are one part of the tree.
class NpyFolderReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("npy"); }
    QString description() const override { return QStringLiteral("numpy files (.npy)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::Files; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
};

} // namespace ds
