#include "distributedplan.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDataStream>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <map>

namespace ds {

namespace {

constexpr quint32 kMagic = 0x44534d32; // "DSM2": the message format's version

/// A message of the CLI (English, like the rest of its output).
QString msg(const char *text) { return QString::fromUtf8(text); }

QDataStream &operator<<(QDataStream &s, const CatalogScope &c)
{
    return s << c.id << c.step << c.rank << c.stepNumber << c.rankNumber << c.fingerprint << c.bytes;
}
QDataStream &operator>>(QDataStream &s, CatalogScope &c)
{
    return s >> c.id >> c.step >> c.rank >> c.stepNumber >> c.rankNumber >> c.fingerprint >> c.bytes;
}
QDataStream &operator<<(QDataStream &s, const SideCatalog &c)
{
    s << c.error << c.code << c.openedPath << c.rootDir << quint32(c.scopes.size());
    for (const CatalogScope &x : c.scopes)
        s << x;
    return s;
}
QDataStream &operator>>(QDataStream &s, SideCatalog &c)
{
    quint32 n = 0;
    s >> c.error >> c.code >> c.openedPath >> c.rootDir >> n;
    for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
        CatalogScope x;
        s >> x;
        c.scopes.push_back(std::move(x));
    }
    return s;
}

QByteArray writer(const std::function<void(QDataStream &)> &fill)
{
    QByteArray b;
    QDataStream s(&b, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_6_4);
    s << kMagic;
    fill(s);
    return b;
}

/// Reads with `read`; nullopt when the bytes are not a whole message of this version.
template<typename T>
std::optional<T> reader(const QByteArray &bytes, const std::function<void(QDataStream &, T &)> &read)
{
    QDataStream s(bytes);
    s.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0;
    s >> magic;
    if (magic != kMagic)
        return std::nullopt;
    T value{};
    read(s, value);
    if (s.status() != QDataStream::Ok)
        return std::nullopt;
    return value;
}

void hashFile(QCryptographicHash &h, const QString &root, const QString &rel, quint64 &bytes)
{
    const QFileInfo info(root + QLatin1Char('/') + rel);
    const qint64 size = info.size();
    bytes += quint64(std::max<qint64>(0, size));
    h.addData(rel.toUtf8());
    h.addData(QByteArrayView("\0", 1));
    h.addData(QByteArray::number(size));
    h.addData(QByteArrayView("\n", 1));
    if (!rel.endsWith(QLatin1String(".json")))
        return;
    QFile f(info.filePath());
    if (!f.open(QIODevice::ReadOnly))
        return;
    constexpr qint64 kEdge = 64 * 1024;
    h.addData(f.read(kEdge));
    if (size > 2 * kEdge && f.seek(size - kEdge))
        h.addData(f.read(kEdge));
}

} // namespace

QByteArray encodeCatalog(const Catalog &c)
{
    return writer([&](QDataStream &s) { s << c.error << c.code << c.npu << c.bench; });
}

std::optional<Catalog> decodeCatalog(const QByteArray &bytes)
{
    return reader<Catalog>(bytes, [](QDataStream &s, Catalog &c) { s >> c.error >> c.code >> c.npu >> c.bench; });
}

QByteArray scopeFingerprint(const RunTree &tree, const RunScope &scope, quint64 &bytes)
{
    QCryptographicHash h(QCryptographicHash::Sha1);
    const QString root = tree.walk.rootDir;
    const QDir rootDir(root);
    QStringList files;
    for (size_t i : scope.claims) {
        if (i >= tree.walk.claims.size())
            continue;
        const Claim &c = tree.walk.claims[i];
        if (!c.files.isEmpty()) { // files claimed one by one
            files << c.files;
            continue;
        }
        const QString abs = c.relPath.isEmpty() ? root : root + QLatin1Char('/') + c.relPath;
        if (QFileInfo(abs).isFile()) {
            files << c.relPath;
            continue;
        }
        QDirIterator it(abs, QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden,
                        QDirIterator::Subdirectories | QDirIterator::FollowSymlinks); // loops are skipped
        while (it.hasNext())
            files << rootDir.relativeFilePath(it.next());
    }
    files.sort();
    files.removeDuplicates();
    bytes = 0;
    for (const QString &f : std::as_const(files))
        hashFile(h, root, f, bytes);
    return h.result();
}

