// libFuzzer harness: msprobe stack.json and construct.json. The reader only takes a rank
// directory, so a scratch directory holds a fixed dump.json (forward/backward entries, modules,
// parameters_grad) and the input is written there as both stack.json and construct.json.
#include "formats/msprobe/msprobereader.h"

#include <QDir>
#include <QFile>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>

using namespace ds;

namespace {

const char kDumpJson[] = R"({"task": "tensor", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {
"Module.conv1.Conv2d.forward.0": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [1, 2]}], "output": []},
"Functional.conv2d.0.forward": {"input_args": [], "output": []},
"Functional.relu.0.forward": {"input_args": [], "output": []},
"Module.fc.Linear.forward.0": {"input_args": [], "output": []},
"Module.fc.Linear.forward.1": {"input_args": [], "output": []},
"Functional.linear.0.forward": {"input_args": [], "output": []},
"Functional.linear.0.backward": {"input": [], "output": []},
"Functional.relu.0.backward": {"input": [], "output": []},
"Functional.conv2d.0.backward": {"input": [], "output": []},
"Module.fc.Linear.backward.0": {"input": [], "output": []},
"Module.conv1.Conv2d.backward.0": {"input": [], "output": []},
"Module.conv1.Conv2d.parameters_grad": {"weight": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2]}]}
}})";

QString scratchDir()
{
    // Leaked on purpose: the exit handler below still needs it after static destructors ran.
    static const QString &dir = *new QString([] {
        // /dev/shm when there is one: the input is written twice per execution.
        QByteArray tmpl = QFile::encodeName(QDir(QDir::tempPath()).filePath(QStringLiteral("fuzz_sidecar_XXXXXX")));
        if (QDir(QStringLiteral("/dev/shm")).exists())
            tmpl = "/dev/shm/fuzz_sidecar_XXXXXX";
        if (!::mkdtemp(tmpl.data()))
            std::abort();
        const QString d = QFile::decodeName(tmpl);
        QFile f(d + QStringLiteral("/dump.json"));
        if (!f.open(QIODevice::WriteOnly) || f.write(kDumpJson, sizeof kDumpJson - 1) != qint64(sizeof kDumpJson - 1))
            std::abort();
        return d;
    }());
    static const bool cleanup = [] {
        return std::atexit([] { QDir(dir).removeRecursively(); }) == 0;
    }();
    (void)cleanup;
    return dir;
}

void writeFile(const QString &path, const std::uint8_t *data, size_t size)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        std::abort();
    if (size && f.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QString dir = scratchDir();
    writeFile(dir + QStringLiteral("/stack.json"), data, size);
    writeFile(dir + QStringLiteral("/construct.json"), data, size);

    const auto part = msprobe::indexRankDir(dir, QString(), DumpLevels{});
    if (!part)
        __builtin_trap(); // dump.json is there: only cancelling may fail
    if (part->ops.size() != 12)
        __builtin_trap(); // the side files never add or drop entries
    for (const OpRecord &op : part->ops) {
        if (op.stack < -1 || op.stack >= int(part->stacks.size()))
            __builtin_trap(); // a stack index points into the stacks
        for (const QString &line : op.stack >= 0 ? part->stacks[size_t(op.stack)] : QStringList()) {
            const auto frame = parseStackLine(line);
            if (frame && frame->line < 0)
                __builtin_trap();
        }
    }
    int previous = -1;
    for (const int i : part->parentInferred) {
        if (i <= previous || i >= int(part->ops.size()))
            __builtin_trap(); // ascending indexes into ops
        previous = i;
    }
    for (const FileError &e : part->errors)
        if (e.message.isEmpty() || e.offset > size)
            __builtin_trap();
    return 0;
}
