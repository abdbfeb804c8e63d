#include "core/sql/sqlcontext.h"

#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/analysis/steps.h"

#include <algorithm>

namespace tracedesk::core::sql {

SqlContext::SqlContext(TracePtr trace, std::shared_ptr<analysis::AnalysisCache> cache)
    : m_trace(std::move(trace))
    , m_cache(cache ? std::move(cache) : std::make_shared<analysis::AnalysisCache>(m_trace))
    , m_ids(*m_trace)
{}

const std::vector<StepSpan> &SqlContext::steps() const
{
    if (m_steps)
        return *m_steps;
    std::vector<StepSpan> spans;
    if (isPyTorch()) {
        for (const auto &s : analysis::pytorch::pytorchSteps(*m_cache)->steps)
            spans.push_back({s.name, s.start, s.end});
    } else {
        for (const auto &s : analysis::stepDb(*m_cache)->steps)
            spans.push_back({s.name, s.begin, s.begin + s.duration});
    }
    std::stable_sort(spans.begin(), spans.end(),
                     [](const StepSpan &a, const StepSpan &b) { return a.start < b.start; });
    m_steps = std::move(spans);
    return *m_steps;
}

std::optional<size_t> SqlContext::stepAt(TimePs t) const
{
    const auto &s = steps();
    auto it = std::upper_bound(s.begin(), s.end(), t,
                               [](TimePs v, const StepSpan &span) { return v < span.start; });
    if (it == s.begin())
        return std::nullopt;
    --it;
    if (t >= it->end)
        return std::nullopt;
    return size_t(it - s.begin());
}

const char *sliceRoleName(SliceRole role)
{
    switch (role) {
    case SliceRole::None:
        return "";
    case SliceRole::CpuOp:
        return "cpu_op";
    case SliceRole::UserAnnotation:
        return "user_annotation";
    case SliceRole::GpuAnnotation:
        return "gpu_annotation";
    case SliceRole::PythonFunction:
        return "python_function";
    case SliceRole::Runtime:
        return "runtime";
    case SliceRole::Kernel:
        return "kernel";
    case SliceRole::Memcpy:
        return "memcpy";
    case SliceRole::Memset:
        return "memset";
    case SliceRole::Sync:
        return "sync";
    case SliceRole::MemoryEvent:
        return "memory_event";
    case SliceRole::Marker:
        return "marker";
    case SliceRole::Count:
        break;
    }
    return "";
}

} // namespace tracedesk::core::sql
