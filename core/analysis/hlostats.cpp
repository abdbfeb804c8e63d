// HLO Op Stats rows from the device op metrics DB; rules in hlostats.h.

#include "core/analysis/hlostats.h"

#include "core/analysis/hlocost.h"
#include "core/analysis/hlograph.h"

#include <algorithm>
#include <map>
#include <memory>

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

bool hasOpCosts(const OpMetricsDb &db)
{
    return std::any_of(db.metrics.begin(), db.metrics.end(), [](const OpMetrics &m) {
        return !m.isIdle() && (m.flops > 0 || m.bytesAccessed > 0);
    });
}

std::string boundByRidge(std::optional<double> intensity, double ridgePoint)
{
    if (!intensity || ridgePoint <= 0)
        return "Unknown";
    return *intensity >= ridgePoint ? "Compute" : "HBM";
}

HloStats buildHloStats(const OpMetricsDb &device, const PerfEnv &env,
                       const hlo::HloModuleIndex *hlo)
{
    HloStats out;
    out.source = "profile";
    out.peakGigaFlopsPerSecond = env.peakTeraFlopsPerSecond * 1000.0;
    out.peakHbmGigaBytesPerSecond = env.peakHbmBwGigaBytesPerSecond;
    out.ridgePoint = env.ridgePoint;
    std::vector<const OpMetrics *> ops;
    TimePs selfSum = 0;
    bool anyCost = hasOpCosts(device);
    for (const OpMetrics &m : device.metrics) {
        if (m.isIdle())
            continue;
        ops.push_back(&m);
        selfSum += m.selfTimePs;
    }
    std::stable_sort(ops.begin(), ops.end(), [](const OpMetrics *a, const OpMetrics *b) {
        return a->selfTimePs > b->selfTimePs;
    });
    // Without any cost in the profile, the compiled HLO gives an estimate (hlocost.h).
    std::vector<HloCost> estimates;
    if (!anyCost && hlo && !hlo->modules().empty()) {
        std::map<uint64_t, std::unique_ptr<HloCostModel>> models;
        estimates.resize(ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const OpMetrics &m = *ops[i];
            const uint64_t program = uint64_t(m.hloModuleId);
            const xla::HloInstructionProto *inst = hlo->instruction(program, m.name);
            const hlo::HloModuleIndex::Module *module = hlo->byProgramId(program);
            if (!inst || !module)
                continue;
            auto &model = models[program];
            if (!model)
                model = std::make_unique<HloCostModel>(module->proto.hlo_module());
            const HloCost c = model->cost(*inst);
            estimates[i] = {c.flops * double(m.occurrences), c.bytes * double(m.occurrences)};
            anyCost = anyCost || c.flops > 0 || c.bytes > 0;
        }
        if (!anyCost)
            estimates.clear();
    }
    double cumulative = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpMetrics *m = ops[i];
        const double flops = estimates.empty() ? m->flops : estimates[i].flops;
        const double bytes = estimates.empty() ? m->bytesAccessed : estimates[i].bytes;
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
            r.flops = flops;
            r.bytesAccessed = bytes;
            r.costEstimated = !estimates.empty();
            if (ns > 0) {
                r.gflopsPerSecond = flops / ns;
                if (estimates.empty())
                    r.modelGflopsPerSecond = m->modelFlops / ns;
                const auto gibPerSecond = [ns](double b) { return b / ns * 1e9 / kGiB; };
                r.memoryBwGibPerSecond = gibPerSecond(bytes);
                // HBM and on-chip memories from the op's recorded breakdown where it has one
                // (XProf's hbm_bw); else every byte is taken as HBM's.
                const OpMemoryBytes *mem =
                    estimates.empty() && m->memoryBytes ? &*m->memoryBytes : nullptr;
                r.hbmBwGibPerSecond = gibPerSecond(mem ? mem->hbm : bytes);
                if (mem) {
                    r.cmemReadBwGibPerSecond = gibPerSecond(mem->cmemRead);
                    r.cmemWriteBwGibPerSecond = gibPerSecond(mem->cmemWrite);
                }
            }
            if (bytes > 0)
                r.operationalIntensity = flops / bytes;
        }
        r.boundBy = boundByRidge(r.operationalIntensity, out.ridgePoint);
        r.rematerialization = isRematerialized(m->name) ? "Yes" : "No";
        r.outsideCompilation = isOutsideCompilation(m->provenance) ? "Yes" : "No";
        out.rows.push_back(std::move(r));
    }
    if (!anyCost)
        out.note = "the profile records no FLOPs or bytes accessed for its ops: rates and "
                   "bound-by are unknown";
    else if (!estimates.empty())
        out.note = "FLOPs and bytes estimated from the compiled HLO (the profile records none): "
                   "dots, convolutions and fused attention from their shapes, elementwise ops "
                   "one FLOP per element";
    else if (out.ridgePoint <= 0)
        out.note = "the device's peak FLOP rate or HBM bandwidth is unknown: bound-by is unknown";
    return out;
}

std::shared_ptr<const HloStats> hloStats(AnalysisCache &cache)
{
    return cache.get<HloStats>([](AnalysisCache &c) {
        const auto stats = opStats(c);
        // The compiled HLO is parsed only when the profile records no costs to show.
        const auto modules = hasOpCosts(stats->device) ? nullptr : traceHloModules(c);
        return buildHloStats(stats->device, stats->perfEnv,
                             modules ? modules->index.get() : nullptr);
    });
}

} // namespace tracedesk::core::analysis
