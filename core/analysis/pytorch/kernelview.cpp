#include "core/analysis/pytorch/kernelview.h"

#include "core/analysis/kernels/kernelclasses.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis::pytorch {

namespace {

constexpr double kPsPerUs = 1e6;

// Sums kept in picoseconds (exact) and weighted sums in ps·value.
struct TimesAccumulator
{
    int64_t calls = 0;
    TimePs total = 0;
    TimePs max = 0;
    TimePs min = 0;
    double weightedBlocks = 0;
    double weightedOccupancy = 0;

    void add(TimePs d, double blocksPerSm, double occupancy)
    {
        min = calls == 0 ? d : std::min(min, d);
        max = calls == 0 ? d : std::max(max, d);
        ++calls;
        total += d;
        weightedBlocks += double(d) * blocksPerSm;
        weightedOccupancy += double(d) * occupancy;
    }

    KernelTimes result() const
    {
        KernelTimes t;
        t.calls = calls;
        t.totalUs = double(total) / kPsPerUs;
        t.meanUs = calls > 0 ? t.totalUs / double(calls) : 0;
        t.maxUs = double(max) / kPsPerUs;
        t.minUs = double(min) / kPsPerUs;
        t.meanBlocksPerSm = total > 0 ? weightedBlocks / double(total) : 0;
        t.meanOccupancyPercent = total > 0 ? weightedOccupancy / double(total) : 0;
        return t;
    }
};

struct KernelSample
{
    TimePs duration = 0;
    double blocksPerSm = 0;
    double occupancy = 0;
};

using PropertiesKey = std::tuple<StringId, uint32_t, int64_t, int64_t, int64_t, int64_t>;

int64_t orZero(int64_t v)
{
    return v == kNoValue ? 0 : v;
}

template<typename Row> void sortByTotal(std::vector<Row> &rows)
{
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
        if (a.times.totalUs != b.times.totalUs)
            return a.times.totalUs > b.times.totalUs;
        return std::tie(a.name, a.operatorName) < std::tie(b.name, b.operatorName);
    });
}

} // namespace

