#pragma once

#include <QString>

namespace ds {

/// ge::Format values used by dump headers (cann-dump.md §7). Only the values DumpScope
/// treats specially are named; every value has a display name through formatName().
enum class Format : int {
    NCHW = 0, NHWC = 1, ND = 2, NC1HWC0 = 3, FRACTAL_Z = 4, NC1HWC0_C04 = 12, HWCN = 16,
    C1HWNCoC0 = 25, NDHWC = 27, FRACTAL_NZ = 29, NCDHW = 30, DHWCN = 31, NDC1HWC0 = 32,
    FRACTAL_Z_3D = 33,
};

/// Splits a raw header value: primary = v & 0xFF, sub = (v >> 8) & 0xFFFF (§7).
inline int primaryFormat(int raw) { return raw & 0xFF; }
inline int packedSubFormat(int raw) { return (raw >> 8) & 0xFFFF; }

/// "NC1HWC0", "FRACTAL_NZ", ... or "UNKNOWN(n)"; the packed sub-format is appended as ":sub".
QString formatName(int raw);

/// True for the private formats DumpScope converts to ND (§8.10).
bool isConvertibleFormat(int raw);
/// True for formats that are not plain row-major host layouts.
bool isPrivateFormat(int raw);

} // namespace ds
