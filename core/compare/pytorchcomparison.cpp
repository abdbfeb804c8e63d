#include "core/compare/pytorchcomparison.h"

#include "core/analysis/pytorch/operatorstats.h"
#include "core/base/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace tracedesk::core::compare {

using namespace analysis::pytorch;
using analysis::KernelFamily;

namespace {

constexpr double kPsPerUs = 1e6;
constexpr double kPsPerMs = 1e9;
constexpr const char *kPathSeparator = " > ";
constexpr const char *kStepInPath = "ProfilerStep#*";

struct Side
{
    TracePtr trace;
    std::shared_ptr<const PyTorchSteps> steps;
    std::shared_ptr<const PyTorchOverview> overview;
    std::shared_ptr<const OperatorTree> tree;
    std::shared_ptr<const OperatorStats> stats;
};

Side sideOf(analysis::AnalysisCache &cache)
{
    Side s;
    s.trace = cache.tracePtr();
    s.tree = operatorTree(cache);
    s.stats = operatorStats(cache);
    s.steps = pytorchSteps(cache);
    s.overview = pytorchOverview(cache);
    return s;
}

// ---- steps ----

analysis::StepInfo stepInfo(const PyTorchStep &step, bool fromMarkers)
{
    analysis::StepInfo info;
    info.name = fromMarkers ? "ProfilerStep#" + step.name
                            : (step.iterationLabel.empty() ? step.name : step.iterationLabel);
    info.begin = step.start;
    info.duration = step.duration();
    return info;
}

std::vector<double> categoriesMs(const StepBreakdown &b)
{
    std::vector<double> v(kBreakdownCategoryCount);
    for (int c = 0; c < kBreakdownCategoryCount; ++c)
        v[size_t(c)] = double(b.cost[size_t(c)]) / kPsPerMs;
    return v;
}

void compareStepsOf(const Side &a, const Side &b, PyTorchComparison &out)
{
    StepComparison &s = out.steps;
    for (int c = 0; c < kBreakdownCategoryCount; ++c) {
        s.categories.emplace_back(breakdownCategoryName(BreakdownCategory(c)));
        out.categoryKeys.emplace_back(breakdownCategoryKey(BreakdownCategory(c)));
    }
    const PyTorchOverview &oa = *a.overview, &ob = *b.overview;
    s.stepCountA = int(oa.steps.size());
    s.stepCountB = int(ob.steps.size());
    s.averageMsA = oa.average.total / kPsPerMs;
    s.averageMsB = ob.average.total / kPsPerMs;
    for (int c = 0; c < kBreakdownCategoryCount; ++c) {
        s.averageCategoryMsA.push_back(oa.average.cost[size_t(c)] / kPsPerMs);
        s.averageCategoryMsB.push_back(ob.average.cost[size_t(c)] / kPsPerMs);
    }
    s.deltaPercent = s.hasSteps() && s.averageMsA > 0
                         ? 100.0 * (s.averageMsB - s.averageMsA) / s.averageMsA
                         : std::numeric_limits<double>::quiet_NaN();

    // Pairs: by step number when both count ProfilerSteps (or number their step ranges with
    // one word), else in order.
    std::vector<std::pair<size_t, size_t>> pairs;
    out.stepsPairedByNumber =
        (a.steps->fromMarkers && b.steps->fromMarkers)
        || (a.steps->fromNumberedRanges && b.steps->fromNumberedRanges
            && a.steps->numberedWord == b.steps->numberedWord);
    if (out.stepsPairedByNumber) {
        std::unordered_map<std::string, size_t> inB;
        for (size_t j = 0; j < b.steps->steps.size(); ++j)
            inB.emplace(b.steps->steps[j].name, j);
        for (size_t i = 0; i < a.steps->steps.size(); ++i) {
            auto it = inB.find(a.steps->steps[i].name);
            if (it != inB.end())
                pairs.emplace_back(i, it->second);
        }
    } else {
        for (size_t i = 0; i < std::min(a.steps->steps.size(), b.steps->steps.size()); ++i)
            pairs.emplace_back(i, i);
    }

    auto dbA = std::make_shared<analysis::StepDb>();
    auto dbB = std::make_shared<analysis::StepDb>();
    for (auto *db : {dbA.get(), dbB.get()}) {
        db->hardware = analysis::StepHardware::Gpu;
        db->stepsArePaired = true;
    }
    for (const auto &[i, j] : pairs) {
        const analysis::StepInfo sa = stepInfo(a.steps->steps[i], a.steps->fromMarkers);
        const analysis::StepInfo sb = stepInfo(b.steps->steps[j], b.steps->fromMarkers);
        StepPair p;
        p.index = int(s.pairs.size());
        p.nameA = sa.name;
        p.nameB = sb.name;
        p.beginA = sa.begin;
        p.beginB = sb.begin;
        p.msA = double(oa.steps[i].total()) / kPsPerMs;
        p.msB = double(ob.steps[j].total()) / kPsPerMs;
        p.categoriesA = categoriesMs(oa.steps[i]);
        p.categoriesB = categoriesMs(ob.steps[j]);
        s.pairs.push_back(std::move(p));
        dbA->steps.push_back(sa);
        dbB->steps.push_back(sb);
    }
    out.stepDbA = std::move(dbA);
    out.stepDbB = std::move(dbB);
}

// ---- operators ----

// One row of one side before matching.
struct SideRow
{
    std::string key; // the grouping's key
    std::string name;
    std::string shapes;
    std::vector<std::string> path; // enclosing operator names, outermost first
    bool annotation = false;
    int64_t calls = 0;
    double hostSelfUs = 0;
    double deviceSelfUs = 0;
    double deviceTotalUs = 0;
    std::vector<uint32_t> nodes;
    std::vector<OperatorKernel> kernels; // what the nodes launched themselves
};

class PathReader
{
public:
    PathReader(const Trace &trace, const OperatorTree &tree)
        : m_trace(trace)
        , m_tree(tree)
    {}

