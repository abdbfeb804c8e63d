#include "core/analysis/opmetrics.h"

#include "core/analysis/opnames.h"
#include "core/analysis/opscan.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace tracedesk::core::analysis {

namespace detail {

namespace {

StringId keyOf(const Trace &trace, std::string_view name)
{
    StringId id = kEmptyString;
    // kEmptyString never matches a real stat key, so an absent name disables that stat.
    return trace.strings.find(name, &id) ? id : StringId(UINT32_MAX);
}

// Derived-line ids: 0xdeadbeef read as int32, plus offsets 0..289 (FORMATS 1.5).
constexpr int64_t kDerivedMin = int64_t(int32_t(0xdeadbeefu));
constexpr int64_t kDerivedMax = kDerivedMin + 289;

} // namespace

StatKeys::StatKeys(const Trace &trace)
    : hloCategory(keyOf(trace, "hlo_category"))
    , deduplicatedName(keyOf(trace, "deduplicated_name"))
    , modelFlops(keyOf(trace, "model_flops"))
    , shapeWithLayout(keyOf(trace, "shape_with_layout"))
    , level0(keyOf(trace, "level 0"))
    , kernelDetails(keyOf(trace, "kernel_details"))
    , tfOp(keyOf(trace, "tf_op"))
    , isEager(keyOf(trace, "is_eager"))
    , iplStageCat(keyOf(trace, "_ipl_stage_cat"))
    , flops(keyOf(trace, "flops"))
    , bytesAccessed(keyOf(trace, "bytes_accessed"))
    , source(keyOf(trace, "source"))
    , memoryAccessBreakdown(keyOf(trace, "memory_access_breakdown"))
{
}

std::string_view argText(const Trace &trace, const ArgValue &v)
{
    if (v.type == ArgType::String)
        return v.s;
    if (v.type == ArgType::StringRef)
        return trace.string(v.str);
    return {};
}

bool kindStat(const Trace &trace, const EventKind &kind, StringId key, ArgValue *out)
{
    return trace.metaArgs.find(kind.stats, key, out);
}

DeviceFamily deviceFamily(const Trace &trace, const Plane &plane)
{
    if (plane.kind != PlaneKind::Device)
        return DeviceFamily::None;
    const std::string_view name = trace.string(plane.name);
    if (name.starts_with("/device:TPU:") && name.find("SparseCore") == std::string_view::npos)
        return DeviceFamily::Tpu;
    if (name.starts_with("/device:GPU:"))
        return DeviceFamily::Gpu;
    return DeviceFamily::None;
}

bool isRawGpuLine(const Trace &trace, const Track &track)
{
    if (track.type != TrackType::Slices)
        return false;
    if (track.sourceId >= kDerivedMin && track.sourceId <= kDerivedMax)
        return false;
    static constexpr std::array<std::string_view, 13> kDerived = {
        "Steps", "XLA Modules", "XLA Ops", "Framework Ops", "Framework Name Scope",
        "TensorFlow Ops", "TensorFlow Name Scope", "Source code", "Launch Stats",
        "Host Offload Ops", "_counters_", "XLA TraceMe", "Async XLA Ops"};
    const std::string_view name = trace.string(track.name);
    return std::find(kDerived.begin(), kDerived.end(), name) == kDerived.end();
}

bool isTpuOpLine(const Trace &trace, const Track &track)
{
    return track.type == TrackType::Slices && trace.string(track.name) == "XLA Ops";
}

void finishDb(OpMetricsDb &db, std::vector<OpMetrics> ops, bool addIdle)
{
    // Kinds differing only in TraceMe metadata (shapes) or plane are the same op.
    std::map<std::tuple<std::string, std::string, int64_t>, size_t> index;
    for (OpMetrics &op : ops) {
        auto [it, inserted] = index.try_emplace({op.name, op.category, op.hloModuleId},
                                                db.metrics.size());
        if (inserted) {
            db.metrics.push_back(std::move(op));
            continue;
        }
        OpMetrics &m = db.metrics[it->second];
        m.minTimePs = m.occurrences == 0 ? op.minTimePs
                      : op.occurrences == 0 ? m.minTimePs
                                            : std::min(m.minTimePs, op.minTimePs);
        m.occurrences += op.occurrences;
        m.timePs += op.timePs;
        m.selfTimePs += op.selfTimePs;
        m.flops += op.flops;
        m.modelFlops += op.modelFlops;
        m.bytesAccessed += op.bytesAccessed;
        if (op.memoryBytes) {
            OpMemoryBytes &b = m.memoryBytes ? *m.memoryBytes : m.memoryBytes.emplace();
            b.hbm += op.memoryBytes->hbm;
            b.cmemRead += op.memoryBytes->cmemRead;
            b.cmemWrite += op.memoryBytes->cmemWrite;
            b.vmemRead += op.memoryBytes->vmemRead;
            b.vmemWrite += op.memoryBytes->vmemWrite;
        }
        m.isEager = m.isEager || op.isEager;
        if (m.longName.empty())
            m.longName = std::move(op.longName);
        if (m.provenance.empty())
            m.provenance = std::move(op.provenance);
    }
    db.totalOpTimePs = 0;
    for (const OpMetrics &m : db.metrics) {
        db.totalOpTimePs += m.selfTimePs;
        if (m.category.starts_with("InfeedEnqueue"))
            db.totalHostInfeedEnqDurationPs += m.timePs;
    }
    db.idleTimePs = std::max<TimePs>(0, db.totalTimePs - db.totalOpTimePs);
    db.busyTimePs = db.totalTimePs - db.idleTimePs;
    if (addIdle && db.totalTimePs > 0) {
        OpMetrics idle;
        idle.name = kIdleOpName;
        idle.category = kIdleOpName;
        idle.occurrences = db.idleTimePs > 0 ? 1 : 0;
        idle.timePs = idle.selfTimePs = idle.minTimePs = db.idleTimePs;
        db.metrics.push_back(std::move(idle));
    }
    std::stable_sort(db.metrics.begin(), db.metrics.end(),
                     [](const OpMetrics &a, const OpMetrics &b) {
                         return a.selfTimePs > b.selfTimePs;
                     });
}

} // namespace detail

const OpMetrics *OpMetricsDb::find(std::string_view name) const
{
    for (const OpMetrics &m : metrics) {
        if (m.name == name)
            return &m;
    }
    return nullptr;
}

const OpMetrics *OpMetricsDb::idle() const
{
    for (const OpMetrics &m : metrics) {
        if (m.isIdle())
            return &m;
    }
    return nullptr;
}

OpStats computeOpStats(const Trace &trace, std::optional<TimeRange> range)
{
    OpStats s;
    s.host = hostOpMetrics(trace, range);
    s.device = deviceOpMetrics(trace, range);
    s.perfEnv = perfEnv(trace);
    s.runEnvironment = runEnvironment(trace);
    s.kernelStats = kernelStats(trace, range);
    return s;
}

std::shared_ptr<const OpStats> opStats(AnalysisCache &cache)
{
    return cache.get<OpStats>([](AnalysisCache &c) { return computeOpStats(c.trace()); });
}

double gigaFlopsPerSecond(const OpMetrics &op)
{
    return op.timePs > 0 ? op.flops / (double(op.timePs) / 1000.0) : 0.0;
}

double gigaBytesPerSecond(const OpMetrics &op)
{
    return op.timePs > 0 ? op.bytesAccessed / (double(op.timePs) / 1000.0) : 0.0;
}

} // namespace tracedesk::core::analysis
