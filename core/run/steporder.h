#pragma once

#include "dump/levels.h"

#include <QtGlobal>

namespace ds {

/// The one order of a run's scopes in every report: step, then rank, numbers first and then
/// the folder names numeric-aware ("step2" before "step10"). Works on any scope type with
/// stepNumber/step/rankNumber/rank (RunScope, ScopeSummary). Returns <0, 0 or >0; ties are
/// left to the caller (scope id, run name).
template <typename A, typename B>
int compareStepRank(const A &a, const B &b)
{
    if (a.stepNumber != b.stepNumber)
        return a.stepNumber < b.stepNumber ? -1 : 1;
    if (int c = compareNumericAware(a.step, b.step))
        return c;
    if (a.rankNumber != b.rankNumber)
        return a.rankNumber < b.rankNumber ? -1 : 1;
    return compareNumericAware(a.rank, b.rank);
}

} // namespace ds
