// Roofline lines and points from the op metrics and the step table; rules in roofline.h.

#include "core/analysis/roofline.h"

#include "core/analysis/hlostats.h"
#include "core/analysis/steps.h"
#include "core/analysis/stepsandops.h"
#include "core/base/parallel.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <utility>

namespace tracedesk::core::analysis {

namespace {

constexpr double kGiB = 1073741824.0;

// Order of PerfEnv::peakBwsGigaBytesPerSecond (FORMATS.md 1.8).
constexpr const char *kMemoryNames[] = {"HBM",        "SRAM read", "SRAM write", "CMEM read",
                                        "CMEM write", "VMEM read", "VMEM write"};

// `hbmBytes`: the HBM share of `bytes` where the ops' breakdowns tell it, else all of them.
void setRates(RooflinePoint &p, double flops, double bytes, double hbmBytes, TimePs ratePs,
              double ridge, bool anyCost)
{
    if (!anyCost)
        return;
    p.flops = flops;
    p.bytesAccessed = bytes;
    const double ns = double(ratePs) / 1000.0;
    if (ns > 0) {
        p.gflopsPerSecond = flops / ns;
        p.hbmBwGibPerSecond = hbmBytes / ns * 1e9 / kGiB;
    }
    if (bytes > 0)
        p.operationalIntensity = flops / bytes;
    p.boundBy = boundByRidge(p.operationalIntensity, ridge);
}

RooflinePoint aggregate(const OpMetricsDb &db, RooflinePoint::Kind kind, const std::string &step,
                        double ridge, bool anyCost)
{
    RooflinePoint p;
    p.kind = kind;
    p.step = step;
    p.category = "Program";
    p.name = kind == RooflinePoint::Kind::Total ? "Total" : "Step " + step;
    double flops = 0, bytes = 0, hbm = 0;
    TimePs self = 0;
    for (const OpMetrics &m : db.metrics) {
        if (m.isIdle())
            continue;
        flops += m.flops;
        bytes += m.bytesAccessed;
        hbm += m.memoryBytes ? m.memoryBytes->hbm : m.bytesAccessed;
        self += m.selfTimePs;
        p.occurrences += m.occurrences;
    }
    p.totalTimeUs = double(db.totalTimePs) / 1e6;
    p.totalSelfTimeUs = double(self) / 1e6;
    p.boundBy = "Unknown";
    setRates(p, flops, bytes, hbm, self, ridge, anyCost);
    return p;
}

} // namespace

RooflineModel buildRoofline(const Trace &trace, const OpStats &stats, const HloStats &table,
                            const std::vector<RooflineStep> &steps, const RooflineOptions &options)
{
    RooflineModel out;
    out.source = "profile";
    out.deviceType = stats.runEnvironment.deviceType;
    const PerfEnv &env = stats.perfEnv;
    out.peakGigaFlopsPerSecond = env.peakTeraFlopsPerSecond * 1000.0;
    for (size_t i = 0; i < env.peakBwsGigaBytesPerSecond.size() && i < std::size(kMemoryNames);
         ++i) {
        const double bw = env.peakBwsGigaBytesPerSecond[i];
        if (bw <= 0)
            continue;
        out.rooflines.push_back({kMemoryNames[i], bw,
                                 out.peakGigaFlopsPerSecond > 0 ? out.peakGigaFlopsPerSecond / bw
                                                                : 0});
    }
    const double ridge = env.ridgePoint;
    const bool anyCost = hasOpCosts(stats.device);

    const bool estimated = !table.rows.empty() && table.rows.front().costEstimated;
    out.points.push_back(aggregate(stats.device, RooflinePoint::Kind::Total, "Total", ridge,
                                   anyCost));
    if (estimated) {   // the whole profile from the ops' estimates; steps have none
        double flops = 0, bytes = 0;
        for (const HloStatsRow &r : table.rows) {
            flops += r.flops.value_or(0);
            bytes += r.bytesAccessed.value_or(0);
        }
        TimePs self = 0;
        for (const OpMetrics &m : stats.device.metrics)
            self += m.isIdle() ? 0 : m.selfTimePs;
        setRates(out.points.back(), flops, bytes, bytes, self, ridge, true);
    }
    // With estimates, an op's cost per occurrence, by (program, op name): a step's cost is its
    // occurrences' (the estimate of an op does not depend on when it runs).
    std::map<std::pair<uint64_t, std::string>, std::pair<double, double>> perOccurrence;
    if (estimated) {
        for (const HloStatsRow &r : table.rows) {
            if (r.occurrences <= 0)
                continue;
            uint64_t program = 0;
            std::from_chars(r.programId.data(), r.programId.data() + r.programId.size(),
                            program);
            perOccurrence[{program, r.hloOpName}] = {r.flops.value_or(0) / double(r.occurrences),
                                                     r.bytesAccessed.value_or(0)
                                                         / double(r.occurrences)};
        }
    }
    const size_t stepCount = std::min(steps.size(), size_t(std::max(0, options.maxSteps)));
    // Each step is a scan of its own time range: the steps are scanned on every core, each
    // step's ops dropped as soon as its point is made.
    std::vector<RooflinePoint> stepPoints(stepCount);
    parallelFor(stepCount, 0, [&](unsigned, size_t i) {
        const OpMetricsDb db = deviceOpMetrics(trace, steps[i].range);
        RooflinePoint &point = stepPoints[i];
        point = aggregate(db, RooflinePoint::Kind::Step, steps[i].name, ridge, anyCost);
        if (!estimated)
            return true;
        double flops = 0, bytes = 0;
        TimePs self = 0;
        for (const OpMetrics &m : db.metrics) {
            if (m.isIdle())
                continue;
            self += m.selfTimePs;
            const auto it = perOccurrence.find({uint64_t(m.hloModuleId), m.name});
            if (it == perOccurrence.end())
                continue;
            flops += it->second.first * double(m.occurrences);
            bytes += it->second.second * double(m.occurrences);
        }
        setRates(point, flops, bytes, bytes, self, ridge, true);
        return true;
    });
    for (RooflinePoint &point : stepPoints)
        out.points.push_back(std::move(point));
    const size_t opCount = std::min(table.rows.size(), size_t(std::max(0, options.topOps)));
    for (size_t i = 0; i < opCount; ++i) {
        const HloStatsRow &r = table.rows[i];
        RooflinePoint p;
        p.kind = RooflinePoint::Kind::Op;
        p.step = "Total";
        p.category = r.category;
        p.name = r.hloOpName;
        p.occurrences = r.occurrences;
        p.totalTimeUs = r.totalTimeUs;
        p.totalSelfTimeUs = r.totalSelfTimeUs;
        p.selfTimePercent = r.selfTimePercent;
        p.flops = r.flops;
        p.bytesAccessed = r.bytesAccessed;
        p.gflopsPerSecond = r.gflopsPerSecond;
        p.hbmBwGibPerSecond = r.hbmBwGibPerSecond;
        p.operationalIntensity = r.operationalIntensity;
        p.boundBy = r.boundBy;
        out.points.push_back(std::move(p));
    }
    if (estimated)
        out.note = "FLOPs and bytes estimated from the compiled HLO (the profile records none)";
    else if (!anyCost)
        out.note = "the profile records no FLOPs or bytes accessed: no point can be placed";
    else if (out.peakGigaFlopsPerSecond <= 0 || out.rooflines.empty())
        out.note = "the device's peak FLOP rate or bandwidth is unknown: no roofline is drawn";
    return out;
}

std::shared_ptr<const RooflineModel> rooflineModel(AnalysisCache &cache)
{
    return cache.get<RooflineModel>([](AnalysisCache &c) {
        const StepsAndOps both = stepsAndOps(c);
        std::vector<RooflineStep> steps;
        for (const StepInfo &s : both.steps->steps)
            steps.push_back({s.name, TimeRange{s.begin, s.begin + s.duration}});
        // The ops are HLO Op Stats' rows (with their estimated costs, if any).
        return buildRoofline(c.trace(), *both.ops, *hloStats(c), steps);
    });
}

} // namespace tracedesk::core::analysis
