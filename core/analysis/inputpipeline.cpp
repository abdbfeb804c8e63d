#include "core/analysis/inputpipeline.h"

#include "core/analysis/stepsandops.h"

#include <algorithm>

namespace tracedesk::core::analysis {

namespace {

bool endsWithAny(std::string_view s, std::initializer_list<std::string_view> suffixes)
{
    return std::any_of(suffixes.begin(), suffixes.end(), [&](auto x) { return s.ends_with(x); });
}

bool containsAny(std::string_view s, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [&](auto x) { return s.find(x) != std::string_view::npos; });
}

} // namespace

std::string inputOpCategory(const OpMetrics &op)
{
    const std::string_view c = op.category;
    if (c == "enqueue")
        return kInputEnqueue;
    if (c == "read")
        return kInputDemandedFileRead;
    if (c == "preprocessing")
        return kInputPreprocessing;
    if (c == "unknown")
        return kInputUnknown;
    if (c.starts_with("InfeedEnqueue") || c == "MemcpyHToD")
        return kInputEnqueue;
    if (c != "Dataset")
        return {};
    const std::string_view n = op.name;
    if (endsWithAny(n, {"::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable",
                        "::RecordIO", "::ArrayRecord"})) {
        return containsAny(n, {"::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch",
                               "::ParallelMap"})
                   ? kInputAdvancedFileRead
                   : kInputDemandedFileRead;
    }
    return kInputPreprocessing;
}

std::vector<InputOpDetails> inputOpDetails(const OpMetricsDb &host)
{
    std::vector<InputOpDetails> out;
    double totalSelf = 0;
    for (const OpMetrics &op : host.metrics) {
        if (op.isIdle())
            continue;
        std::string category = inputOpCategory(op);
        if (category.empty())
            continue;
        InputOpDetails d;
        d.opName = op.name;
        d.count = op.occurrences;
        d.timeMs = double(op.timePs) / 1e9;
        d.selfTimeMs = double(op.selfTimePs) / 1e9;
        d.category = std::move(category);
        totalSelf += d.selfTimeMs;
        out.push_back(std::move(d));
    }
    for (InputOpDetails &d : out) {
        d.timePercent = totalSelf > 0 ? 100.0 * d.timeMs / totalSelf : 0;
        d.selfTimePercent = totalSelf > 0 ? 100.0 * d.selfTimeMs / totalSelf : 0;
    }
    std::stable_sort(out.begin(), out.end(), [](const InputOpDetails &a, const InputOpDetails &b) {
        return a.selfTimeMs > b.selfTimeMs;
    });
    return out;
}

InputTimeBreakdown inputTimeBreakdown(const std::vector<InputOpDetails> &ops,
                                      double averageHostToDeviceMs, double averageStepMs)
{
    InputTimeBreakdown b;
    double demanded = 0, advanced = 0, preprocessing = 0;
    for (const InputOpDetails &d : ops) {
        const double us = d.selfTimeMs * 1000.0;
        if (d.category == kInputEnqueue)
            b.enqueueUs += us;
        else if (d.category == kInputDemandedFileRead)
            demanded += us;
        else if (d.category == kInputAdvancedFileRead)
            advanced += us;
        else if (d.category == kInputPreprocessing)
            preprocessing += us;
    }
    const double ratio = averageStepMs > 0 ? averageHostToDeviceMs / averageStepMs : 0;
    const double r = std::min(1.0, ratio);
    const double sum = demanded + advanced + preprocessing;
    const double nonEnqueue = r != 0 ? b.enqueueUs * (1 - r) / r : sum;
    if (sum > 0) {
        b.demandedFileReadUs = nonEnqueue * demanded / sum;
        b.advancedFileReadUs = nonEnqueue * advanced / sum;
        b.preprocessingUs = nonEnqueue * preprocessing / sum;
    }
    b.unclassifiedNonEnqueueUs = std::max(0.0, nonEnqueue - b.demandedFileReadUs
                                                   - b.advancedFileReadUs - b.preprocessingUs);
    return b;
}

InputPipelineAnalysis computeInputPipeline(const StepDb &steps, const OpMetricsDb &host)
{
    InputPipelineAnalysis a;
    a.hardware = steps.hardware;
    a.tpu = steps.hardware == StepHardware::Tpu;
    a.diagnostics = steps.diagnostics;
    double avgHostToDevice = 0;
    if (a.tpu) {
        a.tpuSteps = tpuStepTimeBreakdown(steps);
        a.stepTimeSummary = a.tpuSteps.stepTime;
        a.inputPercentSummary = a.tpuSteps.infeedPercent;
    } else {
        a.generic = genericStepTimeBreakdown(steps);
        a.stepTimeSummary = a.generic.stepTime;
        a.inputPercentSummary = a.generic.inputPercent;
        avgHostToDevice = a.generic.hostToDevice.average;
    }
    a.inputOps = inputOpDetails(host);
    a.inputTimeBreakdown = inputTimeBreakdown(a.inputOps, avgHostToDevice, a.stepTimeSummary.average);
    BottleneckTotals totals = bottleneckTotals(steps);
    const InputTimeBreakdown &b = a.inputTimeBreakdown;
    totals.tfDataInUse = b.demandedFileReadUs > 0 || b.advancedFileReadUs > 0 || b.preprocessingUs > 0;
    a.bottleneck = classifyBottleneck(totals);
    a.recommendationDetails = {
        "Enqueuing data: you may want to combine small input data chunks into fewer but larger "
        "chunks.",
        "Data preprocessing: you may increase num_parallel_calls in Dataset map() or preprocess "
        "the data OFFLINE.",
        "Reading data from files in advance: you may tune parameters in the following tf.data "
        "API (prefetch size, interleave cycle_length, reader buffer_size).",
        "Reading data from files on demand: you should read data IN ADVANCE using the following "
        "tf.data API (prefetch, interleave, reader buffer).",
        "Other data reading or processing: you may consider using the tf.data API (if you are "
        "not using it now).",
    };
    return a;
}

std::shared_ptr<const InputPipelineAnalysis> inputPipeline(AnalysisCache &cache)
{
    const StepsAndOps both = stepsAndOps(cache);
    return cache.get<InputPipelineAnalysis>(
        [&](AnalysisCache &) { return computeInputPipeline(*both.steps, both.ops->host); });
}

} // namespace tracedesk::core::analysis
