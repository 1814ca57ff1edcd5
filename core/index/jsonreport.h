#pragma once

#include "dump/dumpindex.h"
#include "tensormeasure.h"
#include "tensorexport.h"

#include <QByteArray>
#include <optional>

namespace ds {

/// The JSON documents of `dumpscope-cli info|list|stats|export --json` (README "JSON output").
/// infoJson: the one part of the whole index merged (infopart.h), without the runs.
QByteArray infoJson(const DumpIndex &index);
QByteArray listJson(const DumpIndex &index);
QByteArray statsJson(const DumpIndex &index, const std::vector<TensorMeasure> &entries);
QByteArray exportJson(const DumpIndex &index, const std::vector<ExportResult> &results);

/// `errors` as the JSON arrays of the reports ({file, message, kind}), CBOR.
QByteArray errorsCbor(const std::vector<FileError> &errors);
/// The warnings of ops [begin, end) as JSON objects (CBOR array) and, when `lines` is given,
/// as text (problemText), in execution order.
QByteArray warningsCbor(const DumpIndex &index, int begin, int end, QStringList *lines = nullptr);

/// Plain text (one "name: value" per line) used by "copy statistics"; with the headroom table.
QString statsText(const TensorStats &s);
/// The precision headroom as plain text (CLI `stats`, copy statistics): a header line, one line
/// per target (overflow, underflow, subnormal counts), max |x| and the dynamic range.
QString headroomText(const Headroom &h, const QString &indent);
/// What a statistics-only leaf's recorded max/min/norm tell (headroomFromRecorded), one line per
/// target with yes / no / cannot tell; empty when none of the three was recorded.
QString recordedHeadroomText(const RecordedStats &r, const QString &indent);

} // namespace ds
