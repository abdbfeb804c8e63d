#pragma once

// Op matching on the timeline: which op a slice stands for at a comparison level, where the
// occurrences of an op are, and which slice of another trace matches a selected one.
//
// Track roles decide what a slice can be: host threads hold framework ops (`name:type`,
// tf.data iterators); a device plane's `Framework Ops` / `TensorFlow Ops` line holds framework
// ops, its `XLA Ops` line HLO ops (TPU); raw GPU stream lines hold kernels, which also stand for
// their HLO op (`hlo_op`) or, without one, for `<framework op>/<kernel>` as the device op
// metrics name them. Consecutive kernels of one HLO op count as separate occurrences here (the
// op metrics merge them), which is what a duration histogram wants.
//
// Matching across traces uses text only (names of ops, planes and tracks), never interned ids.
// Pure functions of immutable traces; safe on any thread. Each search is one pass over the
// candidate rows with per-kind tables; side-column strings are resolved once per distinct id.

#include "core/compare/optables.h"

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::compare {

// What a track holds, as far as op matching is concerned.
enum class TrackRole : uint8_t {
    Other,
    HostThread,          // a host plane's thread
    DeviceFrameworkOps,  // a device plane's `Framework Ops` / `TensorFlow Ops` line
    DeviceXlaOps,        // a TPU's `XLA Ops` line
    GpuStream            // a raw GPU line (kernels, memcpys)
};
// One role per track, indexed like Trace::tracks.
std::vector<TrackRole> trackRoles(const Trace &trace);

struct OpKey
{
    std::string name;
    std::string where;   // framework level: kWhereDevice / kWhereHost; else empty
};

// The op a slice stands for at `level`, or nullopt when it is none (a python frame, a step
// marker, a host event at kernel level).
std::optional<OpKey> opKeyOfSlice(const Trace &trace, SliceRef slice, OpLevel level);

// Every occurrence of the op `name` at `level` (an empty `where` accepts both sides), grouped
// by track, each track's slices by row then start.
std::vector<SliceRef> opOccurrences(const Trace &trace, OpLevel level, std::string_view name,
                                    std::string_view where = {});
std::vector<TimePs> durationsOf(const Trace &trace, const std::vector<SliceRef> &slices);

// The slice of `slices` whose start is closest to `near`.
std::optional<SliceRef> nearestOf(const Trace &trace, const std::vector<SliceRef> &slices,
                                  TimePs near);

// The slice of `to` with the same name as `slice` of `from` whose start is closest to `near`
// (a time of `to`), preferring the track with the same plane and track names (same role) and
// falling back to any track.
std::optional<SliceRef> matchingSlice(const Trace &from, SliceRef slice, const Trace &to,
                                      TimePs near);

} // namespace tracedesk::core::compare
