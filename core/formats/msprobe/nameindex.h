#pragma once

#include "dump/records.h"

#include <QString>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ds {
namespace msprobe {

/// Entry name -> op index: a hashed directory over the ops' own UTF-8 names (open addressing,
/// linear probing, at most half full), each 8-byte slot holding the op and the high bits of its
/// name's hash, so that a lookup reads one slot and, on a hash match, the one name it names: no
/// copy of a name, no node per name. A 10^6-entry dump.json: 16 MB, about two cache misses per
/// lookup (the binary search over a sorted array of hashes it replaces took about twenty).
/// Repeated names: the first op of that name, as before.
class NameIndex
{
public:
    explicit NameIndex(const std::vector<OpRecord> &ops);
    /// The op named `utf8`, -1 if none.
    int find(std::string_view utf8) const;
    int find(const QString &name) const
    {
        const QByteArray u = name.toUtf8();
        return find(std::string_view(u.constData(), size_t(u.size())));
    }
    bool contains(const QString &name) const { return find(name) >= 0; }

private:
    struct Slot
    {
        std::uint32_t hashHigh = 0;
        std::int32_t op = -1; ///< -1: empty
    };
    const std::vector<OpRecord> &m_ops;
    std::vector<Slot> m_slots; ///< a power of two
};

} // namespace msprobe
} // namespace ds
