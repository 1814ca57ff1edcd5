#pragma once

#include "dumpindex.h"
#include "io/mappedfile.h"
#include "tensor/layout.h"
#include "tensor/stats.h"

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

enum class LayoutChoice { Logical, Raw };

/// Maps the file and prepares the tensor. Checks every size against the file; never reads
/// outside it. Fails with a message when the file changed or the data type is not decodable.
Result<std::shared_ptr<const LoadedTensor>> loadTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref,
                                                        LayoutChoice layout = LayoutChoice::Logical,
                                                        const JobControl *job = nullptr);

} // namespace ds
