#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ds {

/// A hash map of small keys and values in one array (open addressing, linear probing, at most
/// half full): no node per entry and one cache line per lookup, where std::unordered_map
/// allocates a node per entry and chases pointers. For lookups of millions of rows (matching
/// a compare). Keys and values are copied into the slots; nothing is ever erased.
template<typename Key, typename Value, typename Hash>
class FlatMap
{
public:
    explicit FlatMap(size_t expected = 0) { reserve(expected); }

    void reserve(size_t n)
    {
        size_t size = 16;
        while (size < 2 * n)
            size *= 2;
        if (size > m_slots.size())
            rehash(size);
    }
    size_t size() const { return m_size; }

    /// The value of `key`, or null.
    const Value *find(const Key &key) const { return find(key, Hash()(key)); }
    /// The same with the key's hash known (Hash()(key)).
    const Value *find(const Key &key, size_t h) const
    {
        if (m_slots.empty())
            return nullptr;
        const Slot &s = m_slots[probe(key, h)];
        return s.used ? &s.value : nullptr;
    }
    /// Asks the cache for the slot a key of hash `h` starts its probe at: a loop over many
    /// keys prefetches a few keys ahead of its lookups (the table is larger than the cache).
    void prefetch(size_t h) const
    {
        if (!m_slots.empty())
            __builtin_prefetch(&m_slots[h & (m_slots.size() - 1)]);
    }
    /// The value of `key`; `value` is stored when the key is new (`added`).
    Value &emplace(const Key &key, const Value &value, bool &added) { return emplace(key, Hash()(key), value, added); }
    /// The same with the key's hash known.
    Value &emplace(const Key &key, size_t h, const Value &value, bool &added)
    {
        if (2 * (m_size + 1) > m_slots.size())
            rehash(m_slots.empty() ? 16 : 2 * m_slots.size());
        Slot &s = m_slots[probe(key, h)];
        added = !s.used;
        if (added) {
            s = {h, key, value, true};
            ++m_size;
        }
        return s.value;
    }

private:
    struct Slot
    {
        size_t hash = 0;
        Key key{};
        Value value{};
        bool used = false;
    };
    size_t probe(const Key &key, size_t h) const
    {
        const size_t mask = m_slots.size() - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot &s = m_slots[i];
            if (!s.used || (s.hash == h && s.key == key))
                return i;
        }
    }
    void rehash(size_t size)
    {
        std::vector<Slot> old(size);
        old.swap(m_slots);
        const size_t mask = size - 1;
        for (Slot &s : old)
            if (s.used) {
                size_t i = s.hash & mask;
                while (m_slots[i].used)
                    i = (i + 1) & mask;
                m_slots[i] = std::move(s);
            }
    }
    std::vector<Slot> m_slots;
    size_t m_size = 0;
};

} // namespace ds
