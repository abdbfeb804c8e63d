#pragma once

// StepGroups: which step (group) every slice belongs to (FORMATS.md 2.1).
//
// A space saved after XProf's grouping carries `group_id` on its events; the store keeps it in
// the GroupId side column and this class simply reads it. An ungrouped space (plain JAX with
// StepTraceAnnotation, or raw TraceMe captures) is grouped here with the core of XProf's rules:
// root events (stat `_r`, or `TraceContext`) on host threads are the candidates, taken by level
// descending then start; each ungrouped candidate starts a group that spreads to every slice it
// contains on its thread, and from host launches to device kernels with the same
// correlation_id. Cross-thread producer/consumer links and TF loop iterations are not followed.
//
// Immutable once built; share it read-only across threads. Invariant: `computed` is empty when
// `fromFile`; otherwise it holds one vector per track, one per row, one entry per slice (-1 when
// the slice has no group).

#include "core/analysis/analysiscache.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct StepGroups
{
    bool fromFile = false;          // the space was grouped when saved
    int64_t groupCount = 0;         // groups found by computeStepGroups (0 when fromFile)
    std::vector<std::vector<std::vector<int32_t>>> computed;
    std::vector<SliceRef> roots;    // computed groups: the root slice of group i
    std::vector<std::string> names; // computed groups: the group name of group i

    bool isRoot(SliceRef s) const;
};

// Reads the group of the slices of one row without a lookup per slice: the row's own column,
// then the slice kind's value, or the computed groups.
class RowGroups
{
public:
    RowGroups(const Trace &trace, const StepGroups &groups, uint32_t track, uint32_t row);
    int64_t operator()(size_t i) const
    {
        if (m_computed)
            return (*m_computed)[i];
        if (m_own && (*m_own)[i] != kNoValue)
            return (*m_own)[i];
        const int64_t v = m_kinds[m_kind[i]].side[size_t(SideColumn::GroupId)];
        return v == kNoValue ? -1 : v;
    }

private:
    const std::vector<int32_t> *m_computed = nullptr;
    const std::vector<int64_t> *m_own = nullptr;
    const EventKind *m_kinds = nullptr;
    const uint32_t *m_kind = nullptr;
};

StepGroups computeStepGroups(const Trace &trace);
std::shared_ptr<const StepGroups> stepGroups(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
