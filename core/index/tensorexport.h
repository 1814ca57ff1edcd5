#pragma once

#include "dumpindex.h"
#include "io/exportwriter.h"
#include "tensorloader.h"

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
    QString id, file, error;
    QString dtype, exportedDtype; ///< header dtype name and the numpy descr written
    Shape shape;
};

/// `<dump file base name>.<input|output>.<index>.npy|txt` (msaccucmp's convert names).
QString exportFileName(const DumpIndex &index, const DumpIndex::TensorRef &ref, ExportFormat format);

/// Loads and writes one tensor. Refuses to write inside the opened dump directory.
ExportResult exportTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const ExportRequest &req,
                          const JobControl *job = nullptr);

} // namespace ds
