// HLO Op Stats rows from the device op metrics DB; rules in hlostats.h.

#include "core/analysis/hlostats.h"

#include <algorithm>

namespace tracedesk::core::analysis {

namespace {

constexpr double kGiB = 1073741824.0;

double us(TimePs ps)
{
    return double(ps) / 1e6;
}

// XProf marks an op rematerialized when the compiler named it so (`.remat` suffixes).
bool isRematerialized(const std::string &name)
{
    return name.find(".remat") != std::string::npos
           || name.find("rematerialization") != std::string::npos;
}

bool isOutsideCompilation(const std::string &frameworkOp)
{
    return frameworkOp.find("OutsideCompilation") != std::string::npos;
}

} // namespace

std::string boundByRidge(std::optional<double> intensity, double ridgePoint)
{
    if (!intensity || ridgePoint <= 0)
        return "Unknown";
    return *intensity >= ridgePoint ? "Compute" : "HBM";
}

HloStats buildHloStats(const OpMetricsDb &device, const PerfEnv &env)
{
    HloStats out;
    out.source = "profile";
    out.peakGigaFlopsPerSecond = env.peakTeraFlopsPerSecond * 1000.0;
    out.peakHbmGigaBytesPerSecond = env.peakHbmBwGigaBytesPerSecond;
    out.ridgePoint = env.ridgePoint;
    std::vector<const OpMetrics *> ops;
    TimePs selfSum = 0;
    bool anyCost = false;
    for (const OpMetrics &m : device.metrics) {
        if (m.isIdle())
            continue;
        ops.push_back(&m);
        selfSum += m.selfTimePs;
        anyCost = anyCost || m.flops > 0 || m.bytesAccessed > 0;
    }
    std::stable_sort(ops.begin(), ops.end(), [](const OpMetrics *a, const OpMetrics *b) {
        return a->selfTimePs > b->selfTimePs;
    });
    double cumulative = 0;
    for (const OpMetrics *m : ops) {
        HloStatsRow r;
        r.rank = int(out.rows.size()) + 1;
        // XProf prints the 64-bit fingerprint unsigned.
        r.programId =
            m->hloModuleId != 0 ? std::to_string(uint64_t(m->hloModuleId)) : std::string();
        r.category = m->category;
        r.hloOpName = m->name;
        r.expression = m->longName;
        r.frameworkOp = m->provenance;
        r.sourceInfo = m->source;
        r.occurrences = m->occurrences;
        r.totalTimeUs = us(m->timePs);
        r.totalSelfTimeUs = us(m->selfTimePs);
        if (m->occurrences > 0) {
            r.avgTimeUs = r.totalTimeUs / double(m->occurrences);
            r.avgSelfTimeUs = r.totalSelfTimeUs / double(m->occurrences);
        }
        r.selfTimePercent = selfSum > 0 ? 100.0 * double(m->selfTimePs) / double(selfSum) : 0;
        cumulative += r.selfTimePercent;
        r.cumulativeSelfTimePercent = cumulative;
        // A profile without any cost stats knows no rates; one with them gives 0 FLOPs to ops
        // that truly have none (copies, DMAs), as XProf shows them.
        if (anyCost) {
            const double ns = double(m->timePs) / 1000.0;
            r.flops = m->flops;
            r.bytesAccessed = m->bytesAccessed;
            if (ns > 0) {
                r.gflopsPerSecond = m->flops / ns;
                r.modelGflopsPerSecond = m->modelFlops / ns;
                r.memoryBwGibPerSecond = m->bytesAccessed / ns * 1e9 / kGiB;
                r.hbmBwGibPerSecond = r.memoryBwGibPerSecond;
            }
            if (m->bytesAccessed > 0)
                r.operationalIntensity = m->flops / m->bytesAccessed;
        }
        r.boundBy = boundByRidge(r.operationalIntensity, out.ridgePoint);
        r.rematerialization = isRematerialized(m->name) ? "Yes" : "No";
        r.outsideCompilation = isOutsideCompilation(m->provenance) ? "Yes" : "No";
        out.rows.push_back(std::move(r));
    }
    if (!anyCost)
        out.note = "the profile records no FLOPs or bytes accessed for its ops: rates and "
                   "bound-by are unknown";
    else if (out.ridgePoint <= 0)
        out.note = "the device's peak FLOP rate or HBM bandwidth is unknown: bound-by is unknown";
    return out;
}

std::shared_ptr<const HloStats> hloStats(AnalysisCache &cache)
{
    return cache.get<HloStats>([](AnalysisCache &c) {
        const auto stats = opStats(c);
        return buildHloStats(stats->device, stats->perfEnv);
    });
}

} // namespace tracedesk::core::analysis
