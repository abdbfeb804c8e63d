#include "core/analysis/distributed/devicekernels.h"

#include <algorithm>
#include <cctype>

namespace tracedesk::core::analysis::distributed {

namespace {

bool startsWithCi(std::string_view text, std::string_view prefix)
{
    if (text.size() < prefix.size())
        return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i]))
            != std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    }
    return true;
}

bool isKernelLine(std::string_view name)
{
    return name.starts_with("Stream") || name == "XLA Ops";
}

} // namespace

std::vector<DeviceKernel> deviceKernels(const Trace &trace, const pytorch::KinetoScope &scope)
{
    std::vector<DeviceKernel> out;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (track.type != TrackType::Slices || !scope.includes(trace, track.plane)
            || trace.planes[track.plane].kind != PlaneKind::Device
            || !isKernelLine(trace.string(track.name)))
            continue;
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                const SliceRef ref{t, r, i};
                const std::string_view name = trace.name(ref);
                if (startsWithCi(name, "memcpy") || startsWithCi(name, "memset"))
                    continue;
                out.push_back({ref, row.start[i], row.end(i)});
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const DeviceKernel &a, const DeviceKernel &b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    return out;
}

std::vector<DeviceStep> deviceSteps(const Trace &trace, const pytorch::KinetoScope &scope)
{
    std::vector<DeviceStep> out;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        if (track.type != TrackType::Slices || !scope.includes(trace, track.plane)
            || trace.planes[track.plane].kind != PlaneKind::Device
            || trace.string(track.name) != "Steps" || track.rows.empty())
            continue;
        const Row &row = track.rows.front();
        for (uint32_t i = 0; i < row.size(); ++i) {
            const SliceRef ref{t, 0, i};
            out.push_back({std::string(trace.name(ref)), ref, row.start[i], row.end(i)});
        }
        break; // the first device plane's steps stand for the host
    }
    return out;
}

} // namespace tracedesk::core::analysis::distributed
