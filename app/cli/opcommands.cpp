// op-profile, op-stats and kernel-stats: the op-level analyses of one profile, as a text table or
// JSON.

#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchcommands.h"
#include "textcells.h"

#include "core/analysis/frameworkopstats.h"
#include "core/analysis/opmetrics.h"
#include "core/analysis/opprofile.h"
#include "core/io/traceloader.h"
#include "core/legacy/legacytools.h"
#include "core/model/timeformat.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

namespace tracedesk::cli {

using namespace core::analysis;

const char *const kOpProfileUsage =
    "  op-profile FILE [--json] [--by program|category|provenance] [--no-idle] [--top N]\n"
    "      Device op profile: ops grouped by program and category with time, self time,\n"
    "      FLOPS and HBM bandwidth utilisation.";
const char *const kOpStatsUsage =
    "  op-stats FILE|DIR [--json] [--no-idle] [--group-by name|shapes|stack] [--rank N]\n"
    "           [--capture FILE]\n"
    "      Framework op stats: one row per framework op on the device and on the host.\n"
    "      PyTorch (Kineto) traces: one row per operator (default), per operator and input\n"
    "      shapes, or per operator and call stack (--group-by), with host and device self and\n"
    "      total time in us; --no-idle does not apply. --rank N: rank N of a merged run of\n"
    "      rank traces (a folder of them; default the first rank), also for overview,\n"
    "      kernel-stats and memory-profile. --capture FILE: the trace of the CUDA / HIP graph\n"
    "      capture whose replay FILE is: replayed kernels are also attributed to the\n"
    "      operators that recorded them (also for kernel-stats).";
const char *const kKernelStatsUsage =
    "  kernel-stats FILE|DIR [--json] [--rank N] [--capture FILE]\n"
    "      GPU kernel stats per kernel, launch configuration and op. PyTorch (Kineto) traces\n"
    "      add the duration-weighted mean blocks per SM and est. achieved occupancy, each\n"
    "      kernel's family and Tensor / Matrix Core use, and by which rule its operator was\n"
    "      found.\n"
    "      op-profile, op-stats and kernel-stats accept --timings: print each analysis's\n"
    "      wall time to stderr.";

namespace {

// Each analysis twice more on its own, timed: the first run also pays for paging in the store's
// columns (a cached store is mapped lazily), the second is the warm cost. Results are discarded.
void printTimings(const core::Trace &trace)
{
    auto time = [](const char *what, const auto &work) {
        double ms[2];
        for (double &m : ms) {
            const auto start = std::chrono::steady_clock::now();
            work();
            m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
        }
        std::fprintf(stderr, "%-28s %10.1f ms first %10.1f ms warm\n", what, ms[0], ms[1]);
    };
    std::fprintf(stderr, "%llu events\n", (unsigned long long)trace.eventCount());
    OpStats stats;
    time("host op metrics", [&] { stats.host = hostOpMetrics(trace); });
    time("device op metrics", [&] { stats.device = deviceOpMetrics(trace); });
    time("kernel stats", [&] { stats.kernelStats = kernelStats(trace); });
    time("perf env + run environment", [&] {
        stats.perfEnv = perfEnv(trace);
        stats.runEnvironment = runEnvironment(trace);
    });
    time("op profile (by program)", [&] { buildOpProfile(stats.device, stats.perfEnv, {}); });
    time("framework op stats", [&] { frameworkOpStats(stats); });
}

struct Loaded
{
    core::TracePtr trace;
    ParsedArgs args;
};

// Parses the options and loads FILE; returns an exit code when the command should stop.
int prepare(int argc, char **argv, const char *command, const char *usage,
            std::vector<OptionSpec> specs, Loaded *out, bool *stop)
{
    *stop = true;
    specs.push_back({"help", false});
    specs.push_back({"json", false});
    specs.push_back({"timings", false});
    std::string error;
    if (!parseArgs(argc, argv, 2, specs, &out->args, &error))
        return fail(std::string(command) + ": " + error, kExitUsage);
    if (out->args.has("help")) {
        std::printf("Usage:\n%s\n", usage);
        return kExitOk;
    }
    if (out->args.positional.size() != 1)
        return fail(std::string(command) + ": expected exactly one FILE (try " + command
                        + " --help)",
                    kExitUsage);
    auto trace = core::loadTrace(out->args.positional.front());
    if (!trace)
        return fail(trace.message());
    out->trace = trace.value();
    *stop = false;
    if (out->args.has("timings"))
        printTimings(*out->trace);
    return kExitOk;
}

std::string percent(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
    return buf;
}

void profileJson(JsonOut &j, const OpProfileNode &n, std::string_view key = {})
{
    static const char *const kTypes[] = {"root", "program", "category", "provenance",
                                         "duplicates", "op", "fusion_child"};
    j.beginObject(key);
    j.value("name", n.name).value("type", kTypes[int(n.type)]);
    if (n.type == OpProfileNode::Type::Op || n.type == OpProfileNode::Type::FusionChild) {
        j.value("category", n.category).value("expression", n.expression);
        j.value("provenance", n.provenance).value("program_id", n.programId);
    }
    const OpProfileMetrics &m = n.metrics;
    j.value("time_ps", m.timePs).value("self_time_ps", m.selfTimePs);
    j.value("occurrences", m.occurrences).value("time_fraction", m.timeFraction);
    j.value("flops", m.flops).value("bytes_accessed", m.bytesAccessed);
    j.value("flops_utilization", m.flopsUtilization).value("hbm_utilization", m.hbmUtilization);
    j.value("wasted_fraction", m.wastedFraction).value("num_children", n.numChildren);
    j.beginArray("children");
    for (const OpProfileNode &c : n.children)
        profileJson(j, c);
    j.endArray();
    j.endObject();
}

void profileText(const OpProfileNode &n, int depth)
{
    if (depth > 0) {
        const OpProfileMetrics &m = n.metrics;
        const std::string name = std::string(size_t(2 * (depth - 1)), ' ') + n.name;
        std::printf("%-60s %7s %12s %12s %10lld %7s %7s\n", clip(name, 60).c_str(),
                    percent(m.timeFraction).c_str(), core::formatDuration(m.timePs).c_str(),
                    core::formatDuration(m.selfTimePs).c_str(), (long long)m.occurrences,
                    percent(m.flopsUtilization).c_str(), percent(m.hbmUtilization).c_str());
    }
    for (const OpProfileNode &c : n.children)
        profileText(c, depth + 1);
}

} // namespace

int runOpProfile(int argc, char **argv)
{
    Loaded in;
    bool stop = false;
    const int rc = prepare(argc, argv, "op-profile", kOpProfileUsage,
                           {{"by", true}, {"no-idle", false}, {"top", true}}, &in, &stop);
    if (stop)
        return rc;
    OpProfileOptions options;
    const std::string by = in.args.value("by", "program");
    if (by == "category")
        options.grouping = OpProfileGrouping::ByCategory;
    else if (by == "provenance")
        options.grouping = OpProfileGrouping::ByProvenance;
    else if (by != "program")
        return fail("op-profile: --by takes program, category or provenance", kExitUsage);
    options.includeIdle = !in.args.has("no-idle");
    if (in.args.has("top")) {
        unsigned long long top = 0;
        if (!parseCount(in.args.value("top"), &top) || top == 0)
            return fail("op-profile: --top takes a positive count", kExitUsage);
        options.maxChildren = int(std::min<unsigned long long>(top, 1u << 30));
    }
    AnalysisCache cache(in.trace);
    if (auto seeded = core::legacy::seedFromLegacyRun(cache); !seeded)
        return fail(seeded.message(), kExitError);
    // A legacy run's recorded tree is shown as it was written (its own grouping).
    const auto recorded = core::legacy::seededOpProfile(cache);
    const OpProfile profile = recorded ? *recorded : buildOpProfile(cache, options);
    if (in.args.has("json")) {
        JsonOut j;
        j.beginObject();
        j.value("device_type", profile.deviceType);
        j.value("peak_gflops_per_second", profile.peakGigaFlopsPerSecond);
        j.value("peak_hbm_gigabytes_per_second", profile.peakHbmGigaBytesPerSecond);
        profileJson(j, profile.root, "root");
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    std::printf("Device: %s  peak %.1f GFLOP/s, %.1f GB/s HBM  total %s\n",
                profile.deviceType.c_str(), profile.peakGigaFlopsPerSecond,
                profile.peakHbmGigaBytesPerSecond,
                core::formatDuration(profile.root.metrics.timePs).c_str());
    std::printf("%-60s %7s %12s %12s %10s %7s %7s\n", "Op", "Time%", "Time", "Self", "Count",
                "FLOPS", "HBM");
    profileText(profile.root, 0);
    return kExitOk;
}

int runOpStats(int argc, char **argv)
{
    Loaded in;
    bool stop = false;
    const int rc = prepare(argc, argv, "op-stats", kOpStatsUsage,
                           {{"no-idle", false},
                            {"group-by", true},
                            {"rank", true},
                            {"capture", true}},
                           &in,
                           &stop);
    if (stop)
        return rc;
    AnalysisCache cache(in.trace);
    const std::string groupBy = in.args.value("group-by", "name");
    if (groupBy != "name" && groupBy != "shapes" && groupBy != "stack")
        return fail("op-stats: --group-by takes name, shapes or stack", kExitUsage);
    if (isPyTorchTrace(*in.trace)) {
        int code = kExitOk;
        const auto ranked = pytorchRankAnalyses(std::make_shared<AnalysisCache>(in.trace),
                                                "op-stats", rankOption(in.args),
                                                in.args.has("json"), &code);
        if (!ranked || !attachGraphCapture(ranked, captureOption(in.args), "op-stats", &code))
            return code;
        return printPyTorchOpStats(*ranked, groupBy, in.args.has("json"));
    }
    if (in.args.has("rank"))
        return fail("op-stats: --rank applies to PyTorch (Kineto) traces only", kExitUsage);
    if (in.args.has("group-by"))
        return fail("op-stats: --group-by applies to PyTorch (Kineto) traces only", kExitUsage);
    if (auto seeded = core::legacy::seedFromLegacyRun(cache); !seeded)
        return fail(seeded.message(), kExitError);
    const auto stats = frameworkOpStats(cache);
    const FrameworkOpStatsTable &table =
        in.args.has("no-idle") ? stats->withoutIdle : stats->withIdle;
    if (in.args.has("json")) {
        JsonOut j;
        j.beginObject();
        j.value("device_type", stats->deviceType);
        j.beginArray("rows");
        for (const FrameworkOpStatsRow &r : table.rows) {
            j.beginObject();
            j.value("rank", r.rank).value("host_or_device", r.onDevice ? "Device" : "Host");
            j.value("op_type", r.type).value("op_name", r.name);
            j.value("occurrences", r.occurrences).value("total_time_us", r.totalTimeUs);
            j.value("avg_time_us", r.avgTimeUs).value("total_self_time_us", r.totalSelfTimeUs);
            j.value("avg_self_time_us", r.avgSelfTimeUs);
            j.value("self_time_fraction", r.selfTimeFraction);
            j.value("cumulative_self_time_fraction", r.cumulativeSelfTimeFraction);
            j.value("is_eager", r.isEager).value("gflops_per_second", r.gflopsPerSecond);
            j.endObject();
        }
        j.endArray();
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    std::printf("%4s %-6s %-20s %-50s %9s %12s %12s %7s %7s\n", "Rank", "Side", "Type", "Op",
                "Count", "Total us", "Self us", "Self%", "Cum%");
    for (const FrameworkOpStatsRow &r : table.rows) {
        std::printf("%4d %-6s %-20s %-50s %9lld %12.1f %12.1f %7s %7s\n", r.rank,
                    r.onDevice ? "Device" : "Host", clip(r.type, 20).c_str(),
                    clip(r.name, 50).c_str(), (long long)r.occurrences, r.totalTimeUs,
                    r.totalSelfTimeUs, percent(r.selfTimeFraction).c_str(),
                    percent(r.cumulativeSelfTimeFraction).c_str());
    }
    return kExitOk;
}

int runKernelStats(int argc, char **argv)
{
    Loaded in;
    bool stop = false;
    const int rc =
        prepare(argc, argv, "kernel-stats", kKernelStatsUsage, {{"rank", true}, {"capture", true}},
                &in, &stop);
    if (stop)
        return rc;
    AnalysisCache cache(in.trace);
    if (core::analysis::readsGpuWorkByRole(*in.trace)) {
        int code = kExitOk;
        const auto ranked = pytorchRankAnalyses(std::make_shared<AnalysisCache>(in.trace),
                                                "kernel-stats", rankOption(in.args),
                                                in.args.has("json"), &code);
        if (!ranked || !attachGraphCapture(ranked, captureOption(in.args), "kernel-stats", &code))
            return code;
        return printPyTorchKernelStats(*ranked, in.args.has("json"));
    }
    if (in.args.has("rank"))
        return fail("kernel-stats: --rank applies to PyTorch (Kineto) traces only", kExitUsage);
    const KernelStatsDb &db = opStats(cache)->kernelStats;
    if (in.args.has("json")) {
        JsonOut j;
        j.beginObject();
        j.beginArray("reports");
        for (const KernelReport &r : db.reports) {
            j.beginObject();
            j.value("name", r.name).value("op_name", r.opName);
            j.value("registers_per_thread", int64_t(r.registersPerThread));
            j.value("static_shmem_bytes", int64_t(r.staticShmemBytes));
            j.value("dynamic_shmem_bytes", int64_t(r.dynamicShmemBytes));
            j.beginArray("block_dim");
            for (uint32_t d : r.blockDim)
                j.value({}, int64_t(d));
            j.endArray().beginArray("grid_dim");
            for (uint32_t d : r.gridDim)
                j.value({}, int64_t(d));
            j.endArray();
            j.value("is_kernel_using_tensor_core", r.isKernelUsingTensorCore);
            j.value("is_op_tensor_core_eligible", r.isOpTensorCoreEligible);
            j.value("occurrences", r.occurrences);
            j.value("total_duration_ns", double(r.totalDurationPs) / 1e3);
            j.value("min_duration_ns", double(r.minDurationPs) / 1e3);
            j.value("max_duration_ns", double(r.maxDurationPs) / 1e3);
            j.value("occupancy_pct", double(r.occupancyPct));
            j.endObject();
        }
        j.endArray();
        j.value("rows_before_cap", int64_t(std::max(db.distinctRows, db.reports.size())));
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    if (db.reports.empty()) {
        std::printf("No GPU kernels in this profile.\n");
        return kExitOk;
    }
    if (db.distinctRows > db.reports.size()) {
        std::printf("Top %zu of %zu kernel rows by total time (XProf keeps the top 1000).\n",
                    db.reports.size(), db.distinctRows);
    }
    std::printf("%-50s %-40s %5s %14s %14s %9s %12s %12s\n", "Kernel", "Op", "Regs", "Block",
                "Grid", "Count", "Total", "Avg");
    for (const KernelReport &r : db.reports) {
        char block[40], grid[40];
        std::snprintf(block, sizeof block, "%u,%u,%u", r.blockDim[0], r.blockDim[1],
                      r.blockDim[2]);
        std::snprintf(grid, sizeof grid, "%u,%u,%u", r.gridDim[0], r.gridDim[1], r.gridDim[2]);
        std::printf("%-50s %-40s %5u %14s %14s %9lld %12s %12s\n", clip(r.name, 50).c_str(),
                    clip(r.opName, 40).c_str(), r.registersPerThread, block, grid,
                    (long long)r.occurrences, core::formatDuration(r.totalDurationPs).c_str(),
                    core::formatDuration(r.occurrences ? r.totalDurationPs / r.occurrences : 0)
                        .c_str());
    }
    return kExitOk;
}

} // namespace tracedesk::cli
