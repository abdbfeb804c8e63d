#include "core/analysis/overview.h"

#include "core/analysis/opnames.h"
#include "core/analysis/stepsandops.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tracedesk::core::analysis {

std::vector<OverviewTopOp> topDeviceOps(const OpStats &ops, size_t limit)
{
    struct Acc
    {
        OverviewTopOp op;
        double flops = 0;
        TimePs timePs = 0;
    };
    std::map<std::pair<std::string, std::string>, Acc> byOp;
    TimePs total = 0;
    for (const OpMetrics &m : ops.device.metrics) {
        if (m.isIdle())
            continue;
        std::string name = m.name, category = m.category;
        if (!m.provenance.empty()) {
            const FrameworkOp fw = parseFrameworkOp(m.provenance);
            if (fw.kind != FrameworkOpKind::Unknown) {
                name = std::string(fw.name);
                category = std::string(fw.type);
            } else {
                name = m.provenance;
            }
        }
        Acc &a = byOp[{name, category}];
        a.op.name = name;
        a.op.category = category;
        a.op.occurrences += m.occurrences;
        a.op.selfTimePs += m.selfTimePs;
        a.flops += m.flops;
        a.timePs += m.timePs;
        total += m.selfTimePs;
    }
    std::vector<OverviewTopOp> out;
    for (auto &[key, a] : byOp) {
        a.op.flopRate = a.timePs > 0 ? a.flops / (double(a.timePs) / 1000.0) : 0;
        out.push_back(a.op);
    }
    std::sort(out.begin(), out.end(), [](const OverviewTopOp &a, const OverviewTopOp &b) {
        return a.selfTimePs != b.selfTimePs ? a.selfTimePs > b.selfTimePs : a.name < b.name;
    });
    if (out.size() > limit)
        out.resize(limit);
    double cumulative = 0;
    for (OverviewTopOp &op : out) {
        op.selfTimeFraction = total > 0 ? double(op.selfTimePs) / double(total) : 0;
        cumulative += op.selfTimeFraction;
        op.cumulativeTimeFraction = std::min(1.0, cumulative);
        for (const KernelReport &k : ops.kernelStats.reports) {
            if (k.opName != op.name && parseFrameworkOp(k.opName).name != op.name)
                continue;
            op.isOpTensorCoreEligible = op.isOpTensorCoreEligible || k.isOpTensorCoreEligible;
            op.isOpUsingTensorCore = op.isOpUsingTensorCore || k.isKernelUsingTensorCore;
        }
    }
    return out;
}

InferenceLatency inferenceLatency(const Trace &trace)
{
    InferenceLatency l;
    std::vector<TimePs> runs;
    for (const Track &t : trace.tracks) {
        const Plane &p = trace.planes[t.plane];
        if (p.kind != PlaneKind::Device || trace.string(t.name) != "XLA Modules" || t.rows.empty())
            continue;
        // One chip's view is enough: every core runs each program; take the busiest line.
        if (t.rows[0].size() > runs.size())
            runs = t.rows[0].duration.values();
    }
    if (runs.empty())
        return l;
    std::sort(runs.begin(), runs.end());
    l.available = true;
    l.source = "XLA program executions on one device (no step markers or serving requests)";
    l.count = int64_t(runs.size());
    double sum = 0;
    for (TimePs d : runs)
        sum += double(d);
    l.averageMs = sum / double(runs.size()) / 1e9;
    for (double p : {50.0, 75.0, 90.0, 95.0, 99.0}) {
        // Nearest rank.
        const size_t rank = size_t(std::ceil(p / 100.0 * double(runs.size())));
        l.percentiles.push_back({p, double(runs[std::clamp<size_t>(rank, 1, runs.size()) - 1]) / 1e9});
    }
    return l;
}

