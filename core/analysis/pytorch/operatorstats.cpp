#include "core/analysis/pytorch/operatorstats.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tracedesk::core::analysis::pytorch {

namespace {

constexpr double kPsPerUs = 1e6;

// Grouping key: interned ids, so one map lookup per node and no string building.
using GroupKey = std::tuple<StringId, StringId, StringId>;

struct Accumulator
{
    OperatorRow row;
    TimePs hostSelf = 0;
    TimePs hostTotal = 0;
    TimePs deviceSelf = 0;
    TimePs deviceTotal = 0;
    TimePs tcSelf = 0;
    TimePs tcTotal = 0;
};

StringId stringSide(const Trace &trace, SliceRef ref, SideColumn column)
{
    const int64_t v = trace.side(ref, column);
    return v == kNoValue || v < 0 ? kEmptyString : StringId(v);
}

std::vector<OperatorRow> group(const Trace &trace, const OperatorTree &tree, bool byShapes,
                               bool byStack, bool hasDevice)
{
    std::map<GroupKey, Accumulator> groups;
    for (uint32_t id = 0; id < tree.nodes.size(); ++id) {
        const OpNode &node = tree.nodes[id];
        const bool annotation = node.nodeClass == OpNodeClass::Annotation;
        if ((!node.isOperator && !annotation) || node.mergedInto != kNoIndex)
            continue;
        const SliceRef ref = tree.index->nodes[node.indexNode].ref;
        const StringId shapes =
            byShapes ? stringSide(trace, ref, SideColumn::InputShapes) : kEmptyString;
        const StringId stack =
            byStack ? stringSide(trace, ref, SideColumn::CallStack) : kEmptyString;
        if (byStack && stack == kEmptyString)
            continue;
        auto [it, inserted] = groups.try_emplace(GroupKey(node.name, shapes, stack));
        Accumulator &acc = it->second;
        if (inserted) {
            acc.row.opName = std::string(trace.string(node.name));
            acc.row.inputShapes = std::string(trace.string(shapes));
            acc.row.callStack = std::string(trace.string(stack));
            acc.row.tensorCoreEligible = node.tensorCoreEligible;
            acc.row.annotation = annotation;
        }
        ++acc.row.calls;
        acc.row.nodes.push_back(id);
        acc.hostSelf += node.hostSelf;
        acc.hostTotal += node.hostTotal;
        acc.deviceSelf += node.deviceSelf;
        acc.deviceTotal += node.deviceTotal;
        acc.tcSelf += node.tensorCoreSelf;
        acc.tcTotal += node.tensorCoreTotal;
    }
    std::vector<OperatorRow> rows;
    rows.reserve(groups.size());
    for (auto &[key, acc] : groups) {
        OperatorRow &row = acc.row;
        row.hostSelfUs = double(acc.hostSelf) / kPsPerUs;
        row.hostTotalUs = double(acc.hostTotal) / kPsPerUs;
        row.deviceSelfUs = double(acc.deviceSelf) / kPsPerUs;
        row.deviceTotalUs = double(acc.deviceTotal) / kPsPerUs;
        row.tensorCoreSelfPercent =
            acc.deviceSelf > 0 ? 100.0 * double(acc.tcSelf) / double(acc.deviceSelf) : 0;
        row.tensorCoreTotalPercent =
            acc.deviceTotal > 0 ? 100.0 * double(acc.tcTotal) / double(acc.deviceTotal) : 0;
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [&](const OperatorRow &a, const OperatorRow &b) {
        const double ka = hasDevice ? a.deviceSelfUs : a.hostSelfUs;
        const double kb = hasDevice ? b.deviceSelfUs : b.hostSelfUs;
        if (ka != kb)
            return ka > kb;
        return std::tie(a.opName, a.inputShapes, a.callStack) <
               std::tie(b.opName, b.inputShapes, b.callStack);
    });
    return rows;
}

} // namespace

const std::vector<OperatorRow> &OperatorStats::rows(OperatorGrouping grouping) const
{
    switch (grouping) {
    case OperatorGrouping::Name:
        return byName;
    case OperatorGrouping::NameInputShapes:
        return byNameInputShapes;
    case OperatorGrouping::NameCallStack:
        return byNameCallStack;
    case OperatorGrouping::NameInputShapesCallStack:
        return byNameInputShapesCallStack;
    }
    return byName;
}

OperatorStats buildOperatorStats(const Trace &trace, const OperatorTree &tree)
{
    OperatorStats stats;
    stats.hasDeviceColumns = tree.index->hasDeviceActivities;
    for (int r = 0; r < kLaunchRuleCount; ++r)
        stats.deviceUsByRule[size_t(r)] = double(tree.deviceTimeByRule[size_t(r)]) / kPsPerUs;
    stats.deviceUsWithoutLaunch = double(tree.deviceTimeWithoutLaunch) / kPsPerUs;
    const bool device = stats.hasDeviceColumns;
    stats.byName = group(trace, tree, false, false, device);
    stats.byNameInputShapes = group(trace, tree, true, false, device);
    stats.byNameCallStack = group(trace, tree, false, true, device);
    stats.byNameInputShapesCallStack = group(trace, tree, true, true, device);
    return stats;
}

std::vector<CapturedOperatorRow> capturedOperators(const KinetoIndex &index,
                                                   const GraphCaptureAttribution &capture)
{
    std::vector<CapturedOperatorRow> rows(capture.opNames.size());
    for (size_t op = 0; op < rows.size(); ++op)
        rows[op].opName = capture.opNames[op];
    for (uint32_t a = 0; a < capture.opOfActivity.size() && a < index.activities.size(); ++a) {
        const uint32_t op = capture.opOfActivity[a];
        if (op == kNoIndex)
            continue;
        ++rows[op].activities;
        rows[op].deviceUs += double(index.activities[a].end - index.activities[a].start) / kPsPerUs;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
        return a.deviceUs != b.deviceUs ? a.deviceUs > b.deviceUs : a.opName < b.opName;
    });
    return rows;
}

std::shared_ptr<const OperatorStats> operatorStats(AnalysisCache &cache)
{
    return cache.get<OperatorStats>([](AnalysisCache &c) {
        const auto tree = operatorTree(c);
        OperatorStats stats = buildOperatorStats(c.trace(), *tree);
        const auto capture = graphCaptureAttribution(c);
        stats.hasGraphCapture = capture->hasCapture;
        if (capture->hasCapture)
            stats.captured = capturedOperators(*tree->index, *capture);
        return stats;
    });
}

} // namespace tracedesk::core::analysis::pytorch
