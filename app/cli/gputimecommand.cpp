#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchcommands.h"

#include "core/analysis/framework.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/gputime/stepwindows.h"
#include "core/io/traceloader.h"

#include <cstdio>

namespace tracedesk::cli {

const char *const kGpuTimeUsage =
    "  gpu-time FILE|DIR [--rank N] [--step N] [--json]\n"
    "      Why the GPU waits (GPU profiles), by HolisticTraceAnalysis's definitions: per\n"
    "      device the idle, compute and non-compute time; per stream the idle gaps as host\n"
    "      wait (the launch came late), kernel wait (under 30 us) or other; kernel time by\n"
    "      type (computation, communication, memory, and their overlaps); every launch's CPU\n"
    "      and GPU duration and launch delay, with the outliers (runtime > 50 us, delay >\n"
    "      100 us); launch queue length per stream. --step N: ProfilerStep#N, else\n"
    "      XProf's step N (an XSpace).";

namespace {

using namespace core::analysis::gputime;

void writeJson(const core::Trace &trace, const GpuTimeReport &r, int64_t rank)
{
    JsonOut j;
    j.beginObject()
        .value("framework", core::analysis::frameworkOf(trace))
        .value("window", r.window)
        .beginArray("temporal");
    for (const TemporalBreakdown &t : r.temporal) {
        j.beginObject()
            .value("device", t.device)
            .value("rank", rank)
            .value("total_us", t.totalUs)
            .value("idle_us", t.idleUs)
            .value("compute_us", t.computeUs)
            .value("non_compute_us", t.nonComputeUs)
            .value("idle_pct", t.idlePct())
            .value("compute_pct", t.computePct())
            .value("non_compute_pct", t.nonComputePct())
            .endObject();
    }
    j.endArray().beginArray("idle");
    for (const IdleBreakdown &i : r.idle) {
        j.beginObject()
            .value("device", i.device)
            .value("stream", i.stream)
            .value("host_wait_us", i.hostWaitUs)
            .value("kernel_wait_us", i.kernelWaitUs)
            .value("other_us", i.otherUs)
            .value("gaps", i.gaps)
            .endObject();
    }
    j.endArray().value("kernel_wait_threshold_us", kKernelWaitThresholdUs).beginArray("kernel_types");
    for (const KernelTypeTime &k : r.kernelTypes)
        j.beginObject().value("type", k.type).value("sum_us", k.sumUs).value("count", k.count).endObject();
    j.endArray().beginArray("kernel_names");
    for (const KernelNameTime &k : r.kernelNames) {
        j.beginObject()
            .value("type", k.type)
            .value("name", k.name)
            .value("count", k.count)
            .value("sum_us", k.sumUs)
            .value("max_us", k.maxUs)
            .value("min_us", k.minUs)
            .value("mean_us", k.meanUs)
            .value("std_us", k.stdUs)
            .endObject();
    }
    j.endArray()
        .value("launch_calls", r.htaLaunchCalls ? "hta" : "queueing")
        .beginArray("launches");
    for (const LaunchStat &l : r.launches) {
        j.beginObject()
            .value("correlation", l.correlation)
            .value("runtime", trace.name(l.call))
            .value("kernel", trace.name(l.activity))
            .value("device", l.device)
            .value("stream", l.stream)
            .value("start_us", l.startUs)
            .value("cpu_duration_us", l.cpuDurationUs)
            .value("gpu_duration_us", l.gpuDurationUs)
            .value("launch_delay_us", l.launchDelayUs)
            .value("runtime_outlier", l.runtimeOutlier())
            .value("launch_delay_outlier", l.delayOutlier())
            .endObject();
    }
    j.endArray().beginArray("queue_length");
    for (const QueueLength &q : r.queueLength) {
        j.beginObject()
            .value("device", q.device)
            .value("stream", q.stream)
            .value("count", q.count)
            .value("mean", q.mean)
            .value("std", q.std)
            .value("min", q.min)
            .value("p50", q.p50)
            .value("max", q.max)
            .value("blocked_us", q.blockedUs)
            .endObject();
    }
    j.endArray().beginArray("op_kernels");
    for (const OpKernelSequence &o : r.opKernels) {
        j.beginObject().value("op_name", o.op).beginArray("kernels");
        for (const std::string &k : o.kernels)
            j.value({}, k);
        j.endArray()
            .value("occurrences", o.occurrences)
            .value("op_to_launch_us", o.opToLaunchUs)
            .value("launch_to_kernel_us", o.launchToKernelUs)
            .endObject();
    }
    j.endArray().endObject();
    std::printf("%s\n", j.text().c_str());
}

void writeText(const GpuTimeReport &r)
{
    std::printf("GPU time (%s), by HolisticTraceAnalysis's definitions.\n\n", r.window.c_str());
    std::printf("Temporal breakdown:\n  %-8s %12s %8s %12s %8s %14s %8s\n", "device", "idle us",
                "idle %", "compute us", "comp %", "non-compute us", "other %");
    for (const TemporalBreakdown &t : r.temporal)
        std::printf("  %-8lld %12.1f %7.2f%% %12.1f %7.2f%% %14.1f %7.2f%%\n",
                    static_cast<long long>(t.device), t.idleUs, t.idlePct(), t.computeUs,
                    t.computePct(), t.nonComputeUs, t.nonComputePct());
    std::printf("\nIdle gaps per stream (kernel wait: gap under %.0f us after the previous "
                "activity; host wait: the launch came after the stream went idle):\n"
                "  %-8s %-8s %14s %14s %14s\n",
                kKernelWaitThresholdUs, "device", "stream", "host wait us", "kernel wait us",
                "other us");
    for (const IdleBreakdown &i : r.idle)
        std::printf("  %-8lld %-8lld %14.1f %14.1f %14.1f\n", static_cast<long long>(i.device),
                    static_cast<long long>(i.stream), i.hostWaitUs, i.kernelWaitUs, i.otherUs);
    std::printf("\nKernel time by type:\n");
    for (const KernelTypeTime &k : r.kernelTypes)
        std::printf("  %-45s %14.1f us  %lld kernels\n", k.type.c_str(), k.sumUs,
                    static_cast<long long>(k.count));
    std::printf("\nKernels by name within each type (HTA's rule: at most %zu names, those whose "
                "running total stays within the %.1f quantile of the running totals; the rest as "
                "others):\n",
                kKernelNamesKept, kKernelNameQuantile);
    for (const KernelNameTime &k : r.kernelNames)
        std::printf("  %-13s %-50.50s %8lld x %14.1f us (mean %.1f, max %.1f)\n", k.type.c_str(),
                    k.name.c_str(), static_cast<long long>(k.count), k.sumUs, k.meanUs, k.maxUs);
    size_t runtimeOutliers = 0, delayOutliers = 0;
    for (const LaunchStat &l : r.launches) {
        runtimeOutliers += l.runtimeOutlier();
        delayOutliers += l.delayOutlier();
    }
    std::printf("\nLaunches: %zu; runtime over %.0f us: %zu; launch delay over %.0f us: %zu\n",
                r.launches.size(), kRuntimeOutlierUs, runtimeOutliers, kLaunchDelayOutlierUs,
                delayOutliers);
    std::printf("  (%s)\n", r.htaLaunchCalls
                                 ? "HolisticTraceAnalysis's launch calls: cudaLaunchKernel[ExC], "
                                   "cudaMemcpyAsync, cudaMemsetAsync and their HIP twins"
                                 : "every call that queued work on a stream: this capture's launch "
                                   "calls are not all in HolisticTraceAnalysis's list");
    std::printf("\nOperators and their kernel sequences (top 10 by occurrences):\n");
    for (size_t i = 0; i < r.opKernels.size() && i < 10; ++i) {
        const OpKernelSequence &o = r.opKernels[i];
        std::printf("  %6lld x %-32s %zu kernel(s), op-to-launch %.1f us, launch-to-kernel %.1f us\n",
                    static_cast<long long>(o.occurrences), o.op.c_str(), o.kernels.size(),
                    o.opToLaunchUs, o.launchToKernelUs);
    }
    std::printf("\nLaunch queue length per stream:\n  %-8s %-8s %8s %8s %8s %6s %6s %6s %12s\n",
                "device", "stream", "points", "mean", "std", "min", "p50", "max", "blocked us");
    for (const QueueLength &q : r.queueLength)
        std::printf("  %-8lld %-8lld %8lld %8.2f %8.2f %6.0f %6.1f %6.0f %12.1f\n",
                    static_cast<long long>(q.device), static_cast<long long>(q.stream),
                    static_cast<long long>(q.count), q.mean, q.std, q.min, q.p50, q.max,
                    q.blockedUs);
}

} // namespace

int runGpuTime(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"json", false}, {"rank", true}, {"step", true},
                                           {"run", true},   {"no-cache", false}, {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("gpu-time: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kGpuTimeUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("gpu-time: expected exactly one FILE or DIR", kExitUsage);
    unsigned long long step = 0;
    if (args.has("step") && !parseCount(args.value("step"), &step))
        return fail("gpu-time: --step takes a step number, e.g. --step 6", kExitUsage);
    const bool json = args.has("json");
    auto trace = core::loadTrace(args.positional.front(), nullptr, loadOptionsFrom(args));
    if (!trace)
        return fail(trace.message());
    if (!core::analysis::hasGpuActivityRoles(*trace.value()))
        return fail("gpu-time: " + args.positional.front()
                    + " has no GPU kernels with their launches; the GPU time breakdown reads "
                      "PyTorch profiler traces, Nsight Systems exports and rocprofv3 results");
    auto cache = std::make_shared<core::analysis::AnalysisCache>(trace.value());
    int code = kExitError;
    const auto ranked = pytorchRankAnalyses(cache, "gpu-time", rankOption(args), json, &code);
    if (!ranked)
        return code;
    const auto index = core::analysis::pytorch::kinetoIndex(*ranked);
    std::optional<TimeWindow> window;
    if (args.has("step")) {
        window = stepWindow(*ranked, *index, int64_t(step));
        if (!window)
            return fail("gpu-time: " + args.positional.front() + " has no ProfilerStep#"
                        + std::to_string(step) + ", numbered step range " + std::to_string(step)
                        + " nor XProf step " + std::to_string(step));
    }
    const GpuTimeReport report = gpuTimeReport(ranked->trace(), *index, window);
    if (json)
        writeJson(ranked->trace(), report, index->scope.wholeTrace ? 0 : int64_t(index->scope.section));
    else
        writeText(report);
    return kExitOk;
}

} // namespace tracedesk::cli
