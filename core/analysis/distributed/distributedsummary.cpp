#include "core/analysis/distributed/distributedsummary.h"

#include "core/base/cancel.h"
#include "core/base/parallel.h"
#include "core/io/runranks.h"
#include "core/io/traceloader.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
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
    SliceRef ref;
};

// Sets every rank's clockShift: its origin's distance to the run's, plus the move that puts
// its `alignStep` marker at the earliest rank's.
void shiftRanks(DistributedSummary &out, const std::string &alignStep)
{
    for (RankSummary &r : out.ranks)
        r.clockShift = (r.originNs - out.originNs) * 1000;
    if (alignStep.empty())
        return;
    std::vector<std::optional<TimePs>> at(out.ranks.size());
    std::optional<TimePs> earliest;
    for (size_t i = 0; i < out.ranks.size(); ++i) {
        const RankSummary &r = out.ranks[i];
        for (const RankStep &s : r.steps) {
            if (s.name == alignStep) {
                at[i] = s.hostStart + r.clockShift;
                earliest = earliest ? std::min(*earliest, *at[i]) : *at[i];
                break;
            }
        }
    }
    if (!earliest) {
        out.warnings.push_back("no rank has step " + alignStep + "; the ranks keep their clocks");
        return;
    }
    out.alignStep = alignStep;
    for (size_t i = 0; i < out.ranks.size(); ++i) {
        RankSummary &r = out.ranks[i];
        if (at[i])
            r.clockShift += *earliest - *at[i];
        else
            out.warnings.push_back("rank " + std::to_string(r.rank) + " has no step " + alignStep
                                   + "; it keeps its clock");
    }
}

// Per kernel name: count, time and size over the run and per rank.
std::vector<CollectiveStats> collectiveStats(const std::vector<RankSummary> &ranks)
{
    std::map<std::string, CollectiveStats> byName;
    auto add = [](CollectiveCount &c, const CollectiveRecord &r) {
        ++c.count;
        c.total += r.end - r.start;
        if (r.bytes >= 0)
            c.bytes = std::max<int64_t>(c.bytes, 0) + r.bytes;
    };
    for (const RankSummary &rank : ranks) {
        for (const CollectiveRecord &c : rank.collectives) {
            CollectiveStats &s = byName[c.name];
            if (s.name.empty()) {
                s.name = c.name;
                s.kind = c.kind;
            }
            if (s.perRank.empty() || s.perRank.back().rank != rank.rank)
                s.perRank.push_back({rank.rank});
            add(s.all, c);
            add(s.perRank.back(), c);
        }
    }
    std::vector<CollectiveStats> out;
    for (auto &[name, s] : byName)
        out.push_back(std::move(s));
    std::stable_sort(out.begin(), out.end(),
                     [](const CollectiveStats &a, const CollectiveStats &b) {
                         return a.all.total > b.all.total;
                     });
    return out;
}

} // namespace

Result<RankSummary> summarizeRankFile(const std::string &file, size_t order,
                                      LoadControl *control, const LoadOptions &options)
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

bool DistributedSummary::fullyMatched() const
{
    return std::all_of(collectives.begin(), collectives.end(), [this](const MatchedCollective &c) {
        return c.ranks.size() == ranks.size();
    });
}

