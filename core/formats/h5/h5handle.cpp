#include "h5handle.h"

#include <QFile>
#include <QStringList>

#include <vector>

namespace ds::h5 {

void silenceErrors()
{
    thread_local bool silenced = false;
    if (!silenced) {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        silenced = true;
    }
}

namespace {

herr_t collect(unsigned n, const H5E_error2_t *err, void *data)
{
    auto *parts = static_cast<QStringList *>(data);
    if (err->desc && *err->desc) {
        const QString d = QString::fromUtf8(err->desc);
        if (!parts->contains(d))
            parts->append(d);
    }
    return 0;
}

} // namespace

QString lastError()
{
    QStringList parts;
    // Outermost (the API call) first, then what went wrong inside it.
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect, &parts);
    if (parts.size() > 2)
        parts = QStringList{parts.first(), parts.last()};
    return parts.join(QStringLiteral(": "));
}

Handle openReadOnly(const QString &path)
{
    silenceErrors();
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl)
        return {};
    H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
    Handle file(H5Fopen(QFile::encodeName(path).constData(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
    if (!file) {
        // Closing the property list is an API call, which clears the error stack: keep the
        // reason the open failed for lastError().
        const hid_t reason = H5Eget_current_stack();
        fapl.reset();
        if (reason >= 0)
            H5Eset_current_stack(reason);
    }
    return file;
}

QStringList linkNames(hid_t group)
{
    QStringList out;
    H5G_info_t info;
    if (H5Gget_info(group, &info) < 0)
        return out;
    H5_index_t order = H5_INDEX_CRT_ORDER;
    {
        Handle gcpl(H5Gget_create_plist(group), H5Pclose);
        unsigned flags = 0;
        if (!gcpl || H5Pget_link_creation_order(gcpl.get(), &flags) < 0 || !(flags & H5P_CRT_ORDER_INDEXED))
            order = H5_INDEX_NAME;
    }
    std::vector<char> buf;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const ssize_t len = H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
        if (len < 0)
            return {};
        buf.resize(size_t(len) + 1);
        if (H5Lget_name_by_idx(group, ".", order, H5_ITER_INC, i, buf.data(), buf.size(), H5P_DEFAULT) < 0)
            return {};
        out << QString::fromUtf8(buf.data(), qsizetype(len));
    }
    return out;
}

} // namespace ds::h5
