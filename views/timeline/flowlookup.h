#pragma once

// FlowLookup: the flows touching a slice, for the timeline's arrows and the details pane, from
// one core::FlowIndex per loaded store shared by every view showing it.
//
// The index is owned here, next to the store and for as long as the store lives, so the views
// need no new wiring; it is built once per store by prepare(), which the timeline's index job
// runs on its worker after a load. Until it is ready a lookup scans the flow table's track
// columns (FlowTable::touching: milliseconds, even for millions of flows).
//
// Thread rules: any thread; prepare() on a worker (it sorts every flow), the rest anywhere.

#include "core/base/cancel.h"
#include "core/query/flowindex.h"

#include <vector>

namespace tracedesk::views {

class FlowLookup
{
public:
    // Builds and keeps the index of `trace` unless it is kept already. False when cancelled.
    static bool prepare(const core::TracePtr &trace, core::CancelToken cancel);
    static bool ready(const core::TracePtr &trace);
    // Every flow whose source or target is `slice`.
    static std::vector<core::Flow> flowsOf(const core::TracePtr &trace, core::SliceRef slice);
};

} // namespace tracedesk::views
