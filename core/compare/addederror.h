#pragma once

// Error added per operator (issue 34, item 3; docs/COMPARE.md "Error added per operator"):
// how much an operator's outputs depart from the bench beyond what its inputs (parameters
// included) already carried in.
//
//   rel(row)  = ||n - b|| / ||b||          tensor rows (‖·‖ the L2 norm over the compared values)
//             = | ||n|| - ||b|| | / ||b||  statistics rows (the recorded norms: a lower bound of the above)
//             = 0                          any row whose values are identical (md5 and value rows too)
//   with ||b|| = 0: 0 when the NPU side is 0 too, else +inf; NaN/Inf positions that differ: +inf
//   input_rel_err  = max rel over the input and parameter rows (0 when the operator has none);
//                    a backward entry adds the input and parameter rows of its forward entry
//                    (X.N.backward <- X.N.forward), which it computes from as well
//   output_rel_err = max rel over the output rows
//   added          = output_rel_err - input_rel_err   (negative: the operator shrinks the error)
//   ratio          = output_rel_err / input_rel_err   (+inf when only the output differs, NaN when both are 0)
// An operator gets no number (`added` NaN, `note` says why) when a row it needs was not
// compared, or a row's relative error is unknown (md5 or value rows that differ), or both
// errors are infinite.

#include "comparetypes.h"

#include <QString>
#include <cmath>
#include <limits>
#include <vector>

namespace ds {

class DumpIndex;
struct CompareRow;
struct CompareResult;

/// What the operator's inputs look like (from the first-divergence roles and verdicts).
enum class AddedInputs : std::uint8_t {
    None,             ///< the operator has no input or parameter rows
    Agree,            ///< every input and parameter row agrees
    ParameterDiffers, ///< its data inputs (activations) agree, a parameter (weight, bias) differs
    Differ,           ///< a data input differs
};
QString addedInputsName(AddedInputs a); ///< "none", "agree", "parameter_differs", "differ"

struct AddedError
{
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    int op = -1;                        ///< NPU operator index
    CompareMode basis = CompareMode::Tensor; ///< Tensor: element-wise; Summary: a norm row took part
    double inputRelErr = kNaN, outputRelErr = kNaN;
    double added = kNaN, ratio = kNaN;
    int worstInputRow = -1, worstOutputRow = -1; ///< the rows giving the maxima (-1: none)
    AddedInputs inputs = AddedInputs::None;
    bool module = false; ///< a module entry (its calls are dumped too: not ranked when they are)
    QString note;        ///< why `added` is NaN (English; the CLI and JSON show it)

    bool known() const { return !std::isnan(added); }
};

/// Per row, what findDivergences found: a parameter, and whether it disagrees.
struct AddedRowRole
{
    bool parameter = false;
    bool bad = false;
};

/// The relative error of one compared row (see above); NaN when unknown or not compared.
/// `basis` receives Summary when the row's number comes from recorded norms.
double rowRelativeError(const CompareRow &row, CompareMode *basis = nullptr);

/// The added error of every operator with at least one output row, in row order. `roles`
/// holds one element per row of `result` (or is empty: no parameters known, nothing disagrees).
std::vector<AddedError> computeAddedErrors(const DumpIndex &npu, const CompareResult &result,
                                           const std::vector<AddedRowRole> &roles);

/// Indexes into result.addedErrors of the operators that add the most error in `scope`
/// (scopeKey; empty: every scope), largest `added` first (+inf first), only added > 0, at most
/// `limit`. Module entries are left out when operators inside modules have a number.
std::vector<size_t> addedErrorRanking(const DumpIndex &npu, const CompareResult &result, const QString &scope = {},
                                      size_t limit = 10);

/// Operators the JSON ranks per scope (the text shows the first kAddedErrorShown).
inline constexpr size_t kAddedErrorRanked = 20;
inline constexpr size_t kAddedErrorShown = 5;

/// The added error of operator `op`, or nullptr.
const AddedError *addedErrorOf(const CompareResult &result, int op);

} // namespace ds
