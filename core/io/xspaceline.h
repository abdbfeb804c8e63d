#pragma once

// XLine decoding for the XSpace reader: line headers (first parallel phase) and events
// (second parallel phase), straight from the mapped bytes into one track's TrackBuilder.
//
// A LineDecoder belongs to one worker thread and decodes any number of lines, one at a time;
// each line's track is finished right after decoding so staging memory stays one line deep.
// Workers share the TraceBuilder under these rules: each touches only its own track's builder;
// interning goes through StringTable::internShared (with a per-worker cache); adding flow
// endpoints and the lazily created "unknown" kinds happens under the reader's shared mutex,
// the only place anything is appended to builder-wide lists during the parallel phase.

#include "core/io/xspaceindex.h"

#include <array>
#include <limits>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracedesk::core::xspace {

struct LineHeader
{
    int64_t id = 0;
    int64_t displayId = 0;
    int64_t timestampNs = 0;
    std::string_view name;
    std::string_view displayName;
    uint64_t events = 0;          // XEvent entries, aggregated ones included
};

// Reads every XLine field but the events, and counts the events. On corrupt input fails `err`.
bool readLineHeader(const LineRef &line, LineHeader *out, WireReader *err);

// The largest time (in ps, either sign) an event may start or end at; beyond it times are
// clamped and counted, so the span of any two times fits in TimePs.
inline constexpr TimePs kTimeLimitPs = std::numeric_limits<TimePs>::max() / 4;

struct LineJob
{
    LineRef ref;
    const MappedFile *file = nullptr; // the line's bytes are dropped from memory as they are read
    uint32_t track = 0;
    TimePs basePs = 0;            // picoseconds added to every event offset of the line
    uint64_t events = 0;
};

// Recoverable oddities, summed over a worker's lines and reported as warnings.
struct LineCounters
{
    uint64_t events = 0;
    uint64_t unknownKinds = 0;
    uint64_t unknownStats = 0;
    uint64_t badFlows = 0;
    uint64_t clampedTimes = 0;
};

class LineDecoder
{
public:
    LineDecoder(TraceBuilder &builder, const std::vector<std::unique_ptr<PlaneTables>> &tables,
                std::mutex &shared, StringId unknownName);

    // Decodes the line's events into its track, finishes the track and records its flow
    // endpoints on the slices they ended up at. On corrupt input fails `err` and leaves the track unfinished.
    bool decode(const LineJob &job, WireReader *err);

    const LineCounters &counters() const { return m_counters; }

private:
    struct PendingFlow
    {
        uint32_t staged;
        uint64_t id;
        uint32_t category;
        FlowPhase phase;
    };

    StringId internValue(std::string_view s);
    uint32_t unknownKind(PlaneTables &tables);
    void flushFlows(uint32_t track);

    TraceBuilder &m_builder;
    const std::vector<std::unique_ptr<PlaneTables>> &m_tables;
    std::mutex &m_shared;
    StringId m_unknownName;
    std::unordered_map<std::string_view, StringId> m_internCache;
    std::vector<PendingFlow> m_flows;
    // Where the current line's staged slices ended up; kept between lines for its capacity.
    std::vector<TrackBuilder::Placement> m_where;
    // XFlow categories are 6 bits; their interned names, looked up once per worker.
    static constexpr StringId kNoCategory = ~StringId(0);
    std::array<StringId, 64> m_flowCategory;
    LineCounters m_counters;
};

// Splits an XFlow-encoded stat value (FORMATS 1.7): bits 0-1 direction, 2-57 id, 58-63 category.
struct XFlowParts
{
    uint32_t direction;           // 1 = in, 2 = out, 3 = in and out
    uint64_t id;
    uint32_t category;
};
inline XFlowParts splitXFlow(uint64_t v)
{
    return {uint32_t(v & 3), (v >> 2) & ((uint64_t(1) << 56) - 1), uint32_t(v >> 58)};
}

} // namespace tracedesk::core::xspace