    std::vector<std::string> pathOf(uint32_t node) const
    {
        std::vector<std::string> path;
        for (uint32_t p = m_tree.nodes[node].parent; p != kNoIndex; p = m_tree.nodes[p].parent) {
            const OpNode &n = m_tree.nodes[p];
            if (n.nodeClass == OpNodeClass::Root)
                break;
            path.emplace_back(n.nodeClass == OpNodeClass::ProfilerStep
                                  ? std::string(kStepInPath)
                                  : std::string(m_trace.string(n.name)));
        }
        std::reverse(path.begin(), path.end());
        return path;
    }

    // The path of the node with the most device time (ties: the first).
    std::vector<std::string> dominantPath(const std::vector<uint32_t> &nodes) const
    {
        if (nodes.empty())
            return {};
        uint32_t best = nodes.front();
        for (uint32_t n : nodes) {
            if (m_tree.nodes[n].deviceTotal > m_tree.nodes[best].deviceTotal)
                best = n;
        }
        return pathOf(best);
    }

private:
    const Trace &m_trace;
    const OperatorTree &m_tree;
};

std::string joinPath(const std::vector<std::string> &path)
{
    std::string text;
    for (const std::string &p : path) {
        if (!text.empty())
            text += kPathSeparator;
        text += p;
    }
    return text;
}

std::vector<OperatorKernel> kernelsOf(const Side &side, const std::vector<uint32_t> &nodes)
{
    const Trace &trace = *side.trace;
    const KinetoIndex &index = *side.tree->index;
    std::map<std::pair<StringId, SliceRole>, OperatorKernel> byName;
    for (uint32_t n : nodes) {
        for (uint32_t r : side.tree->nodes[n].runtimes) {
            for (uint32_t a : index.activitiesOf(r)) {
                const KinetoActivity &act = index.activities[a];
                const StringId name = trace.kind(act.ref).name;
                auto [it, inserted] = byName.try_emplace({name, act.role});
                if (inserted) {
                    it->second.name = std::string(trace.string(name));
                    it->second.family = analysis::kernelFamily(it->second.name, act.role);
                }
                it->second.count += 1;
                it->second.us += double(act.end - act.start) / kPsPerUs;
            }
        }
    }
    std::vector<OperatorKernel> out;
    for (auto &[key, k] : byName)
        out.push_back(std::move(k));
    std::sort(out.begin(), out.end(), [](const OperatorKernel &x, const OperatorKernel &y) {
        return x.us != y.us ? x.us > y.us : x.name < y.name;
    });
    return out;
}

// Each row's kernels, read once for the matching and the row.
std::vector<SideRow> withKernels(const Side &side, std::vector<SideRow> rows)
{
    for (SideRow &row : rows)
        row.kernels = kernelsOf(side, row.nodes);
    return rows;
}

std::vector<SideRow> statsRows(const Side &side, OperatorGrouping grouping)
{
    const auto statsGrouping = grouping == OperatorGrouping::NameInputShapes
                                   ? analysis::pytorch::OperatorGrouping::NameInputShapes
                                   : analysis::pytorch::OperatorGrouping::Name;
    PathReader paths(*side.trace, *side.tree);
    std::vector<SideRow> rows;
    for (const OperatorRow &r : side.stats->rows(statsGrouping)) {
        SideRow row;
        row.name = r.opName;
        row.shapes = r.inputShapes;
        row.key = r.opName + '\x1f' + r.inputShapes;
        row.path = paths.dominantPath(r.nodes);
        row.annotation = r.annotation;
        row.calls = r.calls;
        row.hostSelfUs = r.hostSelfUs;
        row.deviceSelfUs = r.deviceSelfUs;
        row.deviceTotalUs = r.deviceTotalUs;
        row.nodes = r.nodes;
        rows.push_back(std::move(row));
    }
    return rows;
}

// One row per (call path, name) over the nodes the name grouping holds.
std::vector<SideRow> callPathRows(const Side &side)
{
    PathReader paths(*side.trace, *side.tree);
    std::map<std::string, size_t> byKey;
    std::vector<SideRow> rows;
    for (const OperatorRow &r : side.stats->byName) {
        for (uint32_t n : r.nodes) {
            const OpNode &node = side.tree->nodes[n];
            std::vector<std::string> path = paths.pathOf(n);
            std::string key = joinPath(path) + kPathSeparator + r.opName;
            auto [it, inserted] = byKey.try_emplace(std::move(key), rows.size());
            if (inserted) {
                SideRow row;
                row.key = it->first;
                row.name = r.opName;
                row.path = std::move(path);
                row.annotation = r.annotation;
                rows.push_back(std::move(row));
            }
            SideRow &row = rows[it->second];
            row.calls += 1;
            row.hostSelfUs += double(node.hostSelf) / kPsPerUs;
            row.deviceSelfUs += double(node.deviceSelf) / kPsPerUs;
            row.deviceTotalUs += double(node.deviceTotal) / kPsPerUs;
            row.nodes.push_back(n);
        }
    }
    return rows;
}

std::vector<FamilyTimes> familiesOf(const std::vector<OperatorKernel> &a,
                                    const std::vector<OperatorKernel> &b)
{
    std::array<FamilyTimes, analysis::kKernelFamilyCount> f{};
    std::array<bool, analysis::kKernelFamilyCount> seen{};
    for (const OperatorKernel &k : a) {
        const size_t i = size_t(k.family);
        f[i].countA += k.count;
        f[i].usA += k.us;
        seen[i] = true;
    }
    for (const OperatorKernel &k : b) {
        const size_t i = size_t(k.family);
        f[i].countB += k.count;
        f[i].usB += k.us;
        seen[i] = true;
    }
    std::vector<FamilyTimes> out;
    for (size_t i = 0; i < f.size(); ++i) {
        if (seen[i]) {
            f[i].family = KernelFamily(i);
            out.push_back(f[i]);
        }
    }
    std::sort(out.begin(), out.end(), [](const FamilyTimes &x, const FamilyTimes &y) {
        const double mx = std::max(x.usA, x.usB), my = std::max(y.usA, y.usB);
        return mx != my ? mx > my : x.family < y.family;
    });
    return out;
}

struct Matcher
{
    double stepsA = 1;
    double stepsB = 1;
    NoiseThreshold noise;

