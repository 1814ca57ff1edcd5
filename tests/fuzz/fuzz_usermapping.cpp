// libFuzzer harness: a compare mapping file (UserMapping::parse) read as every kind: DumpScope's
// flat JSON/YAML and msprobe's api/cell/data/layer_mapping YAML (yaml-cpp).
#include "compare/usermapping.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    using ds::MappingKind;
    for (MappingKind kind : {MappingKind::Auto, MappingKind::Flat, MappingKind::Api, MappingKind::Cell, MappingKind::Data,
                             MappingKind::Layer}) {
        for (const char *name : {"m.yaml", "m.json"}) {
            const auto m = ds::UserMapping::parse(bytes, QString::fromLatin1(name), kind);
            if (!m) {
                if (!m.errorText().startsWith(QLatin1String(name)))
                    __builtin_trap(); // an error always names the file
                continue;
            }
            for (const auto &a : m->apis)
                if (a.msApi.isEmpty() || a.ptApi.isEmpty() || a.msArgs.size() != a.ptArgs.size()
                    || a.msOutput.size() != a.ptOutput.size())
                    __builtin_trap(); // entries with unequal lists are warnings, never kept
            for (const QString &w : m->warnings)
                if (!w.startsWith(QLatin1String(name)))
                    __builtin_trap(); // a warning names the file
        }
    }
    return 0;
}
