#pragma once

#include "io/directstream.h"
#include "jsonstream.h"

#include <QString>
#include <cstdint>
#include <future>
#include <sys/types.h>
#include <memory>
#include <string>
#include <vector>

class QFile;

namespace ds::msprobe {

/// How FastJsonReader reads a file: Auto reads a file of at least kDirectReadMin bytes that is
/// mostly not in the page cache with O_DIRECT (see FastJsonReader::open()), any other through
/// the page cache; Always is for tests. The default is Auto (DS_DIRECT_READ=never|always
/// changes it): O_DIRECT saves most of the kernel CPU of a cold read (the copy out of the page
/// cache), which on the idle machine made a cold 20 GiB dump.json 1.2x faster (docs/scale/
/// files.md item 1, "Idle, cold"). The threads of a split dump.json share one sequential
/// stream (shareDirect()): two streams at two offsets read slower ("Third session", "Fourth
/// session").
enum class DirectRead { Auto, Always, Never };
void setDirectRead(DirectRead mode);
DirectRead directRead();
constexpr std::uint64_t kDirectReadMin = std::uint64_t(1) << 30;
/// The most files FastJsonReaders (and their shared streams) held open with O_DIRECT at once
/// since resetDirectReadPeak() (tests: a split dump.json is read by one O_DIRECT stream).
int directReadPeak();
void resetDirectReadPeak();

/// The reader of msprobe's JSON files (dump.json, debug.json, stack.json, construct.json):
/// RapidJSON's SAX parser, in situ, with NaN / Infinity / -Infinity accepted and numbers
/// passed as written, over blocks read from the file (never a mapping: msprobe rewrites
/// dump.json in place while it runs, and a mapped file that shrinks kills the reader with
/// SIGBUS). One value at a time goes into a JsonTree, so memory does not grow with the file.
///
/// Same operations, trees and errors as JsonStreamReader, which stays the reference: whenever
/// RapidJSON refuses something (syntax errors, a truncated file, numbers past the range of a
/// double, lone surrogates, nesting past JsonStreamReader::kMaxDepth, escaped member names,
/// RapidJSON's own extra spellings "Inf" and "-NaN"), that one operation is done again by a
/// JsonStreamReader from the same offset and its result taken: error texts, offsets,
/// truncation and Python's number semantics are exactly the tokenizer's. docs/PERFORMANCE.md
/// has the measurements behind the choice of RapidJSON.
class FastJsonReader
{
public:
    FastJsonReader();
    ~FastJsonReader();
    FastJsonReader(const FastJsonReader &) = delete;
    FastJsonReader &operator=(const FastJsonReader &) = delete;

    /// Opens a file; false with error() set ("No such file or directory") if that fails.
    /// A file read once and too large to stay in the page cache (directRead()) is read with
    /// O_DIRECT into a 4 MiB buffer: through the page cache, reading a cold file cost 0.5-1.2 s
    /// of kernel CPU per GB on the project's VM (page-cache pages allocated, filled, copied and
    /// reclaimed; O_DIRECT: 0.04-0.07 s), 10-26 s for a 20 GiB dump.json
    /// (docs/scale/files.md, item 1, "Third session").
    bool open(const QString &path);
    /// With O_DIRECT, reads ahead no further than just past `at` while it is ahead (a thread of
    /// a split dump.json: its chunk's end, after which it seeks to its next chunk).
    void setReadAheadLimit(std::uint64_t at) { m_aheadLimit = at; }
    /// The file is read with O_DIRECT (tests).
    bool readsDirect() const { return m_directFd >= 0; }
    /// The threads of a split dump.json read it as one sequential O_DIRECT stream: a reader that
    /// reads with O_DIRECT hands its file descriptor to a DirectStream (core/io/directstream.h)
    /// that reads the file from where this reader's reads ended (`ranges`: which parser reads
    /// which bytes; this reader is parser 0) and takes its blocks from it from now on.
    /// nullptr if this reader does not read with O_DIRECT.
    std::shared_ptr<ds::DirectStream> shareDirect(std::vector<ds::DirectStream::Range> ranges, int parsers);
    /// Opens `path` to read the blocks `stream` hands to `parser` (nullptr: through the page
    /// cache, never with an O_DIRECT descriptor of its own).
    bool openShared(const QString &path, std::shared_ptr<ds::DirectStream> stream, int parser);
    /// Reads from a byte array (tests, small inputs).
    void setData(std::string data);
    /// Reads from bytes that outlive the reader (another reader's input(): no copy).
    void setView(std::string_view data);
    /// Goes on reading at byte `at` (the threads of a split dump.json start at their chunk).
    void seek(std::uint64_t at) { load(at, 1); }
    /// The file being read (empty when reading from memory) and the input in memory.
    const QString &path() const { return m_path; }
    std::string_view input() const { return m_view; }

    std::uint64_t size() const { return m_size; }
    std::uint64_t offset() const { return m_base + m_pos; }

