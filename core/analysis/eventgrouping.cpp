#include "core/analysis/eventgrouping.h"

#include "core/analysis/eventforest.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace tracedesk::core::analysis {

namespace {

bool spaceIsGrouped(const Trace &trace)
{
    for (const EventKind &k : trace.kinds) {
        if (k.side[size_t(SideColumn::GroupId)] != kNoValue)
            return true;
    }
    for (const Track &t : trace.tracks) {
        for (const Row &r : t.rows) {
            if (!r.side[size_t(SideColumn::GroupId)].empty())
                return true;
        }
    }
    return false;
}

bool isImplicitRoot(std::string_view name)
{
    return name == "FunctionRun" || name == "SessionRun" || name == "RunGraph"
           || name == "ExecutorState::Process";
}

// Marks nodes seen by one breadth-first walk; a new walk starts by bumping the epoch, so no
// per-walk set is allocated (a group can reach millions of slices).
class Visited
{
public:
    explicit Visited(uint32_t size) : m_stamp(size, 0) {}
    void next() { ++m_epoch; }
    bool insert(uint32_t node)
    {
        if (m_stamp[node] == m_epoch)
            return false;
        m_stamp[node] = m_epoch;
        return true;
    }

private:
    std::vector<uint32_t> m_stamp;
    uint32_t m_epoch = 0;
};

// XProf's RootNeedsGrouping: not grouped yet, and no ancestor is a root of the same level.
bool needsGrouping(const EventForest &forest, uint32_t root, int64_t level,
                   const std::vector<int32_t> &group,
                   const std::unordered_map<uint32_t, int64_t> &levels, Visited &seen)
{
    if (group[root] >= 0)
        return false;
    seen.next();
    seen.insert(root);
    std::queue<uint32_t> queue;
    for (uint32_t p : forest.parents(root)) {
        if (seen.insert(p))
            queue.push(p);
    }
    while (!queue.empty()) {
        const uint32_t n = queue.front();
        queue.pop();
        auto it = levels.find(n);
        if (it != levels.end() && it->second == level)
            return false;
        for (uint32_t p : forest.parents(n)) {
            if (seen.insert(p))
                queue.push(p);
        }
    }
    return true;
}

// XProf's PropagateGroupId: breadth-first from the root; a grouped node stops the walk.
void propagate(const EventForest &forest, uint32_t root, int32_t id, std::vector<int32_t> &group,
               Visited &seen)
{
    seen.next();
    seen.insert(root);
    std::queue<uint32_t> queue;
    queue.push(root);
    while (!queue.empty()) {
        const uint32_t n = queue.front();
        queue.pop();
        if (group[n] >= 0)
            continue;
        group[n] = id;
        for (uint32_t c : forest.children(n)) {
            if (seen.insert(c))
                queue.push(c);
        }
    }
}

// XProf's GetGroupName: graph_type (on the root or an ancestor), else the root's name unless
// it is implicit; then iter_num, else step_num, else the group id.
std::string groupName(const Trace &trace, const EventForest &forest, uint32_t root, int64_t id)
{
    std::string name;
    bool hasGraphType = false;
    const std::string graphType = forest.contextString(root, "graph_type", &hasGraphType);
    const std::string_view own = trace.name(forest.slice(root));
    if (hasGraphType)
        name = graphType + " ";
    else if (!isImplicitRoot(own))
        name = std::string(own) + " ";
    int64_t number = forest.contextInt(root, "iter_num");
    if (number == kNoValue)
        number = forest.contextInt(root, "step_num");
    return name + std::to_string(number == kNoValue ? id : number);
}

bool isGpuPlane(std::string_view name)
{
    return name.starts_with("/device:GPU:");
}

// XProf's ProcessUngroupedEvents and DeriveStepEventsFromGroups for one GPU plane.
void deriveGpuSteps(const Trace &trace, uint32_t planeIndex, StepGroups &out)
{
    struct Item
    {
        TimePs begin, end;
        SliceRef slice;
    };
    std::vector<Item> items;
    for (uint32_t t : trace.planes[planeIndex].tracks) {
        const Track &track = trace.tracks[t];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            for (uint32_t i = 0; i < track.rows[r].size(); ++i)
                items.push_back({track.rows[r].start[i], track.rows[r].end(i), {t, r, i}});
        }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    int32_t latest = -1;
    bool open = false;
    for (const Item &it : items) {
        int32_t &g = out.computed[it.slice.track][it.slice.row][it.slice.index];
        if (g >= 0)
            latest = g;
        else if (latest >= 0)
            g = latest;
        if (g < 0)
            continue;
        StepGroups::DeviceStep *last = open ? &out.deviceSteps.back() : nullptr;
        if (last && last->group == g) {
            last->duration = std::max(last->begin + last->duration, it.end) - last->begin;
        } else {
            out.deviceSteps.push_back({planeIndex, g, it.begin, it.end - it.begin});
            open = true;
        }
    }
}

} // namespace

