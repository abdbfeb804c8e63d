#pragma once

// GpuActivityStager: what every reader of a GPU profiler's own records (Nsight Systems exports,
// rocprofv3 results) does the same way once it has a row in hand, so their kernels, copies and
// memsets reach the analyses exactly as Kineto's do.
//
// - One event kind per (name, category, role, plane), interned once.
// - Device planes `GPU N` (PlaneKind::Device, Plane::id = N), created on first use.
// - A GPU activity staged on its track with the Device, Stream and CorrelationId side columns,
//   and noted for binding to the host call that launched it.
// - Launch flows: a host call and its GPU activities meet on (scope, correlation id), where the
//   scope is whatever the format numbers correlation ids per (a process for CUPTI, one process
//   for rocprofv3); one call binds to each of its activities (graph launches), whatever the
//   clocks say.
//
// Times given in ns are converted here too, so every reader clamps and counts the same way.
// One thread; bindFlows() once after every row is staged.

#include "core/model/tracebuilder.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tracedesk::core {

// A span in ps from ns: the start x1000 (saturating at the store's limit, which the
// TrackBuilder then clamps and counts), the duration from an end before the start as 0.
struct NsSpan
{
    TimePs start = 0;
    TimePs duration = 0;
    bool endBeforeStart = false;   // the end lies before the start: kept at zero length
};
NsSpan spanFromNs(int64_t startNs, std::optional<int64_t> endNs, int64_t originNs = 0);

class GpuActivityStager
{
public:
    explicit GpuActivityStager(TraceBuilder &builder) : m_builder(builder) {}

    uint32_t kindFor(std::string_view name, std::string_view category, SliceRole role,
                     uint32_t plane);
    // The device plane of GPU `device`, named `GPU N` unless `name` says otherwise.
    uint32_t devicePlane(int64_t device, std::string_view name = {});
    bool hasDevicePlane(int64_t device) const { return m_devicePlanes.count(device) != 0; }

    struct Activity
    {
        TimePs start = 0, duration = 0;
        int64_t device = 0;
        int64_t stream = -1;                   // -1: belongs to no stream
        uint32_t track = 0;                    // a track of the device's plane
        std::optional<int64_t> correlation;    // binds the activity to its launch
        int64_t scope = 0;                     // what correlation ids are numbered per
    };
    // Stages the activity with its side columns and notes it for its launch flow. Returns the
    // staged index on `activity.track`.
    uint32_t addActivity(const Activity &activity, std::string_view name,
                         std::string_view category, SliceRole role, ArgsRef args = kNoArgs);
    // A host call that launched GPU work with this correlation id (the first one noted wins).
    void noteLaunch(int64_t scope, int64_t correlation, uint32_t track, uint32_t staged);
    // Binds every noted activity to its launch as an `ac2g` flow; forgets both lists.
    void bindFlows();

private:
    struct Staged
    {
        uint32_t track;
        uint32_t staged;
    };
    using Key = std::pair<int64_t, int64_t>;   // (scope, correlation id)

    TraceBuilder &m_builder;
    std::map<int64_t, uint32_t> m_devicePlanes;
    std::map<std::tuple<StringId, StringId, uint8_t, uint32_t>, uint32_t> m_kinds;
    std::map<Key, Staged> m_launches;
    std::vector<std::pair<Key, Staged>> m_activities;
};

} // namespace tracedesk::core
