#pragma once

// Trace: one loaded profile — planes holding tracks holding rows of slices — plus interned
// strings, event kinds, flows and what the reader saw (LoadInfo).
//
// Built once by a TraceBuilder, then immutable and shared read-only across threads through
// std::shared_ptr<const Trace>. Times are picoseconds relative to the trace's origin
// (`originPs` is the absolute time of 0 when the source told us, e.g. XSpace profile start).

#include "core/model/argsarena.h"
#include "core/model/runmetadata.h"
#include "core/model/sidecolumn.h"
#include "core/model/stringtable.h"
#include "core/model/track.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core {

// One stage of a load: how long it took and the process's memory when it ended (resident now,
// and the high-water mark so far). Readers that have stages record them; the bench prints them.
struct LoadPhase
{
    std::string name;
    double seconds = 0;
    uint64_t rssBytes = 0;
    uint64_t peakRssBytes = 0;
};

struct LoadInfo
{
    std::string format;                       // "xspace", "chrome-json" or "nsys-sqlite"
    std::vector<std::string> sources;         // files read
    std::vector<std::string> hosts;
    uint64_t sourceBytes = 0;
    uint64_t xlines = 0;                      // XSpace: raw XLine count
    uint64_t xevents = 0;                     // XSpace: raw XEvent count
    // Chrome JSON: input records per "ph"; Nsight Systems export: rows read per table.
    std::map<std::string, uint64_t> recordsByPhase;
    uint64_t warningCount = 0;
    std::vector<std::string> warnings;        // the first few, for display
    double loadSeconds = 0;
    std::vector<LoadPhase> phases;            // not kept in the store cache
    bool fromCache = false;
    RunMetadata run;                          // framework, devices, process group

    void warn(std::string message);
};

class Trace
{
public:
    StringTable strings;
    std::vector<Plane> planes;
    std::vector<Track> tracks;
    std::vector<EventKind> kinds;
    ArgsArena metaArgs;                       // kind and plane stats
    FlowTable flows;
    LoadInfo info;
    TimePs begin = 0;                         // earliest start / latest end over all tracks
    TimePs end = 0;
    TimePs originPs = 0;
    // The trace of the CUDA / HIP graph capture this trace replays, when the two were opened
    // together (core/io/graphcapturepair.h); null otherwise.
    std::shared_ptr<const Trace> graphCapture;

    std::string_view string(StringId id) const { return strings.view(id); }

    uint64_t sliceCount() const;
    uint64_t counterSampleCount() const;
    uint64_t aggregateCount() const;
    // Everything in the store: slices (instants included), counter samples, aggregates.
    uint64_t eventCount() const;
    size_t memoryBytes() const;

    const Row &row(SliceRef s) const { return tracks[s.track].rows[s.row]; }
    TimePs start(SliceRef s) const { return row(s).start[s.index]; }
    TimePs duration(SliceRef s) const { return row(s).duration[s.index]; }
    const EventKind &kind(SliceRef s) const { return kinds[row(s).kind[s.index]]; }
    std::string_view name(SliceRef s) const { return string(kind(s).name); }
    bool valid(SliceRef s) const;

    // The slice's own value, else its kind's, else kNoValue.
    int64_t side(SliceRef s, SideColumn column) const;

    // Visits the slice's own args, then the numeric values it keeps only in side columns (shown
    // under their stat names unless an own arg already carries that name), then its kind's stats
    // (the XSpace reading rule: event first, then metadata).
    template<typename F>
    void forEachArg(SliceRef s, F &&f) const
    {
        const Row &r = row(s);
        std::array<StringId, kSideColumnCount> names{};
        uint32_t named = 0;
        for (int c = 0; c < kSideColumnCount; ++c) {
            const auto column = SideColumn(c);
            if (!sideColumnHoldsString(column) && !sideColumnIsEncoded(column) && !r.side[size_t(c)].empty()
                && r.side[size_t(c)][s.index] != kNoValue
                && strings.find(sideColumnStatName(column), &names[size_t(c)]))
                named |= 1u << c;
        }
        tracks[s.track].args.forEach(r.argsAt(s.index), [&](const ArgValue &v) {
            for (int c = 0; c < kSideColumnCount; ++c) {
                if ((named & (1u << c)) && names[size_t(c)] == v.key)
                    named &= ~(1u << c);
            }
            f(v);
        });
        for (int c = 0; c < kSideColumnCount; ++c) {
            if (!(named & (1u << c)))
                continue;
            ArgValue v;
            v.key = names[size_t(c)];
            v.type = ArgType::Int;
            v.i = r.side[size_t(c)][s.index];
            f(static_cast<const ArgValue &>(v));
        }
        metaArgs.forEach(kinds[r.kind[s.index]].stats, f);
    }

    // The deepest slice on `track` whose span contains t (end exclusive, instants inclusive).
    std::optional<SliceRef> sliceAt(uint32_t track, TimePs t) const;
    // The first slice on `track` starting at or after t (shallowest row wins ties).
    std::optional<SliceRef> sliceStartingFrom(uint32_t track, TimePs t) const;
};

using TracePtr = std::shared_ptr<const Trace>;

} // namespace tracedesk::core
