#include "views/timeline/categoryflows.h"

#include <algorithm>
#include <limits>

namespace tracedesk::views {

void CategoryFlows::assign(const core::Trace &trace, core::StringId category)
{
    clear();
    struct Entry
    {
        core::TimePs lo, hi;
        core::Flow flow;
    };
    std::vector<Entry> entries;
    trace.flows.column(core::FlowTable::Category).visit([&](auto categories) {
        for (size_t i = 0, n = trace.flows.size(); i < n; ++i) {
            if (categories[i] != int64_t(category))
                continue;
            const core::Flow f = trace.flows[i];
            if (!trace.valid(f.from) || !trace.valid(f.to))
                continue;
            const core::TimePs a = trace.start(f.from), b = trace.start(f.to);
            entries.push_back({std::min(a, b), std::max(a, b), f});
        }
    });
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry &x, const Entry &y) { return x.lo < y.lo; });
    m_flows.reserve(entries.size());
    m_lo.reserve(entries.size());
    m_hi.reserve(entries.size());
    for (const Entry &e : entries) {
        m_flows.push_back(e.flow);
        m_lo.push_back(e.lo);
        m_hi.push_back(e.hi);
        m_maxSpan = std::max(m_maxSpan, e.hi - e.lo);
    }
}

void CategoryFlows::clear()
{
    m_flows = {};
    m_lo = {};
    m_hi = {};
    m_maxSpan = 0;
}

std::vector<core::Flow> CategoryFlows::inView(core::TimePs t0, core::TimePs t1, size_t cap) const
{
    std::vector<core::Flow> out;
    if (t1 < t0)
        return out;
    // No flow starting before t0 - maxSpan reaches t0 (saturating: spans are non-negative).
    const core::TimePs from = t0 >= std::numeric_limits<core::TimePs>::min() + m_maxSpan
                                  ? t0 - m_maxSpan
                                  : std::numeric_limits<core::TimePs>::min();
    auto i = size_t(std::lower_bound(m_lo.begin(), m_lo.end(), from) - m_lo.begin());
    for (; i < m_lo.size() && m_lo[i] <= t1 && out.size() < cap; ++i) {
        if (m_hi[i] >= t0)
            out.push_back(m_flows[i]);
    }
    return out;
}

} // namespace tracedesk::views
