#include "core/compare/optables.h"

#include "core/compare/opmatch.h"

#include <unordered_map>

namespace tracedesk::core::compare {

namespace {

constexpr TimePs kPsPerUs = 1000000;

TimePs psOfUs(double us)
{
    return TimePs(us * double(kPsPerUs) + (us >= 0 ? 0.5 : -0.5));
}

std::vector<OpTotals> frameworkTotals(const analysis::FrameworkOpStats &framework)
{
    std::vector<OpTotals> out;
    for (const analysis::FrameworkOpStatsRow &r : framework.withoutIdle.rows) {
        if (r.name == analysis::kIdleOpName && r.type == analysis::kIdleOpName)
            continue;
        OpTotals t;
        t.name = r.name;
        t.category = r.type;
        t.where = r.onDevice ? kWhereDevice : kWhereHost;
        t.occurrences = r.occurrences;
        t.totalPs = psOfUs(r.totalTimeUs);
        t.selfPs = psOfUs(r.totalSelfTimeUs);
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<OpTotals> hloTotals(const analysis::OpMetricsDb &device)
{
    std::vector<OpTotals> out;
    std::unordered_map<std::string, size_t> index;
    for (const analysis::OpMetrics &m : device.metrics) {
        if (m.isIdle())
            continue;
        // The same HLO name can come from different programs; a comparison sums them, as
        // the two runs need not number their programs alike.
        auto [it, added] = index.try_emplace(m.name, out.size());
        if (added) {
            OpTotals t;
            t.name = m.name;
            t.category = m.category;
            out.push_back(std::move(t));
        }
        OpTotals &t = out[it->second];
        t.occurrences += m.occurrences;
        t.totalPs += m.timePs;
        t.selfPs += m.selfTimePs;
    }
    return out;
}

std::vector<OpTotals> kernelTotals(const analysis::KernelStatsDb &kernels)
{
    std::vector<OpTotals> out;
    std::unordered_map<std::string, size_t> index;
    for (const analysis::KernelReport &r : kernels.reports) {
        auto [it, added] = index.try_emplace(r.name, out.size());
        if (added) {
            OpTotals t;
            t.name = r.name;
            t.category = r.opName;
            out.push_back(std::move(t));
        }
        OpTotals &t = out[it->second];
        t.occurrences += r.occurrences;
        t.totalPs += r.totalDurationPs;
        t.selfPs += r.totalDurationPs;
    }
    return out;
}

} // namespace

const char *opLevelName(OpLevel level)
{
    switch (level) {
    case OpLevel::Framework: return "framework";
    case OpLevel::Hlo: return "hlo";
    case OpLevel::Kernel: return "kernel";
    }
    return "";
}

const char *opLevelLabel(OpLevel level)
{
    switch (level) {
    case OpLevel::Framework: return "Framework op";
    case OpLevel::Hlo: return "HLO op";
    case OpLevel::Kernel: return "Kernel";
    }
    return "";
}

bool parseOpLevel(std::string_view text, OpLevel *level)
{
    for (int i = 0; i < kOpLevelCount; ++i) {
        if (text == opLevelName(OpLevel(i))) {
            *level = OpLevel(i);
            return true;
        }
    }
    return false;
}

std::vector<OpTotals> scanKernelTotals(const Trace &trace)
{
    const std::vector<TrackRole> roles = trackRoles(trace);
    std::vector<int64_t> count(trace.kinds.size(), 0);
    std::vector<TimePs> total(trace.kinds.size(), 0);
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        if (roles[t] != TrackRole::GpuStream)
            continue;
        for (const Row &row : trace.tracks[t].rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                ++count[row.kind[i]];
                total[row.kind[i]] += row.duration[i];
            }
        }
    }
    std::vector<OpTotals> out;
    std::unordered_map<std::string_view, size_t> index;
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        if (count[k] == 0)
            continue;
        const std::string_view name = trace.string(trace.kinds[k].name);
        auto [it, added] = index.try_emplace(name, out.size());
        if (added) {
            OpTotals t;
            t.name = std::string(name);
            out.push_back(std::move(t));
        }
        OpTotals &t = out[it->second];
        t.occurrences += count[k];
        t.totalPs += total[k];
        t.selfPs += total[k];
    }
    return out;
}

OpTables opTables(const Trace &trace, const analysis::OpStats &ops,
                  const analysis::FrameworkOpStats &framework)
{
    OpTables tables;
    tables.levels[size_t(OpLevel::Framework)] = frameworkTotals(framework);
    tables.levels[size_t(OpLevel::Hlo)] = hloTotals(ops.device);
    tables.levels[size_t(OpLevel::Kernel)] = ops.kernelStats.reports.empty()
                                                 ? scanKernelTotals(trace)
                                                 : kernelTotals(ops.kernelStats);
    tables.deviceOpTimePs = ops.device.totalOpTimePs;
    tables.hostOpTimePs = ops.host.totalOpTimePs;
    return tables;
}

} // namespace tracedesk::core::compare
