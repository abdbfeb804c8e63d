#include "core/compare/tracecomparison.h"

#include "core/analysis/framework.h"
#include "core/base/parallel.h"
#include "core/model/timeformat.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tracedesk::core::compare {

std::shared_ptr<const OpTables> opTables(analysis::AnalysisCache &cache)
{
    auto ops = analysis::opStats(cache);
    auto framework = analysis::frameworkOpStats(cache);
    return cache.get<OpTables>([&](analysis::AnalysisCache &c) {
        return opTables(c.trace(), *ops, *framework);
    });
}

CompareSide compareSide(analysis::AnalysisCache &cache)
{
    CompareSide side;
    side.trace = cache.tracePtr();
    side.steps = analysis::stepDb(cache);
    side.ops = opTables(cache);
    side.overview = analysis::overviewPage(cache);
    return side;
}

GateMeasure gateMeasure(const StepComparison &steps, const OpTables &a, const OpTables &b)
{
    GateMeasure g;
    if (steps.hasSteps()) {
        g.what = "average step time";
        g.a = steps.averageMsA;
        g.b = steps.averageMsB;
    } else if (a.deviceOpTimePs > 0 || b.deviceOpTimePs > 0) {
        g.what = "total device op time";
        g.a = double(a.deviceOpTimePs) / 1e9;
        g.b = double(b.deviceOpTimePs) / 1e9;
    } else {
        g.what = "total host op time";
        g.a = double(a.hostOpTimePs) / 1e9;
        g.b = double(b.hostOpTimePs) / 1e9;
    }
    g.deltaPercent = g.a > 0 ? 100.0 * (g.b - g.a) / g.a : 0.0;
    return g;
}

TraceComparison compareTraces(const CompareSide &a, const CompareSide &b,
                              const CompareOptions &options)
{
    TraceComparison out;
    out.steps = compareSteps(*a.trace, *a.steps, *b.trace, *b.steps);
    for (int l = 0; l < kOpLevelCount; ++l) {
        const OpLevel level = OpLevel(l);
        out.diffs[size_t(l)] = diffOps(a.ops->at(level), out.steps.stepCountA, b.ops->at(level),
                                       out.steps.stepCountB, level, options.noise);
    }
    out.overview = compareOverviews(*a.overview, *b.overview);
    out.alignment = alignTraces(*a.trace, *a.steps, *b.trace, *b.steps, options.alignStep);
    out.gate = gateMeasure(out.steps, *a.ops, *b.ops);
    out.stepDbA = a.steps;
    out.stepDbB = b.steps;
    return out;
}

namespace {

TraceComparison comparePyTorchTraces(analysis::AnalysisCache &a, analysis::AnalysisCache &b,
                                     const CompareOptions &options)
{
    auto pt = std::make_shared<const PyTorchComparison>(comparePyTorch(a, b, options.noise));
    TraceComparison out;
    out.steps = pt->steps;
    for (int l = 0; l < kOpLevelCount; ++l) {
        const OpLevel level = OpLevel(l);
        out.diffs[size_t(l)] = diffOps(pt->opTablesA.at(level), out.steps.stepCountA,
                                       pt->opTablesB.at(level), out.steps.stepCountB, level,
                                       options.noise);
    }
    out.overview.deviceTypeA = pt->gpusA.empty() ? "CPU" : "GPU";
    out.overview.deviceTypeB = pt->gpusB.empty() ? "CPU" : "GPU";
    out.overview.figures = pt->figures;
    out.stepDbA = pt->stepDbA;
    out.stepDbB = pt->stepDbB;
    out.alignment = alignTraces(a.trace(), *out.stepDbA, b.trace(), *out.stepDbB,
                                options.alignStep);
    out.gate = gateMeasure(out.steps, pt->opTablesA, pt->opTablesB);
    out.pytorch = std::move(pt);
    return out;
}

} // namespace

TraceComparison compareTraces(analysis::AnalysisCache &a, analysis::AnalysisCache &b,
                              const CompareOptions &options)
{
    if (analysis::isPyTorchTrace(a.trace()) && analysis::isPyTorchTrace(b.trace()))
        return comparePyTorchTraces(a, b, options);
    CompareSide sides[2];
    analysis::AnalysisCache *caches[2] = {&a, &b};
    parallelFor(2, 2, [&](unsigned, size_t i) {
        sides[i] = compareSide(*caches[i]);
        return true;
    });
    return compareTraces(sides[0], sides[1], options);
}

std::string formatPercent(double percent)
{
    if (!std::isfinite(percent))
        return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", percent);
    return buf;
}

std::string formatDeltaUs(double us)
{
    if (std::llround(std::abs(us) * 1e6) == 0)
        return "0";
    const std::string magnitude = formatDuration(TimePs(std::llround(std::abs(us) * 1e6)), 2);
    return (us < 0 ? "-" : "+") + magnitude;
}

