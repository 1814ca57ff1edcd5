#include "zipreader.h"

#include "io/mappedfile.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace ds {

namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEocdSig = 0x06054b50;
constexpr std::uint32_t kZip64EocdSig = 0x06064b50;
constexpr std::uint32_t kZip64LocatorSig = 0x07064b50;
constexpr std::uint64_t kEocdSize = 22;
constexpr std::uint64_t kZip64LocatorSize = 20;
constexpr std::uint64_t kZip64EocdSize = 56;
constexpr std::uint64_t kCentralSize = 46;
constexpr std::uint64_t kLocalSize = 30;
constexpr std::uint64_t kMaxComment = 0xFFFF;
// Deflate cannot expand beyond about 1032:1 (258-byte matches coded in 2 bits); a declared
// size above this from the compressed size is a lie (zip bomb or corruption).
constexpr std::uint64_t kMaxDeflateRatio = 1032;

std::uint16_t rd16(const std::byte *p)
{
    return std::uint16_t(std::uint16_t(p[0]) | std::uint16_t(std::uint16_t(p[1]) << 8));
}
std::uint32_t rd32(const std::byte *p)
{
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}
std::uint64_t rd64(const std::byte *p) { return std::uint64_t(rd32(p)) | (std::uint64_t(rd32(p + 4)) << 32); }

bool inside(std::uint64_t offset, std::uint64_t length, std::uint64_t size)
{
    return offset <= size && length <= size - offset;
}

QString printable(const QByteArray &name)
{
    QString s = QString::fromUtf8(name);
    if (s.size() > 200)
        s = s.left(200) + QStringLiteral("...");
    return s;
}

} // namespace

Result<ZipReader> ZipReader::open(const MappedFile &file) { return open(file.data(), file.size()); }

