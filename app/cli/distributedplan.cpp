#include "distributedplan.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDataStream>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include "formats/readers.h"

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

namespace {

QString who(const std::vector<PeerInfo> &peers, size_t r)
{
    return r < peers.size() && !peers[r].host.isEmpty() ? msg("rank %1 on node %2").arg(r).arg(peers[r].host) : msg("rank %1").arg(r);
}

QString scopeName(const QString &id) { return id.isEmpty() ? QStringLiteral("\"\"") : id; }

struct Seen
{
    size_t rank;
    QByteArray fingerprint;
    quint64 bytes;
};

/// The union of one side over all processes: who saw each scope (the first process's labels in
/// `run`); an error when two processes saw a scope with different contents.
QString uniteSide(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers, bool npuSide, const QString &what,
                  RunInfo &run, std::map<QString, std::vector<Seen>> &seen)
{
    for (size_t r = 0; r < catalogs.size(); ++r) {
        const SideCatalog &catalog = npuSide ? catalogs[r].npu : catalogs[r].bench;
        for (const CatalogScope &c : catalog.scopes) {
            auto &s = seen[c.id];
            if (!s.empty() && s.front().fingerprint != c.fingerprint) {
                const size_t first = s.front().rank;
                const SideCatalog &firstCatalog = npuSide ? catalogs[first].npu : catalogs[first].bench;
                return msg("scope %1%2 has different contents on %3 (%4) and on %5 (%6): its files "
                           "(names, sizes or JSON contents) differ; every process must see the same data for a scope")
                    .arg(scopeName(c.id), what.isEmpty() ? QString() : msg(" of the %1 run").arg(what), who(peers, first),
                         firstCatalog.openedPath, who(peers, r), catalog.openedPath);
            }
            if (s.empty()) {
                RunScope x;
                x.id = c.id;
                x.step = c.step;
                x.rank = c.rank;
                x.stepNumber = c.stepNumber;
                x.rankNumber = c.rankNumber;
                run.scopes.push_back(std::move(x));
            }
            s.push_back({r, c.fingerprint, c.bytes});
        }
    }
    return {};
}

/// Jobs (bytes, candidate ranks) handed out largest first, each to the candidate with the fewest
/// bytes so far (then the lowest rank): the rank of every job.
std::vector<size_t> balance(const std::vector<std::pair<quint64, std::vector<size_t>>> &jobs, size_t ranks)
{
    std::vector<size_t> order(jobs.size()), to(jobs.size(), 0);
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].first > jobs[b].first; });
    std::vector<quint64> load(ranks, 0);
    for (size_t j : order) {
        size_t best = jobs[j].second.front();
        for (size_t c : jobs[j].second)
            if (load[c] < load[best])
                best = c;
        load[best] += jobs[j].first;
        to[j] = best;
    }
    return to;
}

} // namespace

Plan planCompare(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers)
{
    Plan plan;
    plan.byRank.resize(catalogs.size());
    RunInfo npuRun, benchRun;
    std::map<QString, std::vector<Seen>> npuSeen, benchSeen;
    for (const auto &[npuSide, what, run, seen] : {std::tuple{true, msg("NPU"), &npuRun, &npuSeen}, std::tuple{false, msg("bench"), &benchRun, &benchSeen}})
        if (const QString error = uniteSide(catalogs, peers, npuSide, what, *run, *seen); !error.isEmpty()) {
            plan.error = error;
            plan.code = 5;
            return plan;
        }
    const std::vector<ScopePair> pairs = pairScopes(npuRun, benchRun);
    plan.pairs = pairs.size();
    std::vector<std::pair<quint64, std::vector<size_t>>> jobs;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ScopePair &p = pairs[i];
        std::vector<size_t> withNpu, withBench;
        quint64 bytes = 0;
        if (p.npu)
            for (const Seen &s : npuSeen[p.npu->id]) {
                withNpu.push_back(s.rank);
                bytes = std::max(bytes, s.bytes);
            }
        quint64 benchBytes = 0;
        if (p.bench)
            for (const Seen &s : benchSeen[p.bench->id]) {
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
                    l << who(peers, r);
                return l.join(QStringLiteral(", "));
            };
            plan.error = msg("scope %1: no process sees both its NPU data (seen by %2) and its bench data (seen by %3); "
                            "give every process whose node holds an NPU scope a path to its bench scope")
                             .arg(scopeName(p.id), list(withNpu), list(withBench));
            plan.code = 5;
            return plan;
        }
        jobs.push_back({bytes + benchBytes, std::move(both)});
    }
    const std::vector<size_t> to = balance(jobs, catalogs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ScopePair &p = pairs[i];
        Assignment a;
        a.pair = qint32(i);
        a.id = p.id;
        a.hasNpu = p.npu != nullptr;
        a.hasBench = p.bench != nullptr;
        if (p.npu)
            a.npuId = p.npu->id;
        if (p.bench)
            a.benchId = p.bench->id;
        plan.byRank[to[i]].push_back(std::move(a));
    }
    return plan;
}

