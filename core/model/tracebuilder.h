#pragma once

// TraceBuilder: what every reader uses to assemble a Trace.
//
// Readers add planes, tracks and event kinds, stage slices through each track's TrackBuilder,
// and record flow endpoints; build() finishes every track (in parallel), resolves flows to
// slices and returns the immutable Trace. Thread rules: adding planes, tracks, kinds and flow
// endpoints is single-threaded; trackBuilder(i) and finishTrack(i) may run in parallel for
// distinct tracks (readers that decode lines on workers finish them there).

#include "core/model/trace.h"
#include "core/model/trackbuilder.h"

#include <array>
#include <deque>
#include <memory>

namespace tracedesk::core {

class LoadControl;

enum class FlowPhase : uint8_t { Start, Step, End };

class TraceBuilder
{
public:
    TraceBuilder();

    Trace &trace() { return *m_trace; }
    StringTable &strings() { return m_trace->strings; }
    StringId intern(std::string_view s) { return m_trace->strings.intern(s); }
    LoadInfo &info() { return m_trace->info; }

    uint32_t addPlane(std::string_view name, std::string_view host, int64_t id, PlaneKind kind);
    uint32_t addTrack(uint32_t plane, std::string_view name, int64_t sourceId,
                      TrackType type = TrackType::Slices);
    uint32_t addKind(const EventKind &kind);
    size_t trackCount() const { return m_tracks.size(); }
    Track &track(uint32_t i) { return m_tracks[i]; }
    TrackBuilder &trackBuilder(uint32_t i) { return m_builders[i]; }

    // A flow endpoint on a staged slice (XSpace flow stats, Chrome flow v2 bind ids) ...
    void addFlowOnSlice(uint32_t track, uint32_t staged, TimePs time, uint64_t id,
                        StringId category, FlowPhase phase);
    // ... or at a time on a track (Chrome s/t/f): bound to the enclosing slice, or with
    // bindNext to the next slice that begins at or after `time`.
    void addFlowAt(uint32_t track, TimePs time, uint64_t id, StringId category, FlowPhase phase,
                   bool bindNext);

    // A flow known by its two staged slices (Kineto launch -> GPU activity by correlation id):
    // bound as given, whatever the order of their times.
    void addFlowBetween(uint32_t fromTrack, uint32_t fromStaged, uint32_t toTrack,
                        uint32_t toStaged, uint64_t id, StringId category);

    // A flow endpoint on a slice of a track already finished (readers that finish their own
    // tracks: XSpace lines), so the track keeps no staged-to-row placement table. Its time is
    // the slice's start. Callers serialise these calls, and place a track's endpoints together
    // (they are stored per run of one track). False, and the endpoint dropped, past
    // kPlacedFlowCategories distinct categories.
    bool addPlacedFlowEndpoint(SliceRef slice, uint64_t id, StringId category, FlowPhase phase);
    static constexpr size_t kPlacedFlowCategories = size_t(1) << 14;

    void finishTrack(uint32_t i);
    // Finishes track i with the placement of its staged slices written to `where` (the caller's
    // buffer, reused across tracks), for endpoints the caller then places itself.
    void finishTrack(uint32_t i, std::vector<TrackBuilder::Placement> *where);
    // Finishes the remaining tracks, resolves flows, computes bounds. Returns null only when
    // cancelled. The builder is spent afterwards.
    std::shared_ptr<Trace> build(LoadControl *control = nullptr);

private:
    struct FlowEndpoint
    {
        uint32_t track;
        uint32_t staged;    // UINT32_MAX when placed by time
        TimePs time;
        uint64_t id;
        StringId category;
        FlowPhase phase;
        bool bindNext;
    };
    // An endpoint bound to its slice, waiting to be chained with the others of its
    // (category, id), as stored while the trace loads: 16 bytes, as a trace of 100M events can
    // hold 60M of them. Its track is kept once per run of endpoints from one track, its
    // category as a slot of m_placedCategories; its time is its slice's start, read from the
    // finished row when a group needs ordering.
    struct StoredEndpoint
    {
        uint64_t id;
        uint32_t index;
        uint16_t row;
        uint16_t phaseAndCategory; // FlowPhase in the low 2 bits, the category slot above
    };
    static_assert(sizeof(StoredEndpoint) == 16);
    // The same, whole, for the chaining of one bucket at a time.
    struct PlacedEndpoint
    {
        uint64_t id;
        uint32_t track;
        uint32_t index;
        StringId category;
        uint16_t row;
        FlowPhase phase;
    };
    // Placed endpoints are spread over buckets by a hash of (category, id) as they arrive, so a
    // group's endpoints stay in arrival order within one bucket and buckets chain in parallel.
    // Each bucket grows in chunks: no doubling slack, no copy on growth.
    static constexpr size_t kFlowBuckets = 16;
    struct EndpointBucket
    {
        std::vector<std::vector<StoredEndpoint>> chunks;
        // (position of the run's first endpoint, its track), in position order.
        std::vector<std::pair<uint64_t, uint32_t>> runs;
        size_t size = 0;
        void push(uint32_t track, const StoredEndpoint &e);
        // Moves the bucket's endpoints into `out` (emptied first; its capacity is kept, so one
        // buffer serves bucket after bucket) and frees the chunks as they are read.
        void takeInto(const std::vector<StringId> &categories, std::vector<PlacedEndpoint> &out);
    };
    void resolveFlows();
    void resolveFlowsInto(std::vector<Flow> &flows);
    void chainPlacedEndpoints(std::vector<FlowTable> &parts);

    std::shared_ptr<Trace> m_trace;
    std::deque<Track> m_tracks;
    std::deque<TrackBuilder> m_builders;
    std::deque<std::vector<TrackBuilder::Placement>> m_placements;
    std::vector<uint8_t> m_finished;
    std::vector<uint8_t> m_needsPlacement;
    std::vector<FlowEndpoint> m_flowEndpoints;
    struct DirectFlow
    {
        uint32_t fromTrack, fromStaged, toTrack, toStaged;
        uint64_t id;
        StringId category;
    };
    std::vector<DirectFlow> m_directFlows;
    std::array<EndpointBucket, kFlowBuckets> m_buckets;
    std::vector<StringId> m_placedCategories; // slot -> category of placed endpoints
};

} // namespace tracedesk::core