    OperatorDiffRow row(const SideRow *ra, const SideRow *rb, OperatorMatch match) const
    {
        OperatorDiffRow r;
        const SideRow &any = ra ? *ra : *rb;
        r.opName = any.name;
        r.opNameB = rb ? rb->name : any.name;
        r.inputShapes = any.shapes;
        r.callPath = joinPath(any.path);
        r.match = match;
        r.inA = ra != nullptr;
        r.inB = rb != nullptr;
        r.annotation = any.annotation;
        if (ra) {
            r.callsA = ra->calls;
            r.hostSelfUsA = ra->hostSelfUs;
            r.deviceSelfUsA = ra->deviceSelfUs;
            r.deviceTotalUsA = ra->deviceTotalUs;
            r.kernelsA = ra->kernels;
        }
        if (rb) {
            r.callsB = rb->calls;
            r.hostSelfUsB = rb->hostSelfUs;
            r.deviceSelfUsB = rb->deviceSelfUs;
            r.deviceTotalUsB = rb->deviceTotalUs;
            r.kernelsB = rb->kernels;
        }
        r.deltaUs = r.deviceSelfUsB - r.deviceSelfUsA;
        r.deltaPercent = r.deviceSelfUsA > 0 ? 100.0 * r.deltaUs / r.deviceSelfUsA
                                             : std::numeric_limits<double>::quiet_NaN();
        r.change =
            classifyChange(r.deviceSelfUsA / stepsA, r.deviceSelfUsB / stepsB, r.inA, r.inB, noise);
        r.families = familiesOf(r.kernelsA, r.kernelsB);
        return r;
    }

