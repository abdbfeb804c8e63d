#include "core/analysis/bottleneck.h"

#include "core/analysis/stepbreakdown.h"
#include "core/analysis/tpubreakdown.h"

#include <algorithm>
#include <cstdio>

namespace tracedesk::core::analysis {

std::string oneDigit(double value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", value);
    return buf;
}

BottleneckTotals bottleneckTotals(const StepDb &db)
{
    BottleneckTotals t;
    if (db.hardware == StepHardware::Tpu) {
        t.tpu = true;
        for (const TpuStepRow &r : tpuStepTimeBreakdown(db).steps) {
            t.step += r.stepTimeMs;
            t.input += r.infeedMs;
            t.output += r.outfeedMs;
            t.compute += r.computeMs;
            t.idle += r.idleMs;
            t.allReduce += r.allReduceComputeMs + r.allReduceSyncMs;
        }
        return t;
    }
    for (const StepInfo &s : db.steps) {
        auto ps = [&](std::initializer_list<EventType> types) {
            TimePs v = 0;
            for (EventType e : types)
                v += s.type(e);
            return double(v);
        };
        t.step += double(s.duration);
        t.input += ps({EventType::HostWaitInput, EventType::HostToDevice, EventType::DeviceWaitHost});
        t.output += ps({EventType::DeviceToHost});
        t.compute += ps({EventType::DeviceCompute16, EventType::DeviceCompute32});
        t.collectives += ps({EventType::DeviceCollectives});
        t.kernelLaunch += ps({EventType::HostPrepare});
        t.allOther += ps({EventType::UnknownTime, EventType::HostToHost, EventType::HostPreprocess,
                          EventType::HostPostprocess, EventType::HostBatchFormation,
                          EventType::HostRuntime});
    }
    return t;
}

namespace {

void levelCheck(double percent, double high, double moderate, std::string *classification)
{
    *classification = percent >= high ? "high" : percent >= moderate ? "moderate" : "no";
}

} // namespace

BottleneckAnalysis classifyBottleneck(const BottleneckTotals &t)
{
    BottleneckAnalysis a;
    if (t.step <= 0) {
        a.inputClassification = "unknown";
        a.inputStatement = "No step time measured. Therefore we cannot tell where the performance "
                           "bottleneck is.";
        a.outputClassification = "no";
        a.kernelLaunchClassification = "no";
        a.allOtherClassification = "no";
        a.deviceCollectivesClassification = "no";
        return a;
    }
    auto pct = [&](double ms) { return 100.0 * ms / t.step; };
    a.inputPercent = pct(t.input);
    a.outputPercent = pct(t.output);
    a.computePercent = pct(t.compute);
    a.collectivesPercent = pct(t.collectives);
    a.kernelLaunchPercent = pct(t.kernelLaunch);
    a.allOtherPercent = pct(t.allOther);
    a.idlePercent = std::max(0.0, 100.0 - a.inputPercent - a.outputPercent - a.computePercent
                                      - a.collectivesPercent);
    a.tcIdlePercent = pct(t.idle);
    a.allReducePercent = pct(t.allReduce);

    bool allOtherReported = false;
    const std::string in = oneDigit(a.inputPercent);
    if (a.inputPercent >= kHighlyInputBoundPercent) {
        a.inputClassification = "host";
        a.inputStatement = "Your program is HIGHLY input-bound because " + in
                           + "% of the total step time sampled is waiting for input. Therefore, "
                             "you should first focus on reducing the input time.";
    } else if (a.inputPercent >= kModeratelyInputBoundPercent) {
        a.inputClassification = "both";
        a.inputStatement = "Your program is MODERATELY input-bound because " + in
                           + "% of the total step time sampled is waiting for input. Therefore, "
                             "you would need to reduce both the input time and other time.";
    } else if (!t.tpu && a.allOtherPercent >= kAllOtherInputHintPercent) {
        a.inputClassification = "both";
        a.inputStatement = "Your program is POTENTIALLY input-bound because "
                           + oneDigit(a.allOtherPercent)
                           + "% of the total step time sampled is spent on 'All Others' time "
                             "(which could be due to I/O or Python execution or both).";
        allOtherReported = true;
    } else {
        a.inputClassification = "device";
        a.inputStatement = "Your program is NOT input-bound because only " + in
                           + "% of the total step time sampled is waiting for input. Therefore, "
                             "you should focus on reducing other time.";
    }

    const std::string out = oneDigit(a.outputPercent);
    if (a.outputPercent >= kHighlyOutputBoundPercent) {
        a.outputClassification = "host";
        a.outputStatement = "Your program is HIGHLY output-bound because " + out
                            + "% of the total step time sampled is spent on output. Therefore, "
                              "you should first focus on reducing the output time.";
    } else if (a.outputPercent >= kModeratelyOutputBoundPercent) {
        a.outputClassification = "both";
        a.outputStatement = "Your program is MODERATELY output-bound because " + out
                            + "% of the total step time sampled is spent on output. Therefore, "
                              "you would need to reduce both the output time and other time.";
    } else {
        a.outputClassification = "device";
    }

    levelCheck(a.kernelLaunchPercent, kHighKernelLaunchPercent, kModerateKernelLaunchPercent,
               &a.kernelLaunchClassification);
    if (a.kernelLaunchClassification != "no") {
        a.kernelLaunchStatement = oneDigit(a.kernelLaunchPercent)
                                  + "% of the total step time sampled is spent on 'Kernel Launch'.";
        if (t.tfDataInUse)
            a.kernelLaunchStatement += " It could be due to CPU contention with tf.data. In this "
                                       "case, you may try to set the environment variable "
                                       "TF_GPU_THREAD_MODE=gpu_private.";
    }
    if (allOtherReported) {
        a.allOtherClassification = "no";
    } else {
        levelCheck(a.allOtherPercent, kHighAllOtherPercent, kModerateAllOtherPercent,
                   &a.allOtherClassification);
        if (a.allOtherClassification != "no")
            a.allOtherStatement = oneDigit(a.allOtherPercent)
                                  + "% of the total step time sampled is spent on 'All Others' "
                                    "time. This could be due to Python execution overhead.";
    }
    levelCheck(a.collectivesPercent, kHighCollectivesPercent, kModerateCollectivesPercent,
               &a.deviceCollectivesClassification);
    if (a.deviceCollectivesClassification != "no")
        a.deviceCollectivesStatement = oneDigit(a.collectivesPercent)
                                       + "% of the total step time sampled is spent on 'Device "
                                         "Collective Communication'.";

    if (t.tpu && a.tcIdlePercent >= kTpuIdleReportPercent)
        a.tcIdleStatement = "TensorCore is idle for " + oneDigit(a.tcIdlePercent)
                            + "% of the total step time sampled. Idle time that is not caused by "
                              "input may come from host-side work between programs.";
    if (t.tpu && a.allReducePercent >= kTpuAllReduceReportPercent)
        a.allReduceStatement = oneDigit(a.allReducePercent)
                               + "% of the total step time sampled is spent on all-reduce and "
                                 "other collectives.";

    if (a.inputClassification == "host" || a.inputClassification == "both") {
        a.summaryNextStep = t.tfDataInUse
                                ? "See Input Pipeline's host-side analysis for the breakdown of input time "
                                  "on the host."
                                : "Consider using the tf.data API to build the input pipeline: "
                                  "the host-side analysis is only meaningful for tf.data "
                                  "pipelines.";
    } else {
        a.summaryNextStep = "Your program is not input-bound, so you may skip the rest of this "
                            "page.";
    }
    return a;
}

} // namespace tracedesk::core::analysis
