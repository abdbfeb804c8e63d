#pragma once

// PyTorchRankChoice: which rank of a merged run the PyTorch pages show. A merged run of several
// PyTorch rank traces is one trace whose PyTorch views describe one rank at a time
// (core/analysis/pytorch/rankanalyses.h). One choice is shared by every panel's PyTorch page,
// so picking rank 3 in the kernel view also turns the overview, operator and memory pages to
// rank 3; a page shown later starts on the rank already picked.
//
// The choice belongs to one trace's cache: for any other cache it is the first rank, so a newly
// opened trace starts on its first rank again. GUI thread only.

#include "core/analysis/analysiscache.h"

#include <QObject>

#include <memory>

namespace tracedesk::views {

class PyTorchRankChoice : public QObject
{
    Q_OBJECT

public:
    explicit PyTorchRankChoice(QObject *parent = nullptr) : QObject(parent) {}

    // The rank section picked for `cache` (an index into its trace's hosts), 0 when none was.
    uint32_t section(const core::analysis::AnalysisCachePtr &cache) const;
    // Picks `section` for `cache`; emits chosen() when that changes what is shown.
    void choose(const core::analysis::AnalysisCachePtr &cache, uint32_t section);
    // The analyses to show for `cache`: those of its picked rank (the cache itself for the
    // first rank or a trace that is not a merged run).
    core::analysis::AnalysisCachePtr analyses(const core::analysis::AnalysisCachePtr &cache) const;

signals:
    void chosen(const core::analysis::AnalysisCache *cache, uint32_t section);

private:
    std::weak_ptr<core::analysis::AnalysisCache> m_cache;
    uint32_t m_section = 0;
};

} // namespace tracedesk::views
