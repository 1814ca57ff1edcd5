#include "shape.h"

#include <QStringList>
#include <limits>

namespace ds {

bool hasDynamicDim(const Shape &s)
{
    for (auto d : s)
        if (d > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            return true;
    return false;
}

std::optional<std::uint64_t> elementCount(const Shape &s)
{
    if (hasDynamicDim(s))
        return std::nullopt;
    std::uint64_t n = 1;
    for (auto d : s) {
        if (d != 0 && n > std::numeric_limits<std::uint64_t>::max() / d)
            return std::nullopt;
        n *= d;
    }
    return n;
}

QString shapeToString(const Shape &s)
{
    QStringList parts;
    for (auto d : s)
        parts << (d > std::uint64_t(std::numeric_limits<std::int64_t>::max()) ? QStringLiteral("?")
                                                                               : QString::number(d));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace ds
