#pragma once

#include <QMetaType>
#include <QString>
#include <QStringView>
#include <cstdint>
#include <optional>

namespace ds {

/// Which list of an operator a tensor belongs to.
enum class IoKind : std::uint8_t { Input, Output, Buffer, Workspace, Parameter };
/// "input", "output", "buffer", "workspace", "parameter" (the words used in tensor ids).
QString ioKindName(IoKind k);
std::optional<IoKind> ioKindFromName(QStringView name);

/// The name of a tensor that survives re-indexing, used end to end (CLI arguments and JSON,
/// the tree, the inspector, the export dialog): `<op path>.<io kind>.<index>`, e.g.
/// `20240315101500/0/ge_default_20240315101512_1/1/0/Relu.resnet_relu1_Relu.13.3.1710490512000002.output.0`
/// (the names msaccucmp's `convert` gives its .npy files, without `.npy`). The op path is
/// OpRecord::relPath (relative to the index root); it may itself contain dots. This struct
/// is the only place that prints and parses the text form.
struct TensorId
{
    QString op;       ///< OpRecord::relPath
    IoKind io = IoKind::Input;
    std::uint32_t index = 0;

    bool isNull() const { return op.isEmpty(); }
    QString toString() const;
    /// Splits from the right (the op path contains dots); nullopt when the text is not an id.
    static std::optional<TensorId> parse(QStringView text);
    bool operator==(const TensorId &) const = default;
};

size_t qHash(const TensorId &id, size_t seed = 0) noexcept;

} // namespace ds

Q_DECLARE_METATYPE(ds::TensorId)
