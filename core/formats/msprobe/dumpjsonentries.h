#pragma once
// Internal to the msprobe reader (msprobereader.cpp, dumpjsonsplit.cpp): how one dump.json
// entry becomes an OpRecord, entry by entry or through simdjson windows.

#include "dump/indexpart.h"
#include "entryrecords.h"
#include "fastjson.h"
#include "leafbuilder.h"
#include "msprobereader.h"

#include <QString>
#include <string>
#include <string_view>

namespace ds::msprobe::dumpjson {

enum class EntryKind { Forward, Backward, ParametersGrad, Debug, Other };

EntryKind entryKind(std::string_view name);
/// Only ASCII digits (not empty).
bool isNumber(std::string_view s);
/// "Functional.conv2d.0.forward" -> "Functional.conv2d"; "Module.conv1.Conv2d.forward.0" ->
/// "Conv2d"; "Module.fc.Linear.parameters_grad.1" -> "Linear"; "x_grad.0.debug" -> "x_grad".
std::string_view opTypeOf(std::string_view name);
QString qs(const std::string &name);

/// The calling thread's arena for the names of the files it reads: the names of a statistics
/// run's rank directory (2-3 KB) share blocks with the directories read before them on this
/// thread instead of starting a 64 KiB block each (1,024 ranks x 100 steps: 6.7 GB of mostly
/// empty blocks, docs/scale/graphs-runs.md). At most one partly filled block per thread stays
/// allocated while the thread lives; texts live as long as their handles.
TextArena &threadTextArena();

/// The calling thread's pool of leaves (LeafPool): the leaves of a statistics run's ranks and
/// steps (the same names, shapes and dtypes in every rank folder) are converted and allocated
/// once per thread instead of once per dump.json (issue 35 item 3: 10 % of a run compare's CPU).
/// Records keep their leaves alive whatever becomes of the pool; trimThreadLeafPool() empties
/// it after a file when it holds more than kThreadLeaves leaves, so what a thread keeps
/// between files stays small. A context takes the pool (holdThreadLeafPool) for its lifetime;
/// the pool is trimmed only when no context of the thread holds it.
LeafPool &holdThreadLeafPool();
inline constexpr size_t kThreadLeaves = 16384;
void releaseThreadLeafPool();

/// What the reading of one dump.json holds: where its records go and the pools they share.
struct DumpJsonContext
{
    DumpJsonContext() = default;
    ~DumpJsonContext() { releaseThreadLeafPool(); }
    DumpJsonContext(const DumpJsonContext &) = delete;
    DumpJsonContext &operator=(const DumpJsonContext &) = delete;

    QString relDir, relFile;
    SharedLevels levels;
    IndexPart *part = nullptr;
    const JobControl *job = nullptr;
    StringPool pool;
    LeafPool &leaves = holdThreadLeafPool(); ///< leaves shared across the files this thread reads
    TextArena &texts = threadTextArena(); ///< names share blocks across files
    PackedText dataFile;
    std::string pathPrefix; ///< "<relDir>/" in UTF-8
    std::string scratch;
    JsonEngine engine = JsonEngine::SimdJson;
    bool cancelled = false;

    void init(const QString &dir, const QString &file, const DumpLevels &l, IndexPart &p, const JobControl *j)
    {
        relDir = dir;
        relFile = file;
        levels = SharedLevels(l);
        part = &p;
        job = j;
        dataFile = texts.add(file);
        pathPrefix = dir.isEmpty() ? std::string() : dir.toStdString() + '/';
    }
};

/// Names an entry's op: one text per entry, "<relDir>/<name>"; the name and the type are
/// parts of it. Its timestamp is its position in ctx.part->ops.
void nameOp(DumpJsonContext &ctx, const std::string &name, OpRecord &op);
/// An entry from its JsonTree (the reference walk), appended to ctx.part->ops.
void convertEntry(DumpJsonContext &ctx, LeafBuilder &lb, const std::string &name, EntryKind kind, const JsonTree &t,
                  std::string &path);
/// Adds to this thread's count of entries read through windows (simdWindowEntries()).
void windowEntriesTaken(std::uint64_t n);

/// The simdjson windows of one dump.json (EntryWindow, FastJsonReader::openMemberWindow).
struct SimdState
{
    std::string closing; ///< "\n" + the entries' indentation + "},"; empty: no windows
    int failures = 0;    ///< windows that took no entry
    EntryWindow window;
    OpRecord pendingOp;  ///< the last entry read, kept until what follows it is known to be right
    std::string pendingName;
};
/// After this many windows that took nothing, the file is read entry by entry (a file whose
/// indentation misleads the window search must not pay for a search per entry).
constexpr int kSimdFailures = 16;
/// The largest window (and, in a split file, never past the next chunk: readEntryWindow's
/// `maxBytes`).
constexpr size_t kWindowBytes = size_t(256) << 10;

/// Takes the entries of one window. An entry whose value ends at the window's '}' (that byte is
/// a ',' in the file: the layout misled the window search) is not taken, and an entry is kept
/// only once the window goes on correctly after it (a ',' and the next name, or the window's
/// own end). Whatever the window refuses is left where it starts for
/// the caller's entry-by-entry reading. Returns the entries taken, -1 when cancelled.
template<typename EntryDone>
int readEntryWindow(FastJsonReader &r, DumpJsonContext &ctx, SimdState &simd, EntryRecords &records, LeafBuilder &lb,
                    OpRecord &op, JsonTree &tree, bool &firstEntry, std::string &lastEntry, EntryDone &entryDone,
                    size_t maxBytes = kWindowBytes)
{
    FastJsonReader::MemberWindow w;
    if (!r.openMemberWindow(firstEntry, simd.closing, maxBytes, w)) {
        ++simd.failures;
        return 0;
    }
    int taken = 0;
    const char *resume = w.start, *pendingEnd = nullptr;
    bool resumeFirst = firstEntry, pending = false, cancelled = false;
    if (simd.window.open(w.doc, w.len, w.capacity)) {
        for (;;) {
            std::string_view name;
            const char *nameAt = nullptr;
            const int n = simd.window.next(name, nameAt);
            if (pending && n >= 0) {
                ctx.part->ops.push_back(std::move(simd.pendingOp));
                lastEntry.swap(simd.pendingName);
                resume = pendingEnd;
                resumeFirst = pending = false;
                ++taken;
                if (!entryDone(r.offsetOf(resume))) {
                    cancelled = true;
                    break;
                }
            }
            if (n <= 0)
                break;
            const EntryKind kind = entryKind(name);
            bool inTree = false;
            if (kind == EntryKind::Debug || !simd.window.parse(records, kind == EntryKind::ParametersGrad, op, tree, inTree)
                || inTree)
                break;
            pendingEnd = simd.window.position();
            if (!pendingEnd)
                break;
            simd.pendingName.assign(name);
            nameOp(ctx, simd.pendingName, op);
            lb.finish(op);
            simd.pendingOp = std::move(op);
            pending = true;
        }
    }
    r.closeMemberWindow(w, resume);
    firstEntry = resumeFirst;
    windowEntriesTaken(std::uint64_t(taken));
    if (taken == 0)
        ++simd.failures;
    return cancelled ? -1 : taken;
}


} // namespace ds::msprobe::dumpjson
