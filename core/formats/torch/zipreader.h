#pragma once

#include "util/error.h"

#include <QByteArray>
#include <QByteArrayView>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ds {

class MappedFile;

/// One entry of a ZIP central directory. Sizes and offsets come from the central directory
/// (with zip64 extra fields applied); the local header only supplies the data offset.
struct ZipEntry
{
    QByteArray name;                 ///< raw name bytes; compared, never used as a path
    std::uint16_t method = 0;        ///< 0 STORED, 8 DEFLATE
    std::uint16_t flags = 0;         ///< general-purpose bit flags
    std::uint32_t crc32 = 0;
    std::uint64_t compressedSize = 0;
    std::uint64_t uncompressedSize = 0;
    std::uint64_t localHeaderOffset = 0;
    std::uint64_t dataOffset = 0;    ///< first byte of the (compressed) data in the file
};

/// The bytes of one entry: a view into the file for STORED entries, inflated otherwise.
struct ZipData
{
    const std::byte *data = nullptr;
    std::uint64_t size = 0;
    std::vector<std::byte> owned; ///< inflated bytes (`data` points into it); empty when in place
    bool inPlace = true;          ///< STORED: `data` points into the file
};

/// Read-only reader of a ZIP archive held in memory (usually a MappedFile). Parses the end of
/// central directory record (zip64 too) and the central directory once; every offset and size
/// is checked against the buffer with overflow-safe arithmetic. Only STORED and DEFLATE
/// entries are read; encrypted, multi-disk and other methods are refused. The buffer must
/// outlive the reader and every ZipData it returns.
class ZipReader
{
public:
    /// Absolute cap on the inflated size of one DEFLATE entry.
    static constexpr std::uint64_t kMaxInflated = std::uint64_t(1) << 31; // 2 GiB
    /// Entries in one archive.
    static constexpr std::uint64_t kMaxEntries = 1000000;

    /// Parses the directory; errors are plain sentences ("no end of central directory record").
    static Result<ZipReader> open(const std::byte *data, std::uint64_t size);
    static Result<ZipReader> open(const MappedFile &file);

    const std::vector<ZipEntry> &entries() const { return m_entries; }
    /// The single entry named exactly `name`; nullptr when absent. `*ambiguous` (if given) is
    /// set when several entries have that name.
    const ZipEntry *find(QByteArrayView name, bool *ambiguous = nullptr) const;
    /// Entries whose name is `suffix` or ends with '/' + `suffix`.
    std::vector<const ZipEntry *> findSuffix(QByteArrayView suffix) const;

    /// The entry's bytes. STORED entries are returned in place (no copy, any size, CRC checked
    /// only with `checkCrc`); DEFLATE entries are inflated into exactly `uncompressedSize`
    /// bytes, refused when that exceeds `maxInflated` (and kMaxInflated) or what deflate can
    /// produce from the compressed size, and checked against the central directory's CRC-32.
    Result<ZipData> read(const ZipEntry &entry, std::uint64_t maxInflated = kMaxInflated,
                         bool checkCrc = false) const;

    std::uint64_t centralDirectoryOffset() const { return m_cdOffset; }
    bool isZip64() const { return m_zip64; }

private:
    ZipReader() = default;
    const std::byte *m_data = nullptr;
    std::uint64_t m_size = 0;
    std::uint64_t m_cdOffset = 0;
    bool m_zip64 = false;
    std::vector<ZipEntry> m_entries;
};

} // namespace ds
