#pragma once

#include "dump/reader.h"

namespace ds {

/// MindSpore kernel-level dumps (msprobe L2 / static graph O0/O1 / exception dump, written by
/// MindSpore's E2E dump): `rank_{id}/{net}/{graph_id}/{iteration}/` holding statistic.csv and/or
/// `{op_type}.{op_name}.{task}.{stream}.{timestamp}.{input|output}.{slot}.{format}[.{dtype}].npy`
/// (mapping.csv for renamed long names), with `rank_{id}/execution_order/` and `graphs/` beside.
/// One iteration folder is one claim; its kernels become operators in execution order, their
/// statistic.csv rows recorded statistics (storage Absent unless the .npy is there too).
/// Ranks and iterations are the rank and step levels; the net and graph id are model_name and
/// model_id. The execution_order/ and graphs/ folders are taken so they are not read as
/// other formats (the execution order is read by the iteration claims).
class MsKernelReader final : public DumpReader
{
public:
    QString name() const override { return QStringLiteral("mindspore-kernel"); }
    QString description() const override { return QStringLiteral("MindSpore kernel dump (statistic.csv, .npy)"); }
    ClaimOrder claimOrder() const override { return ClaimOrder::WholeDirectory; }
    bool claim(DirListing &dir, std::vector<Claim> &claims) const override;
    Result<IndexPart> index(const QString &rootDir, const Claim &claim, const JobControl *job) const override;
    Result<LoadedTensorPtr> load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                 LayoutChoice layout, const JobControl *job) const override;
    bool opsAreFiles() const override { return false; }
    bool hasModuleGraph() const override { return true; }
    bool parentIsScope() const override { return true; }
};

namespace mindspore {

/// The levels of an iteration folder `.../rank_{id}/{net}/{graph_id}/{iteration}` (absolute or
/// relative path), or nullopt when the path does not end like that.
std::optional<DumpLevels> kernelDirLevels(const QString &dirPath);

/// Indexes one iteration folder (relative to rootDir). See MsKernelReader.
Result<IndexPart> indexIterationDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                    const JobControl *job = nullptr);

} // namespace mindspore

} // namespace ds
