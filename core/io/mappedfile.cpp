#include "mappedfile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ds {

MappedFile::~MappedFile()
{
    if (m_data && m_size)
        ::munmap(const_cast<std::byte *>(m_data), m_size);
}

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const QString &path)
{
    using R = Result<std::shared_ptr<const MappedFile>>;
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return R::failure(QStringLiteral("cannot open: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return R::failure(QStringLiteral("not a regular file"));
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;
    file->m_size = std::uint64_t(st.st_size);
    if (file->m_size > 0) {
        void *p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            return R::failure(QStringLiteral("cannot map: %1").arg(QString::fromLocal8Bit(std::strerror(err))));
        }
        file->m_data = static_cast<const std::byte *>(p);
    }
    ::close(fd);
    return std::shared_ptr<const MappedFile>(std::move(file));
}

} // namespace ds
