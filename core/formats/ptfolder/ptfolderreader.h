#pragma once

#include "dump/reader.h"

namespace ds {

/// Folders of loose torch.save `.pt` files (msprobe `parse -t pt`, aclgraph `tensor_data/`,
/// acl_save files, state dicts): the `.pt` files of one directory are one part of the tree,
/// grouped by msprobe's naming (ptfolder.h). Folders of an msprobe dump are its own reader's.
class PtFolderReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("pt"); }
    QString description() const override { return QStringLiteral("torch.save files (.pt)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::Files; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
};

} // namespace ds
