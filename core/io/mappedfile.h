#pragma once

#include "util/error.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ds {

/// A read-only memory map of a whole file (POSIX mmap, MAP_PRIVATE). Nothing is read until
/// a page is touched, so mapping a huge file and reading its header costs one page.
/// Shared so that tensor views can keep the mapping alive across threads.
class MappedFile
{
public:
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    /// Maps `path`; the error names the file and the reason ("No such file or directory").
    static Result<std::shared_ptr<const MappedFile>> open(const QString &path);

    const std::byte *data() const { return m_data; }
    std::uint64_t size() const { return m_size; }
    const QString &path() const { return m_path; }

    /// True when [offset, offset + length) lies inside the file (overflow-safe).
    bool contains(std::uint64_t offset, std::uint64_t length) const
    {
        return offset <= m_size && length <= m_size - offset;
    }

private:
    MappedFile() = default;
    const std::byte *m_data = nullptr;
    std::uint64_t m_size = 0;
    QString m_path;
};

} // namespace ds
