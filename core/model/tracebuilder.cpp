#include "core/model/tracebuilder.h"

#include "core/base/loadcontrol.h"
#include "core/base/parallel.h"
#include "core/base/radixsort.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <span>
#include <thread>

namespace tracedesk::core {

namespace {
constexpr uint32_t kByTime = std::numeric_limits<uint32_t>::max();

// Links one (category, id) group's endpoints, fed in time order: each endpoint but a Start
// continues the flow from the one before it, unless that one was an End.
class FlowChain
{
public:
    void add(SliceRef slice, FlowPhase phase, uint64_t id, StringId category,
             std::vector<Flow> &out)
    {
        if (m_havePrev && phase != FlowPhase::Start && !(slice == m_prev))
            out.push_back(Flow{m_prev, slice, id, category});
        m_prev = slice;
        m_havePrev = phase != FlowPhase::End;
    }

private:
    bool m_havePrev = false;
    SliceRef m_prev;
};
} // namespace

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
    time = std::clamp(time, -kTimeLimitPs, kTimeLimitPs);
    m_flowEndpoints.push_back({track, staged, time, id, category, phase, false});
}

void TraceBuilder::addFlowAt(uint32_t track, TimePs time, uint64_t id, StringId category,
                             FlowPhase phase, bool bindNext)
{
    time = std::clamp(time, -kTimeLimitPs, kTimeLimitPs);   // as the slices it binds to
    m_flowEndpoints.push_back({track, kByTime, time, id, category, phase, bindNext});
}

void TraceBuilder::addFlowBetween(uint32_t fromTrack, uint32_t fromStaged, uint32_t toTrack,
                                  uint32_t toStaged, uint64_t id, StringId category)
{
    m_needsPlacement[fromTrack] = 1;
    m_needsPlacement[toTrack] = 1;
    m_directFlows.push_back({fromTrack, fromStaged, toTrack, toStaged, id, category});
}

bool TraceBuilder::addPlacedFlowEndpoint(SliceRef slice, uint64_t id, StringId category,
                                         FlowPhase phase)
{
    // Readers use a handful of flow categories (XSpace: at most 64): a scan finds the slot.
    size_t slot = 0;
    while (slot < m_placedCategories.size() && m_placedCategories[slot] != category)
        ++slot;
    if (slot == m_placedCategories.size()) {
        if (slot == kPlacedFlowCategories)
            return false;
        m_placedCategories.push_back(category);
    }
    const uint64_t h = (id * 0x9E3779B97F4A7C15ull) ^ category;
    m_buckets[(h >> 32) % kFlowBuckets].push(
        slice.track,
        {id, slice.index, uint16_t(slice.row), uint16_t(uint16_t(phase) | (slot << 2))});
    return true;
}

void TraceBuilder::finishTrack(uint32_t i)
{
    if (m_finished[i])
        return;
    m_builders[i].finish(m_needsPlacement[i] ? &m_placements[i] : nullptr);
    m_finished[i] = 1;
}

void TraceBuilder::finishTrack(uint32_t i, std::vector<TrackBuilder::Placement> *where)
{
    if (!where)
        return finishTrack(i);
    if (m_finished[i])
        return;
    m_builders[i].finish(where);
    if (m_needsPlacement[i])
        m_placements[i] = *where;
    m_finished[i] = 1;
}

std::shared_ptr<Trace> TraceBuilder::build(LoadControl *control)
{
    parallelFor(m_tracks.size(), 0, [&](unsigned, size_t i) {
        if (control && control->cancelRequested())
            return false;
        finishTrack(uint32_t(i));
        return true;
    });
    if (control && control->cancelRequested())
        return nullptr;

    uint64_t bad = 0, clamped = 0;
    for (const auto &b : m_builders) {
        bad += b.badDurations();
        clamped += b.clampedTimes();
    }
    if (bad > 0)
        m_trace->info.warn(std::to_string(bad) + " event(s) with a negative duration were clamped to 0");
    if (clamped > 0)
        m_trace->info.warn(std::to_string(clamped)
                           + " time(s) beyond +-2.3e18 ps (about 26 days) were clamped");

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
    return std::move(m_trace);
}

