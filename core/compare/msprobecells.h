#pragma once
// The cells of msprobe 26's compare table for one row, as msprobe computes and prints them
// (compare.md §10.2, samples/msprobe_real/README.md "compare (Gen C)"): the basic columns,
// the mode's comparison columns, the eight statistics, Requires_grad and Data_name. Shared by
// the CSV and xlsx writers and by the Gen C Result rules (msproberesult.cpp).

#include "compare.h"

#include <QString>
#include <QStringList>
#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace ds {

/// One cell with the Python type msprobe's table holds (it decides the CSV text and the xlsx
/// cell type): a string, an int, a float or a bool.
struct MsCell
{
    enum class Kind : std::uint8_t { Text, Int, Float, Bool };
    Kind kind = Kind::Text;
    QString text;      ///< Kind::Text; Kind::Int made by digits(): the digits
    double number = 0; ///< Kind::Int, Float; Bool: 0 or 1

    static MsCell str(const QString &s) { return {Kind::Text, s, 0}; }
    static MsCell integer(double v) { return {Kind::Int, {}, v}; }
    /// An int given by its decimal digits (any size: an md5 written as a JSON number).
    static MsCell digits(const QString &d) { return {Kind::Int, d, d.toDouble()}; }
    static MsCell real(double v) { return {Kind::Float, {}, v}; }
    static MsCell boolean(bool b) { return {Kind::Bool, {}, b ? 1.0 : 0.0}; }
    bool isNumber() const { return kind == Kind::Int || kind == Kind::Float; }
    /// Python's str() of the value.
    QString pyStr() const;
    /// As msprobe's CSV holds it (pandas to_csv; float infinities are written " inf").
    QString csv() const;
    /// Python's == (1 == 1.0; a string equals only a string).
    bool operator==(const MsCell &o) const;
};

/// A row of msprobe's table.
struct MsprobeRow
{
    QString npuName, benchName, npuDtype, benchDtype, npuShape, benchShape, npuReqGrad, benchReqGrad;
    bool matched = false; ///< msprobe kept the bench side (name, and dtype condition)
    /// Tensor: Cosine, EucDist, MaxAbsErr, MaxRelativeErr, One/Five Thousandth(s) Err Ratio;
    /// summary: the four diffs and the four relative errors; md5: NPU MD5, BENCH MD5.
    std::vector<MsCell> compare;
    std::array<MsCell, 8> stats; ///< NPU max, min, mean, l2norm, Bench max, min, mean, l2norm
    QString dataName;            ///< tensor mode: "['a.pt', 'b.pt']"

    bool reqGradConsistent() const { return npuReqGrad == benchReqGrad; }
    bool isOutput() const { return npuName.contains(QLatin1String(".output.")); }
};

/// How pandas holds the eight statistics columns (NPU max, min, mean, l2norm, Bench max, ...)
/// of one msprobe table. msprobe builds them from per-row lists (make_result_df:
/// `df[cols] = lists`, i.e. DataFrame(lists).values): a column of numbers only becomes float64
/// when it holds a float, and all four do when all four hold numbers only and one holds a
/// float; to_csv then prints its ints as floats ("967.0", "2.0"). A column with any text
/// ("None", "Nan", "N/A", a str argument) or bool is object dtype and prints each value as
/// Python's str() ("2"). Differences of two columns of ints only are ints (int64).
struct MsprobeColumns
{
    std::array<bool, 8> intsAsFloat{}; ///< pandas made the column float64
    std::array<bool, 8> allInt{};      ///< every cell of the column is an int printed as one
};

/// The columns of the table `rows` make (one msprobe table: one compare of one rank pair).
MsprobeColumns msprobeColumns(const DumpIndex &npu, const DumpIndex &bench, const std::vector<CompareRow> &rows);

/// msprobe's cells of one compared row in a report mode (Tensor, Summary or Md5); `columns`:
/// the row's table (msprobeColumns), without it every column prints ints as ints.
MsprobeRow msprobeRow(const DumpIndex &npu, const DumpIndex &bench, const CompareRow &row, CompareMode mode,
                      const MsprobeColumns *columns = nullptr);

