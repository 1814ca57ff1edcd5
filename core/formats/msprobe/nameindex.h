#pragma once

#include "dump/records.h"

#include <QString>
#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace ds {
namespace msprobe {

/// Entry name -> op index, as a sorted array of (hash, index): 16 bytes per entry instead of
/// a hash table node per name (a 10^6-entry dump.json).
class NameIndex
{
public:
    explicit NameIndex(const std::vector<OpRecord> &ops) : m_ops(ops)
    {
        m_keys.reserve(ops.size());
        for (size_t i = 0; i < ops.size(); ++i)
            m_keys.push_back({std::hash<std::string_view>{}(ops[i].opName.utf8()), int(i)});
        std::sort(m_keys.begin(), m_keys.end());
    }
    /// The op named `name` (UTF-8), -1 if none.
    int find(std::string_view utf8) const
    {
        const size_t h = std::hash<std::string_view>{}(utf8);
        auto it = std::lower_bound(m_keys.begin(), m_keys.end(), std::pair<size_t, int>{h, -1});
        for (; it != m_keys.end() && it->first == h; ++it)
            if (m_ops[size_t(it->second)].opName.utf8() == utf8)
                return it->second;
        return -1;
    }
    int find(const QString &name) const
    {
        const QByteArray u = name.toUtf8();
        return find(std::string_view(u.constData(), size_t(u.size())));
    }
    bool contains(const QString &name) const { return find(name) >= 0; }

private:
    const std::vector<OpRecord> &m_ops;
    std::vector<std::pair<size_t, int>> m_keys;
};

} // namespace msprobe
} // namespace ds
