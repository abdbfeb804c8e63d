// diff: compares two profiles (A = baseline, B = candidate): step time, overview figures and
// per-op changes at one level, with an optional performance gate for CI.

#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchdiff.h"
#include "textcells.h"

#include "core/compare/tracecomparison.h"
#include "core/io/traceloader.h"
#include "core/model/timeformat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <memory>
#include <thread>

namespace tracedesk::cli {

using namespace core::compare;

const char *const kDiffUsage =
    "  diff A B [--json] [--level framework|hlo|kernel] [--group name|shapes|call_path]\n"
    "           [--top N] [--fail-if-slower PCT]\n"
    "      Compare profile B against baseline A: average step time, overview figures, the\n"
    "      biggest regressions and improvements, and per-op rows (self time per step, change\n"
    "      within noise counts as unchanged). --top limits the rows (default 30, 0 = all).\n"
    "      --fail-if-slower PCT exits with status 3 when B's average step time (for traces\n"
    "      without steps: total device op time) is more than PCT percent above A's.\n"
    "      Two PyTorch traces: steps paired by ProfilerStep number with the breakdown side by\n"
    "      side, operators matched by name, else by their place in the call tree (--group\n"
    "      picks name, name + input shapes or call path rows), each with its kernels on both\n"
    "      sides, and the GPU metrics; --json lists every operator unless --top is given. Two\n"
    "      folders of rank traces compare rank by rank, and the gate checks the slowest rank.";

namespace {

// Exit status of a failed performance gate (distinct from errors 1 and usage 2).
constexpr int kExitRegression = 3;

struct Loaded
{
    core::TracePtr trace;
    std::string error;
};

Loaded load(const std::string &path)
{
    auto trace = core::loadTrace(path);
    if (!trace)
        return {nullptr, trace.message()};
    return {trace.value(), {}};
}

void rowJson(JsonOut &j, const OpDiffRow &r)
{
    j.beginObject()
        .value("name", r.name)
        .value("category", r.category)
        .value("where", r.where)
        .value("change", opChangeName(r.change))
        .value("occurrences_a", r.occurrencesA)
        .value("occurrences_b", r.occurrencesB)
        .value("total_ps_a", r.totalA)
        .value("total_ps_b", r.totalB)
        .value("self_ps_a", r.selfA)
        .value("self_ps_b", r.selfB)
        .value("per_step_us_a", r.perStepUsA)
        .value("per_step_us_b", r.perStepUsB)
        .value("delta_us", r.deltaUs)
        .value("delta_percent", r.deltaPercent)
        .endObject();
}

void printJson(const TraceComparison &c, OpLevel level, const std::string &a,
               const std::string &b, size_t top, const std::vector<std::string> &summary)
{
    const OpDiff &diff = c.diff(level);
    JsonOut j;
    j.beginObject().value("a", a).value("b", b).value("level", opLevelName(level));
    gateJson(j, c.gate);
    j.beginObject("steps")
        .value("count_a", c.steps.stepCountA)
        .value("count_b", c.steps.stepCountB)
        .value("average_ms_a", c.steps.averageMsA)
        .value("average_ms_b", c.steps.averageMsB)
        .value("delta_percent", c.steps.deltaPercent)
        .beginArray("categories");
    for (size_t i = 0; i < c.steps.categories.size(); ++i) {
        j.beginObject()
            .value("name", c.steps.categories[i])
            .value("average_ms_a", c.steps.averageCategoryMsA[i])
            .value("average_ms_b", c.steps.averageCategoryMsB[i])
            .endObject();
    }
    j.endArray().endObject();
    j.beginArray("overview");
    for (const OverviewFigure &f : c.overview.figures)
        j.beginObject().value("name", f.label).value("unit", f.unit).value("a", f.a).value("b", f.b).endObject();
    j.endArray();
    j.value("alignment_offset_ps", c.alignment.offset());
    j.beginObject("counts");
    for (int k = 0; k < kOpChangeCount; ++k)
        j.value(opChangeName(OpChange(k)), diff.counts[size_t(k)]);
    j.endObject();
    j.beginArray("summary");
    for (const std::string &line : summary)
        j.value({}, line);
    j.endArray().beginArray("ops");
    for (size_t i = 0; i < diff.rows.size() && (top == 0 || i < top); ++i)
        rowJson(j, diff.rows[i]);
    j.endArray().endObject();
    std::printf("%s\n", j.text().c_str());
}

void printText(const TraceComparison &c, OpLevel level, const std::string &a,
               const std::string &b, size_t top, const std::vector<std::string> &summary)
{
    const OpDiff &diff = c.diff(level);
    std::printf("A: %s (%d steps)\nB: %s (%d steps)\n", a.c_str(), c.steps.stepCountA, b.c_str(),
                c.steps.stepCountB);
    std::printf("Average step time: A %.4f ms, B %.4f ms, delta %s\n", c.steps.averageMsA,
                c.steps.averageMsB, formatPercent(c.steps.deltaPercent).c_str());
    std::printf("\n");
    for (const std::string &line : summary)
        std::printf("%s\n", line.c_str());
    if (c.steps.hasSteps()) {
        std::printf("\nStep-time breakdown (average ms per step):\n");
        std::printf("  %-34s %12s %12s %9s\n", "category", "A", "B", "delta");
        for (size_t i = 0; i < c.steps.categories.size(); ++i) {
            const double va = c.steps.averageCategoryMsA[i], vb = c.steps.averageCategoryMsB[i];
            if (va == 0 && vb == 0)
                continue;
            std::printf("  %-34s %12.4f %12.4f %9s\n", c.steps.categories[i].c_str(), va, vb,
                        formatPercent(va > 0 ? 100.0 * (vb - va) / va : NAN).c_str());
        }
    }
    std::printf("\nOverview:\n");
    for (const OverviewFigure &f : c.overview.figures)
        std::printf("  %-26s %14.3f %14.3f %s\n", f.label.c_str(), f.a, f.b, f.unit.c_str());
    std::printf("\n%s rows (self time per %s; %d slower, %d faster, %d added, %d removed, "
                "%d unchanged):\n",
                opLevelLabel(level), c.steps.hasSteps() ? "step" : "trace",
                diff.count(OpChange::Slower), diff.count(OpChange::Faster),
                diff.count(OpChange::Added), diff.count(OpChange::Removed),
                diff.count(OpChange::Unchanged));
    std::printf("  %-9s %12s %9s %12s %12s %8s %8s  %s\n", "change", "delta", "delta %",
                "A", "B", "occ A", "occ B", "op");
    for (size_t i = 0; i < diff.rows.size() && (top == 0 || i < top); ++i) {
        const OpDiffRow &r = diff.rows[i];
        const std::string name = r.where.empty() ? r.name : r.name + " [" + r.where + "]";
        std::printf("  %-9s %12s %9s %12s %12s %8lld %8lld  %s\n", opChangeName(r.change),
                    formatDeltaUs(r.deltaUs).c_str(), formatPercent(r.deltaPercent).c_str(),
                    core::formatDuration(core::TimePs(std::llround(r.perStepUsA * 1e6))).c_str(),
                    core::formatDuration(core::TimePs(std::llround(r.perStepUsB * 1e6))).c_str(),
                    (long long)r.occurrencesA, (long long)r.occurrencesB, clip(name, 80).c_str());
    }
    if (top != 0 && diff.rows.size() > top)
        std::printf("  ... %zu more (use --top 0 for all)\n", diff.rows.size() - top);
}

} // namespace

int runDiff(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"json", false},
                                           {"level", true},
                                           {"top", true},
                                           {"fail-if-slower", true},
                                           {"group", true},
                                           {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("diff: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kDiffUsage);
        return kExitOk;
    }
    if (args.positional.size() != 2)
        return fail("diff: expected two profiles A and B (try diff --help)", kExitUsage);
    OpLevel level = OpLevel::Framework;
    if (args.has("level") && !parseOpLevel(args.value("level"), &level))
        return fail("diff: --level must be framework, hlo or kernel", kExitUsage);
    OperatorGrouping grouping = OperatorGrouping::Name;
    if (args.has("group") && !parseOperatorGrouping(args.value("group"), &grouping))
        return fail("diff: --group must be name, shapes or call_path", kExitUsage);
    unsigned long long top = 30;
    if (args.has("top") && !parseCount(args.value("top"), &top))
        return fail("diff: --top needs a count", kExitUsage);
    double limit = 0;
    const bool gate = args.has("fail-if-slower");
    if (gate) {
        const std::string text = args.value("fail-if-slower");
        char *end = nullptr;
        limit = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(limit) || limit < 0)
            return fail("diff: --fail-if-slower needs a percentage such as 5", kExitUsage);
    }

