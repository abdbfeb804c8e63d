// HLO Op Stats by source line; rules in hlosourcelines.h.

#include "core/analysis/hlosourcelines.h"

#include <algorithm>
#include <map>
#include <set>

namespace tracedesk::core::analysis {

namespace {

constexpr double kGiB = 1073741824.0;

struct LineSums
{
    std::set<std::string> categories;
    size_t ops = 0;
    int64_t occurrences = 0;
    double timeUs = 0;
    double selfUs = 0;
    double flops = 0;
    double bytes = 0;
    bool anyCost = false;
};

} // namespace

HloStats groupHloStatsBySource(const HloStats &ops)
{
    HloStats out;
    out.peakGigaFlopsPerSecond = ops.peakGigaFlopsPerSecond;
    out.peakHbmGigaBytesPerSecond = ops.peakHbmGigaBytesPerSecond;
    out.ridgePoint = ops.ridgePoint;
    out.source = ops.source;
    out.note = ops.note;
    std::map<std::string, LineSums> lines;
    double selfSum = 0;
    for (const HloStatsRow &r : ops.rows) {
        LineSums &l = lines[r.sourceInfo.empty() ? std::string(kNoSourceLine) : r.sourceInfo];
        l.categories.insert(r.category);
        ++l.ops;
        l.occurrences += r.occurrences;
        l.timeUs += r.totalTimeUs;
        l.selfUs += r.totalSelfTimeUs;
        selfSum += r.totalSelfTimeUs;
        if (r.flops || r.bytesAccessed) {
            l.anyCost = true;
            l.flops += r.flops.value_or(0);
            l.bytes += r.bytesAccessed.value_or(0);
        }
    }
    for (auto &[line, l] : lines) {
        HloStatsRow r;
        r.hloOpName = line;
        r.sourceInfo = line == kNoSourceLine ? std::string() : line;
        r.category = l.categories.size() == 1
                         ? *l.categories.begin()
                         : std::to_string(l.categories.size()) + " categories";
        r.expression = l.ops == 1 ? "1 op" : std::to_string(l.ops) + " ops";
        r.occurrences = l.occurrences;
        r.totalTimeUs = l.timeUs;
        r.totalSelfTimeUs = l.selfUs;
        if (l.occurrences > 0) {
            r.avgTimeUs = l.timeUs / double(l.occurrences);
            r.avgSelfTimeUs = l.selfUs / double(l.occurrences);
        }
        r.selfTimePercent = selfSum > 0 ? 100.0 * l.selfUs / selfSum : 0;
        if (l.anyCost) {
            const double ns = l.timeUs * 1000.0;
            r.flops = l.flops;
            r.bytesAccessed = l.bytes;
            if (ns > 0) {
                r.gflopsPerSecond = l.flops / ns;
                r.memoryBwGibPerSecond = l.bytes / ns * 1e9 / kGiB;
                r.hbmBwGibPerSecond = r.memoryBwGibPerSecond;
            }
            if (l.bytes > 0)
                r.operationalIntensity = l.flops / l.bytes;
        }
        r.boundBy = boundByRidge(r.operationalIntensity, out.ridgePoint);
        out.rows.push_back(std::move(r));
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [](const HloStatsRow &a, const HloStatsRow &b) {
                         return a.totalSelfTimeUs > b.totalSelfTimeUs;
                     });
    double cumulative = 0;
    for (size_t i = 0; i < out.rows.size(); ++i) {
        out.rows[i].rank = int(i) + 1;
        cumulative += out.rows[i].selfTimePercent;
        out.rows[i].cumulativeSelfTimePercent = cumulative;
    }
    return out;
}

} // namespace tracedesk::core::analysis
