#include "core/analysis/frameworkopstats.h"

#include "core/analysis/opnames.h"

#include <algorithm>
#include <map>

namespace tracedesk::core::analysis {

namespace {

constexpr size_t kMaxRowsPerSide = 500;

// JAX op names are paths without a type (`jit(f)/jit(main)/dot_general`): the last component,
// without its bracketed parameters, is the primitive.
std::string pathOpType(std::string_view name)
{
    const size_t slash = name.rfind('/');
    std::string_view last =
        slash == std::string_view::npos ? std::string_view() : name.substr(slash + 1);
    last = last.substr(0, last.find('['));
    return last.empty() ? std::string("Unknown") : std::string(last);
}

struct Rolled
{
    std::string type;
    std::string name;
    int64_t occurrences = 0;
    TimePs time = 0;
    TimePs self = 0;
    double flops = 0;
    bool isEager = false;
    bool idle = false;
};

std::vector<Rolled> rollUpDevice(const OpMetricsDb &db)
{
    std::map<std::string, Rolled> byOp;
    for (const OpMetrics &op : db.metrics) {
        const std::string &key = op.isIdle() || op.provenance.empty() ? op.name : op.provenance;
        Rolled &r = byOp[key];
        if (r.name.empty()) {
            if (op.isIdle()) {
                r.name = r.type = kIdleOpName;
                r.idle = true;
            } else if (op.provenance.empty()) {
                r.name = op.name;
                r.type = op.category;
            } else {
                const FrameworkOp fw = parseFrameworkOp(op.provenance);
                r.name = std::string(fw.name);
                r.type = fw.type.empty() ? pathOpType(op.provenance) : std::string(fw.type);
            }
        }
        r.occurrences = std::max(r.occurrences, op.occurrences);
        r.time += op.timePs;
        r.self += op.selfTimePs;
        r.flops += op.flops;
        r.isEager = r.isEager || op.isEager;
    }
    std::vector<Rolled> out;
    for (auto &[key, r] : byOp)
        out.push_back(std::move(r));
    return out;
}

std::vector<Rolled> hostRows(const OpMetricsDb &db)
{
    std::vector<Rolled> out;
    for (const OpMetrics &op : db.metrics) {
        Rolled r;
        r.idle = op.isIdle();
        r.name = op.name;
        r.type = op.category;
        r.occurrences = op.occurrences;
        r.time = op.timePs;
        r.self = op.selfTimePs;
        r.flops = op.flops;
        r.isEager = op.isEager;
        out.push_back(std::move(r));
    }
    return out;
}

void appendSide(FrameworkOpStatsTable &table, std::vector<Rolled> rows, bool onDevice,
                bool withIdle)
{
    if (!withIdle)
        std::erase_if(rows, [](const Rolled &r) { return r.idle; });
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Rolled &a, const Rolled &b) { return a.self > b.self; });
    // Fractions are of the whole side, including rows past the display limit.
    double totalSelf = 0;
    for (const Rolled &r : rows)
        totalSelf += double(r.self);
    (onDevice ? table.deviceOps : table.hostOps) = rows.size();
    if (rows.size() > kMaxRowsPerSide)
        rows.resize(kMaxRowsPerSide);
    double cumulative = 0;
    int rank = 0;
    for (const Rolled &r : rows) {
        FrameworkOpStatsRow row;
        row.rank = ++rank;
        row.onDevice = onDevice;
        row.type = r.type;
        row.name = r.name;
        row.occurrences = r.occurrences;
        row.totalTimeUs = double(r.time) / 1e6;
        row.totalSelfTimeUs = double(r.self) / 1e6;
        row.avgTimeUs = r.occurrences > 0 ? row.totalTimeUs / double(r.occurrences) : 0.0;
        row.avgSelfTimeUs = r.occurrences > 0 ? row.totalSelfTimeUs / double(r.occurrences) : 0.0;
        row.selfTimeFraction = totalSelf > 0 ? double(r.self) / totalSelf : 0.0;
        cumulative += row.selfTimeFraction;
        row.cumulativeSelfTimeFraction = cumulative;
        row.isEager = r.isEager;
        row.gflopsPerSecond = r.time > 0 ? r.flops / (double(r.time) / 1000.0) : 0.0;
        table.rows.push_back(std::move(row));
    }
}

} // namespace

FrameworkOpStats frameworkOpStats(const OpStats &stats)
{
    FrameworkOpStats out;
    out.deviceType = stats.runEnvironment.deviceType;
    const std::vector<Rolled> device = rollUpDevice(stats.device);
    const std::vector<Rolled> host = hostRows(stats.host);
    appendSide(out.withIdle, device, true, true);
    appendSide(out.withIdle, host, false, true);
    appendSide(out.withoutIdle, device, true, false);
    appendSide(out.withoutIdle, host, false, false);
    return out;
}

std::shared_ptr<const FrameworkOpStats> frameworkOpStats(AnalysisCache &cache)
{
    return cache.get<FrameworkOpStats>(
        [](AnalysisCache &c) { return frameworkOpStats(*opStats(c)); });
}

} // namespace tracedesk::core::analysis