    /// Skips white space; the next byte, or -1 at the end of the input (or on a read error).
    int peekToken();
    /// Consumes `c` (after white space) or fails.
    bool expect(char c);
    bool beginObject() { return expect('{'); }
    /// As JsonStreamReader::nextMember: 1 = `key` holds the next member's name and its value
    /// follows, 0 = the object ended, -1 = error.
    int nextMember(std::string &key, bool &first);
    /// Parses the next value completely into `tree` (cleared first).
    bool parseValue(JsonTree &tree);
    /// Parses the next value with a RapidJSON SAX handler (defined in fastjsonsax.h, for the
    /// readers' own .cpp files). `handler.reset()` is called before every attempt (a value
    /// that crosses the end of the buffer is parsed again after reading on); a handler that
    /// returns false stops RapidJSON. Whenever RapidJSON (or the handler) refuses the value,
    /// the tokenizer parses it into `tree` instead and `viaTree` is set: the caller then
    /// takes the value from the tree. Same results and errors as parseValue().
    template<typename Handler>
    bool parseSax(Handler &handler, JsonTree &tree, bool &viaTree);

    /// A run of whole members of the object being read, in place in the buffer as the JSON
    /// document `{"name": value, ..., "name": value}` for simdjson (EntryWindow): the byte
    /// before the first member (the ',' or white space) becomes '{' and the ',' after the
    /// last one '}' until closeMemberWindow(). Members end where `closing` ("\n" + the members'
    /// indentation + "},") says, so only files written with indentation have windows; at most
    /// `maxBytes`, with at least SimdJSON's padding of readable bytes after the document.
    struct MemberWindow
    {
        char *doc = nullptr;
        size_t len = 0, capacity = 0;
        char *openAt = nullptr, *closeAt = nullptr;
        char open = 0, close = 0; ///< the bytes they replaced
        const char *start = nullptr; ///< where reading resumes if no member is taken
    };
    /// `first`: no member of the object has been read yet. false: no window here.
    bool openMemberWindow(bool first, std::string_view closing, size_t maxBytes, MemberWindow &w);
    /// Puts the two bytes back and goes on reading at `resume` (a pointer into the window:
    /// its `start`, or the ',' / '}' after a member).
    void closeMemberWindow(const MemberWindow &w, const char *resume);
    /// The members' indentation ("\n" and the white space before the next member's name),
    /// empty when the next member does not start a line. Call before the first member.
    std::string memberIndent();
    /// The input offset of a pointer into the current window.
    std::uint64_t offsetOf(const char *p) const { return m_base + std::uint64_t(p - m_buf.get()); }

    const QString &error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }
    bool hitEnd() const { return m_hitEnd; }

    /// How many operations the reference tokenizer did (tests, benchmarks).
    std::uint64_t fallbacks() const { return m_fallbacks; }

private:
    /// (Re)reads the input from byte `at` into the buffer: at least `want` bytes unless the
    /// input ends first.
    void load(std::uint64_t at, size_t want);
    /// Moves the unread rest of the buffer to its start and fills it up from the file.
    void slide();
    int skipWhiteSpace();
    /// Up to `len` bytes of the file at `at` into `dst` (fewer at its end or on a read error).
    size_t readAt(char *dst, size_t len, std::uint64_t at);
    /// readAt() through the O_DIRECT buffer; stops early (and reads through the page cache
    /// from then on) if O_DIRECT fails.
    size_t readDirect(char *dst, size_t len, std::uint64_t at);
    void closeDirect();
    bool openFile(const QString &path, bool mayReadDirect);
    /// Attaches the reader to `stream` as `parser` (its O_DIRECT reads come from there).
    void attach(std::shared_ptr<ds::DirectStream> stream, int parser);
    /// Runs `op` on a JsonStreamReader positioned at `at` and adopts its outcome.
    template<typename Op>
    auto viaTokenizer(std::uint64_t at, Op op) -> decltype(op(std::declval<JsonStreamReader &>()));

    std::unique_ptr<QFile> m_file;
    int m_directFd = -1; ///< the file opened with O_DIRECT, -1: read through the page cache
    struct FreeDeleter
    {
        void operator()(char *p) const;
    };
    std::unique_ptr<char, FreeDeleter> m_direct; ///< aligned buffer of kDirectBuffer bytes
    std::uint64_t m_directAt = 0; ///< the file offset of m_direct's first byte
    size_t m_directLen = 0;
    std::unique_ptr<char, FreeDeleter> m_ahead; ///< the next kDirectBuffer bytes, read ahead
    std::uint64_t m_aheadAt = 0, m_aheadLimit = 0;
    size_t m_aheadLen = 0;
    std::future<ssize_t> m_aheadRead; ///< the read into m_ahead while the reader parses
    std::shared_ptr<ds::DirectStream> m_stream; ///< shareDirect()/openShared(): m_directFd is its own
    int m_parser = -1;
    ds::DirectStream::BlockPtr m_block; ///< the stream's block being read (else m_direct is)
    QString m_path;
    std::string m_data; ///< setData(): the pristine input (in-situ parsing changes the buffer)
    std::string_view m_view; ///< the input in memory (m_data, or setView()'s)
    std::unique_ptr<char[]> m_buf;
    size_t m_cap = 0, m_len = 0, m_pos = 0;
    std::uint64_t m_base = 0, m_size = 0;
    bool m_eof = false;
    QString m_error;
    std::uint64_t m_errorOffset = 0;
    bool m_hitEnd = false;
    std::uint64_t m_fallbacks = 0;
};

} // namespace ds::msprobe