SideCatalog catalogScan(const QString &path, bool overflow, RunTree &tree, std::map<QString, std::vector<size_t>> &units)
{
    SideCatalog side;
    side.openedPath = QFileInfo(path).absoluteFilePath();
    auto found = discoverRuns(path);
    if (!found) {
        side.error = found.errorText();
        side.code = 3;
        return side;
    }
    tree = std::move(*found);
    side.openedPath = tree.walk.openedPath;
    side.rootDir = tree.walk.rootDir;
    std::vector<bool> held(tree.walk.claims.size(), false);
    std::map<QString, CatalogScope> labels;
    for (const RunInfo &run : tree.runs)
        for (const RunScope &s : run.scopes) {
            // overflow: a rank's steps are scanned together: an OpDebug record links operators of
            // its sibling directories (the other iterations of its device), and a step's first
            // anomaly can come from the rank's previous step (overflow/inputorigin.h)
            const bool cann = std::any_of(s.claims.begin(), s.claims.end(), [&](size_t c) {
                return formatReader(tree.walk.claims[c].format).opsAreFiles();
            });
            const QString rank = s.rank.isEmpty() ? QStringLiteral("\"\"") : s.rank;
            const QString scope = !overflow ? s.id : cann ? msg("%1 (every iteration)").arg(rank) : msg("%1 (every step)").arg(rank);
            const QString key = run.relPath.isEmpty() ? scope : run.relPath + QLatin1Char(':') + scope;
            auto &claims = units[key];
            claims.insert(claims.end(), s.claims.begin(), s.claims.end());
            for (size_t c : s.claims)
                held[c] = true;
            if (!labels.count(key))
                labels[key] = CatalogScope{key, s.step, s.rank, s.stepNumber, s.rankNumber, {}, 0};
        }
    for (size_t c = 0; c < held.size(); ++c)
        if (!held[c]) { // claims no run holds (no dump file name): read for their counts
            const QString key = msg("files in %1").arg(tree.walk.claims[c].relPath.isEmpty() ? QStringLiteral(".") : tree.walk.claims[c].relPath);
            units[key].push_back(c);
            labels.try_emplace(key, CatalogScope{key, {}, {}, -1, -1, {}, 0});
        }
    for (auto &[key, claims] : units) {
        std::sort(claims.begin(), claims.end());
        RunScope unit;
        unit.claims = claims;
        CatalogScope c = labels[key];
        c.fingerprint = scopeFingerprint(tree, unit, c.bytes);
        side.scopes.push_back(std::move(c));
    }
    return side;
}

Plan planScan(const std::vector<Catalog> &catalogs, const std::vector<PeerInfo> &peers)
{
    Plan plan;
    plan.byRank.resize(catalogs.size());
    RunInfo run;
    std::map<QString, std::vector<Seen>> seen;
    if (const QString error = uniteSide(catalogs, peers, true, {}, run, seen); !error.isEmpty()) {
        plan.error = error;
        plan.code = 5;
        return plan;
    }
    std::vector<std::pair<quint64, std::vector<size_t>>> jobs;
    std::vector<QString> ids;
    for (const auto &[id, who] : seen) {
        quint64 bytes = 0;
        std::vector<size_t> ranks;
        for (const Seen &s : who) {
            ranks.push_back(s.rank);
            bytes = std::max(bytes, s.bytes);
        }
        jobs.push_back({bytes, std::move(ranks)});
        ids.push_back(id);
    }
    plan.pairs = ids.size();
    const std::vector<size_t> to = balance(jobs, catalogs.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        Assignment a;
        a.pair = qint32(i);
        a.id = ids[i];
        a.npuId = ids[i];
        a.hasNpu = true;
        plan.byRank[to[i]].push_back(std::move(a));
    }
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
        // the text parts as UTF-8: half the bytes of QDataStream's UTF-16 for this ASCII text
        s << p.pair << p.npuOps << p.csv << p.json << p.divergences.toUtf8() << p.notPass.toUtf8() << quint32(p.warnings.size());
        for (const QString &w : p.warnings)
            s << w.toUtf8();
        s << p.reached << p.stack << quint32(p.cells.size());
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
        quint32 rows = 0, warnings = 0;
        QByteArray divergences, notPass;
        s >> p.pair >> p.npuOps >> p.csv >> p.json >> divergences >> notPass >> warnings;
        p.divergences = QString::fromUtf8(divergences);
        p.notPass = QString::fromUtf8(notPass);
        for (quint32 w = 0; w < warnings && s.status() == QDataStream::Ok; ++w) {
            QByteArray line;
            s >> line;
            p.warnings << QString::fromUtf8(line);
        }
        s >> p.reached >> p.stack >> rows;
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
