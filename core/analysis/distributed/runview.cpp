#include "core/analysis/distributed/runview.h"

#include "core/base/cancel.h"
#include "core/io/rankrunloader.h"
#include "core/io/runranks.h"
#include "core/io/storecache.h"
#include "core/io/traceloader.h"

#include <algorithm>
#include <filesystem>

namespace tracedesk::core::analysis::distributed {

namespace {

std::string normal(const std::string &path)
{
    return std::filesystem::path(path).lexically_normal().string();
}

// The summary of the ranks the trace holds: its sections, or its one section when it holds a
// single rank of a run (`rank`: that rank's number in the run).
std::shared_ptr<const DistributedSummary> shownSummary(const Trace &trace, int64_t rank)
{
    if (isMergedRankRun(trace))
        return std::make_shared<const DistributedSummary>(summarizeMergedRun(trace));
    if (trace.info.hosts.size() != 1)
        return nullptr;
    std::vector<RankSummary> one;
    one.push_back(summarizeRankSection(trace, trace.info.hosts.front(), rank));
    return std::make_shared<const DistributedSummary>(combineRanks(std::move(one)));
}

} // namespace

std::vector<int64_t> RunView::runRanks() const
{
    std::vector<int64_t> out;
    if (run) {
        for (const RankSummary &r : run->ranks)
            out.push_back(r.rank);
    }
    return out;
}

std::vector<int64_t> RunView::shownRanks() const
{
    std::vector<int64_t> out;
    if (!run)
        return out;
    for (size_t i = 0; i < run->ranks.size(); ++i) {
        if (i < shownHosts.size() && !shownHosts[i].empty())
            out.push_back(run->ranks[i].rank);
    }
    return out;
}

int RunView::shownIndex(size_t runIndex) const
{
    if (!shown || runIndex >= shownHosts.size() || shownHosts[runIndex].empty())
        return -1;
    for (size_t i = 0; i < shown->ranks.size(); ++i) {
        if (shown->ranks[i].host == shownHosts[runIndex])
            return int(i);
    }
    return -1;
}

const MatchedCollective *RunView::shownCollective(size_t runIndex) const
{
    if (!run || !shown || runIndex >= run->collectives.size())
        return nullptr;
    if (shown == run)
        return &run->collectives[runIndex];
    const MatchedCollective &c = run->collectives[runIndex];
    for (const MatchedCollective &s : shown->collectives) {
        if (s.name == c.name && s.occurrence == c.occurrence)
            return &s;
    }
    return nullptr;
}

std::shared_ptr<const DistributedSummary> RunSummaryMemo::find(const std::string &key) const
{
    const std::lock_guard lock(m_mutex);
    return key == m_key ? m_run : nullptr;
}

void RunSummaryMemo::keep(std::string key, std::shared_ptr<const DistributedSummary> run)
{
    const std::lock_guard lock(m_mutex);
    m_key = std::move(key);
    m_run = std::move(run);
}

namespace {

// The run's identity: its files' cache key (with the alignment), whether or not it is cached.
std::string keyOf(const std::vector<std::string> &files, const LoadOptions &options)
{
    LoadOptions identity = options;
    identity.ranks.clear();
    identity.fitRanksToMemory = false;
    if (identity.cacheDir.empty())
        identity.cacheDir = "run";
    return cacheFileFor(files, identity);
}

} // namespace

std::string runSummaryKey(const std::vector<std::string> &runPaths, const LoadOptions &options)
{
    auto source = resolveSources(runPaths, options.runName);
    if (!source || source.value().legacyTools || source.value().files.size() < 2)
        return {};
    return keyOf(source.value().files, options);
}

RunView summarizeShownRun(const Trace &trace)
{
    RunView view;
    if (!isMergedRankRun(trace))
        return view;
    view.shown = view.run = shownSummary(trace, 0);
    for (const RankSummary &r : view.run->ranks)
        view.shownHosts.push_back(r.host);
    return view;
}

RunView summarizeRunView(const Trace &trace, const std::vector<std::string> &runPaths,
                         LoadControl *control, const LoadOptions &options,
                         std::function<void(size_t, size_t)> onRankDone, RunSummaryMemo *memo)
{
    if (runPaths.empty())
        return summarizeShownRun(trace);
    auto source = resolveSources(runPaths, options.runName);
    if (!source || source.value().legacyTools || source.value().files.size() < 2)
        return summarizeShownRun(trace);
    const std::vector<std::string> &files = source.value().files;
    std::vector<std::string> runFilesNormal;
    for (const std::string &f : files)
        runFilesNormal.push_back(normal(f));
    std::sort(runFilesNormal.begin(), runFilesNormal.end());
    for (const std::string &s : trace.info.sources) {
        if (!std::binary_search(runFilesNormal.begin(), runFilesNormal.end(), normal(s)))
            return summarizeShownRun(trace); // not (or no longer) a part of that run
    }
    if (trace.info.sources.size() >= files.size())
        return summarizeShownRun(trace);

    RunView view;
    view.partial = true;
    LoadOptions all = options;
    all.ranks.clear();
    all.fitRanksToMemory = false;
    const std::string key = memo ? keyOf(files, all) : std::string();
    std::shared_ptr<const DistributedSummary> run = key.empty() ? nullptr : memo->find(key);
    if (!run) {
        SummarizeOptions summarize;
        summarize.parallel = 1;
        summarize.alignStep = options.alignStep;
        summarize.onRankDone = std::move(onRankDone);
        run = std::make_shared<const DistributedSummary>(
            summarizeRun(files, control, all, summarize));
        checkCancelled();
        if (control && control->cancelRequested())
            throw Cancelled{};
        if (!key.empty())
            memo->keep(key, run);
    }
    view.run = run;

    // A trace of one rank is summarised under that rank's number in the run.
    int64_t oneRank = 0;
    if (!trace.info.sources.empty()) {
        for (const RankSummary &r : run->ranks) {
            if (normal(r.file) == normal(trace.info.sources.front()))
                oneRank = r.rank;
        }
    }
    view.shown = shownSummary(trace, oneRank);

    const bool hostPerFile = trace.info.format == "xspace";
    for (const RankSummary &r : run->ranks) {
        std::string host;
        if (hostPerFile) {
            // An XSpace trace lists its hosts in the order of its files.
            for (size_t j = 0; j < trace.info.sources.size() && j < trace.info.hosts.size(); ++j) {
                if (normal(trace.info.sources[j]) == normal(r.file))
                    host = trace.info.hosts[j];
            }
        } else {
            const std::string label = rankLabel(r.rank);
            if (std::find(trace.info.hosts.begin(), trace.info.hosts.end(), label)
                != trace.info.hosts.end())
                host = label;
        }
        view.shownHosts.push_back(std::move(host));
    }
    return view;
}

} // namespace tracedesk::core::analysis::distributed