SideCatalog catalogSide(const QString &path, const QString &what, RunTree &tree, const RunInfo *&run)
{
    SideCatalog side;
    run = nullptr;
    side.openedPath = QFileInfo(path).absoluteFilePath();
    if (!QFileInfo::exists(path)) {
        side.error = msg("no such file or directory: %1").arg(side.openedPath);
        side.code = 3;
        return side;
    }
    auto found = discoverRuns(path);
    if (!found) {
        side.error = msg("%1 path: %2").arg(what, found.errorText());
        side.code = 3;
        return side;
    }
    tree = std::move(*found);
    side.openedPath = tree.walk.openedPath;
    side.rootDir = tree.walk.rootDir;
    if (tree.runs.size() > 1) {
        QStringList names;
        for (const RunInfo &r : tree.runs)
            names << (r.relPath.isEmpty() ? QStringLiteral(".") : r.relPath);
        side.error = msg("%1 path %2 holds %3 runs (%4); compare one run folder with another")
                         .arg(what, path)
                         .arg(tree.runs.size())
                         .arg(names.join(QStringLiteral(", ")));
        side.code = 2;
        return side;
    }
    static const RunInfo empty;
    run = tree.runs.empty() ? &empty : &tree.runs.front();
    for (const RunScope &s : run->scopes) {
        CatalogScope c{s.id, s.step, s.rank, s.stepNumber, s.rankNumber, {}, 0};
        c.fingerprint = scopeFingerprint(tree, s, c.bytes);
        side.scopes.push_back(std::move(c));
    }
    return side;
}

QByteArray encodeAssignments(const std::vector<Assignment> &a)
{
    return writer([&](QDataStream &s) {
        s << quint32(a.size());
        for (const Assignment &x : a)
            s << x.pair << x.id << x.npuId << x.benchId << x.hasNpu << x.hasBench;
    });
}

std::optional<std::vector<Assignment>> decodeAssignments(const QByteArray &bytes)
{
    return reader<std::vector<Assignment>>(bytes, [](QDataStream &s, std::vector<Assignment> &a) {
        quint32 n = 0;
        s >> n;
        for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
            Assignment x;
            s >> x.pair >> x.id >> x.npuId >> x.benchId >> x.hasNpu >> x.hasBench;
            a.push_back(std::move(x));
        }
    });
}

Plan planCompare(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers)
{
    Plan plan;
    plan.byRank.resize(catalogs.size());
    auto who = [&](size_t r) {
        return r < peers.size() && !peers[r].host.isEmpty() ? msg("rank %1 on node %2").arg(r).arg(peers[r].host) : msg("rank %1").arg(r);
    };
    struct Seen
    {
        size_t rank;
        QByteArray fingerprint;
        quint64 bytes;
    };
    // The union of each side: its scopes (labels from the first process that saw them) and who saw them.
    struct Side
    {
        RunInfo run;
        std::map<QString, std::vector<Seen>> seen;
    } npu, bench;
    for (size_t r = 0; r < catalogs.size(); ++r)
        for (auto [side, catalog, what] : {std::tuple{&npu, &catalogs[r].npu, msg("NPU")}, std::tuple{&bench, &catalogs[r].bench, msg("bench")}})
            for (const CatalogScope &c : catalog->scopes) {
                auto &seen = side->seen[c.id];
                if (!seen.empty() && seen.front().fingerprint != c.fingerprint) {
                    const size_t first = seen.front().rank;
                    plan.error = msg("scope %1 of the %2 run has different contents on %3 (%4) and on %5 (%6): its files "
                                    "(names, sizes or JSON contents) differ; every process must see the same data for a scope")
                                     .arg(c.id.isEmpty() ? QStringLiteral("\"\"") : c.id, what, who(first),
                                          side == &npu ? catalogs[first].npu.openedPath : catalogs[first].bench.openedPath,
                                          who(r), catalog->openedPath);
                    plan.code = 5;
                    return plan;
                }
                if (seen.empty()) {
                    RunScope s;
                    s.id = c.id;
                    s.step = c.step;
                    s.rank = c.rank;
                    s.stepNumber = c.stepNumber;
                    s.rankNumber = c.rankNumber;
                    side->run.scopes.push_back(std::move(s));
                }
                seen.push_back({r, c.fingerprint, c.bytes});
            }
    const std::vector<ScopePair> pairs = pairScopes(npu.run, bench.run);
    plan.pairs = pairs.size();
    struct Job
    {
        size_t pair;
        quint64 bytes;
        std::vector<size_t> candidates;
    };
    std::vector<Job> jobs;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ScopePair &p = pairs[i];
        std::vector<size_t> withNpu, withBench;
        quint64 bytes = 0;
        if (p.npu)
            for (const Seen &s : npu.seen[p.npu->id]) {
                withNpu.push_back(s.rank);
                bytes = std::max(bytes, s.bytes);
            }
        quint64 benchBytes = 0;
        if (p.bench)
            for (const Seen &s : bench.seen[p.bench->id]) {
                withBench.push_back(s.rank);
                benchBytes = std::max(benchBytes, s.bytes);
            }
        std::vector<size_t> both;
        if (!p.npu)
            both = withBench;
        else if (!p.bench)
            both = withNpu;
        else
            std::set_intersection(withNpu.begin(), withNpu.end(), withBench.begin(), withBench.end(), std::back_inserter(both));
        if (both.empty()) {
            auto list = [&](const std::vector<size_t> &ranks) {
                QStringList l;
                for (size_t r : ranks)
                    l << who(r);
                return l.join(QStringLiteral(", "));
            };
            plan.error = msg("scope %1: no process sees both its NPU data (seen by %2) and its bench data (seen by %3); "
                            "give every process whose node holds an NPU scope a path to its bench scope")
                             .arg(p.id.isEmpty() ? QStringLiteral("\"\"") : p.id, list(withNpu), list(withBench));
            plan.code = 5;
            return plan;
        }
        jobs.push_back({i, bytes + benchBytes, std::move(both)});
    }
    // Largest first, each to the candidate with the fewest bytes so far (then the lowest rank).
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) { return a.bytes > b.bytes; });
    std::vector<quint64> load(catalogs.size(), 0);
    for (const Job &j : jobs) {
        size_t best = j.candidates.front();
        for (size_t c : j.candidates)
            if (load[c] < load[best])
                best = c;
        load[best] += j.bytes;
        const ScopePair &p = pairs[j.pair];
        Assignment a;
        a.pair = qint32(j.pair);
        a.id = p.id;
        a.hasNpu = p.npu != nullptr;
        a.hasBench = p.bench != nullptr;
        if (p.npu)
            a.npuId = p.npu->id;
        if (p.bench)
            a.benchId = p.bench->id;
        plan.byRank[best].push_back(std::move(a));
    }
    for (auto &list : plan.byRank)
        std::sort(list.begin(), list.end(), [](const Assignment &a, const Assignment &b) { return a.pair < b.pair; });
    return plan;
}