void TraceBuilder::EndpointBucket::push(uint32_t track, const StoredEndpoint &e)
{
    if (runs.empty() || runs.back().second != track)
        runs.emplace_back(size, track);
    // Chunks start small (a trace with a handful of flows costs a few KiB) and grow to 1 MiB.
    constexpr size_t kFirst = 64, kLargest = size_t(1) << 16;
    if (chunks.empty() || chunks.back().size() == chunks.back().capacity()) {
        chunks.emplace_back();
        chunks.back().reserve(std::min(kFirst << std::min<size_t>(chunks.size() - 1, 10), kLargest));
    }
    chunks.back().push_back(e);
    ++size;
}

void TraceBuilder::EndpointBucket::takeInto(const std::vector<StringId> &categories,
                                            std::vector<PlacedEndpoint> &all)
{
    all.clear();
    all.reserve(size);
    size_t run = 0;
    for (auto &chunk : chunks) {
        for (const StoredEndpoint &e : chunk) {
            while (run + 1 < runs.size() && runs[run + 1].first <= all.size())
                ++run;
            all.push_back({e.id, runs[run].second, e.index, categories[e.phaseAndCategory >> 2],
                           e.row, FlowPhase(e.phaseAndCategory & 3)});
        }
        std::vector<StoredEndpoint>().swap(chunk);
    }
    chunks = {};
    runs = {};
    size = 0;
}

void TraceBuilder::resolveFlows()
{
    std::vector<FlowTable> parts(1);
    {
        std::vector<Flow> flows;
        resolveFlowsInto(flows);
        parts.front().assign(flows);
    }
    for (auto &where : m_placements)
        std::vector<TrackBuilder::Placement>().swap(where);
    chainPlacedEndpoints(parts);
    if (parts.size() == 1)
        m_trace->flows = std::move(parts.front());
    else
        m_trace->flows.assign(parts);
}

