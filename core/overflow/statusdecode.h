#pragma once

#include <QString>
#include <cstdint>
#include <vector>

namespace ds {

/// Which status word a cause comes from (overflow.md §6).
enum class StatusKind { AiCore, DhaAtomic, L2Atomic };

/// One decoded cause: the bit (AI Core) or code (DHA, L2) with the documents' explanations.
struct OverflowCause
{
    std::uint64_t code = 0;
    bool known = true;
    QString english, chinese;
};

struct StatusDecoding
{
    std::vector<OverflowCause> causes;
    bool overflow = false; ///< AI Core: any bit set; DHA/L2: a non-zero documented code
    QString warning;       ///< e.g. non-zero status without a documented code
};

/// Decodes a status word exactly as the spec tables: AI Core bit flags; DHA code = bits 8..15;
/// L2 code = bits 16..18. Unknown bits and codes are reported as unknown, never guessed.
StatusDecoding decodeStatus(StatusKind kind, std::uint64_t status);

/// The set bits of a status word, lowest first, as values (0x110 -> {0x10, 0x100}).
std::vector<std::uint64_t> setBits(std::uint64_t status);

/// "0x110", "0b1_0001_0000" (binary grouped in nibbles as the guide writes it).
QString hexString(std::uint64_t v);
QString binaryString(std::uint64_t v);

} // namespace ds
