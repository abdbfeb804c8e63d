#include "core/analysis/pytorch/kinetoindex.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

namespace tracedesk::core::analysis::pytorch {

namespace {

// Old files write External id 0 for "no op"; new files omit it. Both mean none.
int64_t externalIdOf(const Trace &trace, SliceRef ref)
{
    const int64_t v = trace.side(ref, SideColumn::ExternalId);
    return v == 0 ? kNoValue : v;
}

bool isGpuActivity(SliceRole role)
{
    return role == SliceRole::Kernel || role == SliceRole::Memcpy || role == SliceRole::Memset;
}

bool isCpuNode(SliceRole role)
{
    return role == SliceRole::CpuOp || role == SliceRole::UserAnnotation ||
           role == SliceRole::PythonFunction;
}

// Recent Kineto builds write each launch's and GPU activity's correlation id as its External
// id, so the id names no CPU op, and where the two counters meet it would name the wrong one.
// When every launch carrying both has them equal, the External ids carry no op link.
bool externalIdsMirrorCorrelation(const std::vector<KinetoRuntime> &runtimes)
{
    size_t both = 0;
    for (const KinetoRuntime &rt : runtimes) {
        if (rt.externalId == kNoValue || rt.correlation == kNoValue)
            continue;
        ++both;
        if (rt.externalId != rt.correlation)
            return false;
    }
    return both > 0;
}

struct ThreadScratch
{
    std::vector<KinetoNode> nodes;
    std::vector<KinetoRuntime> runtimes;
    bool hasProfilerStep = false;
};

} // namespace

bool isProfilerStepName(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
        return false;
    return std::all_of(name.begin() + prefix.size(), name.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

std::span<const uint32_t> KinetoIndex::activitiesOf(uint32_t runtime) const
{
    if (runtime + 1 >= activityOffsets.size())
        return {};
    return std::span<const uint32_t>(activityOrder.data() + activityOffsets[runtime],
                                     activityOffsets[runtime + 1] - activityOffsets[runtime]);
}

uint32_t KinetoIndex::runtimeForCorrelation(int64_t correlation) const
{
    auto it = runtimeByCorrelation.find(correlation);
    return it == runtimeByCorrelation.end() ? kNoIndex : it->second;
}

std::span<const uint32_t> KinetoIndex::nodesForExternalId(int64_t externalId) const
{
    auto it = nodeRangeByExternalId.find(externalId);
    if (it == nodeRangeByExternalId.end())
        return {};
    return std::span<const uint32_t>(nodeOrder.data() + it->second.first,
                                     it->second.second - it->second.first);
}

uint32_t KinetoIndex::threadOfTrack(uint32_t track) const
{
    auto it = threadByTrack.find(track);
    return it == threadByTrack.end() ? kNoIndex : it->second;
}

uint32_t kinetoSectionCount(const Trace &trace)
{
    const size_t hosts = trace.info.hosts.size();
    // An XSpace run folder's hosts and Nsight Systems exports opened together are sections
    // too: each has its own correlation ids.
    const bool sectioned = trace.info.format == "chrome-json" || trace.info.format == "xspace"
                           || trace.info.format == "nsys-sqlite";
    return sectioned && hosts >= 2 ? uint32_t(hosts) : 1;
}

uint32_t kinetoRankCount(const Trace &trace)
{
    const uint32_t sections = kinetoSectionCount(trace);
    const int64_t world = trace.info.run.distributed.worldSize;
    return sections >= 2 && world > int64_t(sections) && world <= int64_t(UINT32_MAX)
               ? uint32_t(world)
               : sections;
}

KinetoScope kinetoScope(const Trace &trace)
{
    return kinetoScope(trace, 0);
}

KinetoScope kinetoScope(const Trace &trace, uint32_t section)
{
    KinetoScope scope;
    const uint32_t count = kinetoSectionCount(trace);
    if (count < 2)
        return scope;
    section = std::min(section, count - 1);
    const std::string &host = trace.info.hosts[section];
    StringId id = kEmptyString;
    if (!trace.strings.find(host, &id))
        return scope;
    scope.wholeTrace = false;
    scope.host = id;
    scope.section = section;
    scope.scopeLabel = host + " of " + std::to_string(kinetoRankCount(trace));
    return scope;
}

KinetoIndex buildKinetoIndex(const Trace &trace)
{
    return buildKinetoIndex(trace, kinetoScope(trace));
}

KinetoIndex buildKinetoIndex(const Trace &trace, const KinetoScope &scope)
{
    KinetoIndex index;
    index.scope = scope;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        checkCancelled();
        const Track &track = trace.tracks[t];
        if (track.type != TrackType::Slices || !index.scope.includes(trace, track.plane))
            continue;
        ThreadScratch scratch;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                const EventKind &kind = trace.kinds[row.kind[i]];
                const SliceRef ref{t, r, i};
                if (isCpuNode(kind.role)) {
                    KinetoNode node;
                    node.ref = ref;
                    node.role = kind.role;
                    node.start = row.start[i];
                    node.end = row.end(i);
                    node.externalId = externalIdOf(trace, ref);
                    scratch.hasProfilerStep =
                        scratch.hasProfilerStep || isProfilerStepName(trace.string(kind.name));
                    scratch.nodes.push_back(node);
                } else if (kind.role == SliceRole::Runtime) {
                    KinetoRuntime rt;
                    rt.ref = ref;
                    rt.start = row.start[i];
                    rt.end = row.end(i);
                    rt.correlation = trace.side(ref, SideColumn::CorrelationId);
                    rt.externalId = externalIdOf(trace, ref);
                    scratch.runtimes.push_back(rt);
                } else if (isGpuActivity(kind.role)) {
                    KinetoActivity a;
                    a.ref = ref;
                    a.role = kind.role;
                    a.start = row.start[i];
                    a.end = row.end(i);
                    const int64_t device = trace.side(ref, SideColumn::Device);
                    a.device = device != kNoValue ? device : trace.planes[track.plane].id;
                    const int64_t stream = trace.side(ref, SideColumn::Stream);
                    a.stream = stream != kNoValue ? stream : track.sourceId;
                    a.correlation = trace.side(ref, SideColumn::CorrelationId);
                    a.externalId = externalIdOf(trace, ref);
                    index.hasKernels = index.hasKernels || a.role == SliceRole::Kernel;
                    index.activities.push_back(a);
                }
            }
        }
        if (scratch.nodes.empty() && scratch.runtimes.empty())
            continue;
        const auto threadIndex = uint32_t(index.threads.size());
        KinetoThread thread;
        thread.track = t;
        thread.plane = track.plane;
        thread.pid = trace.planes[track.plane].id;
        thread.tid = track.sourceId;
        thread.hasProfilerStep = scratch.hasProfilerStep;
        // Parents first: earlier start, then longer, then shallower row.
        std::sort(scratch.nodes.begin(), scratch.nodes.end(),
                  [](const KinetoNode &a, const KinetoNode &b) {
                      return std::tuple(a.start, -a.end, a.ref.row, a.ref.index) <
                             std::tuple(b.start, -b.end, b.ref.row, b.ref.index);
                  });
        std::sort(scratch.runtimes.begin(), scratch.runtimes.end(),
                  [](const KinetoRuntime &a, const KinetoRuntime &b) {
                      return std::tuple(a.start, a.ref.row, a.ref.index) <
                             std::tuple(b.start, b.ref.row, b.ref.index);
                  });
        thread.nodeBegin = uint32_t(index.nodes.size());
        for (KinetoNode &n : scratch.nodes) {
            n.thread = threadIndex;
            index.nodes.push_back(n);
        }
        thread.nodeEnd = uint32_t(index.nodes.size());
        thread.runtimeBegin = uint32_t(index.runtimes.size());
        for (KinetoRuntime &rt : scratch.runtimes) {
            rt.thread = threadIndex;
            index.runtimes.push_back(rt);
        }
        thread.runtimeEnd = uint32_t(index.runtimes.size());
        index.threadByTrack.emplace(t, threadIndex);
        index.threads.push_back(thread);
    }
    index.hasDeviceActivities = !index.activities.empty();
    index.externalIdsMirrorCorrelation = externalIdsMirrorCorrelation(index.runtimes);
    if (index.externalIdsMirrorCorrelation) {
        for (KinetoRuntime &rt : index.runtimes)
            rt.externalId = kNoValue;
        for (KinetoActivity &a : index.activities)
            a.externalId = kNoValue;
    }