    bool sameKindOfWork(const SideRow &x, const SideRow &y) const
    {
        if (x.kernels.empty() || y.kernels.empty())
            return x.kernels.empty() && y.kernels.empty();
        for (const OperatorKernel &p : x.kernels) {
            for (const OperatorKernel &q : y.kernels) {
                if (p.family == q.family)
                    return true;
            }
        }
        return false;
    }

    // Exact keys first, then the rest by call path (shallowest first, B's paired names read as
    // A's in deeper paths), then what is left on either side.
    std::vector<OperatorDiffRow> match(const std::vector<SideRow> &rowsA,
                                       const std::vector<SideRow> &rowsB, OperatorMatch exact) const
    {
        std::vector<OperatorDiffRow> out;
        std::unordered_map<std::string, size_t> keyB;
        for (size_t j = 0; j < rowsB.size(); ++j)
            keyB.emplace(rowsB[j].key, j);
        std::vector<bool> usedA(rowsA.size()), usedB(rowsB.size());
        for (size_t i = 0; i < rowsA.size(); ++i) {
            auto it = keyB.find(rowsA[i].key);
            if (it == keyB.end())
                continue;
            usedA[i] = usedB[it->second] = true;
            out.push_back(row(&rowsA[i], &rowsB[it->second], exact));
        }

        std::unordered_map<std::string, std::string> aliasOfB; // B name -> A name
        auto read = [&](const std::string &name, bool sideB) -> const std::string & {
            auto alias = sideB ? aliasOfB.find(name) : aliasOfB.end();
            return alias != aliasOfB.end() ? alias->second : name;
        };
        auto keyOf = [&](const SideRow &r, bool sideB, bool withName) {
            std::string key;
            for (const std::string &p : r.path)
                key += read(p, sideB) + kPathSeparator;
            return key + '\x1f' + (withName ? read(r.name, sideB) : std::string()) + '\x1f' +
                   r.shapes;
        };
        size_t depth = 0;
        for (const SideRow &r : rowsA)
            depth = std::max(depth, r.path.size());
        for (const SideRow &r : rowsB)
            depth = std::max(depth, r.path.size());
        auto byDevice = [](const std::vector<SideRow> &rows) {
            return [&rows](size_t x, size_t y) {
                return rows[x].deviceTotalUs != rows[y].deviceTotalUs
                           ? rows[x].deviceTotalUs > rows[y].deviceTotalUs
                           : rows[x].key < rows[y].key;
            };
        };
        // At one depth: rows under the same (aliased) path, first those of the same name, then
        // one left on each side under that path whose kernels are of a common family (or
        // neither launched any): two ops in one place doing the same kind of work.
        auto pairAt = [&](size_t d, bool withName) {
            std::map<std::string, std::vector<size_t>> leftA, leftB;
            for (size_t i = 0; i < rowsA.size(); ++i) {
                if (!usedA[i] && rowsA[i].path.size() == d && !rowsA[i].annotation)
                    leftA[keyOf(rowsA[i], false, withName)].push_back(i);
            }
            for (size_t j = 0; j < rowsB.size(); ++j) {
                if (!usedB[j] && rowsB[j].path.size() == d && !rowsB[j].annotation)
                    leftB[keyOf(rowsB[j], true, withName)].push_back(j);
            }
            for (auto &[key, as] : leftA) {
                auto it = leftB.find(key);
                if (it == leftB.end())
                    continue;
                std::vector<size_t> &bs = it->second;
                if (!withName && (as.size() != 1 || bs.size() != 1 ||
                                  !sameKindOfWork(rowsA[as[0]], rowsB[bs[0]])))
                    continue;
                std::sort(as.begin(), as.end(), byDevice(rowsA));
                std::sort(bs.begin(), bs.end(), byDevice(rowsB));
                for (size_t k = 0; k < std::min(as.size(), bs.size()); ++k) {
                    usedA[as[k]] = usedB[bs[k]] = true;
                    if (rowsB[bs[k]].name != rowsA[as[k]].name)
                        aliasOfB.emplace(rowsB[bs[k]].name, rowsA[as[k]].name);
                    out.push_back(row(&rowsA[as[k]], &rowsB[bs[k]], OperatorMatch::CallPath));
                }
            }
        };
        for (size_t d = 0; d <= depth; ++d) {
            pairAt(d, true);
            pairAt(d, false);
        }
        for (size_t i = 0; i < rowsA.size(); ++i) {
            if (!usedA[i])
                out.push_back(row(&rowsA[i], nullptr, OperatorMatch::Unmatched));
        }
        for (size_t j = 0; j < rowsB.size(); ++j) {
            if (!usedB[j])
                out.push_back(row(nullptr, &rowsB[j], OperatorMatch::Unmatched));
        }
        std::sort(out.begin(), out.end(), [](const OperatorDiffRow &x, const OperatorDiffRow &y) {
            const double dx = std::abs(x.deltaUs), dy = std::abs(y.deltaUs);
            if (dx != dy)
                return dx > dy;
            const double mx = std::max(x.deviceSelfUsA, x.deviceSelfUsB);
            const double my = std::max(y.deviceSelfUsA, y.deviceSelfUsB);
            if (mx != my)
                return mx > my;
            return std::tie(x.opName, x.callPath, x.inputShapes) <
                   std::tie(y.opName, y.callPath, y.inputShapes);
        });
        return out;
    }
};

OperatorMatchSummary summarize(const std::vector<OperatorDiffRow> &rows)
{
    OperatorMatchSummary s;
    for (const OperatorDiffRow &r : rows) {
        if (r.annotation)
            continue;
        s.operatorsA += r.inA;
        s.operatorsB += r.inB;
        s.deviceSelfUsA += r.deviceSelfUsA;
        s.deviceSelfUsB += r.deviceSelfUsB;
        switch (r.match) {
        case OperatorMatch::Name:
            ++s.byName;
            break;
        case OperatorMatch::CallPath:
            ++s.byCallPath;
            break;
        case OperatorMatch::Unmatched:
            (r.inA ? s.onlyA : s.onlyB) += 1;
            break;
        }
        if (r.match != OperatorMatch::Unmatched) {
            s.matchedDeviceSelfUsA += r.deviceSelfUsA;
            s.matchedDeviceSelfUsB += r.deviceSelfUsB;
        }
    }
    return s;
}

// The framework level of the op diff: each operator's device self time (where = Device, when
// it has any) and host self time (where = Host).
OpTables opTablesOf(const Side &side)
{
    OpTables t;
    std::vector<OpTotals> &rows = t.levels[size_t(OpLevel::Framework)];
    for (const OperatorRow &r : side.stats->byName) {
        const char *category = r.annotation ? "annotation" : "operator";
        if (r.deviceTotalUs > 0) {
            rows.push_back({r.opName, category, kWhereDevice, r.calls,
                            TimePs(std::llround(r.deviceTotalUs * kPsPerUs)),
                            TimePs(std::llround(r.deviceSelfUs * kPsPerUs))});
            t.deviceOpTimePs += rows.back().selfPs;
        }
        rows.push_back({r.opName, category, kWhereHost, r.calls,
                        TimePs(std::llround(r.hostTotalUs * kPsPerUs)),
                        TimePs(std::llround(r.hostSelfUs * kPsPerUs))});
        t.hostOpTimePs += rows.back().selfPs;
    }
    t.levels[size_t(OpLevel::Kernel)] = scanKernelTotals(*side.trace);
    return t;
}

const PyTorchGpuMetrics *firstGpu(const PyTorchOverview &o)
{
    return o.gpus.empty() ? nullptr : &o.gpus.front();
}

std::vector<OverviewFigure> figuresOf(const Side &a, const Side &b, const StepComparison &s)
{
    std::vector<OverviewFigure> f;
    f.push_back({"Steps", "", double(s.stepCountA), double(s.stepCountB), true});
    f.push_back({"Average step time", "ms", s.averageMsA, s.averageMsB, false});
    for (size_t c = 0; c < s.categories.size(); ++c) {
        if (!a.overview->categoryPresent(BreakdownCategory(c)) &&
            !b.overview->categoryPresent(BreakdownCategory(c)))
            continue;
        f.push_back({s.categories[c] + " per step", "ms", s.averageCategoryMsA[c],
                     s.averageCategoryMsB[c], false});
    }
    const PyTorchGpuMetrics *ga = firstGpu(*a.overview), *gb = firstGpu(*b.overview);
    auto metric = [&](const char *label, auto get, double scale, bool higherBetter) {
        const std::optional<double> va = ga ? get(*ga) : std::nullopt;
        const std::optional<double> vb = gb ? get(*gb) : std::nullopt;
        if (va || vb)
            f.push_back({label, "%", va.value_or(0) * scale, vb.value_or(0) * scale, higherBetter});
    };
    metric(
        "GPU utilization", [](const PyTorchGpuMetrics &g) { return g.utilization; }, 100.0, true);
    metric(
        "Est. SM efficiency", [](const PyTorchGpuMetrics &g) { return g.smEfficiency; }, 100.0,
        true);
    metric(
        "Est. achieved occupancy", [](const PyTorchGpuMetrics &g) { return g.achievedOccupancy; },
        1.0, true);
    metric(
        "Kernel time using Tensor Cores",
        [](const PyTorchGpuMetrics &g) { return g.tensorCoreRatio; }, 100.0, true);
    return f;
}

} // namespace

