#pragma once

#include "dump/reader.h"

namespace ds {

/// msprobe dumps, generations B and C (msprobe.md): a `rank*`/`proc*` directory holding
/// dump.json or debug.json (+ stack.json, construct.json) with tensors in dump_tensor_data/
/// as .pt or .npy files.
class MsprobeReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("msprobe"); }
    QString description() const override { return QStringLiteral("msprobe dump (dump.json)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::WholeDirectory; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
    bool hasModules() const override { return true; }
};

/// ptdbg_ascend dumps, generation A (msprobe.md §9): dump.pkl + dump/*.npy rank directories,
/// per-API overflow .pkl files, and forward_info_{pid}.json / backward_info_{pid}.json files.
class PtdbgReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("ptdbg"); }
    QString description() const override { return QStringLiteral("ptdbg_ascend dump (dump.pkl)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::WholeDirectory; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
    bool hasModules() const override { return true; }
};

} // namespace ds
