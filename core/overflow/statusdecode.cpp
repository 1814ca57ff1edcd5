#include "statusdecode.h"

namespace ds {

namespace {

struct Entry
{
    std::uint64_t code;
    const char *english;
    const char *chinese; // UTF-8
};

// overflow.md §6.1
constexpr Entry kAiCore[] = {
    {0x8, "Sign-bit inversion overflow of the minimum negative value of a signed integer (NEG)",
     "符号整数最小负数NEG符号位取反溢出"},
    {0x10, "Integer addition, subtraction, multiplication or multiply-add overflow", "整数加法、减法、乘法或乘加操作计算有溢出"},
    {0x20, "Floating-point computation overflow", "浮点计算有溢出"},
    {0x80, "Negative input to a float to unsigned conversion", "浮点数转无符号数的输入是负数"},
    {0x100, "Overflow in FP32 to FP16 or INT32 to FP16 conversion", "FP32转FP16或32符号整数转FP16中出现溢出"},
    {0x400, "CUBE accumulation overflow", "CUBE累加出现溢出"},
};

// §6.2 (bits 8..15)
constexpr Entry kDha[] = {
    {0x9, "atomic overflow", "[atomic overflow] 向上溢出"},
    {0xA, "atomic underflow", "[atomic underflow] 向下溢出"},
    {0xB, "atomic src nan (invalid source operand)", "[atomic src nan] 源操作数非法"},
    {0xC, "atomic dst nan (invalid destination operand)", "[atomic dst nan] 目的操作数非法"},
    {0xD, "atomic both nan (source and destination invalid)", "[atomic both nan] 源操作数和目的操作数均非法"},
};

// §6.3 (bits 16..18)
constexpr Entry kL2[] = {
    {0x0, "no error", "[atomic no error] 无异常"},
    {0x1, "atomic overflow", "向上溢出"},
    {0x2, "atomic underflow", "向下溢出"},
    {0x3, "atomic src nan", "源操作数非法"},
    {0x4, "atomic dst nan", "目的操作数非法"},
    {0x5, "atomic both nan", "源操作数和目的操作数均非法"},
};

template<size_t N>
OverflowCause lookup(const Entry (&table)[N], std::uint64_t code, const char *what)
{
    for (const auto &e : table)
        if (e.code == code)
            return {code, true, QString::fromUtf8(e.english), QString::fromUtf8(e.chinese)};
    return {code, false, QStringLiteral("unknown %1 %2").arg(QLatin1String(what), hexString(code)),
            QStringLiteral("未知%1 %2").arg(QLatin1String(what), hexString(code))};
}

} // namespace

std::vector<std::uint64_t> setBits(std::uint64_t status)
{
    std::vector<std::uint64_t> bits;
    for (int bit = 0; bit < 64; ++bit)
        if (status & (std::uint64_t(1) << bit))
            bits.push_back(std::uint64_t(1) << bit);
    return bits;
}

QString hexString(std::uint64_t v) { return QStringLiteral("0x%1").arg(v, 0, 16); }

QString binaryString(std::uint64_t v)
{
    QString bits = QString::number(v, 2);
    const qsizetype pad = (4 - bits.size() % 4) % 4;
    bits.prepend(QString(pad, QLatin1Char('0')));
    QString out = QStringLiteral("0b");
    for (qsizetype i = 0; i < bits.size(); i += 4) {
        if (i)
            out += QLatin1Char('_');
        out += bits.mid(i, 4);
    }
    return out;
}

StatusDecoding decodeStatus(StatusKind kind, std::uint64_t status)
{
    StatusDecoding d;
    switch (kind) {
    case StatusKind::AiCore:
        for (int bit = 0; bit < 64; ++bit)
            if (status & (std::uint64_t(1) << bit))
                d.causes.push_back(lookup(kAiCore, std::uint64_t(1) << bit, "bit"));
        d.overflow = status != 0;
        break;
    case StatusKind::DhaAtomic: {
        const std::uint64_t code = (status >> 8) & 0xFF;
        d.causes.push_back(lookup(kDha, code, "DHA code"));
        d.overflow = code != 0;
        if (code > 0xF)
            d.warning = QStringLiteral("bits 12..15 of the DHA status are set");
        else if (code == 0 && status != 0)
            d.warning = QStringLiteral("non-zero status with no documented code (low byte %1)").arg(hexString(status & 0xFF));
        break;
    }
    case StatusKind::L2Atomic: {
        const std::uint64_t code = (status >> 16) & 0x7;
        d.causes.push_back(lookup(kL2, code, "L2 code"));
        d.overflow = code != 0;
        if (code == 0 && status != 0)
            d.warning = QStringLiteral("non-zero status with no documented code");
        break;
    }
    }
    return d;
}

} // namespace ds
