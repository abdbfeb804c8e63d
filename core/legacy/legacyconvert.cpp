// Conversions from the legacy tool protos (proto/legacy_tools.proto) to the analysis results.
#include "core/legacy/legacytools.h"

#include "legacy_tools.pb.h"

#include <fstream>
#include <sstream>

namespace pb = tensorflow::profiler;

namespace tracedesk::core::legacy {

using namespace analysis;

namespace {

template<typename Message>
Result<Message> parseFile(const std::string &path, const char *what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fileError(path, "cannot be opened for reading");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    if (data.empty())
        return fileError(path, "is empty");
    Message m;
    if (!m.ParseFromString(data))
        return fileError(path, std::string("is not a valid ") + what
                                   + " protobuf (truncated or corrupt)");
    return m;
}

StepSummary summary(const pb::StepSummary &s, int count)
{
    return StepSummary{s.average(), s.standard_deviation(), s.minimum(), s.maximum(), count};
}

GenericStepDetails stepDetails(const pb::PerGenericStepDetails &s)
{
    GenericStepDetails d;
    d.stepNumber = s.step_number();
    d.stepName = s.step_name().empty() ? std::to_string(s.step_number()) : s.step_name();
    d.stepTimeMs = s.step_time_ms();
    d.hostWaitInputMs = s.host_wait_input_ms();
    d.hostToDeviceMs = s.host_to_device_ms();
    d.outputMs = s.output_ms();
    d.deviceComputeMs = s.device_compute_ms();
    d.deviceToDeviceMs = s.device_to_device_ms();
    d.deviceCollectivesMs = s.device_collectives_ms();
    d.hostComputeMs = s.host_compute_ms();
    d.hostPrepareMs = s.host_prepare_ms();
    d.hostCompileMs = s.host_compile_ms();
    d.unknownTimeMs = s.unknown_time_ms();
    return d;
}

Diagnostics diagnostics(const pb::Diagnostics &d)
{
    return Diagnostics{{d.info().begin(), d.info().end()},
                       {d.warnings().begin(), d.warnings().end()},
                       {d.errors().begin(), d.errors().end()}};
}

InputPipelineAnalysis inputPipeline(const pb::InputPipelineAnalysisResult &r)
{
    InputPipelineAnalysis a;
    const std::string &hw = r.hardware_type();
    a.tpu = r.tag() || hw == "TPU";
    a.hardware = a.tpu ? StepHardware::Tpu
                 : hw == "GPU" ? StepHardware::Gpu
                 : hw == "CPU" || hw == "CPU_ONLY" ? StepHardware::CpuOnly
                               : StepHardware::None;
    for (const auto &any : r.step_details()) {
        pb::PerGenericStepDetails s;
        if (any.Is<pb::PerGenericStepDetails>() && any.UnpackTo(&s))
            a.generic.steps.push_back(stepDetails(s));
    }
    const int n = int(a.generic.steps.size());
    a.stepTimeSummary = summary(r.step_time_summary(), n);
    a.inputPercentSummary = summary(r.input_percent_summary(), n);
    GenericStepTimeBreakdown &g = a.generic;
    g.stepTime = a.stepTimeSummary;
    g.inputPercent = a.inputPercentSummary;
    pb::GenericStepTimeBreakdown b;
    if (r.step_time_breakdown().Is<pb::GenericStepTimeBreakdown>()
        && r.step_time_breakdown().UnpackTo(&b)) {
        g.unknownTime = summary(b.unknown_time_ms_summary(), n);
        g.hostWaitInput = summary(b.host_wait_input_ms_summary(), n);
        g.hostToDevice = summary(b.host_to_device_ms_summary(), n);
        g.input = summary(b.input_ms_summary(), n);
        g.output = summary(b.output_ms_summary(), n);
        g.deviceCompute = summary(b.device_compute_ms_summary(), n);
        g.deviceToDevice = summary(b.device_to_device_ms_summary(), n);
        g.deviceCollectives = summary(b.device_collectives_ms_summary(), n);
        g.hostCompute = summary(b.host_compute_ms_summary(), n);
        g.hostPrepare = summary(b.host_prepare_ms_summary(), n);
        g.hostCompile = summary(b.host_compile_ms_summary(), n);
    }
    const auto &rec = r.recommendation();
    a.recommendationDetails.assign(rec.details().begin(), rec.details().end());
    BottleneckAnalysis &ba = a.bottleneck;
    pb::BottleneckAnalysis pbb;
    if (rec.bottleneck_analysis().Is<pb::BottleneckAnalysis>()
        && rec.bottleneck_analysis().UnpackTo(&pbb)) {
        ba.inputPercent = pbb.input_percent();
        ba.outputPercent = pbb.output_percent();
        ba.idlePercent = pbb.idle_percent();
        ba.computePercent = pbb.compute_percent();
        ba.inputClassification = pbb.input_classification();
        ba.inputStatement = pbb.input_statement();
        ba.kernelLaunchClassification = pbb.kernel_launch_classification();
        ba.kernelLaunchStatement = pbb.kernel_launch_statement();
        ba.allOtherClassification = pbb.all_other_classification();
        ba.allOtherStatement = pbb.all_other_statement();
        ba.deviceCollectivesClassification = pbb.device_collectives_classification();
        ba.deviceCollectivesStatement = pbb.device_collectives_statement();
    }
    // Newer files also carry the percents at the top level (fields 11, 13-15).
    if (r.input_percent() != 0)
        ba.inputPercent = r.input_percent();
    if (r.output_percent() != 0)
        ba.outputPercent = r.output_percent();
    if (r.idle_percent() != 0)
        ba.idlePercent = r.idle_percent();
    if (r.compute_percent() != 0)
        ba.computePercent = r.compute_percent();
    // Older files state the input share only in the text: derive it as FORMATS.md 2.5 does, from
    // the totals over the recorded steps.
    if (ba.inputPercent == 0) {
        double step = 0;
        double input = 0;
        for (const GenericStepDetails &d : a.generic.steps) {
            step += d.stepTimeMs;
            input += d.inputMs();
        }
        ba.inputPercent = step > 0 ? 100 * input / step : 0;
    }
    ba.summaryNextStep = rec.summary_next_step();
    const auto &t = r.input_time_breakdown();
    a.inputTimeBreakdown = {t.demanded_file_read_us(), t.advanced_file_read_us(),
                            t.preprocessing_us(), t.enqueue_us(),
                            t.unclassified_non_enqueue_us()};
    for (const auto &op : r.input_op_details())
        a.inputOps.push_back({op.op_name(), int64_t(op.count()), op.time_in_ms(),
                              op.time_in_percent(), op.self_time_in_ms(),
                              op.self_time_in_percent(), op.category()});
    a.diagnostics = diagnostics(r.diagnostics());
    return a;
}

std::vector<std::string> tips(const google::protobuf::RepeatedPtrField<pb::OverviewPageTip> &in)
{
    std::vector<std::string> out;
    for (const auto &t : in)
        out.push_back(t.link());
    return out;
}

OverviewPage overviewPage(const pb::OverviewPage &p)
{
    OverviewPage o;
    auto input = std::make_shared<const InputPipelineAnalysis>(inputPipeline(p.input_analysis()));
    o.hardware = input->hardware;
    o.stepCount = int(input->generic.steps.size());
    o.averageStepTimeMs = input->stepTimeSummary.average;
    o.stepTimeStdDevMs = input->stepTimeSummary.standardDeviation;
    for (const StepCategory &c : kGenericCategories) {
        double sum = 0;
        for (const GenericStepDetails &d : input->generic.steps)
            sum += d.*c.ms;
        o.averageBreakdownMs.push_back({c.label, o.stepCount ? sum / o.stepCount : 0});
    }
    o.input = std::move(input);

    const auto &a = p.analysis();
    o.flopRateUtilizationPercent = a.flop_rate_utilization_relative_to_roofline_percent();
    o.memoryBwUtilizationPercent = a.memory_bw_utilization_relative_to_hw_limit_percent();
    o.deviceDutyCyclePercent = a.device_duty_cycle_percent();
    o.deviceIdleTimePercent = a.device_idle_time_percent();
    o.hostIdleTimePercent = a.host_idle_time_percent();
    o.deviceCompute16bitPercent = a.device_compute_16bit_percent();
    o.deviceCompute32bitPercent = a.device_compute_32bit_percent();
    o.hostTfOpPercent = a.host_tf_op_percent();
    o.deviceTfOpPercent = a.device_tf_op_percent();
    o.hostOpTimeEagerPercent = a.host_op_time_eager_percent();
    o.deviceOpTimeEagerPercent = a.device_op_time_eager_percent();
    for (const auto &op : a.top_device_ops()) {
        OverviewTopOp t;
        t.name = op.name();
        t.category = op.category();
        t.selfTimeFraction = op.self_time_fraction();
        t.cumulativeTimeFraction = op.cumulative_time_fraction();
        t.flopRate = op.flop_rate();
        t.isOpTensorCoreEligible = op.is_op_tensorcore_eligible();
        t.isOpUsingTensorCore = op.is_op_using_tensorcore();
        o.topDeviceOps.push_back(std::move(t));
    }

    const auto &env = p.run_environment();
    o.runEnvironment.hostCount = env.host_count();
    o.runEnvironment.deviceType = env.device_type();
    o.runEnvironment.deviceCoreCount = env.device_core_count();

    const auto &rec = p.recommendation();
    o.bottleneck = rec.bottleneck();
    o.statement = rec.statement();
    o.outputStatement = rec.output_statement();
    o.eagerStatement = rec.eager_statement_html();
    o.hostTips = tips(rec.host_tips());
    o.deviceTips = tips(rec.device_tips());
    o.documentationTips = tips(rec.documentation_tips());
    pb::GenericRecommendation g;
    if (rec.recommendation().Is<pb::GenericRecommendation>() && rec.recommendation().UnpackTo(&g)) {
        o.kernelLaunchStatement = g.kernel_launch_statement();
        o.allOtherStatement = g.all_other_statement();
        o.precisionStatement = g.precision_statement();
        o.deviceCollectivesStatement = g.device_collectives_statement();
    }
    o.diagnostics = diagnostics(p.diagnostics());
    return o;
}

FrameworkOpStatsTable statsTable(const pb::TfStatsTable &t)
{
    FrameworkOpStatsTable out;
    for (const auto &r : t.tf_stats_record()) {
        FrameworkOpStatsRow row;
        row.rank = int(r.rank());
        row.onDevice = r.host_or_device() == "Device";
        row.type = r.op_type();
        row.name = r.op_name();
        row.occurrences = r.occurrences();
        row.totalTimeUs = r.total_time_in_us();
        row.avgTimeUs = r.avg_time_in_us();
        row.totalSelfTimeUs = r.total_self_time_in_us();
        row.avgSelfTimeUs = r.avg_self_time_in_us();
        row.selfTimeFraction = row.onDevice ? r.device_total_self_time_as_fraction()
                                            : r.host_total_self_time_as_fraction();
        row.cumulativeSelfTimeFraction = row.onDevice
                                             ? r.device_cumulative_total_self_time_as_fraction()
                                             : r.host_cumulative_total_self_time_as_fraction();
        row.isEager = r.is_eager();
        row.gflopsPerSecond = r.measured_flop_rate();
        out.rows.push_back(std::move(row));
    }
    return out;
}

} // namespace

Result<InputPipelineAnalysis> readInputPipelineFile(const std::string &path)
{
    auto m = parseFile<pb::InputPipelineAnalysisResult>(path, "InputPipelineAnalysisResult");
    if (!m)
        return m.error();
    return inputPipeline(m.value());
}

Result<OverviewPage> readOverviewPageFile(const std::string &path)
{
    auto m = parseFile<pb::OverviewPage>(path, "OverviewPage");
    if (!m)
        return m.error();
    return overviewPage(m.value());
}

Result<FrameworkOpStats> readTfStatsFile(const std::string &path)
{
    auto m = parseFile<pb::TfStatsDatabase>(path, "TfStatsDatabase");
    if (!m)
        return m.error();
    FrameworkOpStats s;
    s.withIdle = statsTable(m.value().with_idle());
    s.withoutIdle = statsTable(m.value().without_idle());
    s.deviceType = m.value().device_type();
    return s;
}

} // namespace tracedesk::core::legacy
