#pragma once

// SqlContext: what the virtual tables of one SqlSession share: the trace, its slice ids, the
// analysis cache, and the step spans (computed on first use by the `steps` table or the
// slices' `step` column).
//
// Internal to core/sql. Used on the session's thread only (the analysis cache itself may be
// shared with other threads).

#include "core/analysis/analysiscache.h"
#include "core/analysis/framework.h"
#include "core/sql/groupedscan.h"
#include "core/sql/sliceids.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::sql {

struct StepSpan
{
    std::string name;
    TimePs start = 0;
    TimePs end = 0;
};

class SqlContext
{
public:
    SqlContext(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache);

    const Trace &trace() const { return *m_trace; }
    const SliceIds &ids() const { return m_ids; }
    analysis::AnalysisCache &cache() const { return *m_cache; }
    const std::shared_ptr<analysis::AnalysisCache> &sharedCache() const { return m_cache; }
    const TracePtr &tracePtr() const { return m_trace; }
    bool isPyTorch() const { return analysis::isPyTorchTrace(*m_trace); }
    // Where SQL's times count from: the trace's start, the timeline's 0. Every time column is
    // `store time - origin()`.
    TimePs origin() const { return m_trace->begin; }

    // The profile's steps sorted by start: PyTorch ProfilerStep#N for Kineto traces, the step
    // analysis (FORMATS.md 2.2) otherwise.
    const std::vector<StepSpan> &steps() const;
    // Index into steps() of the last step starting at or before t whose span holds t.
    std::optional<size_t> stepAt(TimePs t) const;

    // The share of the groups a grouped scan of `slices` serves (groupsplit.h).
    GroupPart groupPart() const { return m_groupPart; }
    void setGroupPart(GroupPart part) { m_groupPart = part; }

private:
    TracePtr m_trace;
    std::shared_ptr<analysis::AnalysisCache> m_cache;
    SliceIds m_ids;
    mutable std::optional<std::vector<StepSpan>> m_steps;
    GroupPart m_groupPart;
};

// Lower-case role name ("kernel", "cpu_op", ...), "" for None.
const char *sliceRoleName(SliceRole role);

} // namespace tracedesk::core::sql
