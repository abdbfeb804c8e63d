#include "views/panels/pytorch/rankchoice.h"

#include "core/analysis/pytorch/rankanalyses.h"

namespace tracedesk::views {

using namespace core::analysis;

uint32_t PyTorchRankChoice::section(const AnalysisCachePtr &cache) const
{
    return cache && m_cache.lock() == cache ? m_section : 0;
}

void PyTorchRankChoice::choose(const AnalysisCachePtr &cache, uint32_t section)
{
    if (!cache || this->section(cache) == section)
        return;
    m_cache = cache;
    m_section = section;
    emit chosen(cache.get(), section);
}

AnalysisCachePtr PyTorchRankChoice::analyses(const AnalysisCachePtr &cache) const
{
    return pytorch::rankAnalyses(cache, section(cache));
}

} // namespace tracedesk::views
