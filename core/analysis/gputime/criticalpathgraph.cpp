#include "core/analysis/gputime/criticalpathgraph.h"

#include "core/base/cancel.h"
#include "core/model/launchcalls.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tracedesk::core::analysis::gputime {

namespace {

using pytorch::KinetoActivity;
using pytorch::KinetoIndex;
using pytorch::KinetoRuntime;
using pytorch::kNoIndex;

constexpr TimePs kKernelKernelDelayThreshold = TimePs(kKernelKernelDelayThresholdUs * 1e6);

bool isBlockingCall(std::string_view n)
{
    return n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventQuery" ||
           n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cudaMemcpyAsync" ||
           n == "hipDeviceSynchronize" || n == "hipStreamSynchronize" || n == "hipEventQuery" ||
           n == "hipEventSynchronize" || n == "hipMemcpy" || n == "hipMemcpyAsync" ||
           n == "hipMemcpyWithStream"; // a synchronous copy on a stream: it waits for the stream
}

// Calls serialised by the CUDA runtime's lock: only one makes progress at a time.
bool holdsRuntimeLock(std::string_view n)
{
    return n == "cudaHostAlloc" || n == "cudaLaunchKernel" || n == "cudaMemcpyAsync";
}

constexpr uint32_t startNode(uint32_t event)
{
    return event * 2;
}
constexpr uint32_t endNode(uint32_t event)
{
    return event * 2 + 1;
}
constexpr bool isStartNode(uint32_t node)
{
    return node % 2 == 0;
}

using StreamKey = std::pair<int64_t, int64_t>; // device, stream

// A cuda_sync event as the kernel pass reads it.
struct SyncEvent
{
    std::string_view name;
    TimePs end = 0;
    int64_t device = 0;
    int64_t stream = 0;
    uint32_t runtime = kNoIndex; // the CPU call that waited or recorded the wait
    int64_t waitOnStream = kNoValue;
    int64_t recordCorrelation = kNoValue; // the cudaEventRecord waited on
};

class GraphBuilder
{
public:
    GraphBuilder(const Trace &trace, const KinetoIndex &index,
                 const std::optional<TimeWindow> &window)
        : m_trace(trace)
        , m_index(index)
        , m_window(window)
    {
        m_graph.window = window ? *window : TimeWindow{trace.begin, trace.end, "whole trace"};
    }

    CriticalPathGraph build(size_t maxEvents)
    {
        if (const size_t events = eventsInWindow(); events > maxEvents) {
            m_graph.error = "the window holds " + std::to_string(events)
                            + " CPU operators, launches and GPU activities, more than the "
                            + std::to_string(maxEvents)
                            + " a critical path is searched over; choose a step or a "
                              "narrower window";
            return std::move(m_graph);
        }
        addCpuEvents();
        addGpuEvents();
        linkRuntimeLock();
        for (const std::vector<uint32_t> &thread : m_threadEvents)
            linkCallStack(thread);
        linkGpuWork();
        weighUnsyncedWaits();
        return std::move(m_graph);
    }

private:
    bool inWindow(TimePs t) const
    {
        return !m_window || (t >= m_window->start && t <= m_window->end);
    }

    // The graph's events: CPU operators and launch calls starting in the window, and the GPU
    // work of those launches.
    bool takes(const pytorch::KinetoNode &node) const
    {
        return node.role == SliceRole::CpuOp && node.end > node.start && inWindow(node.start);
    }
    bool takes(const KinetoRuntime &rt) const { return rt.end > rt.start && inWindow(rt.start); }
    bool takes(const KinetoActivity &act) const
    {
        return act.runtime != kNoIndex && takes(m_index.runtimes[act.runtime]);
    }

    // What addCpuEvents and addGpuEvents will add, counted before anything is allocated.
    size_t eventsInWindow() const
    {
        size_t count = 0;
        for (const pytorch::KinetoNode &node : m_index.nodes)
            count += takes(node);
        for (const KinetoRuntime &rt : m_index.runtimes)
            count += takes(rt);
        for (const KinetoActivity &act : m_index.activities)
            count += takes(act);
        return count;
    }

