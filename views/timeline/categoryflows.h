#pragma once

// CategoryFlows: every flow of one category ("Flow category" in the timeline toolbar), indexed by
// time so that each frame finds the flows crossing the view by binary search. A category can hold
// millions of flows (every launch -> kernel pair of a large profile); walking them all per frame
// would stall the GUI thread.
//
// Flows are sorted by their earlier endpoint's start (lo); a flow crosses [t0, t1] when
// lo <= t1 and its later endpoint's start >= t0, and every flow with lo < t0 - maxSpan ends
// before t0. GUI thread only; rebuilt when the category or the trace changes.

#include "core/model/trace.h"

#include <vector>

namespace tracedesk::views {

class CategoryFlows
{
public:
    void assign(const core::Trace &trace, core::StringId category);
    void clear();
    size_t size() const { return m_flows.size(); }
    // The flows crossing [t0, t1], in order of their earlier endpoint, at most `cap` of them.
    std::vector<core::Flow> inView(core::TimePs t0, core::TimePs t1, size_t cap) const;

private:
    std::vector<core::Flow> m_flows;
    std::vector<core::TimePs> m_lo;
    std::vector<core::TimePs> m_hi;
    core::TimePs m_maxSpan = 0;
};

} // namespace tracedesk::views
