// hlo-stats and roofline: XLA's per-op view of a device profile, as a text table or JSON. FILE
// may also be XProf's own `hlo_stats` / `roofline_model` output, shown as recorded.

#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "textcells.h"

#include "core/analysis/hlosourcelines.h"
#include "core/analysis/hlostats.h"
#include "core/analysis/roofline.h"
#include "core/io/traceloader.h"
#include "core/legacy/legacyhlotools.h"
#include "core/legacy/legacytools.h"

#include <cstdio>
#include <optional>

namespace tracedesk::cli {

using namespace core::analysis;

const char *const kHloStatsUsage =
    "  hlo-stats FILE [--by-source] [--json]\n"
    "      One row per HLO op: occurrences, total/self time, FLOP rate (flops / op time),\n"
    "      bandwidth, operational intensity (flops / bytes) and bound-by (Compute at or above\n"
    "      the ridge point = peak FLOP rate / peak HBM bandwidth, else HBM). Unknown numbers\n"
    "      are null. FILE may be XProf's hlo_stats JSON output. --by-source: one row per Python\n"
    "      source line (hlo_op_name holds the line), summing the ops it produced.";
const char *const kRooflineUsage =
    "  roofline FILE [--json]\n"
    "      The device's rooflines (peak FLOP rate, HBM and on-chip bandwidths, ridge points)\n"
    "      and the points of the whole profile, each step and the top 100 ops by self time.\n"
    "      FILE may be XProf's roofline_model JSON output.";

namespace {

struct Args
{
    std::string file;
    bool json = false;
    bool bySource = false;
};

// Exit code when the command should stop (help or a usage error), else nullopt.
std::optional<int> parse(int argc, char **argv, const char *command, const char *usage,
                         bool groups, Args *out)
{
    ParsedArgs args;
    std::string error;
    std::vector<OptionSpec> flags{{"help", false}, {"json", false}};
    if (groups)
        flags.push_back({"by-source", false});
    if (!parseArgs(argc, argv, 2, flags, &args, &error))
        return fail(std::string(command) + ": " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", usage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail(std::string(command) + ": expected exactly one FILE (try " + command
                        + " --help)",
                    kExitUsage);
    out->file = args.positional.front();
    out->json = args.has("json");
    out->bySource = args.has("by-source");
    return std::nullopt;
}

void optionalValue(JsonOut &j, std::string_view key, const std::optional<double> &v)
{
    if (v)
        j.value(key, *v);
    else
        j.null(key);
}

std::string cell(const std::optional<double> &v)
{
    if (!v)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", *v);
    return buf;
}

void printHloStats(const HloStats &ops, const Args &a)
{
    const bool json = a.json;
    const HloStats grouped = a.bySource ? groupHloStatsBySource(ops) : HloStats{};
    const HloStats &s = a.bySource ? grouped : ops;
    if (json) {
        JsonOut j;
        j.beginObject();
        j.value("source", s.source).value("peak_gflops_per_s", s.peakGigaFlopsPerSecond);
        j.value("peak_hbm_gbytes_per_s", s.peakHbmGigaBytesPerSecond);
        j.value("ridge_point", s.ridgePoint).value("note", s.note);
        j.value("bound_by_rule", "Compute when operational_intensity >= ridge_point, else HBM; "
                                 "Unknown without FLOPs/bytes or device peaks");
        j.beginArray("rows");
        for (const HloStatsRow &r : s.rows) {
            j.beginObject();
            j.value("rank", r.rank).value("program_id", r.programId);
            j.value("category", r.category).value("hlo_op_name", r.hloOpName);
            j.value("hlo_op_expression", r.expression).value("framework_op", r.frameworkOp);
            j.value("occurrences", r.occurrences).value("total_time_us", r.totalTimeUs);
            j.value("avg_time_us", r.avgTimeUs).value("total_self_time_us", r.totalSelfTimeUs);
            j.value("avg_self_time_us", r.avgSelfTimeUs);
            j.value("total_self_time_percent", r.selfTimePercent);
            j.value("cumulative_total_self_time_percent", r.cumulativeSelfTimePercent);
            optionalValue(j, "flops", r.flops);
            optionalValue(j, "bytes_accessed", r.bytesAccessed);
            optionalValue(j, "gflops_per_s", r.gflopsPerSecond);
            optionalValue(j, "model_gflops_per_s", r.modelGflopsPerSecond);
            optionalValue(j, "memory_bw_gib_per_s", r.memoryBwGibPerSecond);
            optionalValue(j, "hbm_bw_gib_per_s", r.hbmBwGibPerSecond);
            optionalValue(j, "cmem_read_bw_gib_per_s", r.cmemReadBwGibPerSecond);
            optionalValue(j, "cmem_write_bw_gib_per_s", r.cmemWriteBwGibPerSecond);
            optionalValue(j, "operational_intensity", r.operationalIntensity);
            j.value("bound_by", r.boundBy).value("rematerialization", r.rematerialization);
            j.value("outside_compilation", r.outsideCompilation).value("autotuned", r.autotuned);
            j.value("source_info", r.sourceInfo).value("cost_estimated", r.costEstimated);
            j.endObject();
        }
        j.endArray();
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return;
    }
    std::printf("Peak %.1f GFLOP/s, %.1f GB/s HBM, ridge point %.2f FLOP/B  (%s)\n",
                s.peakGigaFlopsPerSecond, s.peakHbmGigaBytesPerSecond, s.ridgePoint,
                s.source.c_str());
    if (!s.note.empty())
        std::printf("Note: %s\n", s.note.c_str());
    std::printf("%5s %-20s %-40s %8s %12s %12s %7s %10s %10s %8s\n", "Rank", "Category",
                "HLO op", "Count", "Total us", "Self us", "Self%", "GFLOP/s", "FLOP/B",
                "Bound");
    for (const HloStatsRow &r : s.rows)
        std::printf("%5d %-20s %-40s %8lld %12.2f %12.2f %7.2f %10s %10s %8s\n", r.rank,
                    clip(r.category, 20).c_str(), clip(r.hloOpName, 40).c_str(),
                    (long long)r.occurrences, r.totalTimeUs, r.totalSelfTimeUs,
                    r.selfTimePercent, cell(r.gflopsPerSecond).c_str(),
                    cell(r.operationalIntensity).c_str(), r.boundBy.c_str());
}

void printRoofline(const RooflineModel &m, const Args &a)
{
    const bool json = a.json;
    static const char *const kKinds[] = {"total", "step", "op"};
    if (json) {
        JsonOut j;
        j.beginObject();
        j.value("source", m.source).value("device_type", m.deviceType);
        j.value("peak_gflops_per_s", m.peakGigaFlopsPerSecond).value("note", m.note);
        j.beginArray("rooflines");
        for (const Roofline &r : m.rooflines) {
            j.beginObject();
            j.value("memory", r.memory).value("peak_gbytes_per_s", r.peakGigaBytesPerSecond);
            j.value("ridge_point", r.ridgePoint);
            j.endObject();
        }
        j.endArray();
        j.beginArray("points");
        for (const RooflinePoint &p : m.points) {
            j.beginObject();
            j.value("kind", kKinds[int(p.kind)]).value("step", p.step);
            j.value("category", p.category).value("hlo_op_name", p.name);
            j.value("occurrences", p.occurrences).value("total_time_us", p.totalTimeUs);
            j.value("total_self_time_us", p.totalSelfTimeUs);
            j.value("total_self_time_percent", p.selfTimePercent);
            optionalValue(j, "flops", p.flops);
            optionalValue(j, "bytes_accessed", p.bytesAccessed);
            optionalValue(j, "gflops_per_s", p.gflopsPerSecond);
            optionalValue(j, "hbm_bw_gib_per_s", p.hbmBwGibPerSecond);
            optionalValue(j, "operational_intensity", p.operationalIntensity);
            j.value("bound_by", p.boundBy);
            j.endObject();
        }
        j.endArray();
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return;
    }
    std::printf("Device: %s  peak %.1f GFLOP/s  (%s)\n", m.deviceType.c_str(),
                m.peakGigaFlopsPerSecond, m.source.c_str());
    for (const Roofline &r : m.rooflines)
        std::printf("  %-11s %10.1f GB/s  ridge point %8.2f FLOP/B\n", r.memory.c_str(),
                    r.peakGigaBytesPerSecond, r.ridgePoint);
    if (!m.note.empty())
        std::printf("Note: %s\n", m.note.c_str());
    std::printf("%-6s %-10s %-40s %12s %10s %10s %8s\n", "Kind", "Step", "Name", "Self us",
                "GFLOP/s", "FLOP/B", "Bound");
    for (const RooflinePoint &p : m.points)
        std::printf("%-6s %-10s %-40s %12.2f %10s %10s %8s\n", kKinds[int(p.kind)],
                    clip(p.step, 10).c_str(), clip(p.name, 40).c_str(), p.totalSelfTimeUs,
                    cell(p.gflopsPerSecond).c_str(), cell(p.operationalIntensity).c_str(),
                    p.boundBy.c_str());
}

} // namespace

namespace {

// One tool's command: XProf's own recorded file as it stands, else computed from the profile (a
// legacy run folder's recorded results seed the cache first).
template<typename Tool>
int runTool(int argc, char **argv, const char *command, const char *usage,
            bool (*isRecordedFile)(const std::string &),
            core::Result<Tool> (*readRecorded)(const std::string &),
            std::shared_ptr<const Tool> (*compute)(AnalysisCache &),
            void (*print)(const Tool &, const Args &), bool groups = false)
{
    Args a;
    if (auto rc = parse(argc, argv, command, usage, groups, &a))
        return *rc;
    if (isRecordedFile(a.file)) {
        auto recorded = readRecorded(a.file);
        if (!recorded)
            return fail(recorded.message());
        print(recorded.value(), a);
        return kExitOk;
    }
    auto trace = core::loadTrace(a.file);
    if (!trace)
        return fail(trace.message());
    AnalysisCache cache(trace.value());
    if (auto seeded = core::legacy::seedFromLegacyRun(cache); !seeded)
        return fail(seeded.message());
    print(*compute(cache), a);
    return kExitOk;
}

} // namespace

int runHloStats(int argc, char **argv)
{
    return runTool<HloStats>(argc, argv, "hlo-stats", kHloStatsUsage,
                             &core::legacy::isHloStatsFileName,
                             &core::legacy::readHloStatsJsonFile, &hloStats, &printHloStats,
                             true);
}

int runRoofline(int argc, char **argv)
{
    return runTool<RooflineModel>(argc, argv, "roofline", kRooflineUsage,
                                  &core::legacy::isRooflineFileName,
                                  &core::legacy::readRooflineJsonFile, &rooflineModel,
                                  &printRoofline);
}

} // namespace tracedesk::cli