    uint32_t addEvent(SliceRef ref, TimePs start, TimePs end, bool gpu)
    {
        PathEvent e;
        e.ref = ref;
        e.start = start;
        e.end = end;
        e.gpu = gpu;
        m_graph.events.push_back(e);
        return uint32_t(m_graph.events.size() - 1);
    }

    void addEdge(uint32_t from, uint32_t to, PathEdgeKind kind, uint32_t event = kNoIndex,
                 bool zeroWeight = false)
    {
        PathEdge e;
        e.from = from;
        e.to = to;
        e.kind = kind;
        const bool timed =
            kind != PathEdgeKind::Dependency && kind != PathEdgeKind::Sync && !zeroWeight;
        e.weight = timed ? std::max<TimePs>(0, m_graph.nodeTime(to) - m_graph.nodeTime(from)) : 0;
        e.event = event;
        m_graph.edges.push_back(e);
    }

    // HTA's attribution: a start node's event, else the end node's, else (between siblings)
    // their parent.
    uint32_t attributed(uint32_t from, uint32_t to, uint32_t siblingsParent) const
    {
        if (isStartNode(from))
            return from / 2;
        if (!isStartNode(to))
            return to / 2;
        return siblingsParent;
    }

    // The only thread whose operators or annotations name `part`, else kNoIndex.
    uint32_t onlyThreadNaming(std::string_view part) const
    {
        uint32_t found = kNoIndex;
        for (uint32_t t = 0; t < m_index.threads.size(); ++t) {
            const pytorch::KinetoThread &thread = m_index.threads[t];
            for (uint32_t n = thread.nodeBegin; n < thread.nodeEnd; ++n) {
                const pytorch::KinetoNode &node = m_index.nodes[n];
                if ((node.role != SliceRole::CpuOp && node.role != SliceRole::UserAnnotation) ||
                    node.end <= node.start || !inWindow(node.start) ||
                    m_trace.name(node.ref).find(part) == std::string_view::npos)
                    continue;
                if (found != kNoIndex && found != t)
                    return kNoIndex;
                found = t;
                break;
            }
        }
        return found;
    }