    const std::string pathA = args.positional[0], pathB = args.positional[1];
    // One load when both name the same file: two loads would race on its store cache entry.
    Loaded a, b;
    if (pathA == pathB) {
        a = b = load(pathA);
    } else {
        std::thread loader([&] { b = load(pathB); });
        a = load(pathA);
        loader.join();
    }
    if (!a.trace)
        return fail(a.error);
    if (!b.trace)
        return fail(b.error);

    auto cacheA = std::make_shared<core::analysis::AnalysisCache>(a.trace);
    auto cacheB = std::make_shared<core::analysis::AnalysisCache>(b.trace);
    const TraceComparison comparison = compareTraces(*cacheA, *cacheB);
    GateMeasure measure = comparison.gate;
    if (comparison.pytorch) {
        std::vector<RankComparison> ranks;
        for (const RankPair &pair : pytorchRankPairs(cacheA, cacheB))
            ranks.push_back({pair.rank, compareTraces(*pair.a, *pair.b)});
        if (!ranks.empty()) {
            // A run's step takes as long as its slowest rank's.
            measure.what = "slowest rank's average step time";
            measure.a = measure.b = 0;
            for (const RankComparison &r : ranks) {
                measure.a = std::max(measure.a, r.comparison.steps.averageMsA);
                measure.b = std::max(measure.b, r.comparison.steps.averageMsB);
            }
            measure.deltaPercent = measure.a > 0 ? 100.0 * (measure.b - measure.a) / measure.a : 0;
        }
        // JSON lists every operator unless --top is given.
        const size_t rows = args.has("top") || !args.has("json") ? size_t(top) : 0;
        if (args.has("json"))
            printPyTorchDiffJson(pathA, pathB, comparison, ranks, grouping, rows);
        else
            printPyTorchDiffText(pathA, pathB, comparison, ranks, grouping, rows);
    } else {
        const std::vector<std::string> summary = summaryLines(comparison, level);
        if (args.has("json"))
            printJson(comparison, level, pathA, pathB, size_t(top), summary);
        else
            printText(comparison, level, pathA, pathB, size_t(top), summary);
    }

    if (gate && measure.deltaPercent > limit) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "diff: %s regressed by %s (limit %.3g%%)",
                      measure.what.c_str(), formatPercent(measure.deltaPercent).c_str(), limit);
        return fail(buf, kExitRegression);
    }
    return kExitOk;
}

} // namespace tracedesk::cli