const char *operatorMatchName(OperatorMatch match)
{
    switch (match) {
    case OperatorMatch::Name:
        return "name";
    case OperatorMatch::CallPath:
        return "call_path";
    case OperatorMatch::Unmatched:
        break;
    }
    return "unmatched";
}

const char *operatorGroupingName(OperatorGrouping grouping)
{
    switch (grouping) {
    case OperatorGrouping::Name:
        return "name";
    case OperatorGrouping::NameInputShapes:
        return "shapes";
    case OperatorGrouping::CallPath:
        break;
    }
    return "call_path";
}

const char *operatorGroupingLabel(OperatorGrouping grouping)
{
    switch (grouping) {
    case OperatorGrouping::Name:
        return "Name";
    case OperatorGrouping::NameInputShapes:
        return "Name + input shapes";
    case OperatorGrouping::CallPath:
        break;
    }
    return "Call path";
}

bool parseOperatorGrouping(std::string_view text, OperatorGrouping *grouping)
{
    for (int g = 0; g < kOperatorGroupingCount; ++g) {
        if (text == operatorGroupingName(OperatorGrouping(g))) {
            *grouping = OperatorGrouping(g);
            return true;
        }
    }
    return false;
}

int64_t OperatorDiffRow::kernelCount(bool b) const
{
    int64_t n = 0;
    for (const OperatorKernel &k : b ? kernelsB : kernelsA)
        n += k.count;
    return n;
}

