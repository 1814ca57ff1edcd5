#include "nameindex.h"

#include <functional>

namespace ds {
namespace msprobe {

namespace {

size_t hashOf(std::string_view s) { return std::hash<std::string_view>{}(s); }

} // namespace

NameIndex::NameIndex(const std::vector<OpRecord> &ops) : m_ops(ops)
{
    size_t capacity = 16;
    while (capacity < ops.size() * 2)
        capacity *= 2;
    m_slots.assign(capacity, Slot{});
    const size_t mask = capacity - 1;
    for (size_t i = 0; i < ops.size(); ++i) {
        const std::string_view name = ops[i].opName.utf8();
        const size_t h = hashOf(name);
        const auto high = std::uint32_t(h >> 32);
        for (size_t s = h & mask;; s = (s + 1) & mask) {
            Slot &slot = m_slots[s];
            if (slot.op < 0) {
                slot = {high, std::int32_t(i)};
                break;
            }
            if (slot.hashHigh == high && ops[size_t(slot.op)].opName.utf8() == name)
                break; // a repeated name: the first op keeps it
        }
    }
}

int NameIndex::find(std::string_view utf8) const
{
    const size_t mask = m_slots.size() - 1;
    const size_t h = hashOf(utf8);
    const auto high = std::uint32_t(h >> 32);
    for (size_t s = h & mask;; s = (s + 1) & mask) {
        const Slot &slot = m_slots[s];
        if (slot.op < 0)
            return -1;
        if (slot.hashHigh == high && m_ops[size_t(slot.op)].opName.utf8() == utf8)
            return slot.op;
    }
}

} // namespace msprobe
} // namespace ds