// The same chaining as resolveFlowsInto's, for endpoints placed by their reader: each
// (category, id) group in time order, ties in arrival order (a stable sort of its bucket, in
// which a group's endpoints keep the order they came in).
void TraceBuilder::chainPlacedEndpoints(std::vector<FlowTable> &parts)
{
    size_t total = 0;
    for (const EndpointBucket &b : m_buckets)
        total += b.size;
    if (total == 0)
        return;
    auto startOf = [this](const PlacedEndpoint &e) {
        return &m_tracks[e.track].rows[e.row].start[e.index];
    };
    auto timeOf = [&](const PlacedEndpoint &e) { return *startOf(e); };
    // `eps` is sorted through `scratch` (at least as long) and left empty, its capacity kept.
    auto chain = [&](std::vector<PlacedEndpoint> &eps, PlacedEndpoint *scratch,
                     std::vector<Flow> &out) {
        // By id (a radix sort, stable), then each run of one id by category and time, stably:
        // the order of one stable sort by (id, category, time), in linear passes.
        radixSortByKey(std::span<PlacedEndpoint>(eps),
                       std::span<PlacedEndpoint>(scratch, eps.size()),
                       [](const PlacedEndpoint &e) { return e.id; });
        auto before = [&](const PlacedEndpoint &x, const PlacedEndpoint &y) {
            if (x.category != y.category)
                return x.category < y.category;
            return timeOf(x) < timeOf(y);
        };
        // In id order the endpoints' slices are all over the store: their starts are fetched
        // ahead of the comparisons (a cache miss each, overlapped instead of waited for).
        constexpr size_t kAhead = 32;
        size_t fetched = 0;
        for (size_t i = 0; i < eps.size();) {
            for (; fetched < std::min(eps.size(), i + kAhead); ++fetched)
                __builtin_prefetch(startOf(eps[fetched]));
            size_t j = i + 1;
            while (j < eps.size() && eps[j].id == eps[i].id)
                ++j;
            // A run is mostly a flow's two ends: sorted in place, without a buffer per run.
            if (j - i <= 16) {
                for (size_t k = i + 1; k < j; ++k) {
                    const PlacedEndpoint e = eps[k];
                    size_t at = k;
                    for (; at > i && before(e, eps[at - 1]); --at)
                        eps[at] = eps[at - 1];
                    eps[at] = e;
                }
            } else {
                std::stable_sort(eps.begin() + std::ptrdiff_t(i), eps.begin() + std::ptrdiff_t(j),
                                 before);
            }
            i = j;
        }
        for (size_t i = 0; i < eps.size();) {
            size_t j = i;
            while (j < eps.size() && eps[j].category == eps[i].category && eps[j].id == eps[i].id)
                ++j;
            FlowChain group;
            for (size_t k = i; k < j; ++k) {
                const PlacedEndpoint &ep = eps[k];
                group.add(SliceRef{ep.track, ep.row, ep.index}, ep.phase, ep.id, ep.category, out);
            }
            i = j;
        }
        eps.clear();
    };
    // Few endpoints chain as one list, so their flows come in (id, category) order; many bucket
    // by bucket on every core. Either order is the same on every machine.
    if (total < 100000) {
        std::vector<PlacedEndpoint> all, part;
        all.reserve(total);
        for (EndpointBucket &b : m_buckets) {
            b.takeInto(m_placedCategories, part);
            all.insert(all.end(), part.begin(), part.end());
        }
        std::unique_ptr<PlacedEndpoint[]> scratch(new PlacedEndpoint[all.size()]);
        std::vector<Flow> flows;
        chain(all, scratch.get(), flows);
        parts.emplace_back().assign(flows);
        return;
    }
    // Each worker sorts and chains bucket after bucket in the same buffers, sized once for the
    // largest bucket: fresh buffers per bucket had the kernel map and zero 3 GB at 100M events
    // (they are past the allocator's mapping threshold, so each free unmapped them). A bucket's
    // flows are packed as soon as they are chained: 40-byte flows of every bucket held until
    // the end were the load's peak.
    size_t largest = 0;
    for (const EndpointBucket &b : m_buckets)
        largest = std::max(largest, b.size);
    struct Buffers
    {
        std::vector<PlacedEndpoint> eps;
        std::unique_ptr<PlacedEndpoint[]> scratch;
        std::vector<Flow> flows;
    };
    const unsigned workers = workerCount(kFlowBuckets);
    std::vector<Buffers> buffers(workers);
    std::vector<FlowTable> perBucket(kFlowBuckets);
    parallelFor(kFlowBuckets, workers, [&](unsigned worker, size_t b) {
        Buffers &mine = buffers[worker];
        if (!mine.scratch) {
            mine.eps.reserve(largest);
            mine.scratch.reset(new PlacedEndpoint[largest]);
            mine.flows.reserve(largest / 2);
        }
        m_buckets[b].takeInto(m_placedCategories, mine.eps);
        mine.flows.clear();
        chain(mine.eps, mine.scratch.get(), mine.flows);
        perBucket[b].assign(mine.flows, 1);
        return true;
    });
    buffers.clear();
    for (auto &flows : perBucket)
        parts.push_back(std::move(flows));
}

