#include "core/compare/overviewcompare.h"

namespace tracedesk::core::compare {

namespace {

double inputPercent(const analysis::OverviewPage &page)
{
    return page.input ? page.input->inputPercentSummary.average : 0.0;
}

} // namespace

OverviewComparison compareOverviews(const analysis::OverviewPage &a,
                                    const analysis::OverviewPage &b)
{
    OverviewComparison out;
    out.deviceTypeA = a.runEnvironment.deviceType;
    out.deviceTypeB = b.runEnvironment.deviceType;
    auto add = [&](const char *label, const char *unit, double va, double vb, bool higherBetter) {
        out.figures.push_back({label, unit, va, vb, higherBetter});
    };
    add("Steps", "", a.stepCount, b.stepCount, true);
    add("Average step time", "ms", a.averageStepTimeMs, b.averageStepTimeMs, false);
    add("Step time std dev", "ms", a.stepTimeStdDevMs, b.stepTimeStdDevMs, false);
    add("Input time", "%", inputPercent(a), inputPercent(b), false);
    add("Device compute 16-bit", "%", a.deviceCompute16bitPercent, b.deviceCompute16bitPercent,
        true);
    add("Device compute 32-bit", "%", a.deviceCompute32bitPercent, b.deviceCompute32bitPercent,
        false);
    add("Device idle time", "%", a.deviceIdleTimePercent, b.deviceIdleTimePercent, false);
    add("Host idle time", "%", a.hostIdleTimePercent, b.hostIdleTimePercent, false);
    add("Device FLOP rate", "GFLOP/s", a.deviceGflopsPerSecond, b.deviceGflopsPerSecond, true);
    add("FLOP rate utilization", "%", a.flopRateUtilizationPercent,
        b.flopRateUtilizationPercent, true);
    add("Eager device op time", "%", a.deviceOpTimeEagerPercent, b.deviceOpTimeEagerPercent,
        false);
    out.topOpsA = a.topDeviceOps;
    out.topOpsB = b.topDeviceOps;
    return out;
}

} // namespace tracedesk::core::compare
