#pragma once

#include "dump/dumpindex.h"

#include <QString>

namespace ds {

/// The frameworks the producers of an index recorded (msprobe dump.json "framework":
/// "pytorch", "mindspore", "mindtorch"), each once, sorted; empty when none did.
QStringList producerFrameworks(const DumpIndex &index);

/// True when the NPU side is a MindSpore (or MindTorch) dump and the bench a PyTorch dump:
/// msprobe's check_cross_framework (the bench is "pytorch") for an NPU dump that is not.
bool isCrossFramework(const DumpIndex &npu, const DumpIndex &bench);

/// True when msprobe hashed the index's bfloat16 and float8 tensors after casting them to
/// float32: a MindSpore or MindTorch dump (mindspore_processor._analyze_tensor:
/// cast_to_float_if_fp8, convert_bf16_to_fp32, then the CRC-32 of asnumpy()). PyTorch's
/// processor hashes a tensor's own bytes (compute_crc32_from_tensor), so the md5 of such a
/// tensor differs between the frameworks even where the values are equal.
bool hashesAfterFloat32Cast(const DumpIndex &index);
/// The dtypes hashesAfterFloat32Cast() concerns: bfloat16, float8_e5m2, float8_e4m3fn, hifloat8.
bool castBeforeHash(int dataType);

/// msprobe's built-in MindSpore -> PyTorch names (`-am` without a file): process_internal_api_mapping
/// of msprobe 26 on an entry name. The API is the first two tokens ("Mint.softmax"):
///   "Mint.*"           -> every "Mint" of the name becomes "Torch"
///   "MintFunctional.*" -> every "MintFunctional" becomes "Functional"
///   an API of the table ms_to_pt_api.yaml ("Functional.dense: Functional.linear")
///                      -> every occurrence of the API becomes the table's name
///   anything else      -> unchanged (Cell.* entries too: msprobe maps them only under -cm)
/// The table is msprobe's data file, kept as the resource :/dumpscope/ms_to_pt_api.yaml.
QString msToPtEntryName(const QString &entry);

/// The number of entries of the built-in table (0 when the resource could not be read).
int msToPtTableSize();

/// msprobe's dtype vocabulary across frameworks (check.py cross_dtype_mapping): "Float32",
/// "torch.float32", "BFloat16", ... -> "float"; the integer types -> "int"; "Bool" and
/// "torch.bool" -> "bool"; complex -> "complex"; any other text unchanged.
QString crossDtypeKind(const QString &dtype);

} // namespace ds
