#include "core/model/tracebuilder.h"

#include "core/base/loadcontrol.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

namespace tracedesk::core {

namespace {
constexpr uint32_t kByTime = std::numeric_limits<uint32_t>::max();
}

TraceBuilder::TraceBuilder() : m_trace(std::make_shared<Trace>()) {}

uint32_t TraceBuilder::addPlane(std::string_view name, std::string_view host, int64_t id,
                                PlaneKind kind)
{
    Plane plane;
    plane.name = intern(name);
    plane.host = intern(host);
    plane.id = id;
    plane.kind = kind;
    plane.sortIndex = int32_t(m_trace->planes.size());
    m_trace->planes.push_back(std::move(plane));
    return uint32_t(m_trace->planes.size() - 1);
}

uint32_t TraceBuilder::addTrack(uint32_t plane, std::string_view name, int64_t sourceId,
                                TrackType type)
{
    const auto index = uint32_t(m_tracks.size());
    Track &track = m_tracks.emplace_back();
    track.plane = plane;
    track.name = intern(name);
    track.sourceId = sourceId;
    track.type = type;
    track.sortIndex = int32_t(m_trace->planes[plane].tracks.size());
    m_trace->planes[plane].tracks.push_back(index);
    m_builders.emplace_back(track);
    m_placements.emplace_back();
    m_finished.push_back(0);
    m_needsPlacement.push_back(0);
    return index;
}

uint32_t TraceBuilder::addKind(const EventKind &kind)
{
    m_trace->kinds.push_back(kind);
    return uint32_t(m_trace->kinds.size() - 1);
}

void TraceBuilder::addFlowOnSlice(uint32_t track, uint32_t staged, TimePs time, uint64_t id,
                                  StringId category, FlowPhase phase)
{
    m_needsPlacement[track] = 1;
    m_flowEndpoints.push_back({track, staged, time, id, category, phase, false});
}

void TraceBuilder::addFlowAt(uint32_t track, TimePs time, uint64_t id, StringId category,
                             FlowPhase phase, bool bindNext)
{
    m_flowEndpoints.push_back({track, kByTime, time, id, category, phase, bindNext});
}

void TraceBuilder::finishTrack(uint32_t i)
{
    if (m_finished[i])
        return;
    m_builders[i].finish(m_needsPlacement[i] ? &m_placements[i] : nullptr);
    m_finished[i] = 1;
}

std::shared_ptr<Trace> TraceBuilder::build(LoadControl *control)
{
    std::atomic<uint32_t> next{0};
    const auto count = uint32_t(m_tracks.size());
    auto work = [&] {
        for (uint32_t i; (i = next.fetch_add(1)) < count;) {
            if (control && control->cancelRequested())
                return;
            finishTrack(i);
        }
    };
    const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), count));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
    if (control && control->cancelRequested())
        return nullptr;

    uint64_t bad = 0;
    for (const auto &b : m_builders)
        bad += b.badDurations();
    if (bad > 0)
        m_trace->info.warn(std::to_string(bad) + " event(s) with a negative duration were clamped to 0");

    resolveFlows();

    Trace &trace = *m_trace;
    trace.tracks.reserve(m_tracks.size());
    for (Track &t : m_tracks)
        trace.tracks.push_back(std::move(t));
    m_tracks.clear();
    m_builders.clear();
    m_placements.clear();

    bool any = false;
    for (const Track &t : trace.tracks) {
        if (t.sliceCount == 0 && t.counter.size() == 0)
            continue;
        trace.begin = any ? std::min(trace.begin, t.begin) : t.begin;
        trace.end = any ? std::max(trace.end, t.end) : t.end;
        any = true;
    }
    trace.kinds.shrink_to_fit();
    trace.flows.shrink_to_fit();
    return std::move(m_trace);
}

void TraceBuilder::resolveFlows()
{
    auto &eps = m_flowEndpoints;
    if (eps.empty())
        return;
    Trace &trace = *m_trace;
    // Tracks are finished but still live in m_tracks, so lookups read them there.
    auto sliceFor = [&](const FlowEndpoint &ep, SliceRef *out) -> bool {
        const Track &track = m_tracks[ep.track];
        if (ep.staged != kByTime) {
            const auto &where = m_placements[ep.track];
            if (ep.staged >= where.size())
                return false;
            *out = SliceRef{ep.track, where[ep.staged].row, where[ep.staged].index};
            return true;
        }
        // Time-placed: deepest enclosing slice, or the next slice that begins.
        std::optional<SliceRef> best;
        TimePs bestStart = 0;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            if (ep.bindNext) {
                auto it = std::lower_bound(row.start.begin(), row.start.end(), ep.time);
                if (it != row.start.end() && (!best || *it < bestStart)) {
                    best = SliceRef{ep.track, r, uint32_t(it - row.start.begin())};
                    bestStart = *it;
                }
                continue;
            }
            auto it = std::upper_bound(row.start.begin(), row.start.end(), ep.time);
            if (it == row.start.begin())
                continue;
            const auto i = uint32_t(it - row.start.begin() - 1);
            if (ep.time < row.end(i) || (row.duration[i] == 0 && row.start[i] == ep.time))
                best = SliceRef{ep.track, r, i};
        }
        if (!best)
            return false;
        *out = *best;
        return true;
    };
    std::stable_sort(eps.begin(), eps.end(), [](const FlowEndpoint &a, const FlowEndpoint &b) {
        if (a.category != b.category)
            return a.category < b.category;
        if (a.id != b.id)
            return a.id < b.id;
        return a.time < b.time;
    });
    uint64_t unbound = 0;
    for (size_t i = 0; i < eps.size();) {
        size_t j = i;
        while (j < eps.size() && eps[j].category == eps[i].category && eps[j].id == eps[i].id)
            ++j;
        bool havePrev = false;
        SliceRef prev;
        for (size_t k = i; k < j; ++k) {
            SliceRef here;
            if (!sliceFor(eps[k], &here)) {
                ++unbound;
                continue;
            }
            if (havePrev && eps[k].phase != FlowPhase::Start && !(here == prev))
                trace.flows.push_back(Flow{prev, here, eps[k].id, eps[k].category});
            prev = here;
            havePrev = eps[k].phase != FlowPhase::End;
        }
        i = j;
    }
    if (unbound > 0)
        trace.info.warn(std::to_string(unbound) + " flow endpoint(s) matched no slice");
    eps.clear();
    eps.shrink_to_fit();
}

} // namespace tracedesk::core