DistributedSummary combineRanks(std::vector<RankSummary> ranks, const std::string &alignStep)
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
    shiftRanks(out, alignStep);
    out.collectiveStats = collectiveStats(out.ranks);

    // (name, k) -> the ranks' arrivals, in rank order.
    std::map<std::pair<std::string, size_t>, std::vector<Arrival>> groups;
    for (const RankSummary &r : out.ranks) {
        const TimePs shift = r.clockShift;
        std::map<std::string_view, size_t> seen;
        for (const CollectiveRecord &c : r.collectives) {
            const size_t k = seen[c.name]++;
            groups[{c.name, k}].push_back(
                {r.rank, c.start + shift, c.end + shift, c.bytes, &c.kind, c.ref});
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
            m.refs.push_back(a.ref);
            m.starts.push_back(a.start);
            m.ends.push_back(a.end);
            m.bytes = std::max(m.bytes, a.bytes);
            m.firstStart = std::min(m.firstStart, a.start);
            if (a.start > m.lastStart) {
                m.lastStart = a.start;
                m.lastRank = a.rank;
            }
            firstEnd = std::min(firstEnd, a.end);
            lastEnd = std::max(lastEnd, a.end);
        }
        m.firstEnd = firstEnd;
        m.lastEnd = lastEnd;
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
    // The files of the ranks asked for, each with its position among every file given.
    std::vector<std::pair<std::string, size_t>> chosen;
    if (options.ranks.empty()) {
        for (size_t i = 0; i < files.size(); ++i)
            chosen.emplace_back(files[i], i);
    } else {
        const std::string run = files.empty() ? std::string()
                                              : files.size() == 1 ? files.front()
                                              : std::filesystem::path(files.front())
                                                    .parent_path().string();
        auto picked = selectRanks(runFiles(files), options.ranks, run);
        if (!picked) {
            DistributedSummary out;
            out.errors.push_back({run, picked.message()});
            return out;
        }
        for (const RunFile &f : picked.value())
            chosen.emplace_back(f.path, f.position);
        std::sort(chosen.begin(), chosen.end(),
                  [](const auto &a, const auto &b) { return a.second < b.second; });
    }
    // Each rank alone: no subset, no alignment (combineRanks aligns), so its cache entry is the
    // one the rank-run loader looks for.
    LoadOptions own = options;
    own.ranks.clear();
    own.alignStep.clear();
    own.fitRanksToMemory = false;

    std::vector<std::optional<Result<RankSummary>>> results(chosen.size());
    const auto workers = unsigned(std::max<size_t>(summarize.parallel, 1));
    std::atomic<size_t> done{0};
    parallelFor(chosen.size(), workers, [&](unsigned, size_t i) {
        if ((control && control->cancelRequested()) || cancelRequested())
            results[i] = Result<RankSummary>::cancelled();
        else
            results[i] = summarizeRankFile(chosen[i].first, chosen[i].second, control, own);
        if (summarize.onRankDone)
            summarize.onRankDone(++done, chosen.size());
        return true;
    });

    std::vector<RankSummary> ranks;
    std::vector<RankError> errors;
    for (size_t i = 0; i < chosen.size(); ++i) {
        Result<RankSummary> &r = *results[i];
        if (r)
            ranks.push_back(std::move(r).value());
        else
            errors.push_back({chosen[i].first, r.message()});
    }
    DistributedSummary out = combineRanks(std::move(ranks), summarize.alignStep);
    out.errors.insert(out.errors.begin(), errors.begin(), errors.end());
    return out;
}

bool isMergedRankRun(const Trace &trace)
{
    if (trace.info.hosts.size() < 2)
        return false;
    if (trace.info.format == "xspace")
        return true; // a run folder of several hosts, each a rank
    // Kineto rank traces, or Nsight Systems exports (one per rank) opened together.
    return (trace.info.format == "chrome-json" || trace.info.format == "nsys-sqlite")
           && std::all_of(trace.info.hosts.begin(), trace.info.hosts.end(),
                          [](const std::string &h) { return h.starts_with("rank "); });
}

DistributedSummary summarizeMergedRun(const Trace &trace)
{
    if (!isMergedRankRun(trace))
        return {};
    std::vector<RankSummary> ranks;
    for (size_t i = 0; i < trace.info.hosts.size(); ++i)
        ranks.push_back(summarizeRankSection(trace, trace.info.hosts[i], int64_t(i)));
    return combineRanks(std::move(ranks));
}

} // namespace tracedesk::core::analysis::distributed
