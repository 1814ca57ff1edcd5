#pragma once

#include "dump/indexpart.h"

#include "dump/records.h"
#include "util/cancel.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ds {

// How dump.json entries become records (msprobe.md §3; the oracle in
// samples/generate_msprobe.py implements the same rules independently):
// - OpRecord: opName = entry name, relPath = "<relDir>/<entry>", dataFile = the JSON file,
//   timestamp = position in the file (dump.json, then debug.json), opType = "Functional.conv2d"
//   for APIs, the class ("Conv2d") for modules and parameters_grad, the variable for debug.
// - One TensorRecord per leaf, named by its JSON path below the category: "input_args.0",
//   "input_kwargs.dim", "output.0.1", "parameters.weight", backward "input.0"/"output.2".
//   parameters_grad leaves are named by the parameter ("weight"; the one-element list is
//   unwrapped) with IoKind::Parameter; debug.json values are "debug", "debug.key2.0" (Output).
//   `index` counts all leaves of the same IoKind, tensors and values alike.
// - Tensors (type ending in "Tensor", numpy.ndarray, or dtype + shape): typeName = dtype text,
//   dataType from it, shape, recorded Max/Min/Mean/Norm (null = absent, true/false = 1/0,
//   NaN/Infinity tokens and "nan"/"inf" strings), checksum = md5, storage PtFile/NpyFile with
//   location "<relDir>/dump_tensor_data/<data_name>" (not checked on disk) or Absent; `value`
//   = the other members as Python-style JSON (`{"type": "torch.Tensor", "requires_grad":
//   false}`, DTensor device_mesh/placements, Gen C is_nan).
// - Other leaves: storage Value, typeName = "type" ("int", "slice", "torch.dtype", ...), value
//   = the "value" member (strings as is, anything else as JSON text: "[0, 3, 2]", "NaN"), or
//   the only other member ("contiguous_format"), or the other members as JSON (ProcessGroup).
//   null -> typeName "None", value "null"; {} -> typeName "opaque", value "{}". P2POp
//   ({"class_type": ...}) -> a Value with class_type as typeName and its op/peer/tag/group_id,
//   plus its tensor as the leaf "<path>.tensor".
// - Entry-level flags that are not containers (is_recompute, is_nan) are not records.


/// A call-stack line of stack.json: `File {path}, line {line}, in {func}, \n {code}`.
struct StackFrame
{
    QString path;
    int line = 0;
    QString func, code;
    bool operator==(const StackFrame &) const = default;
};
/// Parses one stack line (msprobe.md §4); nullopt if it does not have that shape (e.g.
/// "The call stack retrieval failed.").
std::optional<StackFrame> parseStackLine(const QString &line);

namespace msprobe {

/// Cheap check (one or two stats): the directory holds a Gen B/C dump (dump.json or
/// debug.json). Detection order of msprobe.md §1: check this before ptdbg.
bool looksLikeMsprobeRankDir(const QString &dir);
/// Gen C: the directory name is `proc{pid}`.
bool isGenerationC(const QString &dir);

/// Reads `rootDir/relDir` (a `rank*`/`proc*` directory): dump.json, debug.json, stack.json,
/// construct.json. Tensor files are `relDir/dump_tensor_data/<data_name>` (not checked).
/// Fails only if the directory holds neither dump.json nor debug.json, or when cancelled;
/// unreadable or truncated files become `errors` (with all complete entries salvaged).
Result<IndexPart> indexRankDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                   const JobControl *job = nullptr);

/// Which JSON reader parses and how entries become records:
/// - SimdJson (what files are read with): as RapidJson, but runs of whole entries are read by
///   simdjson's On Demand parser into the same events (EntryWindow); whatever it does not
///   take is read as RapidJson reads it;
/// - RapidJson: FastJsonReader, entries streamed into records from RapidJSON's events
///   (EntryRecords), the tokenizer where RapidJSON refuses;
/// - RapidJsonTree: FastJsonReader, every entry parsed into a JsonTree first, then walked;
/// - Tokenizer: the reference JsonStreamReader into JsonTrees, then walked.
/// Tests compare the four; bench_msprobe --readers times them on the same file.
enum class JsonEngine { SimdJson, RapidJson, Tokenizer, RapidJsonTree };

