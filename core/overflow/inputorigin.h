#pragma once

// Where an abnormal input that no operator of its scope produced came from (issue 30).
//
// A scope's first anomaly can have abnormal inputs although nothing ran before it in the scope:
// "inputs and outputs abnormal: propagated from upstream" with no upstream operator. In a
// training run the usual reason is the step before: its optimizer wrote NaN into a parameter,
// and the next step starts with it. For each such tensor this looks in the rank's previous step
// (recorded statistics only: statistics dumps have nothing else, and nothing is loaded):
//   - the parameter it is (an input that is a parameter of a module entry of the scope with the
//     same shape, dtype and statistics: "fc1.weight, parameter of Module.fc1.Linear.forward.0");
//   - the operator that wrote it: the last one of the previous step with an output of the same
//     shape, dtype and statistics (NaN/Inf compare equal);
//   - else where it was last seen normal: the last operator of the previous step holding the
//     same tensor (the same entry and argument, or the same module parameter) with finite values,
//     so that it changed between the two steps outside the dump (the optimizer is often not dumped).

#include "overflowreport.h"

namespace ds {

/// Explains the abnormal inputs of every scope's first anomaly whose inputs were abnormal
/// (SoftwareFinding::origin, appended to its reason), in report.scopes and report.findings.
void explainFirstAnomalyInputs(const DumpIndex &index, OverflowReport &report);

} // namespace ds
