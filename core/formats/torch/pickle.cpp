#include "pickle.h"

#include "tensor/dtype.h"

#include <QHash>

#include <bit>
#include <cstring>
#include <limits>

namespace ds {

namespace {

struct NameType
{
    const char *name;
    DataType type;
};

// torch.<dtype> names (the spellings torch.dtype pickles to, plus aliases).
constexpr NameType kDtypes[] = {
    {"float32", DataType::Float32}, {"float", DataType::Float32}, {"float64", DataType::Float64},
    {"double", DataType::Float64}, {"float16", DataType::Float16}, {"half", DataType::Float16},
    {"bfloat16", DataType::BFloat16}, {"int8", DataType::Int8}, {"uint8", DataType::UInt8},
    {"int16", DataType::Int16}, {"short", DataType::Int16}, {"int32", DataType::Int32},
    {"int", DataType::Int32}, {"int64", DataType::Int64}, {"long", DataType::Int64},
    {"uint16", DataType::UInt16}, {"uint32", DataType::UInt32}, {"uint64", DataType::UInt64},
    {"bool", DataType::Bool}, {"complex32", DataType::Complex32}, {"chalf", DataType::Complex32},
    {"complex64", DataType::Complex64}, {"cfloat", DataType::Complex64},
    {"complex128", DataType::Complex128}, {"cdouble", DataType::Complex128},
    {"float8_e4m3fn", DataType::Float8E4M3FN}, {"float8_e5m2", DataType::Float8E5M2},
    {"float8_e8m0fnu", DataType::Float8E8M0}, {"qint8", DataType::QInt8}, {"quint8", DataType::QUInt8},
    {"qint32", DataType::QInt32},
};

// torch.<X>Storage typed storage classes (msprobe.md §7.4). The packed quint4x2/quint2x4
// storages have no DataType and are refused like any unknown global.
constexpr NameType kStorages[] = {
    {"DoubleStorage", DataType::Float64}, {"FloatStorage", DataType::Float32},
    {"HalfStorage", DataType::Float16}, {"BFloat16Storage", DataType::BFloat16},
    {"LongStorage", DataType::Int64}, {"IntStorage", DataType::Int32},
    {"ShortStorage", DataType::Int16}, {"CharStorage", DataType::Int8},
    {"ByteStorage", DataType::UInt8}, {"BoolStorage", DataType::Bool},
    {"ComplexDoubleStorage", DataType::Complex128}, {"ComplexFloatStorage", DataType::Complex64},
    {"QInt8Storage", DataType::QInt8}, {"QUInt8Storage", DataType::QUInt8},
    {"QInt32Storage", DataType::QInt32},
};

int lookup(QByteArrayView name, const auto &table)
{
    for (const NameType &e : table)
        if (name == QByteArrayView(e.name))
            return int(e.type);
    return 0;
}

enum class Kind : std::uint8_t { None, Bool, Int, BigInt, Float, String, Tuple, List, Dict, Global, Storage, Tensor };

enum class Tag : std::uint8_t { None, RebuildV2, RebuildV3, RebuildParameter, RebuildNpu, OrderedDict, StorageClass, UntypedStorage, Dtype };

using Ref = std::uint32_t;

struct Obj
{
    Kind kind = Kind::None;
    Tag tag = Tag::None;
    int dataType = 0;            ///< Global StorageClass/Dtype, Storage
    std::int64_t i = 0;          ///< Int/Bool value; Storage bytes; Tensor: index into descs
    double f = 0;
    QByteArray s;                ///< String; Global "module.name"; Storage key
    std::vector<Ref> items;      ///< Tuple/List items; Dict: key, value, key, value, ...
};

QString kindName(Kind k)
{
    switch (k) {
    case Kind::None: return QStringLiteral("None");
    case Kind::Bool: return QStringLiteral("bool");
    case Kind::Int: case Kind::BigInt: return QStringLiteral("int");
    case Kind::Float: return QStringLiteral("float");
    case Kind::String: return QStringLiteral("str");
    case Kind::Tuple: return QStringLiteral("tuple");
    case Kind::List: return QStringLiteral("list");
    case Kind::Dict: return QStringLiteral("dict");
    case Kind::Global: return QStringLiteral("global");
    case Kind::Storage: return QStringLiteral("storage");
    case Kind::Tensor: return QStringLiteral("tensor");
    }
    return QString();
}

class Machine
{
public:
    Machine(const std::byte *data, std::uint64_t size, const PickleLimits &limits)
        : m_data(data), m_size(size), m_limits(limits)
    {
    }

