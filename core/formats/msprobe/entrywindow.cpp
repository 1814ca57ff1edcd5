#include "simdwalk.h"

namespace ds::msprobe {

EntryWindow::EntryWindow() : d(std::make_unique<Impl>()) {}
EntryWindow::~EntryWindow() = default;

bool EntryWindow::open(const char *doc, size_t len, size_t capacity)
{
    d->started = false;
    if (capacity < len + simdjson::SIMDJSON_PADDING || d->parser.iterate(doc, len, capacity).get(d->doc)
        || d->doc.get_object().get(d->object) || d->object.begin().get(d->it) || d->object.end().get(d->end))
        return false;
    return true;
}

int EntryWindow::next(std::string_view &name, const char *&nameAt)
{
    if (d->started)
        ++d->it;
    d->started = true;
    if (!(d->it != d->end)) {
        // Closed: by the window's own '}' only if nothing follows it.
        const char *at = nullptr;
        return d->doc.current_location().get(at) == simdjson::OUT_OF_BOUNDS ? 0 : -1;
    }
    if (std::move(*d->it).get(d->member))
        return -1;
    // Names with escapes are the tokenizer's (FastJsonReader::nextMember): not taken here.
    const char *raw = d->member.key().raw();
    const char *q = raw;
    while (*q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20)
        ++q;
    if (*q != '"')
        return -1;
    name = std::string_view(raw, size_t(q - raw));
    nameAt = raw - 1;
    return 1;
}

const char *EntryWindow::position()
{
    const char *at = nullptr;
    return d->doc.current_location().get(at) ? nullptr : at;
}

} // namespace ds::msprobe