Result<ZipReader> ZipReader::open(const std::byte *data, std::uint64_t size)
{
    using R = Result<ZipReader>;
    if (size < kEocdSize || !data)
        return R::failure(QStringLiteral("not a ZIP archive (%1 bytes, too short)").arg(size));

    // End of central directory: the last 22 + 65535 bytes at most, searched backwards.
    std::uint64_t eocd = 0;
    bool found = false;
    const std::uint64_t lowest = size - kEocdSize > kMaxComment ? size - kEocdSize - kMaxComment : 0;
    for (std::uint64_t pos = size - kEocdSize + 1; pos-- > lowest;) {
        if (rd32(data + pos) != kEocdSig)
            continue;
        const std::uint64_t commentLen = rd16(data + pos + 20);
        if (commentLen <= size - pos - kEocdSize) {
            eocd = pos;
            found = true;
            break;
        }
    }
    if (!found)
        return R::failure(QStringLiteral("not a ZIP archive or truncated (no end of central directory record)"));

    const std::byte *e = data + eocd;
    const std::uint16_t disk = rd16(e + 4), cdDisk = rd16(e + 6);
    std::uint64_t entriesOnDisk = rd16(e + 8), entries = rd16(e + 10);
    std::uint64_t cdSize = rd32(e + 12), cdOffset = rd32(e + 16);
    bool zip64 = false;

    if (eocd >= kZip64LocatorSize && rd32(data + eocd - kZip64LocatorSize) == kZip64LocatorSig) {
        const std::byte *loc = data + eocd - kZip64LocatorSize;
        const std::uint64_t recOffset = rd64(loc + 8);
        if (rd32(loc + 4) != 0 || rd32(loc + 16) > 1)
            return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
        if (!inside(recOffset, kZip64EocdSize, eocd - kZip64LocatorSize))
            return R::failure(QStringLiteral("zip64 end of central directory record lies outside the file (offset %1)").arg(recOffset));
        const std::byte *z = data + recOffset;
        if (rd32(z) != kZip64EocdSig)
            return R::failure(QStringLiteral("bad zip64 end of central directory signature at offset %1").arg(recOffset));
        if (rd32(z + 16) != 0 || rd32(z + 20) != 0)
            return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
        entriesOnDisk = rd64(z + 24);
        entries = rd64(z + 32);
        cdSize = rd64(z + 40);
        cdOffset = rd64(z + 48);
        zip64 = true;
    } else {
        if (disk != 0 || cdDisk != 0)
            return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
        if (entries == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF)
            return R::failure(QStringLiteral("zip64 archive without a zip64 end of central directory locator"));
    }
    if (entriesOnDisk != entries)
        return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
    if (!inside(cdOffset, cdSize, eocd))
        return R::failure(QStringLiteral("central directory lies outside the file (offset %1, %2 bytes, file %3 bytes)")
                              .arg(cdOffset).arg(cdSize).arg(size));
    if (entries > kMaxEntries || entries > cdSize / kCentralSize)
        return R::failure(QStringLiteral("central directory claims %1 entries in %2 bytes").arg(entries).arg(cdSize));

    ZipReader zip;
    zip.m_data = data;
    zip.m_size = size;
    zip.m_cdOffset = cdOffset;
    zip.m_zip64 = zip64;
    zip.m_entries.reserve(size_t(entries));

    const std::byte *cd = data + cdOffset;
    std::uint64_t pos = 0;
    for (std::uint64_t i = 0; i < entries; ++i) {
        if (!inside(pos, kCentralSize, cdSize) || rd32(cd + pos) != kCentralSig)
            return R::failure(QStringLiteral("bad central directory header %1 at offset %2").arg(i).arg(cdOffset + pos));
        const std::byte *h = cd + pos;
        ZipEntry ent;
        ent.flags = rd16(h + 8);
        ent.method = rd16(h + 10);
        ent.crc32 = rd32(h + 16);
        ent.compressedSize = rd32(h + 20);
        ent.uncompressedSize = rd32(h + 24);
        const std::uint64_t nameLen = rd16(h + 28), extraLen = rd16(h + 30), commentLen = rd16(h + 32);
        const std::uint16_t diskStart = rd16(h + 34);
        ent.localHeaderOffset = rd32(h + 42);
        const std::uint64_t varLen = nameLen + extraLen + commentLen;
        if (!inside(pos + kCentralSize, varLen, cdSize))
            return R::failure(QStringLiteral("central directory header %1 runs past the central directory").arg(i));
        ent.name = QByteArray(reinterpret_cast<const char *>(h + kCentralSize), qsizetype(nameLen));

        // Zip64 extended information: only the fields whose 32-bit value is saturated, in order.
        const std::byte *extra = h + kCentralSize + nameLen;
        bool needUncompressed = ent.uncompressedSize == 0xFFFFFFFF;
        bool needCompressed = ent.compressedSize == 0xFFFFFFFF;
        bool needOffset = ent.localHeaderOffset == 0xFFFFFFFF;
        bool needDisk = diskStart == 0xFFFF;
        for (std::uint64_t x = 0; x + 4 <= extraLen;) {
            const std::uint16_t id = rd16(extra + x);
            const std::uint64_t len = rd16(extra + x + 2);
            if (len > extraLen - x - 4)
                return R::failure(QStringLiteral("entry `%1`: extra field runs past its header").arg(printable(ent.name)));
            if (id == 0x0001) {
                const std::byte *f = extra + x + 4;
                std::uint64_t used = 0;
                auto take = [&](bool &need, std::uint64_t &out, std::uint64_t bytes) {
                    if (!need)
                        return true;
                    if (used + bytes > len)
                        return false;
                    out = bytes == 8 ? rd64(f + used) : rd32(f + used);
                    used += bytes;
                    need = false;
                    return true;
                };
                std::uint64_t diskValue = 0;
                if (!take(needUncompressed, ent.uncompressedSize, 8) || !take(needCompressed, ent.compressedSize, 8)
                    || !take(needOffset, ent.localHeaderOffset, 8) || !take(needDisk, diskValue, 4))
                    return R::failure(QStringLiteral("entry `%1`: zip64 extra field is too short").arg(printable(ent.name)));
                if (diskValue != 0)
                    return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
            }
            x += 4 + len;
        }
        if (needUncompressed || needCompressed || needOffset || needDisk)
            return R::failure(QStringLiteral("entry `%1`: zip64 sizes without a zip64 extra field").arg(printable(ent.name)));
        if (!needDisk && diskStart != 0 && diskStart != 0xFFFF)
            return R::failure(QStringLiteral("multi-disk ZIP archives are not supported"), ErrorKind::Unsupported);
        pos += kCentralSize + varLen;

        // Local header: only the name and extra lengths are used, to find the data.
        if (!inside(ent.localHeaderOffset, kLocalSize, size) || rd32(data + ent.localHeaderOffset) != kLocalSig)
            return R::failure(QStringLiteral("entry `%1`: local header at offset %2 lies outside the file or is damaged")
                                  .arg(printable(ent.name)).arg(ent.localHeaderOffset));
        const std::byte *l = data + ent.localHeaderOffset;
        const std::uint64_t dataOffset = ent.localHeaderOffset + kLocalSize + rd16(l + 26) + rd16(l + 28);
        if (!inside(dataOffset, ent.compressedSize, size))
            return R::failure(QStringLiteral("entry `%1`: data (offset %2, %3 bytes) lies outside the file (%4 bytes)")
                                  .arg(printable(ent.name)).arg(dataOffset).arg(ent.compressedSize).arg(size));
        ent.dataOffset = dataOffset;
        zip.m_entries.push_back(std::move(ent));
    }
    return zip;
}

const ZipEntry *ZipReader::find(QByteArrayView name, bool *ambiguous) const
{
    const ZipEntry *hit = nullptr;
    int count = 0;
    for (const ZipEntry &e : m_entries) {
        if (QByteArrayView(e.name) == name) {
            if (!hit)
                hit = &e;
            ++count;
        }
    }
    if (ambiguous)
        *ambiguous = count > 1;
    return hit;
}