void TraceBuilder::resolveFlowsInto(std::vector<Flow> &flows)
{
    for (const DirectFlow &f : m_directFlows) {
        const auto &from = m_placements[f.fromTrack];
        const auto &to = m_placements[f.toTrack];
        if (f.fromStaged >= from.size() || f.toStaged >= to.size())
            continue;
        flows.push_back(
            Flow{SliceRef{f.fromTrack, from[f.fromStaged].row, from[f.fromStaged].index},
                 SliceRef{f.toTrack, to[f.toStaged].row, to[f.toStaged].index}, f.id, f.category});
    }
    m_directFlows = {};
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
        const auto at = ep.bindNext ? track.firstSliceFrom(ep.time) : track.deepestSliceAt(ep.time);
        if (!at)
            return false;
        *out = SliceRef{ep.track, at->row, at->index};
        return true;
    };
    // Endpoints are grouped by (category, id) and chained in time order. Groups are spread over
    // buckets by a hash of their key so the sort and the chaining run on every core; within a
    // bucket the arrival index breaks ties, which keeps the result deterministic.
    struct Key
    {
        uint64_t id;
        TimePs time;
        StringId category;
        uint32_t index;
        SliceRef slice;
        FlowPhase phase;
    };
    // Resolve every endpoint in arrival order first: endpoints on staged slices arrive in staging
    // order, so their placement lookups walk memory forwards instead of jumping around.
    std::vector<SliceRef> resolved(eps.size());
    std::vector<uint8_t> bound(eps.size(), 0);
    {
        // Contiguous chunks, one per worker, keep each worker's lookups walking forwards.
        const unsigned workers = workerCount(eps.size());
        const size_t chunk = (eps.size() + workers - 1) / workers;
        parallelFor(workers, workers, [&](unsigned, size_t w) {
            for (size_t i = w * chunk; i < std::min(eps.size(), (w + 1) * chunk); ++i)
                bound[i] = sliceFor(eps[i], &resolved[i]) ? 1 : 0;
            return true;
        });
    }
    // A fixed bucket count keeps the flow order the same on every machine.
    const size_t bucketCount = eps.size() < 100000 ? 1 : 16;
    std::vector<std::vector<Key>> buckets(bucketCount);
    uint64_t unbound = 0;
    for (uint32_t i = 0; i < eps.size(); ++i) {
        if (!bound[i]) {
            ++unbound;
            continue;
        }
        const uint64_t h = (eps[i].id * 0x9E3779B97F4A7C15ull) ^ eps[i].category;
        buckets[(h >> 32) % bucketCount].push_back(
            {eps[i].id, eps[i].time, eps[i].category, i, resolved[i], eps[i].phase});
    }
    resolved = {};
    bound = {};
    eps = {};
    std::vector<std::vector<Flow>> flowsPerBucket(bucketCount);
    auto chain = [&](size_t b) {
        const auto &keys = buckets[b];
        // Sort compact (id, category, position) triples; the 40-byte keys never move. Keys are in
        // arrival order, so equal (category, id) runs come out in arrival order and only the
        // (small) runs need ordering by time.
        struct Order
        {
            uint64_t id;
            StringId category;
            uint32_t pos;
        };
        std::vector<Order> order(keys.size());
        for (uint32_t k = 0; k < keys.size(); ++k)
            order[k] = {keys[k].id, keys[k].category, k};
        std::sort(order.begin(), order.end(), [](const Order &x, const Order &y) {
            if (x.id != y.id)
                return x.id < y.id;
            if (x.category != y.category)
                return x.category < y.category;
            return x.pos < y.pos;
        });
        for (size_t i = 0; i < order.size();) {
            size_t j = i;
            while (j < order.size() && order[j].category == order[i].category
                   && order[j].id == order[i].id)
                ++j;
            std::stable_sort(order.begin() + long(i), order.begin() + long(j),
                             [&](const Order &x, const Order &y) {
                                 return keys[x.pos].time < keys[y.pos].time;
                             });
            FlowChain group;
            for (size_t k = i; k < j; ++k) {
                const Key &ep = keys[order[k].pos];
                group.add(ep.slice, ep.phase, ep.id, ep.category, flowsPerBucket[b]);
            }
            i = j;
        }
        buckets[b] = {};
    };
    parallelFor(bucketCount, 0, [&](unsigned, size_t b) {
        chain(b);
        return true;
    });

    size_t total = 0;
    for (size_t b = 0; b < bucketCount; ++b)
        total += flowsPerBucket[b].size();
    flows.reserve(flows.size() + total);
    for (auto &bucket : flowsPerBucket)
        flows.insert(flows.end(), bucket.begin(), bucket.end());
    if (unbound > 0)
        trace.info.warn(std::to_string(unbound) + " flow endpoint(s) matched no slice");
    eps.clear();
    eps.shrink_to_fit();
}


} // namespace tracedesk::core
