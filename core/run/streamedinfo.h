#pragma once

// `dumpscope-cli info` of a big run without its index (issue 35, item 3): the totals and levels
// info prints are per scope, so the run is indexed a batch of whole scopes at a time, each
// batch's InfoPart (index/infopart.h) kept and its operators dropped. Memory then grows with the
// batch and the number of scopes (their levels), not with ranks x steps x operators. The parts
// merge (mergeInfo) into the report of the whole tree, as under mpirun, where each process
// indexes the whole scopes it owns.

#include "index/infopart.h"
#include "run/runtree.h"
#include "util/cancel.h"

#include <optional>
#include <vector>

namespace ds {

/// `info` streams a tree of more scopes than this (a smaller one is indexed whole: as cheap).
inline constexpr size_t kInfoStreamAbove = 256;
/// Scopes indexed together by streamedInfoParts: a batch of a statistics run is a few hundred
/// KB, read, counted and freed while it is in the cache (at 1,024 x 100: 8 scopes a batch took
/// 27 s CPU, 256 took 34 s, most of the difference in malloc consolidating the big frees).
inline constexpr size_t kInfoScopesPerBatch = 8;

/// The info parts of `tree`, indexed `scopesPerBatch` whole scopes at a time (claims that no
/// run holds in one batch of their own, the walk's errors with the first batch); nullopt when
/// the tree is no larger than one batch (the whole index is as cheap) or when batches cannot
/// give the whole tree's report: a run whose dumps come from several frameworks (the index's
/// error naming them needs every claim of the run at once). mergeInfo() of the parts is the
/// report of the whole tree.
std::optional<std::vector<InfoPart>> streamedInfoParts(const RunTree &tree, const JobControl *job = nullptr,
                                                       size_t scopesPerBatch = kInfoScopesPerBatch);

} // namespace ds
