#pragma once

#include "compare/usermapping.h"
#include "dump/dumpindex.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

namespace ds {

/// msprobe's layer_mapping turned into the data_mapping it compares by (msprobe 26,
/// python/msprobe/core/compare/layer_mapping/, called by mindspore/compare/ms_compare.py when
/// `-lm` is given). Both sides' entries get a scope path from construct.json (the enclosing
/// Cell/Module), stack.json (the framework function that called the API) and the API or layer
/// name; the NPU path is rewritten layer by layer with the file's renames (`Layer: {npu name:
/// bench name}`), and the entry of the bench tree at the rewritten path, same direction, same
/// position among that node's entries, is its counterpart. Rows pair by their suffix
/// (".input.0", ".output.1", ...); N/A where the bench has no such entry or row.
struct LayerMappingResult
{
    /// NPU entry -> bench entry, or "N/A" (msprobe's generate_api_mapping_by_layer_mapping), NPU dump order.
    std::vector<std::pair<QString, QString>> apiMapping;
    /// NPU row -> bench row, or "N/A" (msprobe's generate_data_mapping), NPU dump order.
    std::vector<std::pair<QString, QString>> dataMapping;
    /// Why something of the file was not used, each naming the file and the entry.
    QStringList warnings;
};

/// Derives the data_mapping of `layers` for the msprobe dumps `npu` and `bench` (the first
/// dump.json of each side: every rank and step of a run has the same names). `fileName`
/// names the mapping file in the warnings. Nothing is derived (and a warning says why) when a
/// side has no construct.json parents or no stack.json stacks, as msprobe does.
LayerMappingResult layerMappingToDataMapping(const DumpIndex &npu, const DumpIndex &bench,
                                             const std::vector<UserMapping::LayerEntry> &layers,
                                             const QString &fileName = {});

/// msprobe's postprocess_pass helpers (exposed for the oracle of msprobe's own unit test,
/// test_postprocess_pass.py). nextItemNumber: the last number of the scope component after
/// `prefix.` (extract_next_item_last_number). renumberIndexes: for the entries of type
/// `typeName`, the prefix `<full scope>.<suffix>` (or their layer scope when `suffix` is empty);
/// the component after each prefix is renumbered from the smallest number found there, 0
/// (renumber_index_pass). The three lists are one entry each, in dump order.
std::optional<qint64> nextItemNumber(const QString &scope, const QString &prefix);
void renumberIndexes(const QStringList &typeNames, QStringList &fullScopes, const QStringList &layerScopes,
                     const QString &typeName, const QString &suffix);

} // namespace ds
