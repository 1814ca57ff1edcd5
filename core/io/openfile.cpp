#include "openfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ds {

bool openRegularFile(QFile &file, QIODevice::OpenMode mode, QString &error)
{
    const QByteArray native = QFile::encodeName(file.fileName());
    // O_NONBLOCK: a FIFO's open returns at once instead of waiting for a writer; it changes
    // nothing for regular files, and is cleared before the descriptor is handed to QFile.
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const bool dir = S_ISDIR(st.st_mode);
        ::close(fd);
        if (dir) { // QFile's own words for it
            if (file.open(QIODevice::ReadOnly | mode))
                return true;
            error = file.errorString();
            return false;
        }
        error = QStringLiteral("not a regular file");
        return false;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!file.open(fd, QIODevice::ReadOnly | mode, QFileDevice::AutoCloseHandle)) {
        error = file.errorString();
        ::close(fd);
        return false;
    }
    return true;
}

} // namespace ds