OverviewPage computeOverviewPage(const Trace &trace, const StepDb &steps,
                                 std::shared_ptr<const InputPipelineAnalysis> input,
                                 const OpStats &ops)
{
    OverviewPage o;
    o.hardware = steps.hardware;
    o.input = input;
    o.stepCount = int(steps.steps.size());
    o.averageStepTimeMs = input->stepTimeSummary.average;
    o.stepTimeStdDevMs = input->stepTimeSummary.standardDeviation;
    if (input->tpu) {
        const TpuStepTimeBreakdown &b = input->tpuSteps;
        o.averageBreakdownMs = {{"TensorCore compute", b.compute.average},
                                {"All-reduce compute", b.allReduceCompute.average},
                                {"All-reduce sync", b.allReduceSync.average},
                                {"Infeed", b.infeed.average},
                                {"Outfeed", b.outfeed.average},
                                {"TensorCore idle", b.idle.average}};
    } else {
        const GenericStepTimeBreakdown &b = input->generic;
        for (const StepCategory &c : kGenericCategories) {
            double sum = 0;
            for (const GenericStepDetails &d : b.steps)
                sum += d.*c.ms;
            o.averageBreakdownMs.push_back({c.label, b.steps.empty() ? 0 : sum / double(b.steps.size())});
        }
    }

    const OpMetricsDb &dev = ops.device;
    const OpMetricsDb &host = ops.host;
    o.perfEnv = ops.perfEnv;
    o.runEnvironment = ops.runEnvironment;
    double flops = 0, bytes = 0;
    int64_t deviceCount = 0, hostCount = 0;
    TimePs devEager = 0, devSelf = 0, hostEager = 0, hostSelf = 0;
    for (const OpMetrics &m : dev.metrics) {
        if (m.isIdle())
            continue;
        flops += m.flops;
        bytes += m.bytesAccessed;
        deviceCount += m.occurrences;
        devSelf += m.selfTimePs;
        devEager += m.isEager ? m.selfTimePs : 0;
    }
    for (const OpMetrics &m : host.metrics) {
        if (m.isIdle())
            continue;
        hostCount += m.occurrences;
        hostSelf += m.selfTimePs;
        hostEager += m.isEager ? m.selfTimePs : 0;
    }
    const double opNs = double(dev.totalOpTimePs) / 1000.0;
    o.deviceGflopsPerSecond = opNs > 0 ? flops / opNs : 0;
    o.deviceGbytesPerSecond = opNs > 0 ? bytes / opNs : 0;
    o.hasPeaks = o.perfEnv.peakTeraFlopsPerSecond > 0 && o.perfEnv.peakHbmBwGigaBytesPerSecond > 0;
    if (o.perfEnv.peakTeraFlopsPerSecond > 0)
        o.flopRateUtilizationPercent = 100.0 * o.deviceGflopsPerSecond
                                       / (o.perfEnv.peakTeraFlopsPerSecond * 1000.0);
    if (o.perfEnv.peakHbmBwGigaBytesPerSecond > 0)
        o.memoryBwUtilizationPercent = 100.0 * o.deviceGbytesPerSecond
                                       / o.perfEnv.peakHbmBwGigaBytesPerSecond;
    const TimePs busyIdle = dev.busyTimePs + dev.idleTimePs;
    if (steps.hardware == StepHardware::Tpu && busyIdle > 0)
        o.deviceDutyCyclePercent = 100.0 * double(dev.busyTimePs) / double(busyIdle);
    o.deviceIdleTimePercent = dev.totalTimePs > 0 ? 100.0 * double(dev.idleTimePs) / double(dev.totalTimePs) : 0;
    o.hostIdleTimePercent = host.totalTimePs > 0 ? 100.0 * double(host.idleTimePs) / double(host.totalTimePs) : 0;

    // Precision: DEVICE_COMPUTE_16/32 step-event time, else the op DB's split.
    double c16 = double(steps.compute16Ps), c32 = double(steps.compute32Ps);
    if (c16 + c32 <= 0) {
        c16 = double(dev.compute16bitPs);
        c32 = double(dev.compute32bitPs);
    }
    if (c16 + c32 > 0) {
        o.deviceCompute16bitPercent = 100.0 * c16 / (c16 + c32);
        o.deviceCompute32bitPercent = 100.0 * c32 / (c16 + c32);
    }
    if (hostCount + deviceCount > 0) {
        o.hostTfOpPercent = 100.0 * double(hostCount) / double(hostCount + deviceCount);
        o.deviceTfOpPercent = 100.0 * double(deviceCount) / double(hostCount + deviceCount);
    }
    o.hostOpTimeEagerPercent = hostSelf > 0 ? 100.0 * double(hostEager) / double(hostSelf) : 0;
    o.deviceOpTimeEagerPercent = devSelf > 0 ? 100.0 * double(devEager) / double(devSelf) : 0;

    o.topDeviceOps = topDeviceOps(ops, 10);

    const BottleneckAnalysis &b = input->bottleneck;
    o.bottleneck = b.inputClassification;
    o.statement = b.inputStatement;
    o.outputStatement = b.outputStatement;
    o.kernelLaunchStatement = b.kernelLaunchStatement;
    o.allOtherStatement = b.allOtherStatement;
    o.deviceCollectivesStatement = b.deviceCollectivesStatement;
    o.tpuStatement = b.tcIdleStatement;
    if (!b.allReduceStatement.empty())
        o.tpuStatement += (o.tpuStatement.empty() ? "" : " ") + b.allReduceStatement;
    if (c16 + c32 > 0 && o.deviceCompute16bitPercent < 10)
        o.precisionStatement = "Only " + oneDigit(o.deviceCompute16bitPercent)
                               + "% of device computation is 16 bit. So you might want to replace "
                                 "more 32-bit Ops by 16-bit Ops to improve performance (if the "
                                 "reduced accuracy is acceptable).";
    if (o.hostOpTimeEagerPercent > 10 || o.deviceOpTimeEagerPercent > 10)
        o.eagerStatement = oneDigit(o.hostOpTimeEagerPercent) + "% of Op time on the host and "
                           + oneDigit(o.deviceOpTimeEagerPercent)
                           + "% of Op time on the device are spent on eager execution. Consider "
                             "using tf.function to compile the computation.";
    o.hostTips = {"Input Pipeline: the host-side analysis and the input op statistics for the "
                  "breakdown of input operations on the host",
                  "Trace viewer: look at the host threads for the input pipeline"};
    o.deviceTips = {steps.hardware == StepHardware::Tpu
                        ? "Op profile: the most expensive XLA operations"
                        : "Framework op stats: the most expensive operations on the device",
                    "Trace viewer: look at the device rows for gaps and long operations"};
    o.documentationTips = {"Better performance with the tf.data API",
                           "Analyze tf.data performance with the TF Profiler"};

    if (steps.steps.empty() && steps.hardware == StepHardware::Tpu)
        o.inferenceLatency = inferenceLatency(trace);
    o.diagnostics = steps.diagnostics;
    return o;
}

std::shared_ptr<const OverviewPage> overviewPage(AnalysisCache &cache)
{
    const StepsAndOps both = stepsAndOps(cache);
    auto input = inputPipeline(cache);
    return cache.get<OverviewPage>([&](AnalysisCache &c) {
        return computeOverviewPage(c.trace(), *both.steps, input, *both.ops);
    });
}

} // namespace tracedesk::core::analysis
