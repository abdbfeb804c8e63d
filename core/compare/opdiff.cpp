#include "core/compare/opdiff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tracedesk::core::compare {

const char *opChangeName(OpChange change)
{
    switch (change) {
    case OpChange::Slower: return "slower";
    case OpChange::Faster: return "faster";
    case OpChange::Added: return "added";
    case OpChange::Removed: return "removed";
    case OpChange::Unchanged: return "unchanged";
    }
    return "";
}

OpChange classifyChange(double perStepUsA, double perStepUsB, bool inA, bool inB,
                        const NoiseThreshold &noise)
{
    if (inA && !inB)
        return OpChange::Removed;
    if (!inA && inB)
        return OpChange::Added;
    const double delta = perStepUsB - perStepUsA;
    const double threshold = std::max(noise.relative * perStepUsA, noise.absoluteUsPerStep);
    if (std::abs(delta) < threshold)
        return OpChange::Unchanged;
    return delta > 0 ? OpChange::Slower : OpChange::Faster;
}

OpDiff diffOps(const std::vector<OpTotals> &a, int stepsA, const std::vector<OpTotals> &b,
               int stepsB, OpLevel level, const NoiseThreshold &noise)
{
    OpDiff diff;
    diff.level = level;
    diff.stepsA = std::max(stepsA, 1);
    diff.stepsB = std::max(stepsB, 1);

    // Matched by text: the two traces intern their strings independently.
    std::map<std::pair<std::string_view, std::string_view>, size_t> index;
    auto rowFor = [&](const OpTotals &op) -> OpDiffRow & {
        auto [it, added] = index.try_emplace({op.where, op.name}, diff.rows.size());
        if (added) {
            OpDiffRow row;
            row.name = op.name;
            row.category = op.category;
            row.where = op.where;
            diff.rows.push_back(std::move(row));
        }
        return diff.rows[it->second];
    };
    // Reserve first: rowFor keys point into the input vectors, which outlive the map.
    diff.rows.reserve(a.size() + b.size());
    for (const OpTotals &op : a) {
        OpDiffRow &row = rowFor(op);
        row.occurrencesA += op.occurrences;
        row.totalA += op.totalPs;
        row.selfA += op.selfPs;
    }
    for (const OpTotals &op : b) {
        OpDiffRow &row = rowFor(op);
        if (row.category.empty())
            row.category = op.category;
        row.occurrencesB += op.occurrences;
        row.totalB += op.totalPs;
        row.selfB += op.selfPs;
    }
    for (OpDiffRow &row : diff.rows) {
        row.perStepUsA = double(row.selfA) / 1e6 / diff.stepsA;
        row.perStepUsB = double(row.selfB) / 1e6 / diff.stepsB;
        row.deltaUs = row.perStepUsB - row.perStepUsA;
        row.deltaPercent = row.perStepUsA > 0 ? 100.0 * row.deltaUs / row.perStepUsA
                                              : std::numeric_limits<double>::quiet_NaN();
        row.change = classifyChange(row.perStepUsA, row.perStepUsB, row.occurrencesA > 0,
                                    row.occurrencesB > 0, noise);
        ++diff.counts[size_t(row.change)];
        if (row.change == OpChange::Slower || row.change == OpChange::Added)
            diff.slowerUs += row.deltaUs;
        else if (row.change == OpChange::Faster || row.change == OpChange::Removed)
            diff.fasterUs += row.deltaUs;
    }
    std::sort(diff.rows.begin(), diff.rows.end(), [](const OpDiffRow &x, const OpDiffRow &y) {
        const double ax = std::abs(x.deltaUs), ay = std::abs(y.deltaUs);
        if (ax != ay)
            return ax > ay;
        if (x.name != y.name)
            return x.name < y.name;
        return x.where < y.where;
    });
    return diff;
}

} // namespace tracedesk::core::compare
