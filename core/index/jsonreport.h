#pragma once

#include "dumpindex.h"
#include "tensor/stats.h"
#include "tensorexport.h"

#include <QByteArray>
#include <optional>

namespace ds {

/// Statistics of one tensor as the CLI and the GUI report them.
struct TensorStatsEntry
{
    QString id, error;
    DumpIndex::TensorRef ref;
    TensorStats stats;
    std::optional<Histogram> histogram;
    Shape shape; ///< shape the statistics were computed over (logical unless raw)
    QStringList notes;
};

/// Loads the tensor and computes its statistics (and a histogram over the finite range if bins > 0).
TensorStatsEntry computeTensorStats(const DumpIndex &index, const DumpIndex::TensorRef &ref, int bins = 0,
                                    LayoutChoice layout = LayoutChoice::Logical, const JobControl *job = nullptr);

/// The JSON documents of `dumpscope-cli info|list|stats|export --json` (README "JSON output").
QByteArray infoJson(const DumpIndex &index);
QByteArray listJson(const DumpIndex &index);
QByteArray statsJson(const DumpIndex &index, const std::vector<TensorStatsEntry> &entries);
QByteArray exportJson(const DumpIndex &index, const std::vector<ExportResult> &results);

/// Plain text (one "name: value" per line) used by "copy statistics".
QString statsText(const TensorStats &s);

} // namespace ds
