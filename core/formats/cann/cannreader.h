#pragma once

#include "dump/reader.h"

namespace ds {

/// CANN operator dump files (cann-dump.md): `{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}`
/// and numeric names renamed through mapping.csv, in model and single-op trees. It takes the
/// files no other reader took; whether a name is a dump name is decided on the worker threads
/// (a tree of 10^5 files is listed before anything is parsed). Each operator is one file.
class CannReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("cann"); }
    QString description() const override { return QStringLiteral("CANN operator dump"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::Rest; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
    bool opsAreFiles() const override { return true; }
};

} // namespace ds
