#include "core/io/xspacegpuroles.h"

#include <string_view>
#include <vector>

namespace tracedesk::core {

namespace {

constexpr uint8_t kOnStream = 1;
constexpr uint8_t kOnOtherDeviceLine = 2;
constexpr uint32_t kNoCopy = UINT32_MAX;

bool isGpuPlane(const Trace &trace, const Plane &plane)
{
    return plane.kind == PlaneKind::Device && trace.string(plane.name).starts_with("/device:GPU:");
}

bool isStreamLine(const Trace &trace, const Track &track)
{
    return trace.string(track.name).starts_with("Stream #");
}

SliceRole activityRole(std::string_view name)
{
    if (name.starts_with("Memcpy"))
        return SliceRole::Memcpy;
    if (name.starts_with("Memset"))
        return SliceRole::Memset;
    return SliceRole::Kernel;
}

} // namespace

void mapXSpaceGpuRoles(Trace &trace)
{
    const size_t kindCount = trace.kinds.size();
    std::vector<uint8_t> use(kindCount, 0);
    std::vector<bool> launches(kindCount, false);
    for (const Track &track : trace.tracks) {
        if (track.type != TrackType::Slices)
            continue;
        const Plane &plane = trace.planes[track.plane];
        if (isGpuPlane(trace, plane)) {
            const uint8_t where = isStreamLine(trace, track) ? kOnStream : kOnOtherDeviceLine;
            // Through the columns' typed views: a load of 10M events reads every kind here.
            for (const Row &row : track.rows) {
                row.kind.visit([&](auto kinds) {
                    for (size_t i = 0; i < row.size(); ++i)
                        use[size_t(kinds.at(i))] |= where;
                });
            }
        } else if (plane.kind == PlaneKind::Host) {
            for (const Row &row : track.rows) {
                const PackedInts &correlation = row.side[size_t(SideColumn::CorrelationId)];
                if (correlation.size() != row.size())
                    continue;   // no correlation ids on this row
                correlation.visit([&](auto ids) {
                    row.kind.visit([&](auto kinds) {
                        for (size_t i = 0; i < row.size(); ++i) {
                            if (ids.valueAt(i) != kNoValue)
                                launches[size_t(kinds.at(i))] = true;
                        }
                    });
                });
            }
        }
    }

    // A kind on a stream and on another line of the device: the stream's events get a copy.
    std::vector<uint32_t> copyOf(kindCount, kNoCopy);
    bool split = false;
    for (size_t k = 0; k < kindCount; ++k) {
        if (use[k] == (kOnStream | kOnOtherDeviceLine) && trace.kinds[k].role == SliceRole::None) {
            copyOf[k] = uint32_t(trace.kinds.size());
            trace.kinds.push_back(trace.kinds[k]);
            split = true;
        }
    }
    for (size_t k = 0; k < kindCount; ++k) {
        if (!(use[k] & kOnStream))
            continue;
        EventKind &kind = trace.kinds[copyOf[k] != kNoCopy ? copyOf[k] : k];
        if (kind.role == SliceRole::None)
            kind.role = activityRole(trace.string(kind.name));
    }
    for (size_t k = 0; k < kindCount; ++k) {
        if (launches[k] && trace.kinds[k].role == SliceRole::None)
            trace.kinds[k].role = SliceRole::Runtime;
    }
    if (!split)
        return;
    std::vector<int64_t> values;
    for (Track &track : trace.tracks) {
        if (track.type != TrackType::Slices || !isGpuPlane(trace, trace.planes[track.plane]) ||
            !isStreamLine(trace, track))
            continue;
        for (Row &row : track.rows) {
            bool changed = false;
            values.resize(row.size());
            for (size_t i = 0; i < row.size(); ++i) {
                const int64_t kind = row.kind[i];
                values[i] = copyOf[size_t(kind)] != kNoCopy ? int64_t(copyOf[size_t(kind)]) : kind;
                changed = changed || values[i] != kind;
            }
            if (changed)
                row.kind.assign(values);
        }
    }
}

} // namespace tracedesk::core