/// Parses one dump.json / debug.json file into `part` (ops appended, sequence numbers
/// continue from `part.ops.size()`). `relDir` is the file's directory relative to the root,
/// `relFile` the file relative to the root. Returns false if the file could not be read
/// completely (the error is appended to part.errors, complete entries are kept).
/// `engine`: how (tests and benchmarks; files are read with SimdJson).
bool readDumpJson(const QString &absFile, const QString &relDir, const QString &relFile, const DumpLevels &levels,
                  IndexPart &part, const JobControl *job = nullptr, JsonEngine engine = JsonEngine::SimdJson);


/// How many entries this thread has read through simdjson windows (SimdJson; tests and
/// benchmarks check that the windows are used).
std::uint64_t simdWindowEntries();

/// How a large dump.json is read on several threads (dumpjsonsplit.h): a file whose "data"
/// object holds more than `threshold` bytes is cut into chunks of about `chunkBytes`, read by
/// `threads` threads (0: QThread::idealThreadCount(); 1: no split). Tests and the fuzz harness
/// force small values; the records and errors are the same either way.
struct DumpJsonSplitSettings
{
    std::uint64_t threshold = std::uint64_t(64) << 20;
    std::uint64_t chunkBytes = std::uint64_t(32) << 20;
    int threads = 0;
    /// Tests: the reading thread waits for a worker's chunk even when the worker has not
    /// started it yet (otherwise it reads such a chunk itself rather than wait).
    bool waitForWorkers = false;
};
void setDumpJsonSplit(const DumpJsonSplitSettings &settings);
DumpJsonSplitSettings dumpJsonSplit();
/// How many chunks this thread has taken from worker threads (tests check the split is used).
std::uint64_t splitChunksTaken();

/// The same for JSON text in memory (tests).
bool readDumpJsonText(std::string text, const QString &relDir, const QString &relFile, const DumpLevels &levels,
                      IndexPart &part, JsonEngine engine = JsonEngine::SimdJson);

/// Maps a recorded dtype text ("torch.float32", "Float16", "float32", "<class 'int'>") to a
/// DataType value; Undefined (0) when unknown.
int dataTypeFromText(QStringView text);

/// The forward entry whose stack a backward entry uses (msprobe.md §4):
/// `X.n.backward` -> `X.n.forward`, `Module.p.C.backward.n` -> `Module.p.C.forward.n`;
/// empty for other names.
QString forwardTwin(const QString &entry);

} // namespace msprobe

namespace ptdbg {

/// The directory holds a ptdbg_ascend rank dump: `dump.pkl`, `*_dump.pkl`, or overflow
/// `{api_type}_{api}_{n}_{fwd|bwd|forward|backward}_{k}.pkl` files.
bool looksLikePtdbgRankDir(const QString &dir);
/// `forward_info_{pid}.json`, `backward_info_{pid}.json` (api_accuracy_checker overflow info).
bool isOverflowInfoFile(const QString &fileName);

/// Reads a Gen A rank directory: dump.pkl (or `*_dump.pkl`) with tensors in `dump/*.npy`,
/// and per-API overflow `.pkl` files with tensors in the same-name directory.
Result<IndexPart> indexRankDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                   const JobControl *job = nullptr);

/// Parses dump.pkl line-JSON text. `tensorDir` is where `{name}.npy` files are (relative to
/// the root; empty = no tensor files, storage Absent). `relPathDir` prefixes the ops' virtual
/// paths. Lines that are not valid become one error per file (with the line number).
void readDumpPkl(const QByteArray &text, const QString &relPathDir, const QString &relFile, const QString &tensorDir,
                 const DumpLevels &levels, IndexPart &part);

/// Reads a `forward_info_{pid}.json` / `backward_info_{pid}.json` (concatenated JSON objects
/// tolerated). `relFile` is relative to the root.
Result<IndexPart> indexOverflowInfo(const QString &rootDir, const QString &relFile, const DumpLevels &levels,
                                        const JobControl *job = nullptr);

} // namespace ptdbg
} // namespace ds
