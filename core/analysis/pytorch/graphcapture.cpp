#include "core/analysis/pytorch/graphcapture.h"

#include "core/analysis/pytorch/operatortree.h"

#include <algorithm>
#include <unordered_map>

namespace tracedesk::core::analysis::pytorch {

namespace {

// Calls that enqueue one graph node when issued on a capturing stream: kernel launches (runtime
// and driver API, CUDA and HIP) and asynchronous copies and sets.
bool isNodeLaunchName(std::string_view n)
{
    if (isGraphLaunchName(n))
        return false;
    if (n.find("LaunchKernel") != std::string_view::npos ||
        n.find("LaunchCooperativeKernel") != std::string_view::npos)
        return true;
    const bool copyOrSet =
        n.find("Memcpy") != std::string_view::npos || n.find("Memset") != std::string_view::npos;
    return copyOrSet && n.find("Async") != std::string_view::npos;
}

struct CaptureWindow
{
    std::vector<uint32_t> launches; // capture-trace runtimes, in launch order
};

std::vector<CaptureWindow> captureWindows(const Trace &capture, const KinetoIndex &index)
{
    std::vector<CaptureWindow> windows;
    for (const KinetoThread &thread : index.threads) {
        bool open = false;
        CaptureWindow current;
        for (uint32_t r = thread.runtimeBegin; r < thread.runtimeEnd; ++r) {
            const std::string_view name = capture.name(index.runtimes[r].ref);
            if (name.find("StreamBeginCapture") != std::string_view::npos) {
                open = true;
                current = {};
            } else if (name.find("StreamEndCapture") != std::string_view::npos) {
                if (open && !current.launches.empty())
                    windows.push_back(std::move(current));
                open = false;
                current = {};
            } else if (open && isNodeLaunchName(name) && index.activitiesOf(r).empty()) {
                current.launches.push_back(r); // enqueued, not run: a graph node
            }
        }
    }
    return windows;
}

} // namespace

bool isGraphLaunchName(std::string_view runtimeName)
{
    return runtimeName.find("GraphLaunch") != std::string_view::npos;
}

GraphCaptureAttribution attributeGraphCapture(const Trace &replay, const KinetoIndex &replayIndex,
                                              const Trace &capture, std::string label)
{
    GraphCaptureAttribution out;
    out.hasCapture = true;
    out.label = std::move(label);
    out.opOfActivity.assign(replayIndex.activities.size(), kNoIndex);

    const auto captureIndex = std::make_shared<const KinetoIndex>(buildKinetoIndex(capture));
    const OperatorTree tree = buildOperatorTree(capture, captureIndex);
    const std::vector<CaptureWindow> windows = captureWindows(capture, *captureIndex);
    out.captureWindows = uint32_t(windows.size());

    std::unordered_map<std::string, uint32_t> opIds;
    auto opId = [&](uint32_t captureRuntime) -> uint32_t {
        const uint32_t node = tree.nodeOfRuntime[captureRuntime];
        if (node == kNoIndex || tree.nodes[node].nodeClass == OpNodeClass::Root)
            return kNoIndex;
        std::string name(tree.nodeName(capture, node));
        auto [it, inserted] = opIds.try_emplace(name, uint32_t(out.opNames.size()));
        if (inserted)
            out.opNames.push_back(std::move(name));
        return it->second;
    };
    // Per window, the capture operator of each node, resolved once.
    std::vector<std::vector<uint32_t>> nodeOps(windows.size());
    for (size_t w = 0; w < windows.size(); ++w) {
        for (uint32_t r : windows[w].launches)
            nodeOps[w].push_back(opId(r));
    }

    std::vector<char> used(windows.size(), 0);
    for (uint32_t r = 0; r < replayIndex.runtimes.size(); ++r) {
        const auto activities = replayIndex.activitiesOf(r);
        if (activities.empty() || !isGraphLaunchName(replay.name(replayIndex.runtimes[r].ref)))
            continue;
        ++out.graphLaunches;
        size_t chosen = windows.size();
        for (size_t w = 0; w < windows.size(); ++w) {
            if (windows[w].launches.size() != activities.size())
                continue;
            if (chosen == windows.size())
                chosen = w; // a repeated replay of an already matched graph
            if (!used[w]) {
                chosen = w;
                break;
            }
        }
        if (chosen == windows.size()) {
            out.unmatchedLaunchSizes.push_back(uint32_t(activities.size()));
            continue;
        }
        used[chosen] = 1;
        ++out.matchedLaunches;
        for (size_t k = 0; k < activities.size(); ++k) {
            const uint32_t op = nodeOps[chosen][k];
            if (op == kNoIndex)
                continue;
            const KinetoActivity &act = replayIndex.activities[activities[k]];
            out.opOfActivity[activities[k]] = op;
            ++out.matchedActivities;
            out.matchedTime += act.end - act.start;
        }
    }
    return out;
}

std::shared_ptr<const GraphCaptureAttribution> graphCaptureAttribution(AnalysisCache &cache)
{
    return cache.get<GraphCaptureAttribution>([](AnalysisCache &c) {
        const auto source =
            c.get<GraphCaptureSource>([](AnalysisCache &) { return GraphCaptureSource{}; });
        if (source->capture)
            return attributeGraphCapture(c.trace(), *kinetoIndex(c), *source->capture,
                                         source->label);
        // Opened together with the replay (the loader attached it).
        if (const TracePtr &capture = c.trace().graphCapture) {
            const auto &files = capture->info.sources;
            std::string label = files.empty() ? std::string("graph capture") : files.front();
            if (const size_t slash = label.find_last_of('/'); slash != std::string::npos)
                label = label.substr(slash + 1);
            return attributeGraphCapture(c.trace(), *kinetoIndex(c), *capture, label);
        }
        return GraphCaptureAttribution{};
    });
}

} // namespace tracedesk::core::analysis::pytorch