    Result<std::vector<TorchTensorDesc>> run();

private:
    struct Failure
    {
        QString message;
        ErrorKind kind = ErrorKind::Corrupt;
    };
    [[noreturn]] void fail(QString message) { throw Failure{std::move(message)}; }
    /// Something the data-only interpreter will not do (a global outside the allowlist, a call).
    [[noreturn]] void refuse(QString message) { throw Failure{std::move(message), ErrorKind::Unsafe}; }

    const std::byte *need(std::uint64_t n)
    {
        if (n > m_size - m_pos)
            fail(QStringLiteral("pickle is truncated at offset %1").arg(m_pos));
        const std::byte *p = m_data + m_pos;
        m_pos += n;
        return p;
    }
    std::uint64_t readLe(int n)
    {
        const std::byte *p = need(std::uint64_t(n));
        std::uint64_t v = 0;
        for (int k = n - 1; k >= 0; --k)
            v = (v << 8) | std::uint64_t(p[k]);
        return v;
    }
    QByteArray readLine()
    {
        const std::uint64_t start = m_pos;
        const std::uint64_t limit = std::min(m_size - m_pos, m_limits.maxString);
        for (std::uint64_t k = 0; k < limit; ++k) {
            if (m_data[start + k] == std::byte('\n')) {
                m_pos = start + k + 1;
                return QByteArray(reinterpret_cast<const char *>(m_data + start), qsizetype(k));
            }
        }
        fail(QStringLiteral("unterminated GLOBAL name at offset %1").arg(start));
    }
    QByteArray readString(std::uint64_t len, std::uint64_t at)
    {
        if (len > m_limits.maxString)
            fail(QStringLiteral("string of %1 bytes at offset %2 exceeds the limit of %3").arg(len).arg(at).arg(m_limits.maxString));
        const std::byte *p = need(len);
        return QByteArray(reinterpret_cast<const char *>(p), qsizetype(len));
    }

    Ref make(Obj o)
    {
        if (m_objects.size() >= m_limits.maxObjects)
            fail(QStringLiteral("pickle creates more than %1 objects").arg(m_limits.maxObjects));
        m_objects.push_back(std::move(o));
        return Ref(m_objects.size() - 1);
    }
    Ref makeInt(std::int64_t v)
    {
        Obj o;
        o.kind = Kind::Int;
        o.i = v;
        return make(std::move(o));
    }
    void push(Ref r)
    {
        if (m_stack.size() >= m_limits.maxStack)
            fail(QStringLiteral("pickle stack deeper than %1 at offset %2").arg(m_limits.maxStack).arg(m_op));
        m_stack.push_back(r);
    }
    Ref pop()
    {
        if (m_stack.size() <= currentMark())
            fail(QStringLiteral("pickle stack underflow at offset %1").arg(m_op));
        const Ref r = m_stack.back();
        m_stack.pop_back();
        return r;
    }
    Ref top()
    {
        if (m_stack.size() <= currentMark())
            fail(QStringLiteral("pickle stack underflow at offset %1").arg(m_op));
        return m_stack.back();
    }
    size_t currentMark() const { return m_marks.empty() ? 0 : m_marks.back(); }
    std::vector<Ref> popToMark()
    {
        if (m_marks.empty())
            fail(QStringLiteral("no MARK for the opcode at offset %1").arg(m_op));
        const size_t mark = m_marks.back();
        m_marks.pop_back();
        std::vector<Ref> items(m_stack.begin() + std::ptrdiff_t(mark), m_stack.end());
        m_stack.resize(mark);
        return items;
    }
    void memoPut(std::uint64_t key)
    {
        const Ref r = top();
        auto it = m_memo.find(key);
        if (it == m_memo.end()) {
            if (std::uint64_t(m_memo.size()) >= m_limits.maxMemo)
                fail(QStringLiteral("pickle memo exceeds %1 entries").arg(m_limits.maxMemo));
            m_memo.insert(key, r);
        } else {
            *it = r;
        }
    }
    void memoGet(std::uint64_t key)
    {
        auto it = m_memo.constFind(key);
        if (it == m_memo.constEnd())
            fail(QStringLiteral("pickle memo has no entry %1 (offset %2)").arg(key).arg(m_op));
        push(*it);
    }
    Ref makeTuple(std::vector<Ref> items)
    {
        Obj o;
        o.kind = Kind::Tuple;
        o.items = std::move(items);
        return make(std::move(o));
    }

