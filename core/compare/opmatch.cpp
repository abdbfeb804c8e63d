#include "core/compare/opmatch.h"

#include "core/analysis/framework.h"
#include "core/analysis/opnames.h"
#include "core/analysis/steps.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace tracedesk::core::compare {

using analysis::FrameworkOpKind;
using analysis::innermostHloOp;
using analysis::parseFrameworkOp;
using analysis::stripTraceMeMetadata;

namespace {

bool isDerivedName(std::string_view n)
{
    return n == "Steps" || n == "XLA Modules" || n == "XLA Ops" || n == "Async XLA Ops"
           || n == "Framework Ops" || n == "Framework Name Scope" || n == "TensorFlow Ops"
           || n == "TensorFlow Name Scope" || n == "Source code" || n == "Launch Stats"
           || n == "Host Offload Ops" || n == "XLA TraceMe" || n == "Overlay";
}

int64_t sideValue(const Trace &trace, const Row &row, size_t i, SideColumn column)
{
    const auto &own = row.side[size_t(column)];
    if (!own.empty() && own[i] != kNoValue)
        return own[i];
    return trace.kinds[row.kind[i]].sideOf(column);
}

// The framework op name of a `name:type` text, or empty when the text names none.
std::string_view frameworkName(std::string_view text)
{
    const analysis::FrameworkOp fw = parseFrameworkOp(stripTraceMeMetadata(text));
    return fw.kind == FrameworkOpKind::Unknown ? std::string_view() : fw.name;
}

// Resolves keys for the slices of one trace; caches per kind and per side-column string.
class KeyReader
{
public:
    explicit KeyReader(const Trace &trace)
        : m_trace(trace), m_roles(trackRoles(trace)), m_pytorch(analysis::isPyTorchTrace(trace))
    {
        m_planeHasFrameworkLine.assign(trace.planes.size(), false);
        for (size_t t = 0; t < trace.tracks.size(); ++t) {
            if (m_roles[t] == TrackRole::DeviceFrameworkOps)
                m_planeHasFrameworkLine[trace.tracks[t].plane] = true;
        }
    }

    TrackRole role(uint32_t track) const { return m_roles[track]; }

    std::optional<OpKey> key(uint32_t track, const Row &row, size_t i, OpLevel level)
    {
        const TrackRole role = m_roles[track];
        const std::string_view kindName = m_trace.string(m_trace.kinds[row.kind[i]].name);
        switch (level) {
        case OpLevel::Kernel:
            if (role == TrackRole::GpuStream)
                return OpKey{std::string(kindName), {}};
            return std::nullopt;
        case OpLevel::Hlo:
            if (role == TrackRole::DeviceXlaOps)
                return OpKey{std::string(kindName), {}};
            if (role == TrackRole::GpuStream) {
                const int64_t hlo = sideValue(m_trace, row, i, SideColumn::HloOp);
                if (hlo != kNoValue)
                    return OpKey{std::string(innermostHloOp(m_trace.string(StringId(hlo)))), {}};
                const int64_t fw = sideValue(m_trace, row, i, SideColumn::FrameworkOp);
                if (fw != kNoValue) {
                    const analysis::FrameworkOp op =
                        parseFrameworkOp(stripTraceMeMetadata(m_trace.string(StringId(fw))));
                    return OpKey{std::string(op.name) + "/" + std::string(kindName), {}};
                }
            }
            return std::nullopt;
        case OpLevel::Framework:
            if (role == TrackRole::HostThread) {
                // PyTorch names its operators whole (`aten::mm`); TensorFlow's are `name:type`.
                const std::string_view n = m_pytorch ? kindName : frameworkName(kindName);
                if (!n.empty())
                    return OpKey{std::string(n), kWhereHost};
            } else if (role == TrackRole::DeviceFrameworkOps) {
                const std::string_view n = frameworkName(kindName);
                return OpKey{std::string(n.empty() ? kindName : n), kWhereDevice};
            } else if (role == TrackRole::GpuStream
                       && !m_planeHasFrameworkLine[m_trace.tracks[track].plane]) {
                const int64_t fw = sideValue(m_trace, row, i, SideColumn::FrameworkOp);
                if (fw != kNoValue) {
                    const std::string_view n = frameworkName(m_trace.string(StringId(fw)));
                    if (!n.empty())
                        return OpKey{std::string(n), kWhereDevice};
                }
            }
            return std::nullopt;
        }
        return std::nullopt;
    }

private:
    const Trace &m_trace;
    std::vector<TrackRole> m_roles;
    std::vector<bool> m_planeHasFrameworkLine;
    bool m_pytorch = false;
};

} // namespace

std::vector<TrackRole> trackRoles(const Trace &trace)
{
    std::vector<TrackRole> roles(trace.tracks.size(), TrackRole::Other);
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (track.type != TrackType::Slices || track.plane >= trace.planes.size())
            continue;
        const Plane &plane = trace.planes[track.plane];
        const std::string_view planeName = trace.string(plane.name);
        const std::string_view name = trace.string(track.name);
        if (plane.kind == PlaneKind::Host) {
            roles[t] = TrackRole::HostThread;
        } else if (plane.kind == PlaneKind::Device) {
            const bool tpu = planeName.starts_with("/device:TPU");
            if (name == "Framework Ops" || name == "TensorFlow Ops")
                roles[t] = TrackRole::DeviceFrameworkOps;
            else if (tpu && name == "XLA Ops")
                roles[t] = TrackRole::DeviceXlaOps;
            else if (!tpu && !planeName.starts_with("/device:CUSTOM")
                     && !analysis::detail::isDerivedLineId(track.sourceId) && !isDerivedName(name))
                roles[t] = TrackRole::GpuStream;
        }
    }
    return roles;
}

