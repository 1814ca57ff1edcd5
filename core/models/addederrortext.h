#pragma once

// The error an operator adds (compare/addederror.h) in words, for the GUI: the Compare tab's
// "Added error" column and its ranking, the graph's "Error added" colour mode. Translated
// (context "ds::AddedErrorText"); the CLI and JSON keep their English keys.

#include "compare/addederror.h"

#include <QString>

namespace ds {

class DumpIndex;
struct CompareResult;

namespace AddedErrorText {

/// An added error or a relative error: 3 significant digits, "+" on positive added values
/// ("+0.00391", "−0.0012", "0", "+inf"); "?" when unknown (NaN).
QString value(double v, bool signedValue = true);
/// The inputs' label in words ("its inputs agree", "only a parameter differs", ...).
QString inputs(AddedInputs a);
/// The column's / ranking's tooltip: the operator, its added error, the output error, the
/// largest input error (and the rows giving them), the label and why a number is missing.
QString toolTip(const DumpIndex &npu, const CompareResult &result, const AddedError &e);
/// What the number means (the column header's tooltip, the ranking's title tooltip).
QString explanation();

} // namespace AddedErrorText

} // namespace ds