/// msprobe's header for a mode: the basic columns, the mode's columns, the statistics,
/// `Requires_grad Consistent, Result, Err_message`, then `NPU_Stack_Info` (when the NPU dump has
/// stacks) and, in tensor mode, `Data_name`.
QStringList msprobeHeader(CompareMode mode, bool stack);

/// msprobe's dtype condition: the bench side is kept when the dtypes are equal or both in
/// {float16, float32, bfloat16} (torch, MindSpore or plain spellings).
bool msprobeDtypesMatch(const QString &npu, const QString &bench);

/// NPU_Stack_Info of an operator: a Python list of its stack lines, "N/A" without one.
QString msprobeStackText(const DumpIndex &index, const OpRecord &op);

/// Err_message as msprobe writes it: a JSON list of the messages ("[]" when none).
QString msprobeErrMessage(const QStringList &messages);

/// What msprobe 26's Result checkers read from one row of its table (msproberesult.cpp): the
/// per-row checks already decided, and the cells the per-operator checks compare.
struct MsprobeCheckFacts
{
    enum class Md5 : std::uint8_t { Equal, Missing, Differ }; ///< md5 mode: NPU MD5 vs BENCH MD5
    bool output = false;       ///< an output row (".output." in the NPU name)
    bool infNanError = false;  ///< InfNanErrChecker: NPU max/min inf or nan, bench max/min not
    bool reqGradError = false; ///< RequiresGradErrChecker
    bool scalarError = false;  ///< ParametersErrChecker (an input row's scalar argument differs)
    bool dtypeError = false;   ///< DTypeErrChecker
    bool shapeError = false;   ///< ShapeErrChecker
    /// get_min_or_max_value's reading of the indicator cells: tensor mode One Thousandth Err
    /// Ratio and Cosine; statistics mode NormRelativeErr (nullopt: the cell is skipped).
    std::optional<double> indicator[2];
    double percent = 0;        ///< statistics mode: str2float of NormRelativeErr
    Md5 md5 = Md5::Equal;
    bool operator==(const MsprobeCheckFacts &o) const; ///< a NaN percent equals a NaN percent
};

/// The facts of a row from its cells (any mode, any row).
MsprobeCheckFacts msprobeCheckFacts(const MsprobeRow &cells, CompareMode mode);
/// The same with the row names given apart (cells of another row with the same leaves; the
/// bench name "N/A" when msprobe dropped the bench side).
MsprobeCheckFacts msprobeCheckFacts(const MsprobeRow &cells, CompareMode mode, const QString &npuName,
                                    const QString &benchName);

/// The facts of statistics-mode rows straight from the records, without building the cells:
/// the same answers as msprobeCheckFacts(msprobeRow(npu, bench, row, Summary), Summary) for the
/// rows it decides: tensors with plain-number statistics, and rows of values (non-tensor leaves
/// on both sides, or an NPU value without a bench row), whose cells depend on the leaves alone
/// and are built once per pair of leaves. nullopt for the others ("class" dtypes of tensors,
/// NaN, missing or boolean statistics, overflowing differences, a value against a tensor).
class MsprobeSummaryFacts
{
public:
    MsprobeSummaryFacts(const DumpIndex &npu, const DumpIndex &bench);
    ~MsprobeSummaryFacts();
    MsprobeSummaryFacts(const MsprobeSummaryFacts &) = delete;
    MsprobeSummaryFacts &operator=(const MsprobeSummaryFacts &) = delete;
    std::optional<MsprobeCheckFacts> facts(const CompareRow &row);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// The Gen C Result (pass / warning / error) and its messages of every row, per operator with
/// msprobe's rules for the report mode (compare.md §8; msprobe 26's checkers). In statistics
/// mode the facts come from MsprobeSummaryFacts where it decides them (`fastPath`; false: from
/// the cells for every row). `notPassOps`: only the operators holding a row whose verdict is
/// not Pass (applyVerdicts first); the other rows' Result stays as it was: empty in a new row,
/// its own in a row copied from an earlier comparison (the same pairing gives the same one).
/// Returns the number of rows whose facts came from the records.
size_t applyMsprobeResults(const DumpIndex &npu, const DumpIndex &bench, CompareResult &result, bool fastPath = true,
                           bool notPassOps = false);

} // namespace ds