namespace {

std::string opLabel(const OpDiffRow &row)
{
    return row.where.empty() ? row.name : row.name + " (" + row.where + ")";
}

std::string describe(const OpDiffRow &row, const std::string &per)
{
    std::string text = opLabel(row);
    if (row.change == OpChange::Added)
        return text + " is new in B (" + formatDeltaUs(row.deltaUs) + per + ")";
    if (row.change == OpChange::Removed)
        return text + " is gone in B (" + formatDeltaUs(row.deltaUs) + per + ")";
    return text + " " + formatDeltaUs(row.deltaUs) + per + " (" + formatPercent(row.deltaPercent)
           + ")";
}

// The matched PyTorch operators (device self time per step) as an op diff, largest change first.
OpDiff matchedOperatorDiff(const PyTorchComparison &p)
{
    OpDiff diff;
    diff.stepsA = std::max(p.steps.stepCountA, 1);
    diff.stepsB = std::max(p.steps.stepCountB, 1);
    for (const OperatorDiffRow &r : p.rows(OperatorGrouping::Name)) {
        OpDiffRow row;
        row.name = r.opNameB == r.opName ? r.opName : r.opName + " <-> " + r.opNameB;
        row.category = r.annotation ? "annotation" : "operator";
        row.occurrencesA = r.callsA;
        row.occurrencesB = r.callsB;
        row.perStepUsA = r.deviceSelfUsA / diff.stepsA;
        row.perStepUsB = r.deviceSelfUsB / diff.stepsB;
        row.deltaUs = row.perStepUsB - row.perStepUsA;
        row.deltaPercent = row.perStepUsA > 0 ? 100.0 * row.deltaUs / row.perStepUsA
                                              : std::numeric_limits<double>::quiet_NaN();
        row.change = r.change;
        diff.counts[size_t(row.change)] += 1;
        diff.rows.push_back(std::move(row));
    }
    std::stable_sort(diff.rows.begin(), diff.rows.end(),
                     [](const OpDiffRow &x, const OpDiffRow &y) {
                         return std::abs(x.deltaUs) > std::abs(y.deltaUs);
                     });
    return diff;
}

} // namespace

std::vector<std::string> summaryLines(const TraceComparison &comparison, OpLevel level,
                                      size_t top)
{
    std::vector<std::string> lines;
    const GateMeasure &g = comparison.gate;
    char buf[256];
    const char *verdict = std::abs(g.deltaPercent) < 1.0 ? "about the same"
                          : g.deltaPercent > 0         ? "B is slower"
                                                       : "B is faster";
    std::snprintf(buf, sizeof buf, "%c%s: %s in A, %s in B (%s, %s).", std::toupper(g.what[0]),
                  g.what.c_str() + 1, formatDuration(TimePs(std::llround(g.a * 1e9))).c_str(),
                  formatDuration(TimePs(std::llround(g.b * 1e9))).c_str(),
                  formatPercent(g.deltaPercent).c_str(), verdict);
    lines.emplace_back(buf);

    // PyTorch operators as matched across the traces: one that matched under another name
    // (cuDNN on one GPU, MIOpen on the other) moved, it is not gone on one side and new on the
    // other as the name-keyed diff would say.
    const bool matched = comparison.pytorch && level == OpLevel::Framework;
    const OpDiff operators = matched ? matchedOperatorDiff(*comparison.pytorch) : OpDiff{};
    const OpDiff &diff = matched ? operators : comparison.diff(level);
    std::vector<const OpDiffRow *> worse, better;
    for (const OpDiffRow &row : diff.rows) {
        if ((row.change == OpChange::Slower || row.change == OpChange::Added) && worse.size() < top)
            worse.push_back(&row);
        if ((row.change == OpChange::Faster || row.change == OpChange::Removed)
            && better.size() < top)
            better.push_back(&row);
    }
    const std::string per = comparison.steps.hasSteps() ? " per step" : " in the trace";
    auto list = [&](const char *head, const std::vector<const OpDiffRow *> &rows) {
        std::string text = head;
        for (size_t i = 0; i < rows.size(); ++i)
            text += (i ? "; " : " ") + describe(*rows[i], per);
        lines.push_back(text + ".");
    };
    const std::string what = std::string(opLevelLabel(level)) + "s";
    if (worse.empty())
        lines.push_back("No " + what + " got slower beyond noise.");
    else
        list("Biggest regressions:", worse);
    if (better.empty())
        lines.push_back("No " + what + " got faster beyond noise.");
    else
        list("Biggest improvements:", better);
    std::snprintf(buf, sizeof buf,
                  "%d slower, %d faster, %d added, %d removed, %d unchanged within noise.",
                  diff.count(OpChange::Slower), diff.count(OpChange::Faster),
                  diff.count(OpChange::Added), diff.count(OpChange::Removed),
                  diff.count(OpChange::Unchanged));
    lines.emplace_back(buf);
    return lines;
}

} // namespace tracedesk::core::compare
