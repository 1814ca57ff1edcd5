#pragma once

#include "io/mappedfile.h"
#include "tensor/shape.h"
#include "tensor/stats.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace ds {

/// A tensor ready for the kernels: unpacked elements, in logical (ND) layout unless the raw
/// device layout was asked for or cannot be converted. Holds the file mapping alive.
struct LoadedTensor
{
    std::shared_ptr<const MappedFile> file;
    std::vector<std::byte> owned; ///< converted / unpacked elements (empty: view into the map)
    std::shared_ptr<const void> keepAlive; ///< other memory `view` points into (an isolated .h5 read's shared mapping)
    TensorView view;
    Shape shape;          ///< shape of `view` (original_shape when converted)
    int dataType = 0;     ///< header data type
    bool converted = false; ///< a private layout was converted to ND
    QStringList notes;    ///< why the layout stayed raw, short payloads, unverified decoders
};

using LoadedTensorPtr = std::shared_ptr<const LoadedTensor>;

enum class LayoutChoice { Logical, Raw };

} // namespace ds
