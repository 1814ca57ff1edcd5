#pragma once

#include "compare.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace ds {

/// msprobe's value for "no counterpart" in a data_mapping (what its layer_mapping -> data_mapping
/// generator writes, CompareConst.N_A): the NPU row pairs with no bench row.
inline constexpr QLatin1StringView kNoCounterpart{"N/A"};

/// The entry name msprobe 26 compares by (acc_compare's op_name_update) for each operator of
/// `index`, in index order: a backward entry's call counter is replaced by its backward call
/// order, the k-th backward entry of the same name without counter in dump order (per scope)
/// getting k ("Functional.linear.5.backward" -> "Functional.linear.0.backward" when it is the
/// first linear backward); every other entry keeps its name (opMatchKey). msprobe matches a
/// data_mapping's bench names against these.
std::vector<QString> msprobeCompareEntryNames(const DumpIndex &index);

/// The pairing of one compared scope as msprobe's data_mapping YAML (`NPU row name: bench row
/// name`), for `msprobe compare -dm FILE` and `dumpscope-cli compare --mapping FILE`: every
/// paired row whose names differ (the bench name as msprobe compares it, msprobeCompareEntryNames),
/// and `NPU row: N/A` for every unpaired NPU row whose own name a bench row holds (both tools
/// pair a row the file does not list by its own name). Rows paired by their own name in both
/// tools' sense are not listed. `about` goes into the comment header (which dumps,
/// which scope); an alignment without such rows gives `{}` (an empty map both tools read).
QByteArray dataMappingYaml(const DumpIndex &bench, const CompareResult &result, const QString &about);

} // namespace ds
