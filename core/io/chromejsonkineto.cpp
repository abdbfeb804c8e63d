// The Kineto (PyTorch profiler) part of ChromeJsonAssembler: typed side values read from a
// slice's args, and launches bound to their GPU activities by correlation id. The dialect's
// vocabulary (categories, arg keys) lives in kinetodialect.h.

#include "core/io/chromejsonassembler.h"

#include "core/io/kinetodialect.h"
#include "core/model/launchcalls.h"

#include <algorithm>
#include <limits>
#include <map>

#include <cmath>

namespace tracedesk::core {

int64_t ChromeJsonAssembler::sideValue(SideColumn column, const ChromeArg &a)
{
    if (sideColumnHoldsString(column))
        return a.type == ArgType::String ? int64_t(intern(a.s)) : kNoValue;
    if (column == SideColumn::Grid || column == SideColumn::Block) {
        if (a.type != ArgType::String)
            return kNoValue;
        const auto packed = kineto::parseDim3(a.s);
        return packed ? *packed : kNoValue;
    }
    double d = 0;
    switch (a.type) {
    case ArgType::Int:
        if (!kineto::isMillionths(column))
            return a.i;
        d = double(a.i);
        break;
    case ArgType::UInt:
        if (!kineto::isMillionths(column))
            return a.u > uint64_t(INT64_MAX) ? kNoValue : int64_t(a.u);
        d = double(a.u);
        break;
    case ArgType::Double: d = a.d; break;
    default: return kNoValue;   // "inf", "N/A": unknown
    }
    if (kineto::isMillionths(column)) {
        // Per-SM counts: anything past a billion is not a measurement (and sums must not
        // overflow), so it reads as unknown.
        if (!(d >= 0 && d <= 1e9))
            return kNoValue;
        d *= 1e6;
    }
    if (!(d > -9.0e18 && d < 9.0e18))
        return kNoValue;
    return int64_t(kineto::isMillionths(column) ? std::llround(d) : int64_t(d));
}

// Applies the side values writeArgs() collected, and notes launches and GPU activities by
// correlation id for the flows bound in finish().
void ChromeJsonAssembler::setSides(uint32_t track, uint32_t staged, SliceRole role)
{
    TrackBuilder &tb = m_builder.trackBuilder(track);
    int64_t correlation = kNoValue;
    for (const auto &[column, value] : m_sideScratch) {
        tb.setSide(staged, column, value);
        if (column == SideColumn::CorrelationId)
            correlation = value;
    }
    if (!m_kineto || correlation == kNoValue)
        return;
    if (role == SliceRole::Runtime)
        m_launchByCorrelation.try_emplace(correlation, Staged{track, staged});
    else if (role == SliceRole::Kernel || role == SliceRole::Memcpy || role == SliceRole::Memset
             || role == SliceRole::Sync)
        m_activities.emplace_back(correlation, Staged{track, staged});
}

// A launch that queues work on a stream (a kernel, memcpy or memset launch call and its work):
// +1 on that stream's queue at the call, -1 when the work starts.
void ChromeJsonAssembler::noteQueued(const Staged &launch, const Staged &work)
{
    const Trace &trace = m_builder.trace();
    const TrackBuilder &launchTrack = m_builder.trackBuilder(launch.track);
    const TrackBuilder &workTrack = m_builder.trackBuilder(work.track);
    const SliceRole role = trace.kinds[workTrack.stagedKind(work.staged)].role;
    if (role != SliceRole::Kernel && role != SliceRole::Memcpy && role != SliceRole::Memset)
        return;
    if (!isQueueingLaunch(trace.string(trace.kinds[launchTrack.stagedKind(launch.staged)].name)))
        return;
    auto &changes = m_queueChanges[work.track];
    changes.emplace_back(launchTrack.stagedStart(launch.staged), +1);
    changes.emplace_back(workTrack.stagedStart(work.staged), -1);
}

// Per GPU stream, the launches queued and not yet started, as a counter track beside the
// stream's (HTA's queue length, the step function gpu-time's statistics describe). After the
// metadata, which names the streams.
void ChromeJsonAssembler::addLaunchQueues()
{
    for (auto &[track, changes] : m_queueChanges) {
        // At one instant a launch counts before a start.
        std::sort(changes.begin(), changes.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        const Track &stream = m_builder.track(track);
        const std::string name = std::string(m_builder.trace().string(stream.name)) + " launch queue";
        // Added after every stream, the queue shares its stream's place in the plane's order
        // and so sits right under it. (Read before adding: adding a track may move the others.)
        const int32_t place = stream.sortIndex;
        const uint32_t counter =
            m_builder.addTrack(stream.plane, name, stream.sourceId, TrackType::Counter);
        m_builder.track(counter).sortIndex = place;
        TrackBuilder &out = m_builder.trackBuilder(counter);
        int64_t length = 0;
        for (size_t i = 0; i < changes.size(); ++i) {
            length += changes[i].second;
            if (i + 1 < changes.size() && changes[i + 1].first == changes[i].first)
                continue; // one sample per instant: the length after all its changes
            out.addCounterSample(changes[i].first, double(length));
        }
    }
    m_queueChanges = {};
    m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
}

void ChromeJsonAssembler::bindLaunches()
{
    // Launch -> GPU activity by correlation id: exact even where the GPU clock puts the kernel
    // before its launch returned, and 1:N for graph launches.
    uint64_t bound = 0;
    for (const auto &[correlation, activity] : m_activities) {
        auto it = m_launchByCorrelation.find(correlation);
        if (it == m_launchByCorrelation.end())
            continue;
        m_builder.addFlowBetween(it->second.track, it->second.staged, activity.track,
                                 activity.staged, uint64_t(correlation), m_launchFlowCategory);
        if (m_kineto)
            noteQueued(it->second, activity);
        ++bound;
    }
    m_launchByCorrelation = {};
    m_activities = {};
    if (m_kineto && bound > 0) {
        m_launchFlows = {};
        return;
    }
    // No correlation ids (or not Kineto): bind the flow events where they were written. In a
    // Kineto trace a flow end on a GPU stream belongs to that device's track.
    for (const LaunchFlow &f : m_launchFlows) {
        ThreadKey key = f.thread;
        key.pid.device = true;
        if (m_threadIndex.find(key) == m_threadIndex.end())
            key.pid.device = false;
        const Thread &t = threadForKey(key);
        m_builder.addFlowAt(t.track, f.ts, f.id, f.category, f.phase, f.bindNext);
    }
    m_launchFlows = {};
}

} // namespace tracedesk::core
