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

// Per GPU stream, the launches queued and not yet started, as a counter track beside the
// stream's: +1 at each kernel / memcpy / memset launch call, -1 when its work starts (HTA's queue
// length, the step function gpu-time's statistics describe).
void ChromeJsonAssembler::addLaunchQueues()
{
    const Trace &trace = m_builder.trace();
    std::map<uint32_t, std::vector<std::pair<TimePs, int>>> byTrack; // activity track -> changes
    for (const auto &[correlation, activity] : m_activities) {
        auto it = m_launchByCorrelation.find(correlation);
        if (it == m_launchByCorrelation.end())
            continue;
        const TrackBuilder &launchTrack = m_builder.trackBuilder(it->second.track);
        const TrackBuilder &workTrack = m_builder.trackBuilder(activity.track);
        const EventKind &work = trace.kinds[workTrack.stagedKind(activity.staged)];
        if (work.role != SliceRole::Kernel && work.role != SliceRole::Memcpy
            && work.role != SliceRole::Memset)
            continue;
        const EventKind &launch = trace.kinds[launchTrack.stagedKind(it->second.staged)];
        if (!isQueueingLaunch(trace.string(launch.name)))
            continue;
        auto &changes = byTrack[activity.track];
        changes.emplace_back(launchTrack.stagedStart(it->second.staged), +1);
        changes.emplace_back(workTrack.stagedStart(activity.staged), -1);
    }
    for (auto &[track, changes] : byTrack) {
        // At one instant a launch counts before a start.
        std::sort(changes.begin(), changes.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        const uint32_t plane = m_builder.track(track).plane;
        const std::string name =
            std::string(trace.string(m_builder.track(track).name)) + " launch queue";
        const int64_t sourceId = m_builder.track(track).sourceId;
        const uint32_t counter = m_builder.addTrack(plane, name, sourceId, TrackType::Counter);
        m_launchQueues.emplace_back(counter, track);
        m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
        TrackBuilder &out = m_builder.trackBuilder(counter);
        int64_t length = 0;
        for (size_t i = 0; i < changes.size(); ++i) {
            length += changes[i].second;
            if (i + 1 < changes.size() && changes[i + 1].first == changes[i].first)
                continue; // one sample per instant: the length after all its changes
            out.addCounterSample(changes[i].first, double(length));
        }
    }
}

void ChromeJsonAssembler::nameLaunchQueues()
{
    Trace &trace = m_builder.trace();
    for (const auto &[counter, stream] : m_launchQueues)
        m_builder.track(counter).name =
            intern(std::string(trace.string(m_builder.track(stream).name)) + " launch queue");
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
        ++bound;
    }
    if (m_kineto && bound > 0)
        addLaunchQueues();
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