KernelView buildKernelView(const Trace &trace, const OperatorTree &tree,
                           const GraphCaptureAttribution *capture)
{
    const KinetoIndex &index = *tree.index;
    KernelView view;
    // Operators are keyed by their name id; the roots (and unknown) by these sentinels.
    constexpr uint32_t kNoLaunchOp = UINT32_MAX - 2; // byNameOperator: no recorded launch
    constexpr uint32_t kRootOp = UINT32_MAX - 1;
    constexpr uint32_t kUnknownOp = UINT32_MAX;
    auto opKey = [&](uint32_t node) -> uint32_t {
        if (node == kNoIndex)
            return kUnknownOp;
        return tree.nodes[node].nodeClass == OpNodeClass::Root ? kRootOp : tree.nodes[node].name;
    };
    auto opName = [&](uint32_t key) -> std::string {
        if (key == kUnknownOp)
            return {};
        if (key == kNoLaunchOp)
            return std::string(kNoRecordedLaunchName);
        return std::string(key == kRootOp ? kCallTreeRootName : trace.string(StringId(key)));
    };

    struct NameGroup
    {
        TimesAccumulator times;
        std::unordered_map<uint32_t, TimePs> timeByOp;
    };
    std::map<StringId, NameGroup> byName;
    std::map<std::tuple<StringId, uint32_t, std::string_view>, TimesAccumulator> byNameOperator;
    view.hasGraphCapture = capture && capture->hasCapture;
    KernelClasses classes(trace);
    auto classOf = [&](StringId name) { return classes.of(name); };
    struct PropertiesGroup
    {
        TimesAccumulator times;
        bool opEligible = false;
    };
    std::map<PropertiesKey, PropertiesGroup> byProperties;
    TimePs total = 0;
    TimePs tensorCore = 0;

    for (uint32_t a = 0; a < index.activities.size(); ++a) {
        const KinetoActivity &act = index.activities[a];
        if (act.role != SliceRole::Kernel)
            continue;
        const SliceRef ref = act.ref;
        KernelSample s;
        s.duration = act.end - act.start;
        const int64_t blocks = trace.side(ref, SideColumn::BlocksPerSm);
        if (blocks != kNoValue) {
            s.blocksPerSm = double(blocks) / 1e6;
            view.hasBlocksPerSm = view.hasBlocksPerSm || blocks > 0;
        }
        const int64_t occupancy = trace.side(ref, SideColumn::Occupancy);
        if (occupancy != kNoValue && occupancy >= 0) {
            s.occupancy = double(occupancy);
            view.hasOccupancy = true;
        }
        const StringId name = trace.kind(ref).name;
        const uint32_t node = tree.nodeOfActivity(a);
        const uint32_t op = opKey(node);

        ++view.kernelCount;
        total += s.duration;
        const KernelClass kc = classOf(name);
        if (kc.tensorCore)
            tensorCore += s.duration;
        view.familyUs[size_t(kc.family)] += double(s.duration) / kPsPerUs;
        if (act.runtime == kNoIndex)
            view.kernelUsWithoutLaunch += double(s.duration) / kPsPerUs;
        else
            view.kernelUsByRule[size_t(tree.ruleOfRuntime[act.runtime])] +=
                double(s.duration) / kPsPerUs;

        NameGroup &g = byName[name];
        g.times.add(s.duration, s.blocksPerSm, s.occupancy);
        g.timeByOp[op] += s.duration;
        const std::string_view captured = capture ? capture->captureOperator(a) : std::string_view();
        view.capturedKernelUs += captured.empty() ? 0.0 : double(s.duration) / kPsPerUs;
        // The plugin files kernels without a launch under the root; this grouping says why.
        const uint32_t launcher = act.runtime == kNoIndex ? kNoLaunchOp : op;
        byNameOperator[{name, launcher, captured}].add(s.duration, s.blocksPerSm, s.occupancy);

        if (node == kNoIndex)
            continue;
        const PropertiesKey key(name, op, orZero(trace.side(ref, SideColumn::Grid)),
                                orZero(trace.side(ref, SideColumn::Block)),
                                orZero(trace.side(ref, SideColumn::Registers)),
                                orZero(trace.side(ref, SideColumn::SharedMemory)));
        PropertiesGroup &p = byProperties[key];
        p.times.add(s.duration, s.blocksPerSm, s.occupancy);
        p.opEligible = tree.nodes[node].tensorCoreEligible;
    }
    view.totalKernelUs = double(total) / kPsPerUs;
    view.tensorCoreKernelUs = double(tensorCore) / kPsPerUs;

    view.byName.reserve(byName.size());
    for (const auto &[name, g] : byName) {
        KernelNameRow row;
        row.name = std::string(trace.string(name));
        row.family = classOf(name).family;
        row.tensorCoresUsed = classOf(name).tensorCore;
        row.times = g.times.result();
        // Most time wins; ties go to the smaller key so the result does not depend on hashing.
        uint32_t best = kUnknownOp;
        TimePs bestTime = -1;
        for (const auto &[op, t] : g.timeByOp) {
            if (t > bestTime || (t == bestTime && op < best)) {
                best = op;
                bestTime = t;
            }
        }
        row.operatorName = opName(best);
        view.byName.push_back(std::move(row));
    }
    sortByTotal(view.byName);

    view.byNameOperator.reserve(byNameOperator.size());
    for (const auto &[key, times] : byNameOperator) {
        KernelNameRow row;
        const StringId name = std::get<0>(key);
        row.name = std::string(trace.string(name));
        row.family = classOf(name).family;
        row.tensorCoresUsed = classOf(name).tensorCore;
        row.operatorName = opName(std::get<1>(key));
        row.captureOperator = std::string(std::get<2>(key));
        row.times = times.result();
        view.byNameOperator.push_back(std::move(row));
    }
    sortByTotal(view.byNameOperator);

    view.byProperties.reserve(byProperties.size());
    for (const auto &[key, g] : byProperties) {
        KernelPropertiesRow row;
        row.name = std::string(trace.string(std::get<0>(key)));
        row.operatorName = opName(std::get<1>(key));
        for (int axis = 0; axis < 3; ++axis) {
            row.grid[axis] = dim3At(std::get<2>(key), axis);
            row.block[axis] = dim3At(std::get<3>(key), axis);
        }
        row.registersPerThread = std::get<4>(key);
        row.sharedMemoryBytes = std::get<5>(key);
        row.family = classOf(std::get<0>(key)).family;
        row.tensorCoresUsed = classOf(std::get<0>(key)).tensorCore;
        row.operatorTensorCoreEligible = g.opEligible;
        row.times = g.times.result();
        view.byProperties.push_back(std::move(row));
    }
    sortByTotal(view.byProperties);
    return view;
}

std::shared_ptr<const KernelView> kernelView(AnalysisCache &cache)
{
    return cache.get<KernelView>([](AnalysisCache &c) {
        return buildKernelView(c.trace(), *operatorTree(c), graphCaptureAttribution(c).get());
    });
}

} // namespace tracedesk::core::analysis::pytorch
