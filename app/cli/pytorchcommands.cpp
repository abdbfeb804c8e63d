// The PyTorch (Kineto) reports of overview, op-stats, kernel-stats and memory-profile.
//
// Units in JSON: step and breakdown times in ms, operator times in µs, kernel durations in ns
// (as the XSpace kernel-stats report has them), memory in bytes with peak times in ms from the
// trace origin, GPU metrics in percent. A value the trace cannot give is null (a GPU metric
// without a step window, a memory peak when the records carry no allocator totals).

#include "pytorchcommands.h"
#include "jsonout.h"
#include "options.h"
#include "textcells.h"

#include "core/analysis/framework.h"
#include "core/analysis/pytorch/graphcapture.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/model/timeformat.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <numeric>
#include <optional>

namespace tracedesk::cli {

using namespace core::analysis;
using namespace core::analysis::pytorch;

namespace {

constexpr double kPsPerMs = 1e9;

void optionalPercent(JsonOut &j, std::string_view key, std::optional<double> percent)
{
    if (percent)
        j.value(key, *percent);
    else
        j.null(key);
}


void overviewJson(const PyTorchOverview &o, const PyTorchSteps &steps,
                  const std::string &framework)
{
    JsonOut j;
    j.beginObject().value("framework", framework)
        .value("device_type", o.deviceType == PyTorchDeviceType::Gpu ? "GPU" : "CPU")
        .value("step_count", int64_t(o.steps.size()))
        .value("steps_from", stepsSourceName(steps));
    if (steps.fromNumberedRanges)
        j.value("step_word", steps.numberedWord);
    j.beginArray("steps");
    for (const StepBreakdown &s : o.steps) {
        j.beginObject().value("step_name", s.name)
            .value("step_time_ms", double(s.total()) / kPsPerMs);
        for (int c = 0; c < kBreakdownCategoryCount; ++c) {
            if (BreakdownCategory(c) == BreakdownCategory::Communication && !o.hasCommunication)
                continue;
            j.value(std::string(breakdownCategoryKey(BreakdownCategory(c))) + "_ms", double(s.cost[size_t(c)]) / kPsPerMs);
        }
        if (o.hasCommunication)
            j.value("communication_total_ms", double(s.communicationTotal) / kPsPerMs)
                .value("communication_overlapped_ms",
                       double(s.communicationOverlapped) / kPsPerMs);
        j.endObject();
    }
    j.endArray();
    j.value("average_step_time_ms", o.average.total / kPsPerMs);
    j.beginObject("average_breakdown_ms");
    for (int c = 0; c < kBreakdownCategoryCount; ++c)
        j.value(breakdownCategoryKey(BreakdownCategory(c)), o.average.cost[size_t(c)] / kPsPerMs);
    j.endObject();
    j.beginArray("gpu_metrics");
    for (const PyTorchGpuMetrics &g : o.gpus)
        gpuMetricsJson(j, g);
    j.endArray().beginArray("recommendations");
    for (const PyTorchRecommendation &r : o.recommendations)
        j.value({}, r.text);
    j.endArray().beginArray("iterations");
    for (const ServingIteration &it : o.iterations) {
        j.beginObject().value("name", it.name);
        if (it.kind == IterationKind::Unknown)
            j.null("kind");
        else
            j.value("kind", iterationKindName(it.kind));
        j.value("latency_ms", it.latencyMs);
        if (it.batchSize < 0)
            j.null("batch_size");
        else
            j.value("batch_size", it.batchSize);
        if (it.tokens < 0)
            j.null("tokens");
        else
            j.value("tokens", it.tokens);
        j.endObject();
    }
    j.endArray().beginObject("iteration_latency_ms");
    for (const auto &[kind, p] : o.iterationLatency)
        j.beginObject(kind).value("p50", p.p50).value("p90", p.p90).value("p99", p.p99).endObject();
    j.endObject().endObject();
    std::printf("%s\n", j.text().c_str());
}

void overviewText(const PyTorchOverview &o, const PyTorchSteps &steps,
                  const std::string &framework)
{
    std::printf("Framework:           %s\n", framework.c_str());
    std::printf("Device type:         %s\n",
                o.deviceType == PyTorchDeviceType::Gpu ? "GPU" : "CPU");
    std::printf("Steps:               %zu (from %s%s)\n", o.steps.size(), stepsSourceName(steps),
                steps.fromNumberedRanges ? (": \"" + steps.numberedWord + " N\" ranges").c_str()
                                         : "");
    std::printf("Average step time:   %.3f ms\n", o.average.total / kPsPerMs);
    if (!o.steps.empty()) {
        std::vector<BreakdownCategory> shown;
        for (int c = 0; c < kBreakdownCategoryCount; ++c) {
            if (o.categoryPresent(BreakdownCategory(c)))
                shown.push_back(BreakdownCategory(c));
        }
        std::printf("Step time breakdown (ms):\n  %-10s %12s", "Step", "Total");
        for (BreakdownCategory c : shown)
            std::printf(" %12s", breakdownCategoryName(c));
        std::printf("\n");
        for (const StepBreakdown &s : o.steps) {
            std::printf("  %-10s %12.3f", clip(s.name, 10).c_str(), double(s.total()) / kPsPerMs);
            for (BreakdownCategory c : shown)
                std::printf(" %12.3f", double(s[c]) / kPsPerMs);
            std::printf("\n");
        }
        std::printf("  %-10s %12.3f", "Average", o.average.total / kPsPerMs);
        for (BreakdownCategory c : shown)
            std::printf(" %12.3f", o.average[c] / kPsPerMs);
        std::printf("\n");
    }
    if (!o.gpus.empty()) {
        std::printf("GPU summary:\n  %-4s %-32s %9s %5s %12s %12s %12s %12s\n", "GPU", "Name",
                    "Memory", "CC", "Utilization", "SM eff.", "Occupancy", "Tensor cores");
        for (const PyTorchGpuMetrics &g : o.gpus) {
            char memory[32] = "-";
            if (g.memoryBytes != 0)
                std::snprintf(memory, sizeof memory, "%.2f GB", g.memoryGb);
            std::printf("  %-4lld %-32s %9s %5s %12s %12s %12s %12s\n", (long long)g.device,
                        clip(g.name.empty() ? "-" : g.name, 32).c_str(), memory,
                        g.computeCapability.empty() ? "-" : g.computeCapability.c_str(),
                        percentText(times100(g.utilization)).c_str(),
                        percentText(times100(g.smEfficiency)).c_str(),
                        percentText(g.achievedOccupancy).c_str(),
                        percentText(times100(g.tensorCoreRatio)).c_str());
        }
    }
    if (!o.steps.empty() && o.hasCommunication)
        std::printf("Communication: %.3f ms per step in communication kernels, %.3f ms of it "
                    "overlapped by other GPU work, %.3f ms exposed (the breakdown's "
                    "Communication)\n",
                    o.average.communicationTotal / kPsPerMs,
                    o.average.communicationOverlapped / kPsPerMs,
                    o.average[BreakdownCategory::Communication] / kPsPerMs);
    if (!o.iterations.empty()) {
        std::printf("Serving iterations:  %zu (the steps above)\n", o.iterations.size());
        for (const auto &[kind, p] : o.iterationLatency)
            std::printf("  %-8s %6lld iterations, latency p50 %.3f ms, p90 %.3f ms, p99 %.3f ms\n",
                        kind.c_str(), (long long)p.count, p.p50, p.p90, p.p99);
    }
    std::printf("Recommendations:%s\n", o.recommendations.empty() ? " none" : "");
    for (const PyTorchRecommendation &r : o.recommendations)
        std::printf("  - %s\n", r.text.c_str());
}

// One kernel-stats report, from either grouping of the kernel view.
struct KernelReportRow
{
    const std::string *name = nullptr;
    const std::string *opName = nullptr;
    int64_t grid[3] = {0, 0, 0};
    int64_t block[3] = {0, 0, 0};
    int64_t registers = 0;
    int64_t sharedMemory = 0;
    bool tensorCores = false;
    bool opEligible = false;
    core::analysis::KernelFamily family = core::analysis::KernelFamily::Other;
    const KernelTimes *times = nullptr;
};

// By properties when that grouping holds every kernel (the ones the operator tree reaches),
// else by name, which counts every kernel once but knows no launch configuration.
std::vector<KernelReportRow> kernelReports(const KernelView &view, bool *byProperties)
{
    const int64_t inProperties =
        std::accumulate(view.byProperties.begin(), view.byProperties.end(), int64_t(0),
                        [](int64_t n, const KernelPropertiesRow &r) { return n + r.times.calls; });
    *byProperties = inProperties == view.kernelCount;
    std::vector<KernelReportRow> rows;
    if (*byProperties) {
        for (const KernelPropertiesRow &r : view.byProperties) {
            KernelReportRow k;
            k.name = &r.name;
            k.opName = &r.operatorName;
            std::copy(std::begin(r.grid), std::end(r.grid), k.grid);
            std::copy(std::begin(r.block), std::end(r.block), k.block);
            k.registers = r.registersPerThread;
            k.sharedMemory = r.sharedMemoryBytes;
            k.tensorCores = r.tensorCoresUsed;
            k.family = r.family;
            k.opEligible = r.operatorTensorCoreEligible;
            k.times = &r.times;
            rows.push_back(k);
        }
        return rows;
    }
    for (const KernelNameRow &r : view.byName) {
        KernelReportRow k;
        k.name = &r.name;
        k.opName = &r.operatorName;
        k.tensorCores = r.tensorCoresUsed;
        k.family = r.family;
        k.opEligible = isTensorCoreEligibleOpName(r.operatorName);
        k.times = &r.times;
        rows.push_back(k);
    }
    return rows;
}

const char *groupingLabel(OperatorGrouping g)
{
    switch (g) {
    case OperatorGrouping::Name: return "name";
    case OperatorGrouping::NameInputShapes: return "name and input shapes";
    case OperatorGrouping::NameCallStack: return "name and call stack";
    case OperatorGrouping::NameInputShapesCallStack: return "name, input shapes and call stack";
    }
    return "";
}

} // namespace

void gpuMetricsJson(JsonOut &j, const PyTorchGpuMetrics &g, std::string_view key)
{
    j.beginObject(key).value("device", g.device);
    if (g.name.empty())
        j.null("name");
    else
        j.value("name", g.name);
    if (g.memoryBytes == 0)
        j.null("memory_gb");
    else
        j.value("memory_gb", g.memoryGb);
    if (g.computeCapability.empty())
        j.null("compute_capability");
    else
        j.value("compute_capability", g.computeCapability);
    optionalPercent(j, "gpu_utilization_percent", times100(g.utilization));
    optionalPercent(j, "est_sm_efficiency_percent", times100(g.smEfficiency));
    optionalPercent(j, "est_achieved_occupancy_percent", g.achievedOccupancy);
    optionalPercent(j, "tensor_core_kernel_time_percent", times100(g.tensorCoreRatio));
    j.endObject();
}

int printPyTorchOverview(AnalysisCache &cache, bool json)
{
    const auto overview = pytorchOverview(cache);
    const std::string framework = frameworkOf(cache.trace());
    if (json)
        overviewJson(*overview, *pytorchSteps(cache), framework);
    else
        overviewText(*overview, *pytorchSteps(cache), framework);
    return kExitOk;
}

int printPyTorchOpStats(AnalysisCache &cache, const std::string &groupBy, bool json)
{
    const OperatorGrouping grouping = groupBy == "shapes" ? OperatorGrouping::NameInputShapes
                                      : groupBy == "stack" ? OperatorGrouping::NameCallStack
                                                           : OperatorGrouping::Name;
    const bool shapes = grouping == OperatorGrouping::NameInputShapes;
    const bool stack = grouping == OperatorGrouping::NameCallStack;
    const auto stats = operatorStats(cache);
    const std::vector<OperatorRow> &rows = stats->rows(grouping);
    if (json) {
        JsonOut j;
        j.beginObject().value("framework", "pytorch").value("group_by", groupBy);
        j.beginObject("device_time_by_rule_us");
        for (int rule = 0; rule < kLaunchRuleCount; ++rule)
            j.value(launchRuleName(LaunchRule(rule)), stats->deviceUsByRule[size_t(rule)]);
        j.value("no recorded launch", stats->deviceUsWithoutLaunch);
        j.endObject();
        j.beginArray("rows");
        for (const OperatorRow &r : rows) {
            j.beginObject().value("op_name", r.opName);
            if (shapes)
                j.value("input_shapes", r.inputShapes);
            if (stack)
                j.value("call_stack", r.callStack);
            j.value("is_annotation", r.annotation);
            j.value("occurrences", r.calls)
                .value("host_self_time_us", r.hostSelfUs)
                .value("host_total_time_us", r.hostTotalUs)
                .value("device_self_time_us", r.deviceSelfUs)
                .value("device_total_time_us", r.deviceTotalUs)
                .value("is_op_tensor_core_eligible", r.tensorCoreEligible)
                .value("tensor_core_self_percent", r.tensorCoreSelfPercent)
                .value("tensor_core_total_percent", r.tensorCoreTotalPercent)
                .endObject();
        }
        j.endArray();
        if (stats->hasGraphCapture) {
            j.beginArray("captured_operators");
            for (const CapturedOperatorRow &r : stats->captured)
                j.beginObject()
                    .value("op_name", r.opName)
                    .value("replayed_kernels", r.activities)
                    .value("device_time_us", r.deviceUs)
                    .endObject();
            j.endArray();
        }
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    if (rows.empty()) {
        std::printf("No PyTorch operators in this profile%s.\n",
                    stack ? " with a call stack (record with with_stack=True)" : "");
        return kExitOk;
    }
    std::printf("PyTorch operators grouped by %s (times in us):\n", groupingLabel(grouping));
    std::printf("Device time attached by rule:");
    for (int rule = 0; rule < kLaunchRuleCount; ++rule)
        std::printf(" %s %.3f;", launchRuleName(LaunchRule(rule)),
                    stats->deviceUsByRule[size_t(rule)]);
    std::printf(" no recorded launch %.3f\n", stats->deviceUsWithoutLaunch);
    std::printf("%-50s %9s %14s %14s %14s %14s %3s", "Op", "Calls", "Host self", "Host total",
                "Device self", "Device total", "TC");
    std::printf("%s\n", shapes ? "  Input shapes" : stack ? "  Call stack" : "");
    for (const OperatorRow &r : rows) {
        std::printf("%-50s %9lld %14.3f %14.3f %14.3f %14.3f %3s", clip(r.opName, 50).c_str(),
                    (long long)r.calls, r.hostSelfUs, r.hostTotalUs, r.deviceSelfUs,
                    r.deviceTotalUs, r.tensorCoreEligible ? "yes" : "no");
        if (shapes)
            std::printf("  %s", r.inputShapes.c_str());
        if (stack)
            std::printf("  %s", clip(r.callStack, 120).c_str());
        std::printf("\n");
    }
    if (stats->hasGraphCapture) {
        std::printf("\nOperators that recorded the replayed graphs (at capture):\n%-50s %9s %14s\n",
                    "Op", "Kernels", "Device time");
        for (const CapturedOperatorRow &r : stats->captured)
            std::printf("%-50s %9lld %14.3f\n", clip(r.opName, 50).c_str(),
                        (long long)r.activities, r.deviceUs);
    }
    return kExitOk;
}

// The graph-capture part of the kernel report: replayed kernels by the operator that recorded
// them at capture.
void printCapturedKernels(const KernelView &view, const GraphCaptureAttribution &capture)
{
    std::printf("\nGraph replay (capture trace %s): %u of %u graph launches matched to %u "
                "capture windows; %llu replayed kernels, %.3f ms, attributed to the operators "
                "that recorded them.\n",
                capture.label.c_str(), capture.matchedLaunches, capture.graphLaunches,
                capture.captureWindows, (unsigned long long)capture.matchedActivities,
                double(capture.matchedTime) / 1e9);
    for (uint32_t size : capture.unmatchedLaunchSizes)
        std::printf("  unmatched: a graph launch of %u kernels (no capture window has as many "
                    "launches)\n",
                    size);
    std::printf("%-50s %-40s %9s %12s\n", "Kernel", "Captured by", "Count", "Total");
    for (const KernelNameRow &r : view.byNameOperator) {
        if (r.captureOperator.empty())
            continue;
        std::printf("%-50s %-40s %9lld %12s\n", clip(r.name, 50).c_str(),
                    clip(r.captureOperator, 40).c_str(), (long long)r.times.calls,
                    core::formatDuration(core::TimePs(r.times.totalUs * 1e6)).c_str());
    }
}

int printPyTorchKernelStats(AnalysisCache &cache, bool json)
{
    const auto view = kernelView(cache);
    const auto capture = graphCaptureAttribution(cache);
    bool byProperties = false;
    const std::vector<KernelReportRow> reports = kernelReports(*view, &byProperties);
    if (json) {
        JsonOut j;
        j.beginObject().value("framework", "pytorch")
            .value("grouping", byProperties ? "properties" : "name");
        j.beginArray("reports");
        for (const KernelReportRow &r : reports) {
            const KernelTimes &t = *r.times;
            j.beginObject().value("name", *r.name).value("op_name", *r.opName);
            j.value("registers_per_thread", r.registers);
            // Kineto records static + dynamic shared memory as one number.
            j.value("static_shmem_bytes", r.sharedMemory).value("dynamic_shmem_bytes", int64_t(0));
            j.beginArray("block_dim");
            for (int64_t d : r.block)
                j.value({}, d);
            j.endArray().beginArray("grid_dim");
            for (int64_t d : r.grid)
                j.value({}, d);
            j.endArray();
            j.value("family", kernelFamilyName(r.family));
            j.value("is_kernel_using_tensor_core", r.tensorCores);
            j.value("is_op_tensor_core_eligible", r.opEligible);
            j.value("occurrences", t.calls);
            j.value("total_duration_ns", t.totalUs * 1e3);
            j.value("min_duration_ns", t.minUs * 1e3);
            j.value("max_duration_ns", t.maxUs * 1e3);
            j.value("occupancy_pct", t.meanOccupancyPercent);
            j.value("mean_blocks_per_sm", t.meanBlocksPerSm);
            j.value("mean_est_achieved_occupancy_pct", t.meanOccupancyPercent);
            j.endObject();
        }
        j.endArray();
        if (capture->hasCapture) {
            j.beginObject("graph_capture")
                .value("file", capture->label)
                .value("capture_windows", int64_t(capture->captureWindows))
                .value("graph_launches", int64_t(capture->graphLaunches))
                .value("matched_launches", int64_t(capture->matchedLaunches))
                .value("matched_kernels", int64_t(capture->matchedActivities))
                .value("matched_time_us", double(capture->matchedTime) / 1e6);
            j.beginArray("rows");
            for (const KernelNameRow &r : view->byNameOperator) {
                if (r.captureOperator.empty())
                    continue;
                j.beginObject()
                    .value("name", r.name)
                    .value("op_name", r.operatorName)
                    .value("capture_op_name", r.captureOperator)
                    .value("occurrences", r.times.calls)
                    .value("total_duration_ns", r.times.totalUs * 1e3)
                    .endObject();
            }
            j.endArray().endObject();
        }
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    if (reports.empty()) {
        std::printf("No GPU kernels in this profile.\n");
        return kExitOk;
    }
    std::printf("%lld kernels, %.3f ms; grouped by %s\n", (long long)view->kernelCount,
                view->totalKernelUs / 1e3,
                byProperties ? "name, operator and launch configuration" : "name");
    std::printf("Tensor / Matrix Cores: %.2f %% of kernel time. Kernel time by family:",
                view->totalKernelUs > 0 ? 100.0 * view->tensorCoreKernelUs / view->totalKernelUs
                                        : 0.0);
    for (int f = 0; f < kKernelFamilyCount; ++f) {
        if (view->familyUs[size_t(f)] > 0)
            std::printf(" %s %.3f ms;", kernelFamilyName(KernelFamily(f)),
                        view->familyUs[size_t(f)] / 1e3);
    }
    std::printf("\nOperator found by:");
    for (int rule = 0; rule < kLaunchRuleCount; ++rule)
        std::printf(" %s %.3f ms;", launchRuleName(LaunchRule(rule)),
                    view->kernelUsByRule[size_t(rule)] / 1e3);
    std::printf(" no recorded launch %.3f ms\n", view->kernelUsWithoutLaunch / 1e3);
    std::printf("%-50s %-30s %5s %14s %14s %9s %12s %12s %10s %6s\n", "Kernel", "Op", "Regs",
                "Block", "Grid", "Count", "Total", "Avg", "Blocks/SM", "Occ%");
    for (const KernelReportRow &r : reports) {
        const KernelTimes &t = *r.times;
        char block[64], grid[64];
        std::snprintf(block, sizeof block, "%lld,%lld,%lld", (long long)r.block[0],
                      (long long)r.block[1], (long long)r.block[2]);
        std::snprintf(grid, sizeof grid, "%lld,%lld,%lld", (long long)r.grid[0],
                      (long long)r.grid[1], (long long)r.grid[2]);
        std::printf("%-50s %-30s %5lld %14s %14s %9lld %12s %12s %10.2f %6.1f\n",
                    clip(*r.name, 50).c_str(), clip(*r.opName, 30).c_str(),
                    (long long)r.registers, block, grid, (long long)t.calls,
                    core::formatDuration(core::TimePs(t.totalUs * 1e6)).c_str(),
                    core::formatDuration(core::TimePs(t.meanUs * 1e6)).c_str(), t.meanBlocksPerSm,
                    t.meanOccupancyPercent);
    }
    if (capture->hasCapture)
        printCapturedKernels(*view, *capture);
    return kExitOk;
}

int printPyTorchMemoryProfile(AnalysisCache &cache, bool json)
{
    const auto memory = pytorchMemory(cache);
    if (json) {
        JsonOut j;
        j.beginObject().value("framework", "pytorch").beginArray("devices");
        for (const DeviceMemory &d : memory->devices) {
            j.beginObject().value("device", d.name);
            // Records without allocator totals (PyTorch < 1.10) give no curve, so no peak.
            if (d.curve.empty()) {
                for (const char *key : {"peak_allocated_bytes", "peak_allocated_time_ms",
                                        "peak_reserved_bytes", "peak_reserved_time_ms"})
                    j.null(key);
            } else {
                j.value("peak_allocated_bytes", d.peakAllocated)
                    .value("peak_allocated_time_ms", double(d.peakAllocatedTime) / kPsPerMs)
                    .value("peak_reserved_bytes", d.peakReserved)
                    .value("peak_reserved_time_ms", double(d.peakReservedTime) / kPsPerMs);
            }
            j.value("record_count", int64_t(d.recordCount)).endObject();
        }
        j.endArray().endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    if (memory->empty()) {
        std::printf("No [memory] events in this profile (record with profile_memory=True).\n");
        return kExitOk;
    }
    auto mib = [](int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); };
    std::printf("%-8s %10s %16s %14s %16s %14s\n", "Device", "Records", "Peak allocated",
                "at (ms)", "Peak reserved", "at (ms)");
    bool anyWithoutTotals = false;
    for (const DeviceMemory &d : memory->devices) {
        if (d.curve.empty()) {
            anyWithoutTotals = true;
            std::printf("%-8s %10u %16s %14s %16s %14s\n", d.name.c_str(), d.recordCount, "-",
                        "-", "-", "-");
            continue;
        }
        std::printf("%-8s %10u %12.3f MiB %14.3f %12.3f MiB %14.3f\n", d.name.c_str(),
                    d.recordCount, mib(d.peakAllocated), double(d.peakAllocatedTime) / kPsPerMs,
                    mib(d.peakReserved), double(d.peakReservedTime) / kPsPerMs);
    }
    if (anyWithoutTotals)
        std::printf("-: the records carry no Total Allocated / Total Reserved (PyTorch < 1.10)\n");
    if (memory->skippedRecords || memory->unattributedRecords)
        std::printf("%u record(s) of other device types skipped, %u on no operator\n",
                    memory->skippedRecords, memory->unattributedRecords);
    return kExitOk;
}

} // namespace tracedesk::cli
