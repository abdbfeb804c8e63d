// validateTrace(): a decoded store must satisfy every invariant the rest of the program relies
// on, because a store file is untrusted input (it may be corrupt, truncated or crafted).

#include "core/io/storefile.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

namespace tracedesk::core::storefile {

namespace {

bool isStringColumn(int column)
{
    const auto c = SideColumn(column);
    return c == SideColumn::HloOp || c == SideColumn::HloModule || c == SideColumn::FrameworkOp;
}

// ArgsArena::readVarint, inlined: this loop runs once per stored arg.
inline const uint8_t *readVarint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (p < end && *p < 0x80) {
        *out = *p;
        return p + 1;
    }
    return ArgsArena::readVarint(p, end, out);
}

// One args record at `offset`: keys and string refs in range, values within the arena.
bool validRecord(const std::vector<uint8_t> &bytes, size_t offset, size_t strings, size_t *next)
{
    const uint8_t *p = bytes.data() + offset;
    const uint8_t *end = bytes.data() + bytes.size();
    uint64_t count = 0;
    if (!(p = readVarint(p, end, &count)) || count > size_t(end - p))
        return false;
    for (uint64_t k = 0; k < count; ++k) {
        uint64_t key = 0, x = 0;
        if (!(p = readVarint(p, end, &key)) || key >= strings || p >= end)
            return false;
        const auto type = ArgType(*p++);
        switch (type) {
        case ArgType::Int:
        case ArgType::UInt:
        case ArgType::Bool:
            if (!(p = readVarint(p, end, &x)))
                return false;
            break;
        case ArgType::StringRef:
            if (!(p = readVarint(p, end, &x)) || x >= strings)
                return false;
            break;
        case ArgType::Double:
            if (end - p < 8)
                return false;
            p += 8;
            break;
        case ArgType::String:
        case ArgType::Bytes:
            if (!(p = readVarint(p, end, &x)) || x > uint64_t(end - p))
                return false;
            p += x;
            break;
        default:
            return false;
        }
    }
    *next = size_t(p - bytes.data());
    return true;
}

// Validates refs into an arena. Writers append whole records back to back, so one walk marks
// every record start; an arena that does not walk cleanly is checked ref by ref instead.
class ArenaChecker
{
public:
    ArenaChecker(const ArgsArena &arena, size_t strings) : m_bytes(arena.bytes()), m_strings(strings)
    {
        m_isStart.assign(m_bytes.size() / 64 + 1, 0);
        size_t offset = 0;
        while (offset < m_bytes.size()) {
            size_t next = 0;
            if (!validRecord(m_bytes, offset, m_strings, &next)) {
                m_walked = false;
                return;
            }
            m_isStart[offset >> 6] |= uint64_t(1) << (offset & 63);
            offset = next;
        }
    }

    bool check(ArgsRef ref) const
    {
        if (ref == kNoArgs)
            return true;
        if (ref > m_bytes.size())
            return false;
        if (m_walked)
            return (m_isStart[(ref - 1) >> 6] >> ((ref - 1) & 63)) & 1;
        size_t next = 0;
        return validRecord(m_bytes, ref - 1, m_strings, &next);
    }

private:
    const std::vector<uint8_t> &m_bytes;
    size_t m_strings;
    std::vector<uint64_t> m_isStart;   // one bit per arena byte
    bool m_walked = true;
};

bool validTrack(const Trace &trace, uint32_t index)
{
    const Track &t = trace.tracks[index];
    const size_t strings = trace.strings.size();
    if (t.plane >= trace.planes.size() || t.name >= strings || t.begin > t.end)
        return false;
    const ArenaChecker args(t.args, strings);
    uint64_t slices = 0;
    for (const Row &r : t.rows) {
        const size_t n = r.size();
        slices += n;
        for (size_t i = 0; i < n; ++i) {
            const TimePs d = r.duration[i];
            if (d < 0 || r.start[i] > std::numeric_limits<TimePs>::max() - d)
                return false;
            if (i > 0 && r.start[i - 1] + r.duration[i - 1] > r.start[i])
                return false;
            if (r.kind[i] >= trace.kinds.size() || !args.check(r.args[i]))
                return false;
        }
        for (int c = 0; c < kSideColumnCount; ++c) {
            if (!isStringColumn(c))
                continue;
            for (int64_t v : r.side[c]) {
                if (v != kNoValue && (v < 0 || uint64_t(v) >= strings))
                    return false;
            }
        }
    }
    if (slices != t.sliceCount)
        return false;
    if (!std::is_sorted(t.counter.time.begin(), t.counter.time.end()))
        return false;
    for (const AggregateEvent &a : t.aggregates) {
        if (a.kind >= trace.kinds.size() || !args.check(a.args))
            return false;
    }
    return true;
}

bool validSlice(const Trace &trace, const SliceRef &s)
{
    return trace.valid(s);
}

} // namespace

bool validateTrace(const Trace &trace)
{
    const size_t strings = trace.strings.size();
    const ArenaChecker meta(trace.metaArgs, strings);
    std::vector<uint8_t> owned(trace.tracks.size(), 0);
    for (const Plane &p : trace.planes) {
        if (p.name >= strings || p.host >= strings || !meta.check(p.stats))
            return false;
        for (uint32_t t : p.tracks) {
            if (t >= trace.tracks.size() || owned[t] || trace.tracks[t].plane != uint32_t(&p - trace.planes.data()))
                return false;
            owned[t] = 1;
        }
    }
    for (const EventKind &k : trace.kinds) {
        if (k.name >= strings || k.displayName >= strings || k.category >= strings
            || k.plane >= std::max<size_t>(trace.planes.size(), 1) || !meta.check(k.stats)) {
            return false;
        }
        for (int c = 0; c < kSideColumnCount; ++c) {
            const int64_t v = k.side[c];
            if (isStringColumn(c) && v != kNoValue && (v < 0 || uint64_t(v) >= strings))
                return false;
        }
    }
    for (const Flow &f : trace.flows) {
        if (!validSlice(trace, f.from) || !validSlice(trace, f.to) || f.category >= strings)
            return false;
    }

    std::atomic<uint32_t> next{0};
    std::atomic<bool> ok{true};
    const auto count = uint32_t(trace.tracks.size());
    auto work = [&] {
        for (uint32_t i; ok && (i = next.fetch_add(1)) < count;) {
            if (!validTrack(trace, i))
                ok = false;
        }
    };
    std::thread helper;
    if (count > 1)
        helper = std::thread(work);
    work();
    if (helper.joinable())
        helper.join();
    return ok;
}

} // namespace tracedesk::core::storefile