    void addCpuEvents()
    {
        // Backward and forward passes run on two threads but one after the other: one stack.
        std::vector<uint32_t> stackOf(m_index.threads.size());
        for (uint32_t t = 0; t < stackOf.size(); ++t)
            stackOf[t] = t;
        const uint32_t forward = onlyThreadNaming("forward");
        const uint32_t backward = onlyThreadNaming("autograd");
        if (forward != kNoIndex && backward != kNoIndex && forward != backward)
            stackOf[backward] = forward;
        m_threadEvents.resize(m_index.threads.size());
        m_eventOfRuntime.assign(m_index.runtimes.size(), kNoIndex);
        for (uint32_t t = 0; t < m_index.threads.size(); ++t) {
            checkCancelled();
            const pytorch::KinetoThread &thread = m_index.threads[t];
            std::vector<uint32_t> &events = m_threadEvents[stackOf[t]];
            for (uint32_t n = thread.nodeBegin; n < thread.nodeEnd; ++n) {
                const pytorch::KinetoNode &node = m_index.nodes[n];
                if (takes(node))
                    events.push_back(addEvent(node.ref, node.start, node.end, false));
            }
            for (uint32_t r = thread.runtimeBegin; r < thread.runtimeEnd; ++r) {
                const KinetoRuntime &rt = m_index.runtimes[r];
                if (!takes(rt))
                    continue;
                const uint32_t e = addEvent(rt.ref, rt.start, rt.end, false);
                const std::string_view name = m_trace.name(rt.ref);
                m_graph.events[e].blocking = isBlockingCall(name);
                if (holdsRuntimeLock(name))
                    m_lockEvents.push_back(e);
                m_eventOfRuntime[r] = e;
                events.push_back(e);
            }
        }
        // Parents first: earlier start, then longer.
        for (std::vector<uint32_t> &events : m_threadEvents) {
            std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
                const PathEvent &x = m_graph.events[a];
                const PathEvent &y = m_graph.events[b];
                return std::tuple(x.start, -x.end, a) < std::tuple(y.start, -y.end, b);
            });
        }
    }

    void addGpuEvents()
    {
        m_eventOfActivity.assign(m_index.activities.size(), kNoIndex);
        KernelTypeCache types(m_trace);
        for (uint32_t a = 0; a < m_index.activities.size(); ++a) {
            const KinetoActivity &act = m_index.activities[a];
            if (!takes(act))
                continue;
            const uint32_t e = addEvent(act.ref, act.start, act.end, true);
            m_graph.events[e].communication = types.of(act.ref) == KernelType::Communication;
            m_eventOfActivity[a] = e;
        }
    }

    bool sharesRuntimeLock(uint32_t a, uint32_t b) const
    {
        return m_isLockEvent[a / 2] && m_isLockEvent[b / 2] && (isStartNode(a) || !isStartNode(b));
    }

    // Overlapping lock holders finish one at a time: chain their ends in the order they finished
    // and make every start that was waiting reach the end that came next.
    void linkRuntimeLock()
    {
        m_isLockEvent.assign(m_graph.events.size(), false);
        std::vector<uint32_t> nodes;
        for (uint32_t e : m_lockEvents) {
            m_isLockEvent[e] = true;
            nodes.push_back(startNode(e));
            nodes.push_back(endNode(e));
        }
        std::sort(nodes.begin(), nodes.end(), [&](uint32_t a, uint32_t b) {
            return std::pair(m_graph.nodeTime(a), a) < std::pair(m_graph.nodeTime(b), b);
        });
        std::vector<uint32_t> open;
        uint32_t last = kNoIndex;
        for (uint32_t node : nodes) {
            if (isStartNode(node)) {
                open.push_back(node);
            } else {
                for (; !open.empty(); open.pop_back()) {
                    const uint32_t waiting = open.back();
                    if (waiting / 2 == node / 2)
                        addEdge(waiting, node, PathEdgeKind::Operator, node / 2);
                    else
                        addEdge(waiting, node, PathEdgeKind::Dependency);
                }
                if (last != kNoIndex && !isStartNode(last))
                    addEdge(last, node, PathEdgeKind::Dependency);
            }
            last = node;
        }
    }

    // One thread's events in call-stack order: each node follows the previous one.
    void linkCallStack(const std::vector<uint32_t> &events)
    {
        std::vector<uint32_t> stack;
        uint32_t last = kNoIndex;
        uint32_t lastParent = kNoIndex;
        auto exitTop = [&] {
            const uint32_t e = stack.back();
            stack.pop_back();
            const uint32_t node = endNode(e);
            if (last != kNoIndex && !sharesRuntimeLock(last, node)) {
                if (m_graph.events[e].blocking)
                    m_blockingExits.push_back(uint32_t(m_graph.edges.size()));
                addEdge(last, node, PathEdgeKind::Operator, attributed(last, node, lastParent),
                        m_graph.events[e].blocking);
            }
            last = node;
            lastParent = m_graph.events[e].parent;
        };
        for (uint32_t e : events) {
            while (!stack.empty() && m_graph.events[stack.back()].end <= m_graph.events[e].start)
                exitTop();
            PathEvent &event = m_graph.events[e];
            event.parent = stack.empty() ? kNoIndex : stack.back();
            const uint32_t node = startNode(e);
            if (last != kNoIndex && !sharesRuntimeLock(last, node)) {
                if (stack.empty())
                    addEdge(last, node, PathEdgeKind::Dependency);
                else
                    addEdge(last, node, PathEdgeKind::Operator, attributed(last, node, lastParent));
            }
            last = node;
            lastParent = event.parent;
            stack.push_back(e);
        }
        while (!stack.empty())
            exitTop();
    }

    // A blocking call weighs nothing because a sync edge brings the GPU's time to its end. When
    // no sync edge reaches it (the trace recorded no cuda_sync event for it), zeroing it would
    // drop the wait from every path: it keeps its measured time instead.
    void weighUnsyncedWaits()
    {
        std::vector<bool> synced(m_graph.nodeCount(), false);
        for (const PathEdge &e : m_graph.edges) {
            if (e.kind == PathEdgeKind::Sync)
                synced[e.to] = true;
        }
        for (uint32_t i : m_blockingExits) {
            PathEdge &e = m_graph.edges[i];
            if (synced[e.to])
                continue;
            e.weight = std::max<TimePs>(0, m_graph.nodeTime(e.to) - m_graph.nodeTime(e.from));
            // An event query returns at once: its time is the CPU's, not a wait on the GPU.
            const std::string_view name = m_trace.name(m_graph.events[e.to / 2].ref);
            m_graph.events[e.to / 2].unsyncedWait =
                name != "cudaEventQuery" && name != "hipEventQuery";
        }
    }

    int64_t intArg(SliceRef ref, StringId key) const
    {
        int64_t value = kNoValue;
        m_trace.forEachArg(ref, [&](const ArgValue &v) {
            if (v.key == key && value == kNoValue)
                value = v.asInt();
        });
        return value;
    }

    std::vector<SyncEvent> syncEvents() const
    {
        StringId waitOnStream = kEmptyString;
        StringId recordCorrelation = kEmptyString;
        const bool hasWaitOnStream = m_trace.strings.find("wait_on_stream", &waitOnStream);
        const bool hasRecord =
            m_trace.strings.find("wait_on_cuda_event_record_corr_id", &recordCorrelation);
        std::vector<SyncEvent> out;
        // Most traces record none: no walk over every GPU activity to find that out.
        if (std::none_of(m_trace.kinds.begin(), m_trace.kinds.end(),
                         [](const EventKind &k) { return k.role == SliceRole::Sync; }))
            return out;
        for (uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            const Track &track = m_trace.tracks[t];
            if (track.type != TrackType::Slices || !m_index.scope.includes(m_trace, track.plane) ||
                m_index.threadOfTrack(t) != kNoIndex)
                continue;
            checkCancelled();
            for (uint32_t r = 0; r < track.rows.size(); ++r) {
                const Row &row = track.rows[r];
                for (uint32_t i = 0; i < row.size(); ++i) {
                    if (m_trace.kinds[row.kind[i]].role != SliceRole::Sync)
                        continue;
                    const SliceRef ref{t, r, i};
                    SyncEvent s;
                    s.name = m_trace.name(ref);
                    s.end = row.end(i);
                    const int64_t device = m_trace.side(ref, SideColumn::Device);
                    s.device = device != kNoValue ? device : m_trace.planes[track.plane].id;
                    const int64_t stream = m_trace.side(ref, SideColumn::Stream);
                    s.stream = stream != kNoValue ? stream : track.sourceId;
                    s.runtime =
                        m_index.runtimeForCorrelation(m_trace.side(ref, SideColumn::CorrelationId));
                    if (hasWaitOnStream)
                        s.waitOnStream = intArg(ref, waitOnStream);
                    if (hasRecord)
                        s.recordCorrelation = intArg(ref, recordCorrelation);
                    if (s.runtime != kNoIndex)
                        out.push_back(s);
                }
            }
        }
        return out;
    }

    // Queue length per activity, over the whole scope as HTA counts it: after its launch's +1
    // and after its own start's -1; -1 when its launch does not queue work.
    void queueLengths()
    {
        m_queueAtLaunch.assign(m_index.activities.size(), -1);
        m_queueAtStart.assign(m_index.activities.size(), -1);
        std::map<StreamKey, std::vector<std::tuple<TimePs, int, uint32_t>>> byStream;
        for (uint32_t a = 0; a < m_index.activities.size(); ++a) {
            const KinetoActivity &act = m_index.activities[a];
            if (act.runtime == kNoIndex)
                continue;
            const KinetoRuntime &rt = m_index.runtimes[act.runtime];
            if (!isQueueingLaunch(m_trace.name(rt.ref)))
                continue;
            auto &list = byStream[{act.device, act.stream}];
            list.emplace_back(rt.start, 0, a); // a launch counts before a start at one instant
            list.emplace_back(act.start, 1, a);
            m_launchesOn[{act.device, act.stream}].emplace_back(rt.start, a);
        }
        for (auto &[key, list] : byStream) {
            std::sort(list.begin(), list.end());
            int64_t length = 0;
            for (const auto &[time, isStart, a] : list) {
                length += isStart ? -1 : 1;
                (isStart ? m_queueAtStart : m_queueAtLaunch)[a] = length;
            }
        }
        for (auto &[key, list] : m_launchesOn)
            std::sort(list.begin(), list.end());
    }

    // The activity launched last on (device, stream) at or before `t`, as a graph event.
    uint32_t lastLaunchedBefore(StreamKey key, TimePs t) const
    {
        auto it = m_launchesOn.find(key);
        if (it == m_launchesOn.end())
            return kNoIndex;
        const auto &list = it->second;
        auto pos = std::upper_bound(list.begin(), list.end(), std::pair(t, UINT32_MAX));
        if (pos == list.begin())
            return kNoIndex;
        return m_eventOfActivity[std::prev(pos)->second];
    }

    // The activity the `thread` launches next on (device, stream) at or after `t`.
    uint32_t nextLaunchedFrom(StreamKey key, uint32_t thread, TimePs t) const
    {
        auto it = m_launchesOn.find(key);
        if (it == m_launchesOn.end())
            return kNoIndex;
        const auto &list = it->second;
        for (auto pos = std::lower_bound(list.begin(), list.end(), std::pair(t, uint32_t(0)));
             pos != list.end(); ++pos) {
            const KinetoActivity &act = m_index.activities[pos->second];
            if (m_index.runtimes[act.runtime].thread == thread)
                return m_eventOfActivity[pos->second];
        }
        return kNoIndex;
    }

    // The kernel an event sync waits for: launched last on the recorded stream before the
    // cudaEventRecord call.
    uint32_t recordedKernel(const SyncEvent &s) const
    {
        if (s.recordCorrelation == kNoValue || s.waitOnStream == kNoValue)
            return kNoIndex;
        const uint32_t record = m_index.runtimeForCorrelation(s.recordCorrelation);
        if (record == kNoIndex)
            return kNoIndex;
        return lastLaunchedBefore({s.device, s.waitOnStream}, m_index.runtimes[record].start);
    }

    void linkGpuWork()
    {
        queueLengths();
        const std::vector<SyncEvent> syncs = syncEvents();
        m_graph.syncEvents = !syncs.empty();
        // Activities by start, syncs by end (a stream sync overlaps the copy it waits for).
        struct Item
        {
            TimePs at;
            uint32_t activity; // kNoIndex for a sync
            uint32_t sync;
        };
        std::vector<Item> items;
        for (uint32_t a = 0; a < m_index.activities.size(); ++a) {
            if (m_eventOfActivity[a] != kNoIndex)
                items.push_back({m_index.activities[a].start, a, kNoIndex});
        }
        for (uint32_t s = 0; s < syncs.size(); ++s)
            items.push_back({syncs[s].end, kNoIndex, s});
        std::stable_sort(items.begin(), items.end(),
                         [](const Item &x, const Item &y) { return x.at < y.at; });

        std::map<StreamKey, uint32_t> lastOnStream;      // end node of the stream's last activity
        std::unordered_map<uint32_t, uint32_t> waitsFor; // kernel event -> event it waits for
        for (const Item &item : items) {
            if (item.activity == kNoIndex) {
                const SyncEvent &s = syncs[item.sync];
                const uint32_t caller = m_eventOfRuntime[s.runtime];
                if (s.name == "Stream Wait Event") {
                    const uint32_t source = recordedKernel(s);
                    const uint32_t dest =
                        nextLaunchedFrom({s.device, s.stream}, m_index.runtimes[s.runtime].thread,
                                         m_index.runtimes[s.runtime].start);
                    if (source != kNoIndex && dest != kNoIndex)
                        waitsFor[dest] = source;
                } else if (s.name == "Event Sync") {
                    const uint32_t source = recordedKernel(s);
                    if (source != kNoIndex && caller != kNoIndex)
                        addEdge(endNode(source), endNode(caller), PathEdgeKind::Sync);
                } else if (caller != kNoIndex &&
                           (s.name == "Stream Sync" || s.name == "Context Sync")) {
                    for (const auto &[key, node] : lastOnStream) {
                        const bool waited = s.name == "Context Sync"
                                                ? key.first == s.device
                                                : key == StreamKey{s.device, s.stream};
                        if (waited)
                            addEdge(node, endNode(caller), PathEdgeKind::Sync);
                    }
                }
                continue;
            }
            linkActivity(item.activity, lastOnStream, waitsFor);
        }
    }

    void linkActivity(uint32_t a, std::map<StreamKey, uint32_t> &lastOnStream,
                      std::unordered_map<uint32_t, uint32_t> &waitsFor)
    {
        const KinetoActivity &act = m_index.activities[a];
        const uint32_t e = m_eventOfActivity[a];
        addEdge(startNode(e), endNode(e), PathEdgeKind::Operator, e);
        uint32_t source = kNoIndex;
        if (auto it = waitsFor.find(e); it != waitsFor.end()) {
            source = it->second;
            waitsFor.erase(it);
            addEdge(endNode(source), startNode(e), PathEdgeKind::Sync);
        }
        const StreamKey key{act.device, act.stream};
        auto lastIt = lastOnStream.find(key);
        const uint32_t last = lastIt == lastOnStream.end() ? kNoIndex : lastIt->second;
        const TimePs launched = m_index.runtimes[act.runtime].start;
        const uint32_t launch = m_eventOfRuntime[act.runtime];
        const bool queueWasEmpty = m_queueAtLaunch[a] == 1 && m_queueAtStart[a] == 0;
        bool launchDelay = false;
        if (queueWasEmpty && (last == kNoIndex || m_graph.nodeTime(last) < launched) &&
            (source == kNoIndex || m_graph.events[source].end < launched)) {
            addEdge(startNode(launch), startNode(e), PathEdgeKind::LaunchDelay);
            launchDelay = true;
        } else if (last != kNoIndex &&
                   act.start - m_graph.nodeTime(last) < kKernelKernelDelayThreshold &&
                   (source == kNoIndex || m_graph.events[source].end < m_graph.nodeTime(last))) {
            addEdge(last, startNode(e), PathEdgeKind::KernelKernelDelay, last / 2);
        }
        if (!launchDelay)
            addEdge(startNode(launch), startNode(e), PathEdgeKind::LaunchDelay, kNoIndex, true);
        lastOnStream[key] = endNode(e);
    }

    const Trace &m_trace;
    const KinetoIndex &m_index;
    const std::optional<TimeWindow> &m_window;
    CriticalPathGraph m_graph;
    std::vector<std::vector<uint32_t>> m_threadEvents; // per call stack, parents first
    std::vector<uint32_t> m_eventOfRuntime;
    std::vector<uint32_t> m_eventOfActivity;
    std::vector<uint32_t> m_lockEvents;
    std::vector<uint32_t> m_blockingExits; // edges into a blocking call's end, weighed 0
    std::vector<bool> m_isLockEvent;
    std::vector<int64_t> m_queueAtLaunch;
    std::vector<int64_t> m_queueAtStart;
    std::map<StreamKey, std::vector<std::pair<TimePs, uint32_t>>>
        m_launchesOn; // (launch, activity)
};

} // namespace

CriticalPathGraph buildCriticalPathGraph(const Trace &trace, const KinetoIndex &index,
                                         const std::optional<TimeWindow> &window, size_t maxEvents)
{
    return GraphBuilder(trace, index, window).build(maxEvents);
}

} // namespace tracedesk::core::analysis::gputime
