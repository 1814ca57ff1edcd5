#include "records.h"

#include "tensor/dtype.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <cstring>
#include <string>
#include <unordered_map>

namespace ds {

namespace {
enum Flag : std::uint8_t {
    kCrc = 1,         ///< m_crc holds the checksum, an 8-digit lower-case hex number
    kDoubleStats = 2, ///< the statistics are doubles in the Extra block
    kNumericChecksum = 4, ///< RecordedStats::numericChecksum
};

const LeafInfo &defaultLeaf()
{
    static const LeafInfo none;
    return none;
}

bool isCrcText(const QString &s, std::uint32_t &value)
{
    if (s.size() != 8)
        return false;
    std::uint32_t v = 0;
    for (QChar c : s) {
        const char16_t u = c.unicode();
        if (u >= '0' && u <= '9')
            v = (v << 4) | std::uint32_t(u - '0');
        else if (u >= 'a' && u <= 'f')
            v = (v << 4) | std::uint32_t(u - 'a' + 10);
        else
            return false;
    }
    value = v;
    return true;
}

bool exactFloat(double d) { return std::isnan(d) || double(float(d)) == d; }

const QString &emptyString()
{
    static const QString none;
    return none;
}

const Shape &emptyShape()
{
    static const Shape none;
    return none;
}
} // namespace

struct TensorRecord::Extra
{
    QString location, checksum;
    double stats[4] = {0, 0, 0, 0};
    Shape originalShape;
    QString originalOpName;
    std::uint64_t offset = 0, size = 0, address = 0;
    int format = 2, subFormat = 0, originalOutputIndex = -1;
    bool complete = true;
};

LeafRef::~LeafRef()
{
    if (m_p && m_p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        delete m_p;
}

const LeafInfo &LeafRef::empty() { return defaultLeaf(); }

TensorRecord::TensorRecord() = default;

TensorRecord::TensorRecord(const TensorFields &f)
{
    auto *info = new LeafInfo;
    info->name = f.name;
    info->typeName = f.typeName;
    info->value = f.value;
    info->shape = f.shape;
    info->index = f.index;
    info->dataType = f.dataType;
    info->io = f.io;
    info->storage = f.storage;
    m_leaf = LeafRef(info);
    setRest(f);
}

TensorRecord::TensorRecord(LeafRef leaf, const TensorFields &rest) : m_leaf(std::move(leaf)) { setRest(rest); }

TensorRecord::TensorRecord(const TensorRecord &o)
    : m_leaf(o.m_leaf), m_extra(o.m_extra ? std::make_unique<Extra>(*o.m_extra) : nullptr), m_crc(o.m_crc),
      m_present(o.m_present), m_flags(o.m_flags)
{
    std::memcpy(m_stats, o.m_stats, sizeof m_stats);
}

TensorRecord &TensorRecord::operator=(const TensorRecord &o)
{
    if (this != &o) {
        TensorRecord copy(o);
        *this = std::move(copy);
    }
    return *this;
}

TensorRecord::TensorRecord(TensorRecord &&o) noexcept = default;
TensorRecord &TensorRecord::operator=(TensorRecord &&o) noexcept = default;
TensorRecord::~TensorRecord() = default;

const LeafInfo &TensorRecord::leaf() const { return *m_leaf; }

TensorRecord::TensorRecord(LeafRef leaf, const RecordedStats &stats, const QString &checksum, const QString &location)
    : m_leaf(std::move(leaf))
{
    setStats(stats);
    setChecksum(checksum);
    if (!location.isEmpty())
        extra().location = location;
}

TensorRecord::Extra &TensorRecord::extra()
{
    if (!m_extra)
        m_extra = std::make_unique<Extra>();
    return *m_extra;
}

void TensorRecord::setStats(const RecordedStats &s)
{
    const double v[4] = {s.max, s.min, s.mean, s.norm};
    m_present = std::uint8_t((s.present & 0xF) | ((s.integral & s.present & 0xF) << 4));
    if (s.numericChecksum)
        m_flags |= kNumericChecksum;
    bool exact = true;
    for (int i = 0; i < 4; ++i)
        exact = exact && ((s.present & (1 << i)) == 0 || exactFloat(v[i]));
    if (exact) {
        for (int i = 0; i < 4; ++i)
            m_stats[i] = (s.present & (1 << i)) ? float(v[i]) : 0.0f;
    } else {
        m_flags |= kDoubleStats;
        std::copy(v, v + 4, extra().stats);
    }
}

void TensorRecord::setChecksum(const QString &sum)
{
    if (isCrcText(sum, m_crc))
        m_flags |= kCrc;
    else if (!sum.isEmpty())
        extra().checksum = sum;
}

void TensorRecord::setRest(const TensorFields &f)
{
    setStats(f.recorded);
    setChecksum(f.checksum);
    if (!f.location.isEmpty())
        extra().location = f.location;
    if (!f.originalShape.empty())
        extra().originalShape = f.originalShape;
    if (!f.originalOpName.isEmpty())
        extra().originalOpName = f.originalOpName;
    if (f.offset || f.size || f.address || f.format != 2 || f.subFormat != 0 || f.originalOutputIndex != -1 || !f.complete) {
        Extra &e = extra();
        e.offset = f.offset;
        e.size = f.size;
        e.address = f.address;
        e.format = f.format;
        e.subFormat = f.subFormat;
        e.originalOutputIndex = f.originalOutputIndex;
        e.complete = f.complete;
    }
}

TensorFields TensorRecord::fields() const
{
    TensorFields f;
    const LeafInfo &l = leaf();
    f.name = l.name;
    f.typeName = l.typeName;
    f.value = l.value;
    f.shape = l.shape;
    f.index = l.index;
    f.dataType = l.dataType;
    f.io = l.io;
    f.storage = l.storage;
    f.recorded = recorded();
    f.checksum = checksum();
    f.location = location();
    f.originalShape = originalShape();
    f.originalOpName = originalOpName();
    f.offset = offset();
    f.size = size();
    f.address = address();
    f.format = format();
    f.subFormat = subFormat();
    f.originalOutputIndex = originalOutputIndex();
    f.complete = complete();
    return f;
}

RecordedStats TensorRecord::recorded() const
{
    RecordedStats s;
    s.present = m_present & 0xF;
    s.integral = m_present >> 4;
    s.numericChecksum = m_flags & kNumericChecksum;
    if (m_flags & kDoubleStats) {
        s.max = m_extra->stats[0];
        s.min = m_extra->stats[1];
        s.mean = m_extra->stats[2];
        s.norm = m_extra->stats[3];
    } else {
        s.max = m_stats[0];
        s.min = m_stats[1];
        s.mean = m_stats[2];
        s.norm = m_stats[3];
    }
    return s;
}

QString TensorRecord::checksum() const
{
    if (m_flags & kCrc)
        return QStringLiteral("%1").arg(m_crc, 8, 16, QLatin1Char('0'));
    return m_extra ? m_extra->checksum : QString();
}

const QString &TensorRecord::location() const { return m_extra ? m_extra->location : emptyString(); }
std::uint64_t TensorRecord::offset() const { return m_extra ? m_extra->offset : 0; }
std::uint64_t TensorRecord::size() const { return m_extra ? m_extra->size : 0; }
std::uint64_t TensorRecord::address() const { return m_extra ? m_extra->address : 0; }
const Shape &TensorRecord::originalShape() const { return m_extra ? m_extra->originalShape : emptyShape(); }
const QString &TensorRecord::originalOpName() const { return m_extra ? m_extra->originalOpName : emptyString(); }
int TensorRecord::format() const { return m_extra ? m_extra->format : 2; }
int TensorRecord::subFormat() const { return m_extra ? m_extra->subFormat : 0; }
int TensorRecord::originalOutputIndex() const { return m_extra ? m_extra->originalOutputIndex : -1; }
bool TensorRecord::complete() const { return m_extra ? m_extra->complete : true; }

std::uint64_t TensorRecord::dataBytes() const
{
    const std::uint64_t bytes = size();
    const TensorStorage s = storage();
    if (bytes || s == TensorStorage::Value || s == TensorStorage::Absent || s == TensorStorage::DumpPayload)
        return bytes;
    const auto count = elementCount(shape());
    return count ? storedBytes(DataType(dataType()), *count) : 0;
}

namespace {
std::uint64_t fmix(std::uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/// A seeded 64-bit hash of bytes: four multiply-rotate lanes over 8-byte words (four short
/// dependency chains side by side), mixed at the end. The last words are read as whole words
/// ending at the last byte (overlapping words already read): copying a short tail into a
/// zeroed word and reading it back stalls on store forwarding. The seed differs per process,
/// so a file cannot be made of keys that all collide.
std::uint64_t hashBytes(std::string_view b)
{
    static const std::uint64_t seed = [] {
        std::uint64_t x = reinterpret_cast<std::uintptr_t>(&fmix);
        x ^= std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
        return fmix(x) | 1;
    }();
    constexpr std::uint64_t kP1 = 0x9e3779b97f4a7c15ULL, kP2 = 0xc2b2ae3d27d4eb4fULL;
    auto rotl = [](std::uint64_t v, int r) { return (v << r) | (v >> (64 - r)); };
    auto word = [&](size_t at) {
        std::uint64_t w;
        std::memcpy(&w, b.data() + at, 8);
        return w;
    };
    auto lane = [&](std::uint64_t &h, std::uint64_t w) { h = rotl(h + w * kP2, 31) * kP1; };
    std::uint64_t h0 = seed, h1 = seed ^ kP2, h2 = seed ^ kP1, h3 = rotl(seed, 29); // in registers
    const size_t n = b.size();
    if (n < 16) {
        std::uint64_t tail[2] = {0, 0};
        std::memcpy(tail, b.data(), n);
        lane(h0, tail[0]);
        lane(h1, tail[1]);
    } else {
        size_t i = 0;
        for (; i + 32 <= n; i += 32) {
            lane(h0, word(i));
            lane(h1, word(i + 8));
            lane(h2, word(i + 16));
            lane(h3, word(i + 24));
        }
        // 0 to 31 bytes left: up to four words, the last ending at the last byte.
        if (i < n)
            lane(h0, word(std::min(i, n - 8)));
        if (i + 8 < n)
            lane(h1, word(std::min(i + 8, n - 8)));
        if (i + 16 < n)
            lane(h2, word(std::min(i + 16, n - 8)));
        if (i + 24 < n)
            lane(h3, word(n - 8));
    }
    return fmix(h0 ^ rotl(h1, 17) ^ rotl(h2, 34) ^ rotl(h3, 51) ^ n);
}
} // namespace

/// Open addressing (linear probing) over (hash, LeafInfo) table; the keys' bytes in one string.
struct LeafPool::Impl
{
    struct Slot
    {
        std::uint64_t hash = 0;
        const LeafInfo *info = nullptr;
        std::uint32_t keyOff = 0, keyLen = 0;
    };
    std::vector<Slot> table = std::vector<Slot>(1024);
    size_t used = 0;
    std::string keys;
    std::string key; // reused
    static constexpr size_t kMaxEntries = size_t(1) << 20;

    // The key's parts, written at `at` (sized beforehand): texts with their lengths.
    static void put(char *&at, std::string_view s)
    {
        put(at, std::uint32_t(s.size()));
        if (!s.empty())
            std::memcpy(at, s.data(), s.size());
        at += s.size();
    }
    template<typename T>
    static void put(char *&at, T v)
    {
        std::memcpy(at, &v, sizeof v);
        at += sizeof v;
    }
    Slot *find(std::uint64_t h)
    {
        const size_t mask = table.size() - 1;
        for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
            Slot &s = table[i];
            if (!s.info || (s.hash == h && std::string_view(keys.data() + s.keyOff, s.keyLen) == key))
                return &s;
        }
    }
    void grow()
    {
        std::vector<Slot> old(table.size() * 2);
        old.swap(table);
        const size_t mask = table.size() - 1;
        for (const Slot &s : old)
            if (s.info) {
                size_t i = size_t(s.hash) & mask;
                while (table[i].info)
                    i = (i + 1) & mask;
                table[i] = s;
            }
    }
};

LeafPool::LeafPool() : d(std::make_unique<Impl>()) {}

LeafPool::~LeafPool()
{
    for (const auto &slot : d->table) // the pool's references
        if (slot.info && slot.info->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
            delete slot.info;
}

size_t LeafPool::size() const { return d->used; }

LeafRef LeafPool::leaf(std::string_view name, std::string_view typeName, std::string_view value, const Shape &shape,
                       std::uint32_t index, int dataType, IoKind io, TensorStorage storage)
{
    std::string &key = d->key;
    const auto dims = std::uint32_t(shape.size());
    key.resize(3 * sizeof(std::uint32_t) + name.size() + typeName.size() + value.size() + sizeof dims
               + dims * sizeof(std::uint64_t) + sizeof index + sizeof dataType + 2);
    char *at = key.data();
    Impl::put(at, name);
    Impl::put(at, typeName);
    Impl::put(at, value);
    Impl::put(at, dims);
    if (dims)
        at = static_cast<char *>(std::memcpy(at, shape.data(), dims * sizeof(std::uint64_t))) + dims * sizeof(std::uint64_t);
    Impl::put(at, index);
    Impl::put(at, dataType);
    Impl::put(at, std::uint8_t(io));
    Impl::put(at, std::uint8_t(storage));
    const std::uint64_t h = hashBytes(key);
    Impl::Slot *slot = d->find(h);
    if (slot->info)
        return LeafRef(slot->info);
    auto *info = new LeafInfo;
    info->name = QString::fromUtf8(name.data(), qsizetype(name.size()));
    info->typeName = QString::fromUtf8(typeName.data(), qsizetype(typeName.size()));
    info->value = QString::fromUtf8(value.data(), qsizetype(value.size()));
    info->shape = shape;
    info->index = index;
    info->dataType = dataType;
    info->io = io;
    info->storage = storage;
    LeafRef ref(info);
    if (d->used < Impl::kMaxEntries && d->keys.size() + key.size() < std::numeric_limits<std::uint32_t>::max()) {
        info->refs.fetch_add(1, std::memory_order_relaxed); // the pool's reference
        *slot = {h, info, std::uint32_t(d->keys.size()), std::uint32_t(key.size())};
        d->keys += key;
        if (++d->used * 2 > d->table.size())
            d->grow();
    }
    return ref;
}

LeafRef LeafPool::leaf(const TensorFields &f)
{
    const QByteArray name = f.name.toUtf8(), type = f.typeName.toUtf8(), value = f.value.toUtf8();
    return leaf(std::string_view(name.constData(), size_t(name.size())), std::string_view(type.constData(), size_t(type.size())),
                std::string_view(value.constData(), size_t(value.size())), f.shape, f.index, f.dataType, f.io, f.storage);
}

TensorRecord LeafPool::make(const TensorFields &f) { return TensorRecord(leaf(f), f); }

const DumpLevels &SharedLevels::empty()
{
    static const DumpLevels none;
    return none;
}

OpRecord::OpRecord(const OpRecord &o)
    : relPath(o.relPath), dataFile(o.dataFile), levels(o.levels), opType(o.opType), opName(o.opName), parent(o.parent),
      tensors(o.tensors), timestamp(o.timestamp), stack(o.stack), source(o.source), opDebug(o.opDebug),
      container(o.container), nanCheck(o.nanCheck), m_extra(o.m_extra ? std::make_unique<OpExtra>(*o.m_extra) : nullptr)
{
}

OpRecord &OpRecord::operator=(const OpRecord &o)
{
    if (this != &o) {
        OpRecord copy(o);
        *this = std::move(copy);
    }
    return *this;
}

OpRecord::~OpRecord() = default;

const QString &OpRecord::headerOpName() const { return m_extra ? m_extra->headerOpName : emptyString(); }
const QString &OpRecord::mappedFrom() const { return m_extra ? m_extra->mappedFrom : emptyString(); }
const QString &OpRecord::version() const { return m_extra ? m_extra->version : emptyString(); }

const QStringList &OpRecord::warnings() const
{
    static const QStringList none;
    return m_extra ? m_extra->warnings : none;
}

OpExtra &OpRecord::extra()
{
    if (!m_extra)
        m_extra = std::make_unique<OpExtra>();
    return *m_extra;
}

int OpRecord::count(IoKind k) const
{
    int n = 0;
    for (const auto &t : tensors)
        n += t.io() == k;
    return n;
}

const TensorRecord *OpRecord::tensor(IoKind k, std::uint32_t index) const
{
    for (const auto &t : tensors)
        if (t.io() == k && t.index() == index)
            return &t;
    return nullptr;
}

} // namespace ds
