#include "core/capture/responsereader.h"

#include <algorithm>

namespace tracedesk::core::capture {

namespace {

constexpr uint32_t kToolData = 6;
constexpr uint32_t kEmptyTrace = 7;
constexpr uint32_t kXSpace = 8;
constexpr size_t kMaxToolEntryBytes = size_t(1) << 31;

// A forward cursor over the pieces.
class PieceCursor
{
public:
    explicit PieceCursor(const std::vector<std::string_view> &pieces) : m_pieces(pieces)
    {
        for (std::string_view p : pieces)
            m_remaining += p.size();
        skipEmpty();
    }

    bool atEnd() const { return m_piece >= m_pieces.size(); }
    // Bytes not read yet: a declared length beyond this is a lie, never an allocation size.
    uint64_t remaining() const { return m_remaining; }

    bool byte(uint8_t *out)
    {
        if (atEnd())
            return false;
        *out = uint8_t(m_pieces[m_piece][m_offset]);
        advance(1);
        return true;
    }

    bool varint(uint64_t *out)
    {
        uint64_t v = 0;
        for (int i = 0; i < 10; ++i) {
            uint8_t b = 0;
            if (!byte(&b))
                return false;
            v |= uint64_t(b & 0x7f) << (7 * i);
            if (b < 0x80) {
                *out = v;
                return true;
            }
        }
        return false;
    }

    // Hands `size` bytes to `fn` piece by piece; false when the input ends early or fn refuses.
    template<typename Fn>
    bool take(uint64_t size, Fn &&fn)
    {
        while (size > 0) {
            if (atEnd())
                return false;
            const std::string_view p = m_pieces[m_piece];
            const size_t n = size_t(std::min<uint64_t>(size, p.size() - m_offset));
            if (!fn(p.data() + m_offset, n))
                return false;
            advance(n);
            size -= n;
        }
        return true;
    }

    bool skip(uint64_t size)
    {
        return take(size, [](const char *, size_t) { return true; });
    }

private:
    void advance(size_t n)
    {
        m_remaining -= n;
        m_offset += n;
        if (m_offset >= m_pieces[m_piece].size()) {
            ++m_piece;
            m_offset = 0;
            skipEmpty();
        }
    }
    void skipEmpty()
    {
        while (m_piece < m_pieces.size() && m_pieces[m_piece].empty())
            ++m_piece;
    }

    const std::vector<std::string_view> &m_pieces;
    size_t m_piece = 0;
    size_t m_offset = 0;
    uint64_t m_remaining = 0;
};

// Skips a non-length-delimited field value of `wireType`.
bool skipScalar(PieceCursor &c, uint32_t wireType)
{
    uint64_t v = 0;
    switch (wireType) {
    case 0:
        return c.varint(&v);
    case 1:
        return c.skip(8);
    case 5:
        return c.skip(4);
    default:
        return false;
    }
}

// One ProfileToolData{name = 1, data = 2}, held whole (old servers only).
bool parseToolEntry(std::string_view entry, std::string *name, std::string_view *data)
{
    const std::vector<std::string_view> one{entry};
    PieceCursor c(one);
    while (!c.atEnd()) {
        uint64_t tag = 0, size = 0;
        if (!c.varint(&tag))
            return false;
        if ((tag & 7) != 2) {
            if (!skipScalar(c, uint32_t(tag & 7)))
                return false;
            continue;
        }
        if (!c.varint(&size))
            return false;
        const char *begin = nullptr;
        if (!c.take(size, [&](const char *p, size_t) {
                if (!begin)
                    begin = p;   // contiguous: the first piece marks the start
                return true;
            }))
            return false;
        const std::string_view value = begin ? std::string_view(begin, size_t(size))
                                             : std::string_view();
        if ((tag >> 3) == 1)
            name->assign(value);
        else if ((tag >> 3) == 2)
            *data = value;
    }
    return true;
}

} // namespace

Result<ResponseSummary> extractXSpace(const std::vector<std::string_view> &pieces,
                                      const ByteSink &sink, const std::atomic<bool> *cancel)
{
    ResponseSummary summary;
    for (std::string_view p : pieces)
        summary.responseBytes += p.size();
    const Error malformed{"the server's response is not a valid ProfileResponse"};
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    bool sinkRefused = false;
    auto forward = [&](const char *p, size_t n) {
        if (cancelled() || !sink(p, n)) {
            sinkRefused = true;
            return false;
        }
        summary.xspaceBytes += n;
        return true;
    };

    PieceCursor c(pieces);
    // The whole tool entry is kept (moved, not copied: it can be hundreds of MB) and the XSpace
    // is the [legacyOffset, +legacySize) part of it.
    std::string legacyEntry;
    size_t legacyOffset = 0;
    size_t legacySize = 0;
    bool legacyFound = false;
    while (!c.atEnd()) {
        uint64_t tag = 0;
        if (!c.varint(&tag))
            return malformed;
        const uint32_t field = uint32_t(tag >> 3);
        const uint32_t wireType = uint32_t(tag & 7);
        if (wireType != 2) {
            if (field == kEmptyTrace && wireType == 0) {
                uint64_t v = 0;
                if (!c.varint(&v))
                    return malformed;
                summary.emptyTrace = v != 0;
            } else if (!skipScalar(c, wireType)) {
                return malformed;
            }
            continue;
        }
        uint64_t size = 0;
        if (!c.varint(&size))
            return malformed;
        if (field == kXSpace) {
            summary.hasXSpace = true;
            if (!c.take(size, forward))
                return sinkRefused ? (cancelled() ? Error{"cancelled", true}
                                                  : Error{"cannot write the trace"})
                                   : malformed;
        } else if (field == kToolData && size <= kMaxToolEntryBytes) {
            if (size > c.remaining())
                return malformed;
            std::string entry;
            entry.reserve(size_t(size));
            if (!c.take(size, [&](const char *p, size_t n) {
                    entry.append(p, n);
                    return true;
                }))
                return malformed;
            std::string name;
            std::string_view data;
            if (!parseToolEntry(entry, &name, &data))
                return malformed;
            summary.toolNames.push_back(name);
            if (name == "xplane.pb" && !legacyFound) {
                legacyFound = true;
                legacyOffset = data.empty() ? 0 : size_t(data.data() - entry.data());
                legacySize = data.size();
                legacyEntry = std::move(entry);
            }
        } else if (!c.skip(size)) {
            return malformed;
        }
    }
    if (!summary.hasXSpace && legacyFound) {
        summary.hasXSpace = true;
        summary.fromToolData = true;
        if (!forward(legacyEntry.data() + legacyOffset, legacySize))
            return cancelled() ? Error{"cancelled", true} : Error{"cannot write the trace"};
    }
    return summary;
}

} // namespace tracedesk::core::capture
