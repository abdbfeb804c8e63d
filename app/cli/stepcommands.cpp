#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchcommands.h"

#include "core/analysis/framework.h"
#include "core/analysis/overview.h"
#include "core/io/traceloader.h"
#include "core/legacy/legacytools.h"

#include <cstdio>
#include <optional>

namespace tracedesk::cli {

using namespace core::analysis;

const char *const kOverviewUsage =
    "  overview FILE|DIR [--run NAME] [--json] [--no-cache] [--rank N]\n"
    "      Step-time summary and breakdown, bottleneck classification and recommendation, top 10\n"
    "      device ops, run environment and diagnostics (XProf's overview page). PyTorch (Kineto)\n"
    "      traces get the PyTorch overview instead: per-step time breakdown (kernel, memcpy,\n"
    "      memset, communication, runtime, dataloader, CPU exec, other), GPU summary per device\n"
    "      and recommendations. Without ProfilerStep#N, numbered step ranges (NVTX or\n"
    "      record_function \"iteration10\", \"step 12\", ...) are the steps, else a serving\n"
    "      engine's iterations (\"iterations\", \"iteration_latency_ms\" p50/p90/p99 per kind).\n"
    "      The JSON says which framework wrote the profile (\"framework\") and which rule found\n"
    "      the steps (\"steps_from\": profiler_step, numbered_ranges, serving_iterations,\n"
    "      cpu_operators, runtime_calls or none).";
const char *const kInputPipelineUsage =
    "  input-pipeline FILE|DIR [--run NAME] [--json] [--no-cache]\n"
    "      Input-bound analysis: per-step times with the input share, step-time statistics,\n"
    "      host input time by category and the input op statistics.";

namespace {

// `rank` (when given) takes the --rank option, which only the overview has.
core::Result<AnalysisCachePtr> loadFor(const char *command, int argc, char **argv, bool *json,
                                       int *code, std::optional<std::string> *rank = nullptr)
{
    ParsedArgs args;
    std::string error;
    std::vector<OptionSpec> specs = {
        {"run", true}, {"json", false}, {"no-cache", false}, {"help", false}};
    if (rank)
        specs.push_back({"rank", true});
    *code = kExitError;
    if (!parseArgs(argc, argv, 2, specs, &args, &error)) {
        *code = kExitUsage;
        return core::Error{std::string(command) + ": " + error, false};
    }
    if (args.has("help")) {
        *code = kExitOk;
        return core::Error{"", false};
    }
    if (args.positional.size() != 1) {
        *code = kExitUsage;
        return core::Error{std::string(command) + ": expected exactly one FILE or DIR", false};
    }
    *json = args.has("json");
    if (rank)
        *rank = rankOption(args);
    auto trace = core::loadTrace(args.positional.front(), nullptr, loadOptionsFrom(args));
    if (!trace)
        return trace.error();
    auto cache = std::make_shared<AnalysisCache>(trace.value());
    if (auto seeded = core::legacy::seedFromLegacyRun(*cache); !seeded)
        return seeded.error();
    return cache;
}

void summaryJson(JsonOut &j, const char *key, const StepSummary &s)
{
    j.beginObject(key)
        .value("average", s.average)
        .value("standard_deviation", s.standardDeviation)
        .value("minimum", s.minimum)
        .value("maximum", s.maximum)
        .endObject();
}

void diagnosticsJson(JsonOut &j, const Diagnostics &d)
{
    j.beginObject("diagnostics");
    for (auto [key, list] : {std::pair{"info", &d.info}, {"warnings", &d.warnings}, {"errors", &d.errors}}) {
        j.beginArray(key);
        for (const auto &m : *list)
            j.value({}, m);
        j.endArray();
    }
    j.endObject();
}

void stepsJson(JsonOut &j, const InputPipelineAnalysis &a)
{
    j.beginArray("steps");
    if (a.tpu) {
        for (const TpuStepRow &r : a.tpuSteps.steps) {
            j.beginObject().value("step_number", r.stepNumber).value("step_name", r.stepName)
                .value("begin_ps", r.begin).value("step_time_ms", r.stepTimeMs);
            for (const TpuCategory &c : kTpuCategories)
                j.value(c.label, r.*c.ms);
            j.endObject();
        }
    } else {
        for (const GenericStepDetails &d : a.generic.steps) {
            j.beginObject().value("step_number", d.stepNumber).value("step_name", d.stepName)
                .value("begin_ps", d.begin).value("step_time_ms", d.stepTimeMs);
            for (const StepCategory &c : kGenericCategories)
                j.value(c.label, d.*c.ms);
            j.endObject();
        }
    }
    j.endArray();
}

void bottleneckJson(JsonOut &j, const BottleneckAnalysis &b)
{
    j.beginObject("bottleneck")
        .value("input_percent", b.inputPercent)
        .value("output_percent", b.outputPercent)
        .value("idle_percent", b.idlePercent)
        .value("compute_percent", b.computePercent)
        .value("input_classification", b.inputClassification)
        .value("input_statement", b.inputStatement)
        .value("output_classification", b.outputClassification)
        .value("output_statement", b.outputStatement)
        .value("kernel_launch_classification", b.kernelLaunchClassification)
        .value("kernel_launch_statement", b.kernelLaunchStatement)
        .value("all_other_classification", b.allOtherClassification)
        .value("all_other_statement", b.allOtherStatement)
        .value("device_collectives_classification", b.deviceCollectivesClassification)
        .value("device_collectives_statement", b.deviceCollectivesStatement)
        .value("summary_next_step", b.summaryNextStep)
        .endObject();
}

const char *hardwareName(StepHardware h)
{
    switch (h) {
    case StepHardware::CpuOnly: return "CPU";
    case StepHardware::Gpu: return "GPU";
    case StepHardware::Tpu: return "TPU";
    case StepHardware::None: break;
    }
    return "unknown";
}

void printDiagnostics(const Diagnostics &d)
{
    for (const auto &m : d.errors)
        std::printf("  error:   %s\n", m.c_str());
    for (const auto &m : d.warnings)
        std::printf("  warning: %s\n", m.c_str());
    for (const auto &m : d.info)
        std::printf("  info:    %s\n", m.c_str());
}

} // namespace

int runOverview(int argc, char **argv)
{
    bool json = false;
    int code = kExitError;
    std::optional<std::string> rank;
    auto cache = loadFor("overview", argc, argv, &json, &code, &rank);
    if (!cache) {
        if (code == kExitOk) {
            std::printf("Usage:\n%s\n", kOverviewUsage);
            return kExitOk;
        }
        return fail(cache.message(), code);
    }
    // Another profiler's GPU capture (Nsight Systems) gets the PyTorch overview too: its GPU work
    // is mapped into the same activity roles.
    if (core::analysis::readsGpuWorkByRole(cache.value()->trace())) {
        const auto ranked = pytorchRankAnalyses(cache.value(), "overview", rank, json, &code);
        return ranked ? printPyTorchOverview(*ranked, json) : code;
    }
    if (rank)
        return fail("overview: --rank applies to PyTorch (Kineto) traces only", kExitUsage);
    const std::string framework = frameworkOf(cache.value()->trace());
    const auto page = overviewPage(*cache.value());
    const InputPipelineAnalysis &in = *page->input;
    if (json) {
        JsonOut j;
        j.beginObject().value("framework", framework)
            .value("hardware", hardwareName(page->hardware))
            .value("step_count", int64_t(page->stepCount))
            .value("average_step_time_ms", page->averageStepTimeMs)
            .value("step_time_stddev_ms", page->stepTimeStdDevMs);
        j.beginObject("average_breakdown_ms");
        for (const auto &[label, ms] : page->averageBreakdownMs)
            j.value(label, ms);
        j.endObject()
            .value("device_gflops_per_second", page->deviceGflopsPerSecond)
            .value("flop_rate_utilization_percent", page->flopRateUtilizationPercent)
            .value("memory_bw_utilization_percent", page->memoryBwUtilizationPercent)
            .value("device_duty_cycle_percent", page->deviceDutyCyclePercent)
            .value("device_idle_time_percent", page->deviceIdleTimePercent)
            .value("host_idle_time_percent", page->hostIdleTimePercent)
            .value("device_compute_16bit_percent", page->deviceCompute16bitPercent)
            .value("device_compute_32bit_percent", page->deviceCompute32bitPercent)
            .value("host_tf_op_percent", page->hostTfOpPercent)
            .value("device_tf_op_percent", page->deviceTfOpPercent)
            .value("host_op_time_eager_percent", page->hostOpTimeEagerPercent)
            .value("device_op_time_eager_percent", page->deviceOpTimeEagerPercent);
        j.beginArray("top_device_ops");
        for (const OverviewTopOp &op : page->topDeviceOps) {
            j.beginObject().value("name", op.name).value("category", op.category)
                .value("occurrences", op.occurrences).value("self_time_ps", op.selfTimePs)
                .value("self_time_fraction", op.selfTimeFraction)
                .value("cumulative_time_fraction", op.cumulativeTimeFraction)
                .value("flop_rate", op.flopRate)
                .value("is_op_tensorcore_eligible", op.isOpTensorCoreEligible)
                .value("is_op_using_tensorcore", op.isOpUsingTensorCore).endObject();
        }
        j.endArray();
        const RunEnvironment &env = page->runEnvironment;
        j.beginObject("run_environment").value("host_count", int64_t(env.hostCount))
            .value("device_type", env.deviceType)
            .value("device_core_count", int64_t(env.deviceCoreCount)).beginArray("hostnames");
        for (const auto &h : env.hosts)
            j.value({}, h);
        j.endArray().endObject();
        j.beginObject("recommendation").value("bottleneck", page->bottleneck)
            .value("statement", page->statement).value("output_statement", page->outputStatement)
            .value("kernel_launch_statement", page->kernelLaunchStatement)
            .value("all_other_statement", page->allOtherStatement)
            .value("device_collectives_statement", page->deviceCollectivesStatement)
            .value("precision_statement", page->precisionStatement)
            .value("eager_statement", page->eagerStatement)
            .value("tpu_statement", page->tpuStatement).endObject();
        if (page->inferenceLatency.available) {
            j.beginObject("inference_latency").value("source", page->inferenceLatency.source)
                .value("count", page->inferenceLatency.count)
                .value("average_ms", page->inferenceLatency.averageMs);
            for (const auto &[p, ms] : page->inferenceLatency.percentiles)
                j.value("p" + std::to_string(int(p)), ms);
            j.endObject();
        }
        stepsJson(j, in);
        diagnosticsJson(j, page->diagnostics);
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    std::printf("Framework:           %s\n", framework.c_str());
    std::printf("Hardware:            %s\n", hardwareName(page->hardware));
    std::printf("Run environment:     %d host(s), %s, %d device core(s)\n",
                page->runEnvironment.hostCount, page->runEnvironment.deviceType.c_str(),
                page->runEnvironment.deviceCoreCount);
    std::printf("Steps:               %d\n", page->stepCount);
    std::printf("Average step time:   %.3f ms (std dev %.3f ms)\n", page->averageStepTimeMs,
                page->stepTimeStdDevMs);
    for (const auto &[label, ms] : page->averageBreakdownMs)
        std::printf("  %-34s %10.3f ms\n", label.c_str(), ms);
    if (page->hasPeaks)
        std::printf("FLOP rate:           %.1f GFLOP/s (%.1f%% of peak), memory bandwidth %.1f%% of peak\n",
                    page->deviceGflopsPerSecond, page->flopRateUtilizationPercent,
                    page->memoryBwUtilizationPercent);
    if (page->hardware == StepHardware::Tpu)
        std::printf("Device duty cycle:   %.1f%%\n", page->deviceDutyCyclePercent);
    std::printf("Precision:           16-bit %.1f%%, 32-bit %.1f%%\n",
                page->deviceCompute16bitPercent, page->deviceCompute32bitPercent);
    std::printf("Op placement:        host %.1f%%, device %.1f%%; eager host %.1f%%, device %.1f%%\n",
                page->hostTfOpPercent, page->deviceTfOpPercent, page->hostOpTimeEagerPercent,
                page->deviceOpTimeEagerPercent);
    std::printf("Recommendation [%s]: %s\n", page->bottleneck.c_str(), page->statement.c_str());
    for (const std::string *s : {&page->outputStatement, &page->kernelLaunchStatement,
                                 &page->allOtherStatement, &page->deviceCollectivesStatement,
                                 &page->precisionStatement, &page->eagerStatement, &page->tpuStatement}) {
        if (!s->empty())
            std::printf("  %s\n", s->c_str());
    }
    std::printf("Top device ops:\n");
    for (const OverviewTopOp &op : page->topDeviceOps)
        std::printf("  %6.1f%% %6.1f%%  %-20s %s\n", 100 * op.selfTimeFraction,
                    100 * op.cumulativeTimeFraction, op.category.c_str(), op.name.c_str());
    if (page->inferenceLatency.available) {
        std::printf("Inference latency (%s): %lld runs, average %.3f ms\n",
                    page->inferenceLatency.source.c_str(), (long long)page->inferenceLatency.count,
                    page->inferenceLatency.averageMs);
        for (const auto &[p, ms] : page->inferenceLatency.percentiles)
            std::printf("  p%-3d %10.3f ms\n", int(p), ms);
    }
    if (!page->diagnostics.empty()) {
        std::printf("Diagnostics:\n");
        printDiagnostics(page->diagnostics);
    }
    return kExitOk;
}

int runInputPipeline(int argc, char **argv)
{
    bool json = false;
    int code = kExitError;
    auto cache = loadFor("input-pipeline", argc, argv, &json, &code);
    if (!cache) {
        if (code == kExitOk) {
            std::printf("Usage:\n%s\n", kInputPipelineUsage);
            return kExitOk;
        }
        return fail(cache.message(), code);
    }
    const auto a = inputPipeline(*cache.value());
    const InputTimeBreakdown &b = a->inputTimeBreakdown;
    if (json) {
        JsonOut j;
        j.beginObject().value("hardware", hardwareName(a->hardware)).value("tpu", a->tpu)
            .value("input_bound", a->inputBound());
        summaryJson(j, "step_time_summary", a->stepTimeSummary);
        summaryJson(j, "input_percent_summary", a->inputPercentSummary);
        bottleneckJson(j, a->bottleneck);
        stepsJson(j, *a);
        j.beginObject("input_time_breakdown")
            .value("demanded_file_read_us", b.demandedFileReadUs)
            .value("advanced_file_read_us", b.advancedFileReadUs)
            .value("preprocessing_us", b.preprocessingUs)
            .value("enqueue_us", b.enqueueUs)
            .value("unclassified_non_enqueue_us", b.unclassifiedNonEnqueueUs)
            .endObject();
        j.beginArray("input_op_details");
        for (const InputOpDetails &d : a->inputOps) {
            j.beginObject().value("op_name", d.opName).value("count", d.count)
                .value("time_in_ms", d.timeMs).value("time_in_percent", d.timePercent)
                .value("self_time_in_ms", d.selfTimeMs)
                .value("self_time_in_percent", d.selfTimePercent)
                .value("category", d.category).endObject();
        }
        j.endArray().beginArray("recommendation");
        for (const auto &r : a->recommendationDetails)
            j.value({}, r);
        j.endArray();
        diagnosticsJson(j, a->diagnostics);
        j.endObject();
        std::printf("%s\n", j.text().c_str());
        return kExitOk;
    }
    std::printf("Input-bound:        %s (input %.1f%% of step time) [%s]\n",
                a->inputBound() ? "yes" : "no", a->bottleneck.inputPercent,
                a->bottleneck.inputClassification.c_str());
    std::printf("  %s\n  %s\n", a->bottleneck.inputStatement.c_str(),
                a->bottleneck.summaryNextStep.c_str());
    const StepSummary &s = a->stepTimeSummary;
    std::printf("Step time:          %d steps, average %.3f ms, std dev %.3f, min %.3f, max %.3f\n",
                s.count, s.average, s.standardDeviation, s.minimum, s.maximum);
    std::printf("Host input time:    demanded read %.1f us, advanced read %.1f us, preprocessing "
                "%.1f us, enqueue %.1f us, unclassified %.1f us\n",
                b.demandedFileReadUs, b.advancedFileReadUs, b.preprocessingUs, b.enqueueUs,
                b.unclassifiedNonEnqueueUs);
    std::printf("Input ops:          %zu\n", a->inputOps.size());
    for (const InputOpDetails &d : a->inputOps)
        std::printf("  %8lld x %10.3f ms self %5.1f%%  %-20s %s\n", (long long)d.count,
                    d.selfTimeMs, d.selfTimePercent, d.category.c_str(), d.opName.c_str());
    if (!a->diagnostics.empty()) {
        std::printf("Diagnostics:\n");
        printDiagnostics(a->diagnostics);
    }
    return kExitOk;
}

} // namespace tracedesk::cli