std::vector<const ZipEntry *> ZipReader::findSuffix(QByteArrayView suffix) const
{
    std::vector<const ZipEntry *> out;
    for (const ZipEntry &e : m_entries) {
        const QByteArrayView n(e.name);
        if (n == suffix || (n.size() > suffix.size() && n.endsWith(suffix) && n[n.size() - suffix.size() - 1] == '/'))
            out.push_back(&e);
    }
    return out;
}

Result<ZipData> ZipReader::read(const ZipEntry &entry, std::uint64_t maxInflated, bool checkCrc) const
{
    using R = Result<ZipData>;
    const QString name = printable(entry.name);
    if (entry.flags & 0x0001)
        return R::failure(QStringLiteral("entry `%1` is encrypted").arg(name), ErrorKind::Unsupported);
    if (!inside(entry.dataOffset, entry.compressedSize, m_size))
        return R::failure(QStringLiteral("entry `%1` lies outside the file").arg(name));
    const std::byte *src = m_data + entry.dataOffset;
    ZipData out;
    if (entry.method == 0) {
        if (entry.compressedSize != entry.uncompressedSize)
            return R::failure(QStringLiteral("stored entry `%1` has compressed size %2 but uncompressed size %3")
                                  .arg(name).arg(entry.compressedSize).arg(entry.uncompressedSize));
        out.data = src;
        out.size = entry.compressedSize;
        out.inPlace = true;
        if (checkCrc && entry.crc32 != std::uint32_t(crc32_z(0, reinterpret_cast<const Bytef *>(src), size_t(out.size))))
            return R::failure(QStringLiteral("entry `%1` fails its CRC-32 check").arg(name));
        return out;
    }
    if (entry.method != 8)
        return R::failure(QStringLiteral("entry `%1` uses compression method %2; only STORED and DEFLATE are supported")
                              .arg(name).arg(entry.method));

    const std::uint64_t cap = std::min(maxInflated, kMaxInflated);
    if (entry.uncompressedSize > cap)
        return R::failure(QStringLiteral("entry `%1` declares %2 bytes uncompressed, more than the limit of %3")
                              .arg(name).arg(entry.uncompressedSize).arg(cap));
    if (entry.uncompressedSize / kMaxDeflateRatio > entry.compressedSize)
        return R::failure(QStringLiteral("entry `%1` declares %2 bytes uncompressed from %3 compressed bytes, more than deflate can produce")
                              .arg(name).arg(entry.uncompressedSize).arg(entry.compressedSize));

    out.owned.resize(size_t(entry.uncompressedSize));
    out.inPlace = false;
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
        return R::failure(QStringLiteral("entry `%1`: cannot start inflating").arg(name));
    // A spare byte after the declared size detects streams that inflate to more than declared.
    unsigned char spare = 0;
    std::uint64_t inLeft = entry.compressedSize, outDone = 0;
    const auto *in = reinterpret_cast<const Bytef *>(src);
    int rc = Z_OK;
    constexpr std::uint64_t chunk = 1u << 30;
    bool overflow = false;
    while (rc == Z_OK) {
        if (zs.avail_in == 0 && inLeft > 0) {
            const std::uint64_t n = std::min(inLeft, chunk);
            zs.next_in = const_cast<Bytef *>(in);
            zs.avail_in = uInt(n);
            in += n;
            inLeft -= n;
        }
        if (outDone < entry.uncompressedSize) {
            const std::uint64_t n = std::min(entry.uncompressedSize - outDone, chunk);
            zs.next_out = reinterpret_cast<Bytef *>(out.owned.data()) + outDone;
            zs.avail_out = uInt(n);
        } else {
            zs.next_out = &spare;
            zs.avail_out = 1;
        }
        const uInt before = zs.avail_out;
        const uInt inBefore = zs.avail_in;
        rc = inflate(&zs, Z_NO_FLUSH);
        const uInt produced = before - zs.avail_out;
        if (outDone >= entry.uncompressedSize && produced > 0) {
            overflow = true;
            break;
        }
        outDone += produced;
        if (rc == Z_BUF_ERROR || (rc == Z_OK && produced == 0 && inBefore == zs.avail_in)) {
            rc = Z_DATA_ERROR; // no progress: truncated stream
            break;
        }
    }
    inflateEnd(&zs);
    if (overflow)
        return R::failure(QStringLiteral("entry `%1` inflates to more than its declared %2 bytes").arg(name).arg(entry.uncompressedSize));
    if (rc != Z_STREAM_END)
        return R::failure(QStringLiteral("entry `%1`: corrupt or truncated deflate data").arg(name));
    if (outDone != entry.uncompressedSize)
        return R::failure(QStringLiteral("entry `%1` inflates to %2 bytes, not the declared %3").arg(name).arg(outDone).arg(entry.uncompressedSize));
    if (entry.crc32 != std::uint32_t(crc32_z(0, reinterpret_cast<const Bytef *>(out.owned.data()), out.owned.size())))
        return R::failure(QStringLiteral("entry `%1` fails its CRC-32 check").arg(name));
    out.data = out.owned.data();
    out.size = out.owned.size();
    return out;
}

} // namespace ds
