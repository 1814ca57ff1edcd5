#pragma once

#include "dump/reader.h"

#include <optional>
#include <vector>

namespace ds {

/// Every input format DumpScope reads, in list order (FormatId = position in the list). To
/// add a format: write its reader in formats/<name>/ and add one line to readers.cpp.
const std::vector<const DumpReader *> &dumpReaders();

/// The reader that indexed operators of this format.
const DumpReader &formatReader(FormatId id);
/// "cann", "msprobe", ... (DumpReader::name()).
QString sourceFormatName(FormatId id);
std::optional<FormatId> sourceFormatByName(QStringView name);

} // namespace ds