QByteArray encodeCompared(const std::vector<ComparedScope> &c)
{
    return writer([&](QDataStream &s) {
        s << quint32(c.size());
        for (const ComparedScope &x : c)
            s << x.pair << x.summary << x.mode;
    });
}

std::optional<std::vector<ComparedScope>> decodeCompared(const QByteArray &bytes)
{
    return reader<std::vector<ComparedScope>>(bytes, [](QDataStream &s, std::vector<ComparedScope> &c) {
        quint32 n = 0;
        s >> n;
        for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
            ComparedScope x;
            s >> x.pair >> x.summary >> x.mode;
            c.push_back(std::move(x));
        }
    });
}

QByteArray encodePiece(const ScopePiece &p)
{
    return writer([&](QDataStream &s) {
        s << p.pair << p.npuOps << p.csv << p.json << p.divergences << p.notPass << p.warnings << p.reached << p.stack
          << quint32(p.cells.size());
        for (const std::vector<MsCell> &row : p.cells) {
            s << quint32(row.size());
            for (const MsCell &c : row) {
                s << quint8(c.kind);
                if (c.kind == MsCell::Kind::Text)
                    s << c.text;
                else
                    s << c.number;
            }
        }
    });
}

std::optional<ScopePiece> decodePiece(const QByteArray &bytes)
{
    return reader<ScopePiece>(bytes, [](QDataStream &s, ScopePiece &p) {
        quint32 rows = 0;
        s >> p.pair >> p.npuOps >> p.csv >> p.json >> p.divergences >> p.notPass >> p.warnings >> p.reached >> p.stack >> rows;
        // counts come off the wire: rows and cells are added one by one while the stream holds them
        for (quint32 r = 0; r < rows && s.status() == QDataStream::Ok; ++r) {
            quint32 n = 0;
            s >> n;
            std::vector<MsCell> row;
            for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
                quint8 kind = 0;
                s >> kind;
                if (kind > quint8(MsCell::Kind::Bool)) {
                    s.setStatus(QDataStream::ReadCorruptData);
                    break;
                }
                MsCell c;
                c.kind = MsCell::Kind(kind);
                if (c.kind == MsCell::Kind::Text)
                    s >> c.text;
                else
                    s >> c.number;
                row.push_back(std::move(c));
            }
            p.cells.push_back(std::move(row));
        }
    });
}

} // namespace ds
