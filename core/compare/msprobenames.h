#pragma once
// How msprobe 26 (Gen C) names and prints the rows of a comparison, derived from what the
// msprobe reader keeps in each TensorRecord (compare.md §2.1, samples/msprobe_real/README.md).

#include "dump/records.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <string_view>

namespace ds {

/// True for operators read from an msprobe dump.json (entries such as
/// "Functional.conv2d.0.forward", "Module.fc1.Linear.forward.0").
bool isMsprobeOp(const OpRecord &op);

/// The part of an msprobe row name after "<entry>.": positional arguments and keyword
/// arguments both under "input" ("input.0", "input.dim", "input.3.1"), "output.0",
/// "parameters.weight", and for parameters_grad entries the parameter ("weight"). A leaf with
/// a data file is named by the file (data_name without its extension), as msprobe does.
QString msprobeTensorKey(const QString &entry, const TensorRecord &t);

/// msprobe's order of the rows inside an entry: input_args, input_kwargs, input (backward),
/// parameters, output; everything else (parameters_grad, debug) after them, in dump order.
int msprobeSection(const TensorRecord &t);

/// "True" / "False" from the leaf's recorded requires_grad, "N/A" when absent (values).
QString msprobeRequiresGrad(const TensorRecord &t);

/// The file name of a leaf's data file (msprobe's data_name), "-1" without one.
QString msprobeDataName(const TensorRecord &t);

/// Python's repr() of a float: shortest round trip, "1.0", "1e-05", "1.5e+16", "inf", "nan".
QString pythonFloatRepr(double v);
/// The same into `out` (at least kPythonReprMax bytes, not terminated); returns its length.
inline constexpr size_t kPythonReprMax = 32;
size_t pythonFloatRepr(double v, char *out);
/// What pandas' to_numeric makes of a text (pandas 1.2 to 3.0: floatify -> precise_xstrtod,
/// pandas GH 31364): at most 17 digits, leading zeros included, accumulated in a double, then
/// one multiplication or division by a power of ten; "inf"/"infinity" words. Not correctly
/// rounded: `-0.040657978504896164` reads as -0.0406579785048961. msprobe's statistics
/// differences subtract such values (CalcStatsDiff.get_number). nullopt: not a number.
std::optional<double> pandasToNumeric(std::string_view text);
/// pandasToNumeric(repr(v)): the float a float statistic becomes in msprobe's differences.
double pandasReparse(double v);
/// Python's repr() of a str: single quotes unless the text holds ' and no ", escapes.
QString pythonStrRepr(const QString &s);
/// Python's str() of the value a JSON text holds ("[0, 1]", "True", "None", "'a'" inside lists).
QString pythonStrOfJson(const QString &jsonText);
/// zlib CRC-32 of the UTF-8 bytes, 8 lower-case hex digits (msprobe's "md5" of a value).
QString crc32Hex(const QString &text);

/// A module entry name split into its path and class: "Module.layers.0.attn.Attention.forward.0"
/// -> {"layers.0.attn", "Attention"}; empty for other entries.
struct ModuleName
{
    QString path, className;
    bool isModule() const { return !className.isEmpty(); }
};
ModuleName moduleNameOf(const QString &entry);

/// True for forward entries ("....forward" API calls and "....forward.N" module calls).
bool isForwardEntry(const QString &entry);

} // namespace ds
