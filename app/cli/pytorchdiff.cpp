// The PyTorch part of `diff`: steps paired by ProfilerStep number with the breakdown side by
// side, operators matched by name and call path with their kernels on each side, GPU metrics,
// rank by rank for two rank folders (core/compare/pytorchcomparison.h).

#include "pytorchdiff.h"

#include "pytorchcommands.h"
#include "textcells.h"

#include "core/analysis/pytorch/rankanalyses.h"
#include "core/model/timeformat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tracedesk::cli {

using namespace core::compare;
using core::analysis::kernelFamilyName;
using core::analysis::pytorch::PyTorchGpuMetrics;

namespace {

// The first GPU's metrics under `key` (null without a GPU), and every GPU under `key`s.
void gpusJson(JsonOut &j, const std::vector<PyTorchGpuMetrics> &gpus, const std::string &key)
{
    if (gpus.empty())
        j.null(key);
    else
        gpuMetricsJson(j, gpus.front(), key);
    j.beginArray(key + "_all");
    for (const PyTorchGpuMetrics &g : gpus)
        gpuMetricsJson(j, g);
    j.endArray();
}

void kernelsJson(JsonOut &j, const char *key, const std::vector<OperatorKernel> &kernels)
{
    j.beginArray(key);
    for (const OperatorKernel &k : kernels) {
        j.beginObject()
            .value("name", k.name)
            .value("family", kernelFamilyName(k.family))
            .value("count", k.count)
            .value("time_us", k.us)
            .endObject();
    }
    j.endArray();
}

void operatorJson(JsonOut &j, const OperatorDiffRow &r)
{
    j.beginObject()
        .value("op_name", r.opName)
        .value("op_name_b", r.opNameB)
        .value("call_path", r.callPath)
        .value("input_shapes", r.inputShapes)
        .value("match", operatorMatchName(r.match))
        .value("annotation", r.annotation)
        .value("change", opChangeName(r.change))
        .value("calls_a", r.callsA)
        .value("calls_b", r.callsB)
        .value("host_self_us_a", r.hostSelfUsA)
        .value("host_self_us_b", r.hostSelfUsB)
        .value("device_self_us_a", r.deviceSelfUsA)
        .value("device_self_us_b", r.deviceSelfUsB)
        .value("device_total_us_a", r.deviceTotalUsA)
        .value("device_total_us_b", r.deviceTotalUsB)
        .value("delta_us", r.deltaUs)
        .value("delta_percent", r.deltaPercent);
    kernelsJson(j, "kernels_a", r.kernelsA);
    kernelsJson(j, "kernels_b", r.kernelsB);
    j.beginArray("families");
    for (const FamilyTimes &f : r.families) {
        j.beginObject()
            .value("family", kernelFamilyName(f.family))
            .value("count_a", f.countA)
            .value("count_b", f.countB)
            .value("time_us_a", f.usA)
            .value("time_us_b", f.usB)
            .endObject();
    }
    j.endArray().endObject();
}

double percentOf(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

// The keys of one comparison (a trace pair or one rank of two runs).
void comparisonJson(JsonOut &j, const TraceComparison &c, OperatorGrouping grouping, size_t top)
{
    const PyTorchComparison &p = *c.pytorch;
    const StepComparison &s = p.steps;
    j.value("steps_paired_by", p.stepsPairedByNumber ? "step_number" : "index");
    j.beginArray("steps");
    for (const StepPair &pair : s.pairs) {
        j.beginObject();
        const std::string number =
            p.stepsPairedByNumber ? pair.nameA.substr(pair.nameA.find('#') + 1) : std::string();
        char *end = nullptr;
        const long long n = std::strtoll(number.c_str(), &end, 10);
        if (!number.empty() && *end == '\0')
            j.value("step", int64_t(n));
        else
            j.value("step", int64_t(pair.index));
        j.value("step_name_a", pair.nameA)
            .value("step_name_b", pair.nameB)
            .value("step_time_ms_a", pair.msA)
            .value("step_time_ms_b", pair.msB)
            .value("delta_ms", pair.msB - pair.msA);
        for (size_t k = 0; k < p.categoryKeys.size(); ++k) {
            j.value(p.categoryKeys[k] + "_ms_a", pair.categoriesA[k])
                .value(p.categoryKeys[k] + "_ms_b", pair.categoriesB[k]);
        }
        j.endObject();
    }
    j.endArray();
    j.value("step_count_a", s.stepCountA)
        .value("step_count_b", s.stepCountB)
        .value("average_step_time_ms_a", s.averageMsA)
        .value("average_step_time_ms_b", s.averageMsB)
        .value("average_step_time_delta_ms", s.averageMsB - s.averageMsA)
        .value("average_step_time_delta_percent", s.deltaPercent);
    for (const char *side : {"a", "b"}) {
        const bool b = side[0] == 'b';
        j.beginObject(std::string("average_breakdown_ms_") + side);
        for (size_t k = 0; k < p.categoryKeys.size(); ++k)
            j.value(p.categoryKeys[k], (b ? s.averageCategoryMsB : s.averageCategoryMsA)[k]);
        j.endObject();
    }
    gateJson(j, c.gate);
    const OperatorMatchSummary &m = p.match;
    j.beginObject("operator_match")
        .value("operators_a", m.operatorsA)
        .value("operators_b", m.operatorsB)
        .value("matched_by_name", m.byName)
        .value("matched_by_call_path", m.byCallPath)
        .value("only_a", m.onlyA)
        .value("only_b", m.onlyB)
        .value("matched_device_time_percent_a", percentOf(m.matchedDeviceSelfUsA, m.deviceSelfUsA))
        .value("matched_device_time_percent_b", percentOf(m.matchedDeviceSelfUsB, m.deviceSelfUsB))
        .endObject();
    j.value("operator_grouping", operatorGroupingName(grouping));
    const std::vector<OperatorDiffRow> &rows = p.rows(grouping);
    j.beginArray("operators");
    for (size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i)
        operatorJson(j, rows[i]);
    j.endArray();
    gpusJson(j, p.gpusA, "gpu_metrics_a");
    gpusJson(j, p.gpusB, "gpu_metrics_b");
}

std::string kernelsText(const OperatorDiffRow &r, bool b)
{
    if (!(b ? r.inB : r.inA))
        return "-";
    const int64_t n = r.kernelCount(b);
    if (n == 0)
        return "no GPU work";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld GPU op%s %s", (long long)n, n == 1 ? "" : "s",
                  core::formatDuration(core::TimePs(std::llround(r.kernelUs(b) * 1e6)), 3).c_str());
    return buf;
}

void comparisonText(const TraceComparison &c, OperatorGrouping grouping, size_t top)
{
    const PyTorchComparison &p = *c.pytorch;
    const StepComparison &s = p.steps;
    std::printf("Average step time: A %.4f ms (%d step%s), B %.4f ms (%d step%s), delta %s\n",
                s.averageMsA, s.stepCountA, s.stepCountA == 1 ? "" : "s", s.averageMsB,
                s.stepCountB, s.stepCountB == 1 ? "" : "s", formatPercent(s.deltaPercent).c_str());
    std::printf("\nSteps (%s):\n",
                p.stepsPairedByNumber ? "paired by ProfilerStep number" : "paired in order");
    std::printf("  %-22s %12s %12s %10s\n", "step (A / B)", "A ms", "B ms", "delta");
    for (const StepPair &pair : s.pairs) {
        const std::string label =
            pair.nameA == pair.nameB ? pair.nameA : pair.nameA + " / " + pair.nameB;
        std::printf(
            "  %-22s %12.4f %12.4f %10s\n", clip(label, 22).c_str(), pair.msA, pair.msB,
            formatPercent(pair.msA > 0 ? 100.0 * (pair.msB - pair.msA) / pair.msA : NAN).c_str());
    }
    if (s.pairs.empty())
        std::printf("  (no step number in both traces)\n");
    std::printf("\nStep-time breakdown (average ms per step):\n");
    std::printf("  %-16s %12s %12s %12s\n", "category", "A", "B", "delta ms");
    for (size_t k = 0; k < s.categories.size(); ++k) {
        const double va = s.averageCategoryMsA[k], vb = s.averageCategoryMsB[k];
        if (va == 0 && vb == 0)
            continue;
        std::printf("  %-16s %12.4f %12.4f %+12.4f\n", s.categories[k].c_str(), va, vb, vb - va);
    }

    const OperatorMatchSummary &m = p.match;
    std::printf("\nOperators: %d in A, %d in B; matched %d by name and %d by call path (%.1f%% "
                "of A's and %.1f%% of B's operator device time); %d only in A, %d only in B.\n",
                m.operatorsA, m.operatorsB, m.byName, m.byCallPath,
                percentOf(m.matchedDeviceSelfUsA, m.deviceSelfUsA),
                percentOf(m.matchedDeviceSelfUsB, m.deviceSelfUsB), m.onlyA, m.onlyB);
    const std::vector<OperatorDiffRow> &rows = p.rows(grouping);
    std::printf("\nOperators by %s (device self time, whole trace; largest change first):\n",
                operatorGroupingLabel(grouping));
    std::printf("  %-9s %-9s %12s %12s %12s  %-22s %-22s %s\n", "match", "change", "A", "B",
                "delta", "GPU work A", "GPU work B", "operator");
    for (size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
        const OperatorDiffRow &r = rows[i];
        std::string name = r.opName;
        if (r.opNameB != r.opName)
            name += " ~ " + r.opNameB;
        if (!r.inputShapes.empty())
            name += " " + r.inputShapes;
        if (grouping == OperatorGrouping::CallPath && !r.callPath.empty())
            name = r.callPath + " > " + name;
        std::printf("  %-9s %-9s %12s %12s %12s  %-22s %-22s %s\n", operatorMatchName(r.match),
                    opChangeName(r.change),
                    core::formatDuration(core::TimePs(std::llround(r.deviceSelfUsA * 1e6))).c_str(),
                    core::formatDuration(core::TimePs(std::llround(r.deviceSelfUsB * 1e6))).c_str(),
                    formatDeltaUs(r.deltaUs).c_str(), kernelsText(r, false).c_str(),
                    kernelsText(r, true).c_str(), clip(name, 100).c_str());
    }
    if (top != 0 && rows.size() > top)
        std::printf("  ... %zu more (use --top 0 for all)\n", rows.size() - top);

    std::printf("\nGPU metrics (first GPU of each side):\n");
    const PyTorchGpuMetrics *ga = p.gpusA.empty() ? nullptr : &p.gpusA.front();
    const PyTorchGpuMetrics *gb = p.gpusB.empty() ? nullptr : &p.gpusB.front();
    auto line = [&](const char *label, auto get, double scale) {
        auto percent = [&](const PyTorchGpuMetrics *g) {
            const std::optional<double> v = g ? get(*g) : std::nullopt;
            return percentText(v ? std::optional<double>(*v * scale) : std::nullopt);
        };
        std::printf("  %-32s %24s %24s\n", label, percent(ga).c_str(), percent(gb).c_str());
    };
    std::printf("  %-32s %24s %24s\n", "device", ga ? clip(ga->name, 24).c_str() : "-",
                gb ? clip(gb->name, 24).c_str() : "-");
    line(
        "GPU utilization", [](const PyTorchGpuMetrics &g) { return g.utilization; }, 100.0);
    line(
        "Est. SM efficiency", [](const PyTorchGpuMetrics &g) { return g.smEfficiency; }, 100.0);
    line(
        "Est. achieved occupancy", [](const PyTorchGpuMetrics &g) { return g.achievedOccupancy; },
        1.0);
    line(
        "Kernel time using Tensor Cores",
        [](const PyTorchGpuMetrics &g) { return g.tensorCoreRatio; }, 100.0);
}

} // namespace