    // Correlation -> runtime; the first call in (start, track) order keeps a shared id.
    std::vector<uint32_t> byStart(index.runtimes.size());
    std::iota(byStart.begin(), byStart.end(), 0u);
    std::stable_sort(byStart.begin(), byStart.end(), [&](uint32_t a, uint32_t b) {
        return index.runtimes[a].start < index.runtimes[b].start;
    });
    index.runtimeByCorrelation.reserve(index.runtimes.size());
    for (uint32_t r : byStart) {
        if (index.runtimes[r].correlation != kNoValue)
            index.runtimeByCorrelation.emplace(index.runtimes[r].correlation, r);
    }

    std::sort(index.activities.begin(), index.activities.end(),
              [](const KinetoActivity &a, const KinetoActivity &b) {
                  return std::tuple(a.device, a.stream, a.start, a.ref.track, a.ref.row,
                                    a.ref.index) < std::tuple(b.device, b.stream, b.start,
                                                              b.ref.track, b.ref.row, b.ref.index);
              });
    std::set<int64_t> devices;
    std::vector<uint32_t> counts(index.runtimes.size() + 1, 0);
    for (KinetoActivity &a : index.activities) {
        devices.insert(a.device);
        if (a.correlation != kNoValue)
            a.runtime = index.runtimeForCorrelation(a.correlation);
        if (a.runtime != kNoIndex)
            ++counts[a.runtime + 1];
    }
    index.devices.assign(devices.begin(), devices.end());
    std::partial_sum(counts.begin(), counts.end(), counts.begin());
    index.activityOffsets = counts;
    index.activityOrder.assign(counts.back(), 0);
    std::vector<uint32_t> activityIds(index.activities.size());
    std::iota(activityIds.begin(), activityIds.end(), 0u);
    std::stable_sort(activityIds.begin(), activityIds.end(), [&](uint32_t a, uint32_t b) {
        return index.activities[a].start < index.activities[b].start;
    });
    for (uint32_t a : activityIds) {
        const uint32_t r = index.activities[a].runtime;
        if (r != kNoIndex)
            index.activityOrder[counts[r]++] = a;
    }