std::optional<OpKey> opKeyOfSlice(const Trace &trace, SliceRef slice, OpLevel level)
{
    if (!trace.valid(slice))
        return std::nullopt;
    KeyReader reader(trace);
    return reader.key(slice.track, trace.row(slice), slice.index, level);
}

std::vector<SliceRef> opOccurrences(const Trace &trace, OpLevel level, std::string_view name,
                                    std::string_view where)
{
    std::vector<SliceRef> out;
    KeyReader reader(trace);
    // Keys that depend on the kind alone are decided once per (kind, track role); the rest
    // (side columns) once per (kind, side string) pair.
    constexpr size_t kRoles = 5;
    std::vector<int8_t> byKind(trace.kinds.size() * kRoles, -1);
    std::unordered_map<uint64_t, bool> bySide;
    auto matches = [&](uint32_t t, const Row &row, size_t i) {
        const auto key = reader.key(t, row, i, level);
        return key && key->name == name && (where.empty() || key->where == where);
    };
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const TrackRole role = reader.role(t);
        if (role == TrackRole::Other)
            continue;
        const bool sideKeyed = role == TrackRole::GpuStream && level != OpLevel::Kernel;
        const Track &track = trace.tracks[t];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (size_t i = 0; i < row.size(); ++i) {
                bool match = false;
                if (!sideKeyed) {
                    int8_t &known = byKind[size_t(row.kind[i]) * kRoles + size_t(role)];
                    if (known < 0)
                        known = matches(t, row, i) ? 1 : 0;
                    match = known > 0;
                } else {
                    const int64_t hlo = sideValue(trace, row, i, SideColumn::HloOp);
                    const int64_t fw = sideValue(trace, row, i, SideColumn::FrameworkOp);
                    // Side values are StringIds (32 bits); the top bits say which column.
                    const uint64_t side = hlo != kNoValue ? uint64_t(uint32_t(hlo))
                                          : fw != kNoValue ? (uint64_t(uint32_t(fw)) | 1ull << 32)
                                                           : 2ull << 32;
                    const uint64_t cacheKey = (uint64_t(row.kind[i]) << 34) | side;
                    auto [it, added] = bySide.try_emplace(cacheKey, false);
                    if (added)
                        it->second = matches(t, row, i);
                    match = it->second;
                }
                if (match)
                    out.push_back({t, r, uint32_t(i)});
            }
        }
    }
    return out;
}

std::vector<TimePs> durationsOf(const Trace &trace, const std::vector<SliceRef> &slices)
{
    std::vector<TimePs> out;
    out.reserve(slices.size());
    for (const SliceRef &s : slices)
        out.push_back(trace.duration(s));
    return out;
}

std::optional<SliceRef> nearestOf(const Trace &trace, const std::vector<SliceRef> &slices,
                                  TimePs near)
{
    std::optional<SliceRef> best;
    TimePs bestDistance = 0;
    for (const SliceRef &s : slices) {
        const TimePs d = std::abs(trace.start(s) - near);
        if (!best || d < bestDistance) {
            best = s;
            bestDistance = d;
        }
    }
    return best;
}

namespace {

// Closest slice of one kind set on one track: binary search by start, then outwards.
void nearestOnTrack(const Trace &trace, uint32_t t, const std::vector<bool> &kindMatches,
                    TimePs near, std::optional<SliceRef> *best, TimePs *bestDistance)
{
    const Track &track = trace.tracks[t];
    for (uint32_t r = 0; r < track.rows.size(); ++r) {
        const Row &row = track.rows[r];
        const size_t mid =
            size_t(std::lower_bound(row.start.begin(), row.start.end(), near) - row.start.begin());
        for (size_t i = mid; i < row.size(); ++i) {
            if (kindMatches[row.kind[i]]) {
                const TimePs d = row.start[i] - near;
                if (!*best || d < *bestDistance) {
                    *best = SliceRef{t, r, uint32_t(i)};
                    *bestDistance = d;
                }
                break;
            }
        }
        for (size_t i = mid; i-- > 0;) {
            if (kindMatches[row.kind[i]]) {
                const TimePs d = near - row.start[i];
                if (!*best || d < *bestDistance) {
                    *best = SliceRef{t, r, uint32_t(i)};
                    *bestDistance = d;
                }
                break;
            }
        }
    }
}

} // namespace

std::optional<SliceRef> matchingSlice(const Trace &from, SliceRef slice, const Trace &to,
                                      TimePs near)
{
    if (!from.valid(slice))
        return std::nullopt;
    StringId nameId = kEmptyString;
    if (!to.strings.find(from.name(slice), &nameId))
        return std::nullopt;
    std::vector<bool> kindMatches(to.kinds.size(), false);
    bool any = false;
    for (size_t k = 0; k < to.kinds.size(); ++k) {
        kindMatches[k] = to.kinds[k].name == nameId;
        any = any || kindMatches[k];
    }
    if (!any)
        return std::nullopt;
    const Track &fromTrack = from.tracks[slice.track];
    const std::string_view trackName = from.string(fromTrack.name);
    const std::string_view planeName = from.string(from.planes[fromTrack.plane].name);
    std::optional<SliceRef> best;
    TimePs bestDistance = 0;
    for (uint32_t t = 0; t < to.tracks.size(); ++t) {
        const Track &track = to.tracks[t];
        if (to.string(track.name) == trackName && track.plane < to.planes.size()
            && to.string(to.planes[track.plane].name) == planeName)
            nearestOnTrack(to, t, kindMatches, near, &best, &bestDistance);
    }
    if (best)
        return best;
    for (uint32_t t = 0; t < to.tracks.size(); ++t)
        nearestOnTrack(to, t, kindMatches, near, &best, &bestDistance);
    return best;
}

} // namespace tracedesk::core::compare
