#include "distributedtext.h"
#include "textcells.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace tracedesk::cli {

using namespace core::analysis::distributed;

namespace {

double us(core::TimePs ps)
{
    return double(ps) / 1e6;
}

// "1.5 MiB": sizes in binary units, "-" when the trace gives none.
std::string sizeText(int64_t bytes)
{
    if (bytes < 0)
        return "-";
    const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return buf;
}

void printRanks(const DistributedSummary &d)
{
    std::printf("\n%5s %5s %8s %6s %14s %14s %14s %14s %14s  %s\n", "rank", "steps", "kernels",
                "comm", "compute us", "comm us", "overlap us", "exposed us", "idle us", "file");
    for (const RankSummary &r : d.ranks) {
        std::printf("%5lld %5u %8llu %6llu %14.3f %14.3f %14.3f %14.3f %14.3f  %s%s\n",
                    (long long)r.rank, r.stepCount, (unsigned long long)r.kernelCount,
                    (unsigned long long)r.communicationKernelCount, us(r.computation),
                    us(r.communication), us(r.overlap), us(r.exposedCommunication), us(r.idle),
                    r.file.c_str(), r.rankGuessed ? " (rank guessed)" : "");
    }
}

// One row per rank and step; a blank line between ranks keeps a long run readable.
void printSteps(const DistributedSummary &d)
{
    size_t steps = 0;
    bool severalSteps = false;
    for (const RankSummary &r : d.ranks) {
        steps += r.steps.size();
        severalSteps = severalSteps || r.steps.size() > 1;
    }
    if (steps == 0)
        return;
    std::printf("\nSteps per rank (µs; computation + exposed communication + idle = step time)\n");
    std::printf("%5s %-12s %14s %14s %14s %14s %14s %14s\n", "rank", "step", "step time",
                "computation", "communication", "overlap", "exposed comm", "idle");
    bool first = true;
    for (const RankSummary &r : d.ranks) {
        if (r.steps.empty())
            continue;
        if (!first && severalSteps)
            std::printf("\n");
        first = false;
        for (const RankStep &st : r.steps) {
            std::printf("%5lld %-12s %14.3f %14.3f %14.3f %14.3f %14.3f %14.3f\n",
                        (long long)r.rank, clip(st.name, 12).c_str(), us(st.duration()),
                        us(st.computation), us(st.communication), us(st.overlap),
                        us(st.exposedCommunication), us(st.idle));
        }
    }
}

void printCollectives(const DistributedSummary &d, size_t limit)
{
    if (d.collectives.empty())
        return;
    std::printf("\nCollectives (first %zu of %zu, in start order)\n",
                std::min(limit, d.collectives.size()), d.collectives.size());
    std::printf("%6s %5s %14s %14s %5s %14s %10s  %s\n", "index", "ranks", "start spread",
                "end spread", "last", "waiting us", "size", "name");
    for (size_t i = 0; i < d.collectives.size() && i < limit; ++i) {
        const MatchedCollective &c = d.collectives[i];
        std::printf("%6zu %5zu %14.3f %14.3f %5lld %14.3f %10s  %s #%zu\n", c.index,
                    c.ranks.size(), us(c.startSpread), us(c.endSpread), (long long)c.lastRank,
                    us(c.waitingCaused), sizeText(c.bytes).c_str(), c.name.c_str(),
                    c.occurrence);
    }
}

void printCollectiveStats(const DistributedSummary &d)
{
    if (d.collectiveStats.empty())
        return;
    std::printf("\nCollective stats per name (all ranks; size = bytes the trace gives)\n");
    std::printf("%-14s %8s %14s %12s %12s  %s\n", "kind", "count", "total us", "mean us",
                "size", "name");
    for (const CollectiveStats &s : d.collectiveStats) {
        std::printf("%-14s %8llu %14.3f %12.3f %12s  %s\n", clip(s.kind, 14).c_str(),
                    (unsigned long long)s.all.count, us(s.all.total), us(s.all.mean()),
                    sizeText(s.all.bytes).c_str(), s.name.c_str());
    }
}

} // namespace

void printDistributedText(const DistributedSummary &d, size_t limit)
{
    size_t matched = 0;
    for (const MatchedCollective &c : d.collectives)
        matched += c.ranks.size() == d.ranks.size() ? 1 : 0;
    std::printf("Distributed run: %zu rank(s), %zu collective(s), %zu on every rank\n",
                d.ranks.size(), d.collectives.size(), matched);
    if (!d.alignStep.empty())
        std::printf("Ranks aligned at the start of step %s\n", d.alignStep.c_str());
    printRanks(d);
    printSteps(d);
    printCollectives(d, limit);
    printCollectiveStats(d);
    std::printf("\nStragglers (waiting caused)\n%5s %16s %10s\n", "rank", "waiting us",
                "last in");
    for (const Straggler &s : d.stragglers) {
        std::printf("%5lld %16.3f %10zu\n", (long long)s.rank, us(s.waitingCaused),
                    s.collectivesLast);
    }
    for (const RankError &e : d.errors)
        std::printf("error: %s: %s\n", e.file.c_str(), e.message.c_str());
    for (const std::string &w : d.warnings)
        std::printf("warning: %s\n", w.c_str());
}

} // namespace tracedesk::cli
