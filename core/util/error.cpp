#include "error.h"

namespace ds {

const char *errorKindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::Corrupt: return "corrupt";
    case ErrorKind::NotFound: return "not_found";
    case ErrorKind::Access: return "access";
    case ErrorKind::Truncated: return "truncated";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Unsafe: return "unsafe";
    case ErrorKind::Changed: return "changed";
    case ErrorKind::NoData: return "no_data";
    case ErrorKind::ReaderFailed: return "reader_failed";
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Cancelled: return "cancelled";
    }
    return "corrupt";
}

} // namespace ds