    // External id -> nodes, grouped contiguously in nodeOrder.
    index.nodeOrder.resize(index.nodes.size());
    std::iota(index.nodeOrder.begin(), index.nodeOrder.end(), 0u);
    std::stable_sort(index.nodeOrder.begin(), index.nodeOrder.end(), [&](uint32_t a, uint32_t b) {
        return index.nodes[a].externalId < index.nodes[b].externalId;
    });
    for (uint32_t i = 0; i < index.nodeOrder.size();) {
        const int64_t id = index.nodes[index.nodeOrder[i]].externalId;
        uint32_t j = i;
        while (j < index.nodeOrder.size() && index.nodes[index.nodeOrder[j]].externalId == id)
            ++j;
        if (id != kNoValue)
            index.nodeRangeByExternalId.emplace(id, std::pair(i, j));
        i = j;
    }
    return index;
}

std::shared_ptr<const KinetoIndex> kinetoIndex(AnalysisCache &cache)
{
    return cache.get<KinetoIndex>([](AnalysisCache &c) {
        const auto scope =
            c.get<KinetoScope>([](AnalysisCache &d) { return kinetoScope(d.trace()); });
        return buildKinetoIndex(c.trace(), *scope);
    });
}

} // namespace tracedesk::core::analysis::pytorch
