// validateTrace(): a decoded store must satisfy every invariant the rest of the program relies
// on, because a store file is untrusted input (it may be corrupt, truncated or crafted).

#include "core/base/parallel.h"
#include "core/io/storefile.h"

#include <algorithm>
#include <atomic>
#include <limits>

namespace tracedesk::core::storefile {

namespace {

bool isStringColumn(int column)
{
    return sideColumnHoldsString(SideColumn(column));
}

// Args are checked lazily: ArgsArena::forEach and find() bound every read by the arena, so a
// reference only has to point inside its arena.
bool validArgs(ArgsRef ref, const ArgsArena &arena)
{
    return ref <= arena.size();
}

bool validTrack(const Trace &trace, uint32_t index)
{
    const Track &t = trace.tracks[index];
    const size_t strings = trace.strings.size();
    if (t.plane >= trace.planes.size() || t.name >= strings || t.begin > t.end)
        return false;
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
            if (uint64_t(r.kind[i]) >= trace.kinds.size() || !validArgs(r.argsAt(i), t.args))
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
        if (a.kind >= trace.kinds.size() || !validArgs(a.args, t.args))
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
    std::vector<uint8_t> owned(trace.tracks.size(), 0);
    for (const Plane &p : trace.planes) {
        if (p.name >= strings || p.host >= strings || !validArgs(p.stats, trace.metaArgs))
            return false;
        for (uint32_t t : p.tracks) {
            const auto plane = uint32_t(&p - trace.planes.data());
            if (t >= trace.tracks.size() || owned[t] || trace.tracks[t].plane != plane)
                return false;
            owned[t] = 1;
        }
    }
    for (const EventKind &k : trace.kinds) {
        if (k.name >= strings || k.displayName >= strings || k.category >= strings
            || k.plane >= std::max<size_t>(trace.planes.size(), 1)
            || !validArgs(k.stats, trace.metaArgs)) {
            return false;
        }
        for (int c = 0; c < kKindSideColumnCount; ++c) {
            const int64_t v = k.side[c];
            if (isStringColumn(c) && v != kNoValue && (v < 0 || uint64_t(v) >= strings))
                return false;
        }
    }
    for (const Flow &f : trace.flows) {
        if (!validSlice(trace, f.from) || !validSlice(trace, f.to) || f.category >= strings)
            return false;
    }

    std::atomic<bool> ok{true};
    parallelFor(trace.tracks.size(), 2, [&](unsigned, size_t i) {
        if (validTrack(trace, uint32_t(i)))
            return true;
        ok = false;
        return false;
    });
    return ok;
}

} // namespace tracedesk::core::storefile
