#pragma once

// mergeTraces: several loaded traces (one per rank of a distributed run) become one Trace.
//
// Each part's planes, tracks, rows, kinds, flows, counters and aggregates are appended in part
// order; strings are re-interned into the merged table and every StringId that the store keeps
// (names, categories, string side columns, arg keys and string-ref values) is remapped; track,
// plane and kind indices are offset. Each part's times are moved by its `shift` (ps), so parts
// written on one clock share one time axis. Every plane's `host` becomes the part's `host`, and
// its name is prefixed with it so plane names stay unique across parts.
//
// The parts are consumed (their columns are moved, not copied). LoadInfo is left for the caller
// to fill, except that a shift that would overflow a time is dropped with a warning.
// Single-threaded; the result is a fresh, immutable-from-now-on Trace.

#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core {

struct MergePart
{
    std::shared_ptr<Trace> trace;
    std::string host;     // the section label, e.g. "rank 3"
    std::string label;    // names the part in warnings (its file name)
    TimePs shift = 0;     // added to every time of the part
};

std::shared_ptr<Trace> mergeTraces(std::vector<MergePart> parts);

} // namespace tracedesk::core
