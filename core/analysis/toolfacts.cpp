#include "core/analysis/toolfacts.h"

#include <string_view>

namespace tracedesk::core::analysis {

namespace {

bool holdsEvents(const Trace &trace, const Plane &plane)
{
    for (uint32_t t : plane.tracks) {
        if (t >= trace.tracks.size())
            continue;
        for (const Row &row : trace.tracks[t].rows) {
            if (row.size() > 0)
                return true;
        }
    }
    return false;
}

} // namespace

bool hasGpuDevice(const Trace &trace)
{
    for (const Plane &plane : trace.planes) {
        if (plane.kind != PlaneKind::Device)
            continue;
        if (trace.string(plane.name).starts_with("/device:TPU"))
            continue;
        if (holdsEvents(trace, plane))
            return true;
    }
    return false;
}

bool hasTfDataIterators(const Trace &trace)
{
    for (const EventKind &kind : trace.kinds) {
        if (trace.string(kind.name).starts_with("Iterator::"))
            return true;
    }
    return false;
}

} // namespace tracedesk::core::analysis
