#include "core/analysis/pytorch/rankanalyses.h"

#include "core/analysis/pytorch/kinetoindex.h"

#include <algorithm>
#include <mutex>

namespace tracedesk::core::analysis::pytorch {

namespace {

// Kept in the trace's own cache: the caches of sections 1..n-1, made when first asked for.
// The cache stores results as const values, so the mutable part sits behind a pointer.
struct SectionCaches
{
    struct State
    {
        std::mutex mutex;
        std::vector<AnalysisCachePtr> caches; // by section; [0] unused
    };
    std::shared_ptr<State> state = std::make_shared<State>();
};

} // namespace

AnalysisCachePtr rankAnalyses(const AnalysisCachePtr &cache, uint32_t section)
{
    if (!cache)
        return nullptr;
    const uint32_t count = kinetoSectionCount(cache->trace());
    section = std::min(section, count - 1);
    if (section == 0)
        return cache;
    const auto slots = cache->get<SectionCaches>([](AnalysisCache &) { return SectionCaches{}; });
    std::lock_guard lock(slots->state->mutex);
    std::vector<AnalysisCachePtr> &caches = slots->state->caches;
    if (caches.size() < count)
        caches.resize(count);
    if (!caches[section]) {
        auto own = std::make_shared<AnalysisCache>(cache->tracePtr());
        // Before anyone can ask it for an analysis: its index covers this section only.
        own->put(std::make_shared<const KinetoScope>(kinetoScope(cache->trace(), section)));
        caches[section] = std::move(own);
    }
    return caches[section];
}

std::vector<std::string> rankSectionLabels(const Trace &trace)
{
    if (kinetoSectionCount(trace) < 2)
        return {};
    return trace.info.hosts;
}

std::optional<uint32_t> sectionOfRank(const Trace &trace, int64_t rank)
{
    const std::vector<std::string> labels = rankSectionLabels(trace);
    const std::string wanted = "rank " + std::to_string(rank);
    const auto it = std::find(labels.begin(), labels.end(), wanted);
    if (it == labels.end())
        return std::nullopt;
    return uint32_t(it - labels.begin());
}

} // namespace tracedesk::core::analysis::pytorch
