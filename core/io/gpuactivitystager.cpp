#include "core/io/gpuactivitystager.h"

namespace tracedesk::core {

NsSpan spanFromNs(int64_t startNs, std::optional<int64_t> endNs, int64_t originNs)
{
    NsSpan out;
    int64_t start = 0;
    if (__builtin_sub_overflow(startNs, originNs, &start))
        start = startNs < originNs ? INT64_MIN : INT64_MAX;
    int64_t ns = 0;
    if (endNs && *endNs >= startNs) {
        if (__builtin_sub_overflow(*endNs, startNs, &ns))
            ns = 0;
    } else if (endNs) {
        out.endBeforeStart = true;
    }
    // The TrackBuilder clamps what lies beyond the store's time range (and counts it).
    if (__builtin_mul_overflow(start, int64_t(1000), &out.start))
        out.start = start < 0 ? -kTimeLimitPs : kTimeLimitPs;
    if (__builtin_mul_overflow(ns, int64_t(1000), &out.duration))
        out.duration = kTimeLimitPs;
    return out;
}

uint32_t GpuActivityStager::kindFor(std::string_view name, std::string_view category,
                                    SliceRole role, uint32_t plane)
{
    const StringId n = m_builder.intern(name);
    const StringId c = m_builder.intern(category);
    const auto key = std::make_tuple(n, c, uint8_t(role), plane);
    auto it = m_kinds.find(key);
    if (it != m_kinds.end())
        return it->second;
    EventKind kind;
    kind.name = n;
    kind.category = c;
    kind.role = role;
    kind.plane = plane;
    const uint32_t index = m_builder.addKind(kind);
    m_kinds.emplace(key, index);
    return index;
}

uint32_t GpuActivityStager::devicePlane(int64_t device, std::string_view name)
{
    auto it = m_devicePlanes.find(device);
    if (it != m_devicePlanes.end())
        return it->second;
    const std::string fallback = "GPU " + std::to_string(device);
    const uint32_t plane = m_builder.addPlane(name.empty() ? std::string_view(fallback) : name,
                                              {}, device, PlaneKind::Device);
    m_devicePlanes.emplace(device, plane);
    return plane;
}

uint32_t GpuActivityStager::addActivity(const Activity &a, std::string_view name,
                                        std::string_view category, SliceRole role, ArgsRef args)
{
    TrackBuilder &tb = m_builder.trackBuilder(a.track);
    const uint32_t staged =
        tb.addSlice(a.start, a.duration, kindFor(name, category, role, devicePlane(a.device)),
                    args);
    tb.setSide(staged, SideColumn::Device, a.device);
    tb.setSide(staged, SideColumn::Stream, a.stream);
    if (a.correlation) {
        tb.setSide(staged, SideColumn::CorrelationId, *a.correlation);
        m_activities.push_back({{a.scope, *a.correlation}, Staged{a.track, staged}});
    }
    return staged;
}

void GpuActivityStager::noteLaunch(int64_t scope, int64_t correlation, uint32_t track,
                                   uint32_t staged)
{
    m_launches.try_emplace({scope, correlation}, Staged{track, staged});
}

void GpuActivityStager::bindFlows()
{
    const StringId category = m_builder.intern("ac2g");
    for (const auto &[key, activity] : m_activities) {
        auto it = m_launches.find(key);
        if (it == m_launches.end())
            continue;
        m_builder.addFlowBetween(it->second.track, it->second.staged, activity.track,
                                 activity.staged, uint64_t(key.second), category);
    }
    m_launches.clear();
    m_activities.clear();
}

} // namespace tracedesk::core
