#include "views/timeline/categoryflows.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace tracedesk::views {

void CategoryFlows::assign(const core::Trace &trace, core::StringId category)
{
    clear();
    std::vector<core::Flow> flows;
    const core::PackedInts &categories = trace.flows.column(core::FlowTable::Category);
    categories.visit([&](auto column) {
        for (size_t i = 0, n = trace.flows.size(); i < n; ++i) {
            if (column[i] != int64_t(category))
                continue;
            const core::Flow f = trace.flows[i];
            if (trace.valid(f.from) && trace.valid(f.to))
                flows.push_back(f);
        }
    });
    std::vector<core::TimePs> lo(flows.size()), hi(flows.size());
    for (size_t i = 0; i < flows.size(); ++i) {
        const core::TimePs a = trace.start(flows[i].from), b = trace.start(flows[i].to);
        lo[i] = std::min(a, b);
        hi[i] = std::max(a, b);
        m_maxSpan = std::max(m_maxSpan, hi[i] - lo[i]);
    }
    std::vector<uint32_t> order(flows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return lo[x] < lo[y];
    });
    m_flows.reserve(order.size());
    m_lo.reserve(order.size());
    m_hi.reserve(order.size());
    for (uint32_t i : order) {
        m_flows.push_back(flows[i]);
        m_lo.push_back(lo[i]);
        m_hi.push_back(hi[i]);
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