    Ref resolveGlobal(const QByteArray &module, const QByteArray &name);
    Ref persistentLoad(Ref pid);
    Ref reduce(Ref callable, Ref args);
    Ref rebuildTensor(Tag tag, const std::vector<Ref> &args);
    std::int64_t intArg(Ref r, const char *what, const QString &fn);
    std::vector<std::uint64_t> dimsArg(Ref r, const char *what, const QString &fn);
    void collect(Ref r, const QString &path, int depth, std::vector<TorchTensorDesc> &out, std::uint64_t &visits);

    const std::byte *m_data;
    std::uint64_t m_size;
    PickleLimits m_limits;
    std::uint64_t m_pos = 0, m_op = 0;
    std::vector<Obj> m_objects;
    std::vector<Ref> m_stack;
    std::vector<size_t> m_marks;
    QHash<std::uint64_t, Ref> m_memo;
    std::vector<TorchTensorDesc> m_descs;
};

Ref Machine::resolveGlobal(const QByteArray &module, const QByteArray &name)
{
    Obj g;
    g.kind = Kind::Global;
    g.s = module + '.' + name;
    if (module == "torch._utils") {
        if (name == "_rebuild_tensor_v2")
            g.tag = Tag::RebuildV2;
        else if (name == "_rebuild_tensor_v3")
            g.tag = Tag::RebuildV3;
        else if (name == "_rebuild_parameter")
            g.tag = Tag::RebuildParameter;
    } else if (module == "torch_npu.utils.storage" && name == "_rebuild_npu_tensor") {
        g.tag = Tag::RebuildNpu;
    } else if (module == "collections" && name == "OrderedDict") {
        g.tag = Tag::OrderedDict;
    } else if (module == "torch") {
        if (name == "UntypedStorage") {
            g.tag = Tag::UntypedStorage;
        } else if (const int st = torchStorageToDataType(name)) {
            g.tag = Tag::StorageClass;
            g.dataType = st;
        } else if (const int dt = torchDtypeToDataType(name)) {
            g.tag = Tag::Dtype;
            g.dataType = dt;
        }
    }
    if (g.tag == Tag::None) {
        QString shown = QString::fromUtf8(g.s);
        if (shown.size() > 200)
            shown = shown.left(200) + QStringLiteral("...");
        refuse(QStringLiteral("unsafe or unsupported global `%1` at offset %2").arg(shown).arg(m_op));
    }
    return make(std::move(g));
}

Ref Machine::persistentLoad(Ref pidRef)
{
    const Obj &pid = m_objects[pidRef];
    const auto bad = [&](const QString &why) {
        fail(QStringLiteral("unsupported persistent id at offset %1: %2").arg(m_op).arg(why));
    };
    if (pid.kind != Kind::Tuple || pid.items.size() != 5)
        bad(QStringLiteral("expected a 5-tuple ('storage', class, key, location, numel)"));
    const Obj &typeName = m_objects[pid.items[0]];
    const Obj &cls = m_objects[pid.items[1]];
    const Obj &key = m_objects[pid.items[2]];
    const Obj &numel = m_objects[pid.items[4]];
    if (typeName.kind != Kind::String || typeName.s != "storage")
        bad(QStringLiteral("the first element is not 'storage'"));
    if (cls.kind != Kind::Global || (cls.tag != Tag::StorageClass && cls.tag != Tag::UntypedStorage))
        bad(QStringLiteral("the second element is not a storage class"));
    if (key.kind != Kind::String)
        bad(QStringLiteral("the storage key is not a string"));
    if (numel.kind != Kind::Int || numel.i < 0)
        bad(QStringLiteral("the storage size is not a non-negative integer"));
    Obj s;
    s.kind = Kind::Storage;
    s.dataType = cls.tag == Tag::StorageClass ? cls.dataType : 0;
    s.s = key.s;
    const std::uint64_t item = s.dataType ? std::uint64_t(dataTypeInfo(s.dataType).bits / 8) : 1;
    const std::uint64_t n = std::uint64_t(numel.i);
    if (n > std::uint64_t(std::numeric_limits<std::int64_t>::max()) / item)
        bad(QStringLiteral("the storage size overflows"));
    s.i = std::int64_t(n * item);
    return make(std::move(s));
}

std::int64_t Machine::intArg(Ref r, const char *what, const QString &fn)
{
    const Obj &o = m_objects[r];
    if (o.kind != Kind::Int || o.i < 0)
        fail(QStringLiteral("%1: %2 is not a non-negative integer (offset %3)").arg(fn, QLatin1String(what)).arg(m_op));
    return o.i;
}

std::vector<std::uint64_t> Machine::dimsArg(Ref r, const char *what, const QString &fn)
{
    const Obj &o = m_objects[r];
    if (o.kind != Kind::Tuple && o.kind != Kind::List)
        fail(QStringLiteral("%1: %2 is a %3, not a tuple (offset %4)").arg(fn, QLatin1String(what), kindName(o.kind)).arg(m_op));
    std::vector<std::uint64_t> dims;
    dims.reserve(o.items.size());
    for (Ref item : o.items)
        dims.push_back(std::uint64_t(intArg(item, what, fn)));
    return dims;
}

Ref Machine::rebuildTensor(Tag tag, const std::vector<Ref> &args)
{
    const QString fn = tag == Tag::RebuildV3 ? QStringLiteral("_rebuild_tensor_v3")
                       : tag == Tag::RebuildNpu ? QStringLiteral("_rebuild_npu_tensor")
                                                : QStringLiteral("_rebuild_tensor_v2");
    const size_t needed = tag == Tag::RebuildV3 ? 7 : 4;
    if (args.size() < needed)
        fail(QStringLiteral("%1 called with %2 arguments, expected at least %3 (offset %4)").arg(fn).arg(args.size()).arg(needed).arg(m_op));
    const Obj &storage = m_objects[args[0]];
    if (storage.kind != Kind::Storage)
        fail(QStringLiteral("%1: the first argument is a %2, not a storage (offset %3)").arg(fn, kindName(storage.kind)).arg(m_op));
    TorchTensorDesc d;
    d.storageKey = storage.s;
    d.storageBytes = std::uint64_t(storage.i);
    d.dataType = storage.dataType;
    d.storageOffset = std::uint64_t(intArg(args[1], "storage_offset", fn));
    d.shape = dimsArg(args[2], "size", fn);
    d.strides = dimsArg(args[3], "stride", fn);
    if (d.shape.size() != d.strides.size())
        fail(QStringLiteral("%1: size has %2 dimensions but stride has %3 (offset %4)").arg(fn).arg(d.shape.size()).arg(d.strides.size()).arg(m_op));
    if (args.size() > 4 && m_objects[args[4]].kind == Kind::Bool)
        d.requiresGrad = m_objects[args[4]].i != 0;
    if (tag == Tag::RebuildV3) {
        const Obj &dtype = m_objects[args[6]];
        if (dtype.kind != Kind::Global || dtype.tag != Tag::Dtype)
            fail(QStringLiteral("%1: the dtype argument is a %2, not a torch dtype (offset %3)").arg(fn, kindName(dtype.kind)).arg(m_op));
        d.dataType = dtype.dataType;
    } else if (d.dataType == 0) {
        fail(QStringLiteral("%1 on an untyped storage has no dtype (offset %2)").arg(fn).arg(m_op));
    }
    Obj t;
    t.kind = Kind::Tensor;
    t.i = std::int64_t(m_descs.size());
    m_descs.push_back(std::move(d));
    return make(std::move(t));
}

Ref Machine::reduce(Ref callableRef, Ref argsRef)
{
    const Obj &callable = m_objects[callableRef];
    const Obj &argsObj = m_objects[argsRef];
    if (callable.kind != Kind::Global)
        refuse(QStringLiteral("REDUCE on a %1 is not allowed (offset %2)").arg(kindName(callable.kind)).arg(m_op));
    if (argsObj.kind != Kind::Tuple)
        fail(QStringLiteral("REDUCE arguments are a %1, not a tuple (offset %2)").arg(kindName(argsObj.kind)).arg(m_op));
    const std::vector<Ref> args = argsObj.items;
    switch (callable.tag) {
    case Tag::RebuildV2:
    case Tag::RebuildV3:
    case Tag::RebuildNpu:
        return rebuildTensor(callable.tag, args);
    case Tag::RebuildParameter:
        if (args.empty() || m_objects[args[0]].kind != Kind::Tensor)
            fail(QStringLiteral("_rebuild_parameter needs a tensor argument (offset %1)").arg(m_op));
        return args[0];
    case Tag::OrderedDict: {
        if (!args.empty())
            fail(QStringLiteral("OrderedDict with arguments is not supported (offset %1)").arg(m_op));
        Obj d;
        d.kind = Kind::Dict;
        return make(std::move(d));
    }
    default:
        break;
    }
    refuse(QStringLiteral("calling `%1` is not allowed (offset %2)").arg(QString::fromUtf8(callable.s)).arg(m_op));
}

void Machine::collect(Ref r, const QString &path, int depth, std::vector<TorchTensorDesc> &out, std::uint64_t &visits)
{
    if (++visits > m_limits.maxObjects)
        fail(QStringLiteral("the pickled object has more than %1 elements").arg(m_limits.maxObjects));
    const Obj &o = m_objects[r];
    const auto join = [&](const QString &key) { return path.isEmpty() ? key : path + QLatin1Char('.') + key; };
    switch (o.kind) {
    case Kind::Tensor: {
        if (out.size() >= m_limits.maxTensors)
            fail(QStringLiteral("the pickled object holds more than %1 tensors").arg(m_limits.maxTensors));
        TorchTensorDesc d = m_descs[size_t(o.i)];
        d.path = path;
        out.push_back(std::move(d));
        return;
    }
    case Kind::Tuple:
    case Kind::List:
    case Kind::Dict:
        if (depth >= m_limits.maxNesting)
            fail(QStringLiteral("the pickled object nests deeper than %1 levels").arg(m_limits.maxNesting));
        break;
    default:
        return; // non-tensor leaves (ints, strings, None) carry no data
    }
    if (o.kind == Kind::Dict) {
        for (size_t k = 0; k + 1 < o.items.size(); k += 2) {
            const Obj &key = m_objects[o.items[k]];
            QString text;
            switch (key.kind) {
            case Kind::String: text = QString::fromUtf8(key.s); break;
            case Kind::Int: text = QString::number(key.i); break;
            case Kind::Bool: text = key.i ? QStringLiteral("True") : QStringLiteral("False"); break;
            case Kind::None: text = QStringLiteral("None"); break;
            case Kind::Float: text = QString::number(key.f); break;
            default: text = QStringLiteral("<%1>").arg(kindName(key.kind)); break;
            }
            collect(o.items[k + 1], join(text), depth + 1, out, visits);
        }
    } else {
        for (size_t k = 0; k < o.items.size(); ++k)
            collect(o.items[k], join(QString::number(k)), depth + 1, out, visits);
    }
}

Result<std::vector<TorchTensorDesc>> Machine::run()
{
    using R = Result<std::vector<TorchTensorDesc>>;
    if (m_size > m_limits.maxPickleBytes)
        return R::failure(QStringLiteral("pickle is %1 bytes, more than the limit of %2").arg(m_size).arg(m_limits.maxPickleBytes));
    try {
        for (;;) {
            m_op = m_pos;
            const auto op = std::uint8_t(*need(1));
            switch (op) {
            case 0x80: { // PROTO
                const auto v = std::uint8_t(*need(1));
                if (v > 5)
                    fail(QStringLiteral("unsupported pickle protocol %1").arg(v));
                break;
            }
            case 0x95: // FRAME: the frame length is only a read-ahead hint
                readLe(8);
                break;
            case 'c': { // GLOBAL
                const QByteArray module = readLine();
                const QByteArray name = readLine();
                push(resolveGlobal(module, name));
                break;
            }
            case 0x93: { // STACK_GLOBAL
                const Ref name = pop();
                const Ref module = pop();
                if (m_objects[name].kind != Kind::String || m_objects[module].kind != Kind::String)
                    fail(QStringLiteral("STACK_GLOBAL needs two strings (offset %1)").arg(m_op));
                push(resolveGlobal(m_objects[module].s, m_objects[name].s));
                break;
            }
            case 'q': memoPut(readLe(1)); break;    // BINPUT
            case 'r': memoPut(readLe(4)); break;    // LONG_BINPUT
            case 0x94: memoPut(m_memo.size()); break; // MEMOIZE
            case 'h': memoGet(readLe(1)); break;    // BINGET
            case 'j': memoGet(readLe(4)); break;    // LONG_BINGET
            case '(': // MARK
                if (m_marks.size() >= m_limits.maxStack)
                    fail(QStringLiteral("pickle marks deeper than %1 at offset %2").arg(m_limits.maxStack).arg(m_op));
                m_marks.push_back(m_stack.size());
                break;
            case ')': push(makeTuple({})); break; // EMPTY_TUPLE
            case 0x85: { // TUPLE1
                const Ref a = pop();
                push(makeTuple({a}));
                break;
            }
            case 0x86: { // TUPLE2
                const Ref b = pop();
                const Ref a = pop();
                push(makeTuple({a, b}));
                break;
            }
            case 0x87: { // TUPLE3
                const Ref c = pop();
                const Ref b = pop();
                const Ref a = pop();
                push(makeTuple({a, b, c}));
                break;
            }
            case 't': push(makeTuple(popToMark())); break; // TUPLE
            case 'K': push(makeInt(std::int64_t(readLe(1)))); break; // BININT1
            case 'M': push(makeInt(std::int64_t(readLe(2)))); break; // BININT2
            case 'J': push(makeInt(std::int64_t(std::int32_t(std::uint32_t(readLe(4)))))); break; // BININT
            case 0x8A: { // LONG1: little-endian two's complement
                const std::uint64_t n = readLe(1);
                const std::byte *p = need(n);
                Obj o;
                o.kind = Kind::Int;
                if (n == 0) {
                    o.i = 0;
                } else {
                    const bool negative = (std::uint8_t(p[n - 1]) & 0x80) != 0;
                    // Bytes beyond the eighth must be pure sign extension to fit in 64 bits.
                    for (std::uint64_t k = 8; k < n; ++k)
                        if (std::uint8_t(p[k]) != (negative ? 0xFF : 0x00))
                            o.kind = Kind::BigInt;
                    std::uint64_t v = negative ? ~std::uint64_t(0) : 0;
                    for (std::uint64_t k = std::min<std::uint64_t>(n, 8); k-- > 0;)
                        v = (v << 8) | std::uint64_t(p[k]);
                    if (n > 8 && (std::int64_t(v) < 0) != negative)
                        o.kind = Kind::BigInt;
                    o.i = std::int64_t(v);
                }
                push(make(std::move(o)));
                break;
            }
            case 'X': // BINUNICODE
            case 0x8C: { // SHORT_BINUNICODE
                const std::uint64_t len = readLe(op == 'X' ? 4 : 1);
                Obj o;
                o.kind = Kind::String;
                o.s = readString(len, m_op);
                push(make(std::move(o)));
                break;
            }
            case 'G': { // BINFLOAT, big-endian
                const std::byte *p = need(8);
                std::uint64_t bits = 0;
                for (int k = 0; k < 8; ++k)
                    bits = (bits << 8) | std::uint64_t(p[k]);
                Obj o;
                o.kind = Kind::Float;
                o.f = std::bit_cast<double>(bits);
                push(make(std::move(o)));
                break;
            }
            case 'Q': { // BINPERSID
                const Ref pid = pop();
                push(persistentLoad(pid));
                break;
            }
            case 'R': { // REDUCE
                const Ref args = pop();
                const Ref callable = pop();
                push(reduce(callable, args));
                break;
            }
            case 'N': push(make(Obj{})); break; // NONE
            case 0x88: // NEWTRUE
            case 0x89: { // NEWFALSE
                Obj o;
                o.kind = Kind::Bool;
                o.i = op == 0x88 ? 1 : 0;
                push(make(std::move(o)));
                break;
            }
            case '}': // EMPTY_DICT
            case ']': { // EMPTY_LIST
                Obj o;
                o.kind = op == '}' ? Kind::Dict : Kind::List;
                push(make(std::move(o)));
                break;
            }
            case 's': { // SETITEM
                const Ref value = pop();
                const Ref key = pop();
                const Ref dict = top();
                if (m_objects[dict].kind != Kind::Dict)
                    fail(QStringLiteral("SETITEM on a %1 (offset %2)").arg(kindName(m_objects[dict].kind)).arg(m_op));
                m_objects[dict].items.push_back(key);
                m_objects[dict].items.push_back(value);
                break;
            }
            case 'u': { // SETITEMS
                const std::vector<Ref> items = popToMark();
                const Ref dict = top();
                if (m_objects[dict].kind != Kind::Dict)
                    fail(QStringLiteral("SETITEMS on a %1 (offset %2)").arg(kindName(m_objects[dict].kind)).arg(m_op));
                if (items.size() % 2)
                    fail(QStringLiteral("SETITEMS with an odd number of items (offset %1)").arg(m_op));
                auto &dst = m_objects[dict].items;
                dst.insert(dst.end(), items.begin(), items.end());
                break;
            }
            case 'a': { // APPEND
                const Ref value = pop();
                const Ref list = top();
                if (m_objects[list].kind != Kind::List)
                    fail(QStringLiteral("APPEND on a %1 (offset %2)").arg(kindName(m_objects[list].kind)).arg(m_op));
                m_objects[list].items.push_back(value);
                break;
            }
            case 'e': { // APPENDS
                const std::vector<Ref> items = popToMark();
                const Ref list = top();
                if (m_objects[list].kind != Kind::List)
                    fail(QStringLiteral("APPENDS on a %1 (offset %2)").arg(kindName(m_objects[list].kind)).arg(m_op));
                auto &dst = m_objects[list].items;
                dst.insert(dst.end(), items.begin(), items.end());
                break;
            }
            case 'b': { // BUILD: state is ignored, and only inert data objects may receive it
                pop();
                const Kind k = m_objects[top()].kind;
                if (k != Kind::Tensor && k != Kind::Dict)
                    refuse(QStringLiteral("BUILD on a %1 is not allowed (offset %2)").arg(kindName(k)).arg(m_op));
                break;
            }
            case '.': { // STOP
                const Ref result = pop();
                const Obj &o = m_objects[result];
                if (o.kind != Kind::Tensor && o.kind != Kind::Tuple && o.kind != Kind::List && o.kind != Kind::Dict)
                    fail(QStringLiteral("the pickle holds a value of type %1, not a tensor").arg(kindName(o.kind)));
                std::vector<TorchTensorDesc> out;
                std::uint64_t visits = 0;
                collect(result, QString(), 0, out, visits);
                return out;
            }
            default:
                fail(QStringLiteral("unsupported pickle opcode 0x%1 at offset %2")
                         .arg(QString::number(op, 16).rightJustified(2, QLatin1Char('0'))).arg(m_op));
            }
        }
    } catch (const Failure &f) {
        return R::failure(f.message, f.kind);
    }
}

} // namespace

int torchDtypeToDataType(QByteArrayView name) { return lookup(name, kDtypes); }
int torchStorageToDataType(QByteArrayView className) { return lookup(className, kStorages); }

Result<std::vector<TorchTensorDesc>> unpickleTorchTensors(const std::byte *data, std::uint64_t size, const PickleLimits &limits)
{
    if (!data && size)
        return Result<std::vector<TorchTensorDesc>>::failure(QStringLiteral("no pickle data"));
    Machine m(data, size, limits);
    return m.run();
}

} // namespace ds
