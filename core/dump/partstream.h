#pragma once

#include "indexpart.h"

#include <QByteArray>
#include <optional>

namespace ds {

/// Encodes a IndexPart (every field of its ops, tensors, errors and stacks) with
/// QDataStream, to carry it from an isolated reader process to the parent. OpRecord::levels
/// is not encoded: the caller re-attaches its own SharedLevels after decoding.
QByteArray encodePart(const IndexPart &part);

/// Decodes encodePart()'s bytes; nullopt when they are truncated, garbled or followed by more
/// bytes. Counts are checked against the bytes that are left before anything is allocated.
std::optional<IndexPart> decodePart(const QByteArray &bytes);

} // namespace ds
