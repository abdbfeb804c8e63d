#pragma once

// StepGroups: which step (group) every slice belongs to (FORMATS.md 2.1).
//
// A space saved after XProf's grouping carries `group_id` on its events; the store keeps it in
// the GroupId side column and this class simply reads it. An ungrouped space (plain JAX with
// StepTraceAnnotation, TensorFlow graph-mode captures, raw TraceMe captures) is grouped here as
// XProf's GroupTfEvents does, over an EventForest (eventforest.h: nesting per thread,
// producer/consumer links across threads, launch -> kernel by correlation id, TF loops): TF loop
// iterations are the groups when there are any; otherwise root slices (`_r`, `TraceContext`),
// taken by level descending then start, each start a group unless already grouped or below an
// ancestor root of the same level; a group spreads breadth-first to every ungrouped descendant.
// Then, per GPU plane, ungrouped slices take the group of the latest grouped slice before them
// and the `Steps` line XProf derives is computed (consecutive slices of one group merge).
// TPU planes are not grouped here; a space with TF loop ops is not grouped at all.
//
// Immutable once built; share it read-only across threads. Invariant: `computed` is empty when
// `fromFile`; otherwise it holds one vector per track, one per row, one entry per slice (-1 when
// the slice has no group), and roots/names/stepNamed have one entry per group.

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
    // computed groups: the root gets XProf's `step_name` stat (it is not an implicit root such
    // as SessionRun or ExecutorState::Process), which makes it a host step marker
    std::vector<uint8_t> stepNamed;
    // computed groups: the `Steps` line XProf derives on each GPU plane
    struct DeviceStep
    {
        uint32_t plane = 0;         // index into Trace::planes
        int64_t group = 0;
        TimePs begin = 0;
        TimePs duration = 0;
    };
    std::vector<DeviceStep> deviceSteps;

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
        const int64_t v = m_kinds[(*m_kind)[i]].side[size_t(SideColumn::GroupId)];
        return v == kNoValue ? -1 : v;
    }

private:
    const std::vector<int32_t> *m_computed = nullptr;
    const PackedInts *m_own = nullptr;
    const EventKind *m_kinds = nullptr;
    const PackedInts *m_kind = nullptr;
};

StepGroups computeStepGroups(const Trace &trace);
std::shared_ptr<const StepGroups> stepGroups(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
