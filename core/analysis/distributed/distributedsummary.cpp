#include "core/analysis/distributed/distributedsummary.h"

#include "core/io/traceloader.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <thread>
#include <utility>

namespace tracedesk::core::analysis::distributed {

namespace {

struct Arrival
{
    int64_t rank = 0;
    TimePs start = 0;
    TimePs end = 0;
    int64_t bytes = -1;
    const std::string *kind = nullptr;
};

// The rank's summary with its clock origin, or the load's error.
Result<RankSummary> summarizeFile(const std::string &file, size_t order, LoadControl *control,
                                  const LoadOptions &options)
{
    Result<TracePtr> loaded = loadTrace(file, control, options);
    if (!loaded)
        return loaded.error();
    const Trace &trace = *loaded.value();
    RankSummary summary = summarizeRank(trace, file, int64_t(order));
    summary.originNs = trace.info.format == "chrome-json" ? trace.info.run.clockOriginNs
                                                          : trace.originPs / 1000;
    return summary; // the store is released here, before the next rank loads
}

} // namespace

bool DistributedSummary::fullyMatched() const
{
    return std::all_of(collectives.begin(), collectives.end(), [this](const MatchedCollective &c) {
        return c.ranks.size() == ranks.size();
    });
}

DistributedSummary combineRanks(std::vector<RankSummary> ranks)
{
    DistributedSummary out;
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankSummary &a, const RankSummary &b) { return a.rank < b.rank; });
    for (RankSummary &r : ranks) {
        if (!out.ranks.empty() && out.ranks.back().rank == r.rank) {
            out.errors.push_back({r.file, "rank " + std::to_string(r.rank) + " already given by "
                                              + out.ranks.back().file + "; skipped"});
            continue;
        }
        out.warnings.insert(out.warnings.end(), r.warnings.begin(), r.warnings.end());
        out.ranks.push_back(std::move(r));
    }
    if (out.ranks.empty())
        return out;
    out.originNs = out.ranks.front().originNs;
    for (const RankSummary &r : out.ranks)
        out.originNs = std::min(out.originNs, r.originNs);

    // (name, k) -> the ranks' arrivals, in rank order.
    std::map<std::pair<std::string, size_t>, std::vector<Arrival>> groups;
    for (const RankSummary &r : out.ranks) {
        const TimePs shift = (r.originNs - out.originNs) * 1000;
        std::map<std::string_view, size_t> seen;
        for (const CollectiveRecord &c : r.collectives) {
            const size_t k = seen[c.name]++;
            groups[{c.name, k}].push_back(
                {r.rank, c.start + shift, c.end + shift, c.bytes, &c.kind});
        }
    }

    std::map<int64_t, Straggler> byRank;
    for (const RankSummary &r : out.ranks)
        byRank[r.rank].rank = r.rank;
    for (const auto &[key, arrivals] : groups) {
        MatchedCollective m;
        m.name = key.first;
        m.occurrence = key.second;
        m.kind = *arrivals.front().kind;
        m.firstStart = m.lastStart = arrivals.front().start;
        m.lastRank = arrivals.front().rank;
        TimePs firstEnd = arrivals.front().end;
        TimePs lastEnd = firstEnd;
        for (const Arrival &a : arrivals) {
            m.ranks.push_back(a.rank);
            m.bytes = std::max(m.bytes, a.bytes);
            m.firstStart = std::min(m.firstStart, a.start);
            if (a.start > m.lastStart) {
                m.lastStart = a.start;
                m.lastRank = a.rank;
            }
            firstEnd = std::min(firstEnd, a.end);
            lastEnd = std::max(lastEnd, a.end);
        }
        m.startSpread = m.lastStart - m.firstStart;
        m.endSpread = lastEnd - firstEnd;
        for (const Arrival &a : arrivals)
            m.waitingCaused += m.lastStart - a.start;
        Straggler &s = byRank[m.lastRank];
        s.waitingCaused += m.waitingCaused;
        ++s.collectivesLast;
        out.collectives.push_back(std::move(m));
    }
    std::sort(out.collectives.begin(), out.collectives.end(),
              [](const MatchedCollective &a, const MatchedCollective &b) {
                  if (a.firstStart != b.firstStart)
                      return a.firstStart < b.firstStart;
                  return a.name != b.name ? a.name < b.name : a.occurrence < b.occurrence;
              });
    for (size_t i = 0; i < out.collectives.size(); ++i)
        out.collectives[i].index = i;

    for (const auto &[rank, s] : byRank)
        out.stragglers.push_back(s);
    std::stable_sort(out.stragglers.begin(), out.stragglers.end(),
                     [](const Straggler &a, const Straggler &b) {
                         return a.waitingCaused > b.waitingCaused;
                     });
    if (!out.fullyMatched()) {
        out.warnings.push_back("not every collective is on every rank: the ranks' collective "
                               "counts differ, matching by order may pair unrelated kernels");
    }
    return out;
}

DistributedSummary summarizeRun(const std::vector<std::string> &files, LoadControl *control,
                                const LoadOptions &options, const SummarizeOptions &summarize)
{
    std::vector<std::optional<Result<RankSummary>>> results(files.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            if (control && control->cancelRequested())
                results[i] = Result<RankSummary>::cancelled();
            else
                results[i] = summarizeFile(files[i], i, control, options);
        }
    };
    const size_t workers = std::clamp<size_t>(summarize.parallel, 1, std::max<size_t>(1, files.size()));
    std::vector<std::thread> threads;
    for (size_t t = 1; t < workers; ++t)
        threads.emplace_back(work);
    work();
    for (std::thread &t : threads)
        t.join();

    std::vector<RankSummary> ranks;
    std::vector<RankError> errors;
    for (size_t i = 0; i < files.size(); ++i) {
        Result<RankSummary> &r = *results[i];
        if (r)
            ranks.push_back(std::move(r).value());
        else
            errors.push_back({files[i], r.message()});
    }
    DistributedSummary out = combineRanks(std::move(ranks));
    out.errors.insert(out.errors.begin(), errors.begin(), errors.end());
    return out;
}

} // namespace tracedesk::core::analysis::distributed
