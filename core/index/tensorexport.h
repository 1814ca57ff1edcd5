#pragma once

#include "dump/dumpindex.h"
#include "dump/loadedtensor.h"
#include "tensor/exportwriter.h"
#include "util/cancel.h"

#include <optional>

namespace ds {

enum class ExportFormat { Npy, Txt };

struct ExportRequest
{
    ExportFormat format = ExportFormat::Npy;
    LayoutChoice layout = LayoutChoice::Logical;
    WriteOptions write;
    QString outDir;
};

struct ExportResult
{
    TensorId id;
    QString file;
    std::optional<Error> error;
    QString dtype, exportedDtype; ///< header dtype name and the numpy descr written
    Shape shape;
};

/// Why a leaf cannot be exported as an array (None: it can).
enum class ExportBlock : std::uint8_t {
    None,
    StatisticsOnly, ///< a tensor whose values were not dumped (msprobe task statistics, md5)
    NotATensor,     ///< an int, float, None, string ... argument
};
ExportBlock exportBlock(const TensorRecord &t);

/// How many of a selection can be exported, and why the others cannot.
struct ExportCounts
{
    int exportable = 0, statisticsOnly = 0, notTensors = 0;
    void add(ExportBlock b) { (b == ExportBlock::None ? exportable : b == ExportBlock::StatisticsOnly ? statisticsOnly : notTensors)++; }
    int total() const { return exportable + statisticsOnly + notTensors; }
    /// "3 of 11 can be exported; 4 are statistics only (no values were dumped), 4 are not
    /// tensors (int, None, ...)." (translated)
    QString text() const;
};

/// `<dump file base name>.<input|output>.<index>.npy|txt` (msaccucmp's convert names).
QString exportFileName(const DumpIndex &index, const DumpIndex::TensorRef &ref, ExportFormat format);

/// Loads and writes one tensor. Refuses to write inside the opened dump directory, and a leaf
/// without values (exportBlock) without touching the file system: the output directory is
/// made only once there is an array to write into it.
ExportResult exportTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const ExportRequest &req,
                          const JobControl *job = nullptr);

/// The file suffix of an export of whole operators in their own format (".h5"), or empty
/// when the operators' format cannot export, or the operators are of different formats.
QString opExportSuffix(const DumpIndex &index, const std::vector<int> &ops);
/// Writes the operators (indexes into index.ops, all of one format) into a new file of their
/// own format through their reader (DumpReader::exporter). Returns the number written.
Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile, bool force,
                      const JobControl *job = nullptr);

} // namespace ds