void gateJson(JsonOut &j, const GateMeasure &gate)
{
    j.beginObject("gate")
        .value("measure", gate.what)
        .value("a_ms", gate.a)
        .value("b_ms", gate.b)
        .value("delta_percent", gate.deltaPercent)
        .endObject();
}

std::vector<RankPair> pytorchRankPairs(const core::analysis::AnalysisCachePtr &a,
                                       const core::analysis::AnalysisCachePtr &b)
{
    using namespace core::analysis::pytorch;
    std::vector<RankPair> pairs;
    const std::vector<std::string> labelsA = rankSectionLabels(a->trace());
    const std::vector<std::string> labelsB = rankSectionLabels(b->trace());
    if (labelsA.empty() || labelsB.empty())
        return pairs;
    for (const std::string &label : labelsA) {
        char *end = nullptr;
        const char *digits = label.c_str() + label.find_first_of("0123456789");
        const long long rank = std::strtoll(digits, &end, 10);
        const auto sa = sectionOfRank(a->trace(), rank);
        const auto sb = sectionOfRank(b->trace(), rank);
        if (sa && sb)
            pairs.push_back({rank, rankAnalyses(a, *sa), rankAnalyses(b, *sb)});
    }
    return pairs;
}

void printPyTorchDiffJson(const std::string &a, const std::string &b, const TraceComparison &c,
                          const std::vector<RankComparison> &ranks, OperatorGrouping grouping,
                          size_t top)
{
    JsonOut j;
    j.beginObject().value("a", a).value("b", b).value("framework", "pytorch");
    comparisonJson(j, c, grouping, top);
    if (!ranks.empty()) {
        j.beginArray("ranks");
        for (const RankComparison &r : ranks) {
            j.beginObject().value("rank", r.rank);
            comparisonJson(j, r.comparison, grouping, top);
            j.endObject();
        }
        j.endArray();
    }
    j.endObject();
    std::printf("%s\n", j.text().c_str());
}

void printPyTorchDiffText(const std::string &a, const std::string &b, const TraceComparison &c,
                          const std::vector<RankComparison> &ranks, OperatorGrouping grouping,
                          size_t top)
{
    std::printf("A: %s\nB: %s\nPyTorch profiler traces: steps, operators and GPU metrics side "
                "by side.\n\n",
                a.c_str(), b.c_str());
    if (ranks.empty()) {
        comparisonText(c, grouping, top);
        return;
    }
    for (const RankComparison &r : ranks) {
        std::printf("==== rank %lld ====\n", (long long)r.rank);
        comparisonText(r.comparison, grouping, top);
        std::printf("\n");
    }
}

} // namespace tracedesk::cli
