#include "core/model/tracemerge.h"

#include "core/model/sidecolumn.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace tracedesk::core {

namespace {

// Old StringId of one part -> StringId in the merged table.
using StringMap = std::vector<StringId>;

StringId mapString(const StringMap &map, StringId id)
{
    return id < map.size() ? map[id] : kEmptyString;
}

bool isIdentity(const StringMap &map)
{
    for (size_t i = 0; i < map.size(); ++i) {
        if (map[i] != StringId(i))
            return false;
    }
    return true;
}

// Copies one record list of `from` into `to` through `writer`, remapping keys and string refs.
ArgsRef copyArgs(const ArgsArena &from, ArgsRef ref, ArgsArena::Writer &writer,
                 const StringMap &map)
{
    if (ref == kNoArgs)
        return kNoArgs;
    from.forEach(ref, [&](const ArgValue &v) {
        const StringId key = mapString(map, v.key);
        const uint64_t u = v.type == ArgType::StringRef ? uint64_t(mapString(map, v.str)) : v.u;
        writer.add(key, v.type, v.i, u, v.d, v.s);
    });
    return writer.finish();
}

void remapSide(std::array<int64_t, kKindSideColumnCount> &side, const StringMap &map)
{
    for (int c = 0; c < kKindSideColumnCount; ++c) {
        int64_t &v = side[size_t(c)];
        if (sideColumnHoldsString(SideColumn(c)) && v != kNoValue && v >= 0)
            v = int64_t(mapString(map, StringId(v)));
    }
}

void shiftAll(std::vector<TimePs> &times, TimePs shift)
{
    if (shift == 0)
        return;
    for (TimePs &t : times)
        t += shift;
}

// Moves the part's tracks into `out`, with offsets, string remapping and the time shift.
void appendTracks(Trace &out, Trace &part, const StringMap &map, bool identity, uint32_t planeBase,
                  uint32_t kindBase, TimePs shift)
{
    for (Track &t : part.tracks) {
        Track moved;
        moved.plane = t.plane + planeBase;
        moved.name = mapString(map, t.name);
        moved.sourceId = t.sourceId;
        moved.type = t.type;
        moved.sortIndex = t.sortIndex;
        moved.sliceCount = t.sliceCount;
        moved.begin = t.empty() ? 0 : t.begin + shift;
        moved.end = t.empty() ? 0 : t.end + shift;
        moved.rows = std::move(t.rows);
        moved.counter = std::move(t.counter);
        moved.aggregates = std::move(t.aggregates);
        shiftAll(moved.counter.time, shift);

        // Args: the arena moves as it is when the part's string ids are unchanged; otherwise
        // each record is re-encoded (and records shared by several slices stay shared).
        std::unordered_map<ArgsRef, ArgsRef> copied;
        ArgsArena::Writer writer(moved.args);
        auto argsFor = [&](ArgsRef ref) -> ArgsRef {
            if (identity || ref == kNoArgs)
                return ref;
            auto [it, inserted] = copied.try_emplace(ref, kNoArgs);
            if (inserted)
                it->second = copyArgs(t.args, ref, writer, map);
            return it->second;
        };
        if (identity)
            moved.args = std::move(t.args);
        for (Row &row : moved.rows) {
            shiftAll(row.start, shift);
            row.kind.offsetAll(kindBase);
            for (ArgsRef &ref : row.args)
                ref = argsFor(ref);
            if (!identity) {
                for (int c = 0; c < kSideColumnCount; ++c) {
                    if (!sideColumnHoldsString(SideColumn(c)))
                        continue;
                    PackedInts &column = row.side[size_t(c)];
                    if (column.empty())
                        continue;
                    std::vector<int64_t> values = column.values();
                    for (int64_t &v : values) {
                        if (v != kNoValue && v >= 0)
                            v = int64_t(mapString(map, StringId(v)));
                    }
                    column.assign(values);
                }
            }
        }
        for (AggregateEvent &a : moved.aggregates) {
            a.kind += kindBase;
            a.args = argsFor(a.args);
        }
        moved.args.shrinkToFit();
        out.tracks.push_back(std::move(moved));
    }
}

} // namespace

std::shared_ptr<Trace> mergeTraces(std::vector<MergePart> parts)
{
    auto out = std::make_shared<Trace>();
    std::vector<Flow> flows;
    bool anyEvents = false;
    for (MergePart &mp : parts) {
        if (!mp.trace)
            continue;
        Trace &part = *mp.trace;
        const std::string who = mp.label.empty() ? mp.host : mp.label;

        // The builder's bounds cover every track, counters included.
        const bool hasEvents = part.eventCount() > 0;
        const TimePs begin = part.begin;
        const TimePs end = part.end;
        TimePs shifted = 0;
        if (hasEvents && mp.shift != 0
            && (__builtin_add_overflow(begin, mp.shift, &shifted)
                || __builtin_add_overflow(end, mp.shift, &shifted))) {
            out->info.warn(who + ": its clock origin is too far from the other ranks'; its "
                                 "times are used as they are");
            mp.shift = 0;
        }
        const TimePs shift = mp.shift;

        StringMap map(part.strings.size());
        for (size_t i = 0; i < map.size(); ++i)
            map[i] = out->strings.intern(part.strings.view(StringId(i)));
        const bool identity = isIdentity(map);

        const auto planeBase = uint32_t(out->planes.size());
        const auto trackBase = uint32_t(out->tracks.size());
        const auto kindBase = uint32_t(out->kinds.size());

        ArgsArena::Writer meta(out->metaArgs);
        const StringId host = out->strings.intern(mp.host);
        for (const Plane &p : part.planes) {
            Plane plane = p;
            const std::string_view name = part.strings.view(p.name);
            plane.name = mp.host.empty()
                             ? mapString(map, p.name)
                             : out->strings.intern(mp.host + (name.empty() ? "" : ": ")
                                                   + std::string(name));
            plane.host = mp.host.empty() ? mapString(map, p.host) : host;
            plane.stats = copyArgs(part.metaArgs, p.stats, meta, map);
            for (uint32_t &t : plane.tracks)
                t += trackBase;
            out->planes.push_back(std::move(plane));
        }
        for (const EventKind &k : part.kinds) {
            EventKind kind = k;
            kind.name = mapString(map, k.name);
            kind.displayName = mapString(map, k.displayName);
            kind.category = mapString(map, k.category);
            kind.plane = k.plane + planeBase;
            kind.stats = copyArgs(part.metaArgs, k.stats, meta, map);
            remapSide(kind.side, map);
            out->kinds.push_back(kind);
        }
        appendTracks(*out, part, map, identity, planeBase, kindBase, shift);
        flows.reserve(flows.size() + part.flows.size());
        for (Flow flow : part.flows) {
            flow.from.track += trackBase;
            flow.to.track += trackBase;
            flow.category = mapString(map, flow.category);
            flows.push_back(flow);
        }
        if (hasEvents) {
            out->begin = anyEvents ? std::min(out->begin, begin + shift) : begin + shift;
            out->end = anyEvents ? std::max(out->end, end + shift) : end + shift;
            anyEvents = true;
        }
        if (out->originPs == 0)
            out->originPs = part.originPs;
        mp.trace.reset();   // its columns now live in `out`
    }
    out->flows.assign(flows);
    return out;
}

} // namespace tracedesk::core
