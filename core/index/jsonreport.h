#pragma once

#include "dump/dumpindex.h"
#include "tensormeasure.h"
#include "tensorexport.h"

#include <QByteArray>
#include <optional>

namespace ds {

/// The JSON documents of `dumpscope-cli info|list|stats|export --json` (README "JSON output").
QByteArray infoJson(const DumpIndex &index);
QByteArray listJson(const DumpIndex &index);
QByteArray statsJson(const DumpIndex &index, const std::vector<TensorMeasure> &entries);
QByteArray exportJson(const DumpIndex &index, const std::vector<ExportResult> &results);

/// Plain text (one "name: value" per line) used by "copy statistics".
QString statsText(const TensorStats &s);

} // namespace ds