bool StepGroups::isRoot(SliceRef s) const
{
    return std::find(roots.begin(), roots.end(), s) != roots.end();
}

RowGroups::RowGroups(const Trace &trace, const StepGroups &groups, uint32_t track, uint32_t row)
{
    const Row &r = trace.tracks[track].rows[row];
    if (!groups.fromFile) {
        m_computed = &groups.computed[track][row];
        return;
    }
    if (!r.side[size_t(SideColumn::GroupId)].empty())
        m_own = &r.side[size_t(SideColumn::GroupId)];
    m_kinds = trace.kinds.data();
    m_kind = &r.kind;
}

StepGroups computeStepGroups(const Trace &trace)
{
    StepGroups out;
    if (spaceIsGrouped(trace)) {
        out.fromFile = true;
        return out;
    }
    out.computed.resize(trace.tracks.size());
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        out.computed[t].resize(track.rows.size());
        for (size_t r = 0; r < track.rows.size(); ++r)
            out.computed[t][r].assign(track.rows[r].size(), -1);
    }
    // Without a root stat, TraceContext or an executor slice nothing can start a group: skip
    // building the forest (Chrome JSON and Kineto traces end here).
    StringId unused = kEmptyString;
    if (!trace.strings.find("_r", &unused) && !trace.strings.find("TraceContext", &unused)
        && !trace.strings.find("ExecutorState::Process", &unused))
        return out;

    const EventForest forest(trace);
    if (forest.hasLoopOps() || forest.size() == 0)
        return out;
    std::vector<int32_t> group(forest.size(), -1);
    std::unordered_map<uint32_t, int64_t> levels(forest.roots().begin(), forest.roots().end());
    Visited seen(forest.size());

    const auto processRoot = [&](uint32_t root) {
        checkCancelled();
        const auto id = int32_t(out.groupCount++);
        propagate(forest, root, id, group, seen);
        const std::string_view name = trace.name(forest.slice(root));
        out.roots.push_back(forest.slice(root));
        out.names.push_back(groupName(trace, forest, root, id));
        out.stepNamed.push_back(!isImplicitRoot(name));
    };
    if (!forest.loopRoots().empty()) {
        for (uint32_t root : forest.loopRoots())
            processRoot(root);
    } else {
        std::vector<std::pair<uint32_t, int64_t>> roots;
        for (const auto &[node, level] : forest.roots()) {
            const int64_t stepId = forest.intStat(node, "id");
            if (stepId == kNoValue || !forest.isTfDataStep(stepId))
                roots.push_back({node, level});
        }
        std::stable_sort(roots.begin(), roots.end(), [&](const auto &a, const auto &b) {
            if (a.second != b.second)
                return a.second > b.second;
            return trace.start(forest.slice(a.first)) < trace.start(forest.slice(b.first));
        });
        for (const auto &[node, level] : roots) {
            if (needsGrouping(forest, node, level, group, levels, seen))
                processRoot(node);
        }
    }
    for (uint32_t n = 0; n < forest.size(); ++n) {
        const SliceRef s = forest.slice(n);
        out.computed[s.track][s.row][s.index] = group[n];
    }
    if (out.groupCount == 0)
        return out;
    for (uint32_t p = 0; p < trace.planes.size(); ++p) {
        checkCancelled();
        const Plane &plane = trace.planes[p];
        if (plane.kind == PlaneKind::Device && isGpuPlane(trace.string(plane.name)))
            deriveGpuSteps(trace, p, out);
    }
    return out;
}

std::shared_ptr<const StepGroups> stepGroups(AnalysisCache &cache)
{
    return cache.get<StepGroups>([](AnalysisCache &c) { return computeStepGroups(c.trace()); });
}

} // namespace tracedesk::core::analysis
