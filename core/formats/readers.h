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

/// The name of a producer framework as users know it: "pytorch" -> "PyTorch", "mindspore" ->
/// "MindSpore", "mindtorch" -> "MindTorch (MSAdapter)"; other names unchanged.
QString frameworkDisplayName(const QString &framework);
/// Who wrote an operator's part, for people: "msprobe · MindSpore", "msprobe · PyTorch",
/// "MindSpore kernel dump", "ptdbg · PyTorch"; empty when its format records no framework
/// (DumpLevels::framework).
QString producerLabel(const OpRecord &op);
/// The name of an operator whose parent is a name scope (DumpReader::parentIsScope) inside
/// that scope: "MatMul-op12" of "Default_network-WithLossCell__backbone-Net_fc1-Dense_MatMul-op12"
/// under "Default/network-WithLossCell/_backbone-Net/fc1-Dense"; else its whole name.
QString scopedOwnName(const OpRecord &op);

} // namespace ds
