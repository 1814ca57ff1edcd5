#pragma once

#include <QString>
#include <QStringList>

#include <hdf5.h>

#include <utility>

namespace ds::h5 {

// DumpScope's own processes make no HDF5 call: libhdf5 runs in dumpscope-h5worker
// (h5isolate.h). The in-process entry points (the worker's, the fuzz harness's and the tests')
// may run on several threads: Debian's libhdf5 is built thread-safe (one global lock).

/// Owns one HDF5 identifier and closes it with the matching H5*close function.
class Handle
{
public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer close) : m_id(id), m_close(close) {}
    ~Handle() { reset(); }
    Handle(Handle &&o) noexcept : m_id(std::exchange(o.m_id, H5I_INVALID_HID)), m_close(o.m_close) {}
    Handle &operator=(Handle &&o) noexcept
    {
        if (this != &o) {
            reset();
            m_id = std::exchange(o.m_id, H5I_INVALID_HID);
            m_close = o.m_close;
        }
        return *this;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;

    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    explicit operator bool() const { return valid(); }
    void reset()
    {
        if (m_id >= 0 && m_close)
            m_close(m_id);
        m_id = H5I_INVALID_HID;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
    Closer m_close = nullptr;
};

/// Turns off HDF5's automatic printing of error stacks to stderr for the calling thread
/// (in a thread-safe HDF5 build every thread has its own default error stack).
void silenceErrors();

/// The description of the most recent HDF5 error on this thread's stack ("" if none),
/// e.g. "unable to open file: file signature not found".
QString lastError();

/// Opens a file read-only with the strong close degree (closing the file closes every
/// object still open in it). Invalid handle on failure.
Handle openReadOnly(const QString &path);

/// Link names of a group: in creation order when the group tracks it, else by name.
/// Empty on failure.
QStringList linkNames(hid_t group);

} // namespace ds::h5
