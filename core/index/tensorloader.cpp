#include "tensorloader.h"

#include "formats/readers.h"

namespace ds {

Result<LoadedTensorPtr> loadTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, LayoutChoice layout,
                                   const JobControl *job)
{
    const OpRecord &op = index.op(ref);
    const TensorRecord &rec = index.tensor(ref);
    if (rec.storage() == TensorStorage::Absent)
        return Error(ErrorKind::NoData, op.relPath, QStringLiteral("no data was saved for %1 (statistics only)").arg(rec.name()));
    if (rec.storage() == TensorStorage::Value)
        return Error(ErrorKind::NoData, op.relPath, QStringLiteral("%1 is a %2 value, not a tensor").arg(rec.name(), rec.typeName()));
    if (job && job->cancelled())
        return Cancelled{};
    return formatReader(op.source).load(index, op, rec, layout, job);
}

} // namespace ds
