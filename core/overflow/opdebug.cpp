#include "opdebug.h"

#include <QCoreApplication>
#include <algorithm>
#include <cstring>

namespace ds {

namespace {

constexpr std::uint32_t kMagic = 0x5A5A5A5A;
constexpr size_t kLegacySize = 2048;

std::uint64_t u64(const std::byte *p, size_t offset)
{
    std::uint64_t v;
    std::memcpy(&v, p + offset, 8);
    return v;
}

std::uint32_t u32(const std::byte *p, size_t offset)
{
    std::uint32_t v;
    std::memcpy(&v, p + offset, 4);
    return v;
}

/// Legacy info block: model_id, stream_id, task_id, task_type, pc_start, para_base.
OverflowBlock legacyBlock(const std::byte *p, OverflowBlock::Kind kind, size_t info, size_t statusOffset)
{
    OverflowBlock b;
    b.kind = kind;
    b.modelId = u64(p, info);
    b.streamId = u64(p, info + 8);
    b.taskId = u64(p, info + 16);
    b.taskType = u64(p, info + 24);
    b.pcStart = u64(p, info + 32);
    b.paraBase = u64(p, info + 40);
    b.status = {u64(p, statusOffset)};
    b.triggered = b.modelId || b.streamId || b.taskId || b.taskType || *b.pcStart || *b.paraBase || b.status[0];
    return b;
}

} // namespace

QString OverflowBlock::kindName() const
{
    switch (kind) {
    case Kind::DhaAtomic: return QStringLiteral("DHA Atomic Add");
    case Kind::L2Atomic: return QStringLiteral("L2 Atomic Add");
    case Kind::AiCore: return QStringLiteral("AI Core");
    case Kind::AIC: return QStringLiteral("AIC");
    case Kind::AIV: return QStringLiteral("AIV");
    case Kind::AICPU: return QStringLiteral("AICPU");
    case Kind::SDMA: return QStringLiteral("SDMA");
    case Kind::Unknown: break;
    }
    return QStringLiteral("unknown");
}

QString OverflowBlock::undocumentedNote() const
{
    if (statusDocumented)
        return {};
    return QCoreApplication::translate("ds::Overflow", "meaning not documented for this unit (%1): its status bits are shown raw; "
                                                       "the AI Core reading is only a hint")
        .arg(kindName());
}

std::vector<const OverflowBlock *> OpDebugRecord::triggered() const
{
    std::vector<const OverflowBlock *> out;
    for (const auto &b : blocks)
        if (b.triggered)
            out.push_back(&b);
    return out;
}

std::optional<OpDebugRecord> decodeOpDebug(const std::byte *p, size_t size, QString *error)
{
    OpDebugRecord r;
    if (size >= 24 && u32(p, 0) == kMagic) {
        r.layout = OpDebugRecord::Layout::Magic;
        r.version = u32(p, 4);
        if (*r.version > 1) { // only versions 0 and 1 are documented: report, never guess
            if (error)
                *error = QStringLiteral("unknown OpDebug record version %1 (documented: 0 and 1); the raw payload is not decoded").arg(*r.version);
            return std::nullopt;
        }
        const std::uint32_t valid = u32(p, 8), accType = u32(p, 12), dataLen = u32(p, 20);
        OverflowBlock b;
        // Field sequences of §5 (u64 each).
        static const char *const aic[] = {"model", "stream", "task", "type", "context", "thread", "pc", "para", "core", "block", "status"};
        static const char *const sdma[] = {"model", "stream", "task", "type", "context", "thread", "src", "dst", "channel", "status"};
        static const char *const aicpu[] = {"model", "stream", "task", "type", "context", "cpu", "thread", "status"};
        const char *const *fields = nullptr;
        size_t count = 0, expected = 0;
        switch (accType) {
        case 0: case 1:
            b.kind = accType == 0 ? OverflowBlock::Kind::AIC : OverflowBlock::Kind::AIV;
            fields = aic; count = 11;
            expected = *r.version == 1 ? 112 : 88;
            break;
        case 2: b.kind = OverflowBlock::Kind::AICPU; fields = aicpu; count = 8; expected = 64; break;
        case 3: b.kind = OverflowBlock::Kind::SDMA; fields = sdma; count = 10; expected = 80; break;
        default:
            if (error)
                *error = QStringLiteral("unknown acc_type %1 in OpDebug record version %2").arg(accType).arg(*r.version);
            return std::nullopt;
        }
        if (dataLen != expected)
            r.warnings << QStringLiteral("data_len %1 differs from the documented %2").arg(dataLen).arg(expected);
        if (valid != 1)
            r.warnings << QStringLiteral("acc_list.valid is %1").arg(valid);
        const size_t available = std::min<size_t>(dataLen, size - 24) / 8;
        for (size_t i = 0; i < count && i < available; ++i) {
            const std::uint64_t v = u64(p, 24 + 8 * i);
            const QLatin1String f(fields[i]);
            if (f == QLatin1String("model")) b.modelId = v;
            else if (f == QLatin1String("stream")) b.streamId = v;
            else if (f == QLatin1String("task")) b.taskId = v;
            else if (f == QLatin1String("type")) b.taskType = v;
            else if (f == QLatin1String("context")) b.contextId = v;
            else if (f == QLatin1String("thread")) b.threadId = v;
            else if (f == QLatin1String("pc")) b.pcStart = v;
            else if (f == QLatin1String("para")) b.paraBase = v;
            else if (f == QLatin1String("core")) b.coreId = v;
            else if (f == QLatin1String("block")) b.blockIdx = v;
            else if (f == QLatin1String("src")) b.srcAddr = v;
            else if (f == QLatin1String("dst")) b.dstAddr = v;
            else if (f == QLatin1String("channel")) b.channelId = v;
            else if (f == QLatin1String("cpu")) b.cpuId = v;
            else if (f == QLatin1String("status")) {
                const size_t words = (b.kind == OverflowBlock::Kind::AIC || b.kind == OverflowBlock::Kind::AIV) && *r.version == 1 ? 4 : 1;
                for (size_t w = 0; w < words && i + w < available; ++w)
                    b.status.push_back(u64(p, 24 + 8 * (i + w)));
            }
        }
        if (available < count)
            r.warnings << QStringLiteral("record holds %1 of %2 fields").arg(available).arg(count);
        if (b.status.empty())
            b.status = {0};
        b.triggered = true;
        if (b.kind == OverflowBlock::Kind::AIC) {
            b.decoding = decodeStatus(StatusKind::AiCore, b.status[0]);
        } else {
            // The meaning of AIV/AICPU/SDMA bits is UNCONFIRMED: raw bits, and the AI Core
            // table's reading only as a hint.
            b.statusDocumented = false;
            b.decoding.overflow = std::any_of(b.status.begin(), b.status.end(), [](std::uint64_t w) { return w != 0; });
            b.aiCoreHint = decodeStatus(StatusKind::AiCore, b.status[0]);
        }
        r.blocks.push_back(std::move(b));
        return r;
    }
    if (size != kLegacySize) {
        if (error)
            *error = QStringLiteral("unknown OpDebug payload: %1 bytes without the 0x5A5A5A5A magic (legacy records are 2048 bytes)").arg(size);
        return std::nullopt;
    }
    r.layout = OpDebugRecord::Layout::Legacy;
    OverflowBlock dha = legacyBlock(p, OverflowBlock::Kind::DhaAtomic, 0x000, 0x200);
    OverflowBlock l2 = legacyBlock(p, OverflowBlock::Kind::L2Atomic, 0x080, 0x300);
    OverflowBlock core = legacyBlock(p, OverflowBlock::Kind::AiCore, 0x100, 0x410);
    core.kernelCode = u64(p, 0x400);
    core.blockIdx = u64(p, 0x408);
    dha.decoding = decodeStatus(StatusKind::DhaAtomic, dha.status[0]);
    l2.decoding = decodeStatus(StatusKind::L2Atomic, l2.status[0]);
    core.decoding = decodeStatus(StatusKind::AiCore, core.status[0]);
    r.blocks = {std::move(dha), std::move(l2), std::move(core)};
    if (r.triggered().size() > 1)
        r.warnings << QStringLiteral("multiple blocks set");
    return r;
}

} // namespace ds
