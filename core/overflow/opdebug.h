#pragma once

#include "statusdecode.h"

#include <QStringList>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ds {

/// One block of an OpDebug record (overflow.md §4, §5). Fields absent from a layout stay unset.
struct OverflowBlock
{
    enum class Kind { DhaAtomic, L2Atomic, AiCore, AIC, AIV, AICPU, SDMA, Unknown };
    Kind kind = Kind::Unknown;
    std::uint64_t modelId = 0, streamId = 0, taskId = 0, taskType = 0;
    std::optional<std::uint64_t> pcStart, paraBase, kernelCode, blockIdx, contextId, threadId, coreId, cpuId,
        srcAddr, dstAddr, channelId;
    std::vector<std::uint64_t> status; ///< one word; AIV/AIC version 1 carry four
    bool triggered = false;            ///< legacy: some info field or the status is non-zero
    StatusDecoding decoding;           ///< of status[0] where the spec gives a meaning
    /// False for AIV, AICPU and SDMA: the meaning of their status bits is not documented
    /// (overflow.md §5, UNCONFIRMED). Their bits are shown raw with the AI Core reading as a hint.
    bool statusDocumented = true;
    StatusDecoding aiCoreHint;         ///< undocumented units: the AI Core bit table (§6.1) applied to status[0]

    QString kindName() const;          ///< "AI Core", "DHA Atomic Add", "AIC", ...
    /// "the meaning of the status bits is not documented for AIV units", empty when documented.
    QString undocumentedNote() const;
};

/// A decoded OpDebug payload.
struct OpDebugRecord
{
    enum class Layout { Legacy, Magic };
    Layout layout = Layout::Legacy;
    std::optional<std::uint32_t> version; ///< magic layout only
    std::vector<OverflowBlock> blocks;    ///< legacy: DHA, L2, AI Core (all three); magic: one
    QStringList warnings;

    std::vector<const OverflowBlock *> triggered() const;
};

/// Decodes a 2048-byte legacy payload or a 0x5A5A5A5A payload. Any other length or an unknown
/// acc_type fails with the reason; nothing is guessed.
std::optional<OpDebugRecord> decodeOpDebug(const std::byte *payload, size_t size, QString *error);

} // namespace ds
