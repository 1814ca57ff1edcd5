#include "tensorid.h"

#include <QHashFunctions>

namespace ds {

QString ioKindName(IoKind k)
{
    switch (k) {
    case IoKind::Input: return QStringLiteral("input");
    case IoKind::Output: return QStringLiteral("output");
    case IoKind::Buffer: return QStringLiteral("buffer");
    case IoKind::Workspace: return QStringLiteral("workspace");
    case IoKind::Parameter: return QStringLiteral("parameter");
    }
    return {};
}

std::optional<IoKind> ioKindFromName(QStringView name)
{
    for (IoKind k : {IoKind::Input, IoKind::Output, IoKind::Buffer, IoKind::Workspace, IoKind::Parameter})
        if (name == ioKindName(k))
            return k;
    return std::nullopt;
}

QString TensorId::toString() const
{
    return op + QLatin1Char('.') + ioKindName(io) + QLatin1Char('.') + QString::number(index);
}

std::optional<TensorId> TensorId::parse(QStringView text)
{
    const qsizetype dot2 = text.lastIndexOf(QLatin1Char('.'));
    if (dot2 <= 0)
        return std::nullopt;
    const qsizetype dot1 = text.lastIndexOf(QLatin1Char('.'), dot2 - 1);
    if (dot1 <= 0)
        return std::nullopt;
    bool ok = false;
    const uint index = text.mid(dot2 + 1).toUInt(&ok);
    const auto io = ioKindFromName(text.mid(dot1 + 1, dot2 - dot1 - 1));
    if (!ok || !io)
        return std::nullopt;
    return TensorId{text.left(dot1).toString(), *io, index};
}

size_t qHash(const TensorId &id, size_t seed) noexcept
{
    return qHashMulti(seed, id.op, int(id.io), id.index);
}

} // namespace ds