double OperatorDiffRow::kernelUs(bool b) const
{
    double us = 0;
    for (const OperatorKernel &k : b ? kernelsB : kernelsA)
        us += k.us;
    return us;
}

PyTorchComparison comparePyTorch(analysis::AnalysisCache &a, analysis::AnalysisCache &b,
                                 const NoiseThreshold &noise)
{
    Side sides[2];
    analysis::AnalysisCache *caches[2] = {&a, &b};
    parallelFor(2, 2, [&](unsigned, size_t i) {
        sides[i] = sideOf(*caches[i]);
        return true;
    });
    const Side &sa = sides[0], &sb = sides[1];

    PyTorchComparison out;
    compareStepsOf(sa, sb, out);
    Matcher m{double(std::max<size_t>(sa.steps->steps.size(), 1)),
              double(std::max<size_t>(sb.steps->steps.size(), 1)), noise};
    auto matchRows = [&](OperatorGrouping g, std::vector<SideRow> rowsA,
                         std::vector<SideRow> rowsB) {
        out.operators[size_t(g)] = m.match(
            withKernels(sa, std::move(rowsA)), withKernels(sb, std::move(rowsB)),
            g == OperatorGrouping::CallPath ? OperatorMatch::CallPath : OperatorMatch::Name);
    };
    for (const OperatorGrouping g : {OperatorGrouping::Name, OperatorGrouping::NameInputShapes})
        matchRows(g, statsRows(sa, g), statsRows(sb, g));
    matchRows(OperatorGrouping::CallPath, callPathRows(sa), callPathRows(sb));
    out.match = summarize(out.rows(OperatorGrouping::Name));
    out.gpusA = sa.overview->gpus;
    out.gpusB = sb.overview->gpus;
    out.figures = figuresOf(sa, sb, out.steps);
    out.opTablesA = opTablesOf(sa);
    out.opTablesB = opTablesOf(sb);
    return out;
}

} // namespace tracedesk::core::compare
