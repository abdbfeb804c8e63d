// tf.data bottleneck analysis (FORMATS.md 2.16). Per non-device plane: one pass over each
// track's rows collects the tf.data events (iterators, *Produce, *Consume), nests them per thread
// with a stack, links producer-side iterators to consumer iterators through element ids, then
// walks every root iterator event to accumulate per-iterator time. Kind names are parsed once
// per kind, never per slice.

#include "core/analysis/tfdata.h"

#include "core/analysis/framework.h"
#include "core/base/cancel.h"

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace tracedesk::core::analysis {

namespace {

enum class EventClass : uint8_t { None, Iterator, Produce, Consume };

struct KindInfo
{
    EventClass cls = EventClass::None;
    bool root = false;             // Iterator::<X>: exactly two parts
    bool generator = false;        // Iterator::Prefetch::Generator
    std::string_view longName;     // into TfDataAnalysis::iteratorNames once they are settled
    int64_t nameHash = 0;          // stands in for ids when the event carries no id stat
    int64_t parentNameHash = 0;
};

constexpr std::string_view kAsyncKinds[] = {"Prefetch",    "ParallelInterleave", "ParallelMap",
                                            "MapAndBatch", "ParseExample",       "ParallelBatch"};

int64_t nameKey(std::string_view s)
{
    // Negative keys never collide with the positive ids TensorFlow hands out in practice and
    // are never 0 (0 means "no parent").
    const int64_t h = int64_t(std::hash<std::string_view>{}(s) | 1) & 0x7fffffffffffffffLL;
    return -h;
}

KindInfo classify(std::string_view full)
{
    KindInfo k;
    // Chrome traces may keep the TraceMe metadata in the name: `Iterator::Map#id=1,...#`.
    const std::string_view name = full.substr(0, full.find('#'));
    if (name == "IteratorGetNextOp::DoCompute" || name == "IteratorGetNextAsOptionalOp::DoCompute")
        return k;
    if (name.substr(0, 9) == "Iterator:") {
        k.cls = EventClass::Iterator;
        k.longName = name;
        const size_t last = name.rfind("::");
        size_t parts = 1;
        for (size_t p = name.find("::"); p != std::string_view::npos; p = name.find("::", p + 2))
            ++parts;
        k.root = parts == 2;
        k.generator = name == "Iterator::Prefetch::Generator";
        k.nameHash = nameKey(name);
        if (parts > 2)
            k.parentNameHash = nameKey(name.substr(0, last));
        return k;
    }
    for (std::string_view kind : kAsyncKinds) {
        if (name.size() == kind.size() + 7 && name.substr(0, kind.size()) == kind) {
            const std::string_view suffix = name.substr(kind.size());
            if (suffix == "Produce")
                k.cls = EventClass::Produce;
            else if (suffix == "Consume")
                k.cls = EventClass::Consume;
        }
    }
    return k;
}

struct Event
{
    TimePs start = 0;
    TimePs end = 0;
    uint32_t kind = 0;             // index into the KindInfo table
    uint32_t row = 0;
    int64_t id = 0;
    int64_t parentId = 0;
    int64_t elementId = 0;
    bool hasId = false;
    bool hasElement = false;
    int32_t parent = -1;           // nearest enclosing tf.data event on the same thread
    uint32_t childCount = 0;       // iterator children found so far (ChildLists)
};

// Every event's iterator children, in the order they were found (time order on the thread,
// then the producer-side iterators of its consumers): edges while the plane is read, then one
// array for all, so a plane of millions of events holds no list per event.
class ChildLists
{
public:
    void add(std::vector<Event> &events, uint32_t parent, uint32_t child)
    {
        m_edges.push_back({parent, child});
        ++events[parent].childCount;
    }
    // Adds the edge unless it was added this way before (two consumers of one element).
    void addOnce(std::vector<Event> &events, uint32_t parent, uint32_t child)
    {
        if (m_once.insert(uint64_t(parent) << 32 | child).second)
            add(events, parent, child);
    }
    void build(const std::vector<Event> &events)
    {
        m_first.assign(events.size() + 1, 0);
        for (size_t e = 0; e < events.size(); ++e)
            m_first[e + 1] = m_first[e] + events[e].childCount;
        m_child.resize(m_edges.size());
        std::vector<uint32_t> next(m_first.begin(), m_first.end() - 1);
        for (const auto &[parent, child] : m_edges)
            m_child[next[parent]++] = child;
        m_edges = {};
        m_once = {};
    }
    std::span<const uint32_t> of(uint32_t e) const
    {
        return {m_child.data() + m_first[e], m_first[e + 1] - m_first[e]};
    }

private:
    std::vector<std::pair<uint32_t, uint32_t>> m_edges;
    std::unordered_set<uint64_t> m_once;
    std::vector<uint32_t> m_first; // event e's children: m_child[m_first[e], m_first[e + 1])
    std::vector<uint32_t> m_child;
};

struct Walker
{
    const std::vector<KindInfo> &kinds;
    const std::vector<Event> &events;
    const ChildLists &children;
    std::map<int64_t, TfDataIteratorStat> stats;

    void visit(uint32_t e, int depth, bool blocking)
    {
        const Event &ev = events[e];
        if (depth > 100 || !ev.hasId)
            return;
        const KindInfo &k = kinds[ev.kind];
        auto [it, fresh] = stats.try_emplace(ev.id);
        TfDataIteratorStat &st = it->second;
        if (fresh) {
            st.id = ev.id;
            st.parentId = ev.parentId;
            st.longName = k.longName;
            st.start = ev.start;
        }
        st.duration += ev.end - ev.start;
        st.calls += 1;
        TimePs self = ev.end - ev.start;
        for (uint32_t c : children.of(e)) {
            const Event &ch = events[c];
            const TimePs overlap = std::max<TimePs>(
                0, std::min(ch.end, ev.end) - std::max(ch.start, ev.start));
            visit(c, depth + 1, blocking && overlap > 0);
            self -= overlap;
        }
        // std::map nodes are stable, so `st` survives the inserts made by the children.
        st.selfTime += self;
        st.blocking = st.blocking || blocking;
    }
};

void analysePlane(const Trace &trace, const Plane &plane, const std::vector<KindInfo> &kinds,
                  const std::vector<uint32_t> &kindIndex, StringId idKey, StringId parentKey,
                  StringId elementKey, TfDataExecutions keep, TfDataAnalysis *out,
                  std::map<std::string, std::vector<TfDataPipeline>> *byHost)
{
    // Sized exactly first: the events of a 100M-event profile's plane run to millions.
    size_t count = 0;
    for (uint32_t t : plane.tracks) {
        for (const Row &row : trace.tracks[t].rows) {
            for (size_t i = 0; i < row.size(); ++i)
                count += kindIndex[row.kind[i]] != UINT32_MAX ? 1 : 0;
        }
    }
    std::vector<Event> events;
    events.reserve(count);
    ChildLists children;
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> produced;
    std::vector<uint32_t> consumers;
    for (uint32_t t : plane.tracks) {
        const Track &track = trace.tracks[t];
        const size_t first = events.size();
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (uint32_t i = 0; i < row.size(); ++i) {
                const uint32_t k = kindIndex[row.kind[i]];
                if (k == UINT32_MAX)
                    continue;
                Event ev;
                ev.start = row.start[i];
                ev.end = row.end(i);
                ev.kind = k;
                ev.row = r;
                trace.forEachArg(SliceRef{t, r, i}, [&](const ArgValue &v) {
                    const int64_t x = v.asInt();
                    if (x == kNoValue)
                        return;
                    if (v.key == idKey && !ev.hasId) {
                        ev.id = x;
                        ev.hasId = true;
                    } else if (v.key == parentKey && ev.parentId == 0) {
                        ev.parentId = x;
                    } else if (v.key == elementKey && !ev.hasElement) {
                        ev.elementId = x;
                        ev.hasElement = true;
                    }
                });
                const KindInfo &info = kinds[k];
                if (info.cls == EventClass::Iterator && !ev.hasId) {
                    ev.id = info.nameHash;
                    ev.parentId = info.parentNameHash;
                    ev.hasId = true;
                }
                if (info.cls == EventClass::Iterator)
                    ++out->iteratorEvents;
                events.push_back(std::move(ev));
            }
        }
        // Nest this thread's tf.data events: parents start no later and sit in shallower rows.
        std::vector<uint32_t> order(events.size() - first);
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = uint32_t(first + i);
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            if (events[a].start != events[b].start)
                return events[a].start < events[b].start;
            return events[a].row < events[b].row;
        });
        std::vector<uint32_t> stack;
        for (uint32_t e : order) {
            Event &ev = events[e];
            while (!stack.empty()
                   && !(events[stack.back()].row < ev.row && events[stack.back()].end >= ev.end))
                stack.pop_back();
            if (!stack.empty()) {
                ev.parent = int32_t(stack.back());
                Event &parent = events[stack.back()];
                const EventClass pc = kinds[parent.kind].cls;
                const EventClass cc = kinds[ev.kind].cls;
                if (pc == EventClass::Iterator && cc == EventClass::Iterator)
                    children.add(events, uint32_t(stack.back()), e);
                // The first iterator inside a producer is what it produces for its consumer.
                if (pc == EventClass::Produce && cc == EventClass::Iterator && parent.hasElement
                    && ev.hasId) {
                    auto &list = produced[{ev.parentId, parent.elementId}];
                    if (parent.childCount == 0) {
                        list.push_back(e);
                        children.add(events, uint32_t(stack.back()), e);
                    }
                }
            }
            if (kinds[ev.kind].cls == EventClass::Consume && ev.hasElement)
                consumers.push_back(e);
            stack.push_back(e);
        }
    }
    // Cross-thread edges: consumer iterator -> producer-side iterators.
    for (uint32_t c : consumers) {
        const Event &ev = events[c];
        if (ev.parent < 0)
            continue;
        const Event &iter = events[size_t(ev.parent)];
        if (kinds[iter.kind].cls != EventClass::Iterator || !iter.hasId)
            continue;
        auto it = produced.find({iter.id, ev.elementId});
        if (it == produced.end())
            continue;
        for (uint32_t p : it->second)
            children.addOnce(events, uint32_t(ev.parent), p);
    }

    children.build(events);
    produced.clear();
    consumers = {};

    std::map<int64_t, std::vector<uint32_t>> roots;
    std::map<int64_t, bool> device;
    for (uint32_t e = 0; e < events.size(); ++e) {
        const KindInfo &k = kinds[events[e].kind];
        if (k.cls != EventClass::Iterator)
            continue;
        if (k.root)
            roots[events[e].id].push_back(e);
        if (k.generator && events[e].parentId != 0)
            device[events[e].parentId] = true;
    }
    const std::string host =
        std::string(trace.string(plane.host != kEmptyString ? plane.host : plane.name));
    auto &list = (*byHost)[host];
    for (auto &[id, rootEvents] : roots) {
        TfDataPipeline p;
        p.host = host;
        p.id = id;
        p.device = device.count(id) != 0;
        TimePs total = 0;
        p.firstStart = events[rootEvents.front()].start;
        for (uint32_t r : rootEvents) {
            const TimePs start = events[r].start;
            const TimePs duration = events[r].end - events[r].start;
            total += duration;
            p.slowCalls += duration > kTfDataSlowCallPs ? 1 : 0;
            p.firstStart = std::min(p.firstStart, start);
            p.minLatency = p.calls == 0 ? duration : std::min(p.minLatency, duration);
            ++p.calls;
            // Only an execution kept is walked. Of equally slow ones the first is kept, as
            // the stable sort below keeps it first.
            const bool replaces = !p.executions.empty() &&
                                  duration > p.executions.front().duration;
            if (keep == TfDataExecutions::Slowest && !p.executions.empty() && !replaces)
                continue;
            Walker w{kinds, events, children, {}};
            w.visit(r, 0, true);
            TfDataExecution x;
            x.start = start;
            x.duration = duration;
            for (auto &[iid, st] : w.stats) {
                if (st.blocking && st.selfTime > x.bottleneckLatency) {
                    x.bottleneckLatency = st.selfTime;
                    x.bottleneckId = iid;
                }
                x.iterators.push_back(std::move(st));
            }
            if (keep == TfDataExecutions::Slowest && replaces)
                p.executions.front() = std::move(x);
            else
                p.executions.push_back(std::move(x));
        }
        std::stable_sort(p.executions.begin(), p.executions.end(),
                         [](const TfDataExecution &a, const TfDataExecution &b) {
                             return a.duration > b.duration;
                         });
        p.maxLatency = p.executions.front().duration;
        p.avgLatency = total / p.calls;
        list.push_back(std::move(p));
    }
}

std::string suggestionFor(TfDataBottleneckType type)
{
    const std::string analysis = "https://www.tensorflow.org/guide/data_performance_analysis";
    const std::string perf = "https://www.tensorflow.org/guide/data_performance";
    switch (type) {
    case TfDataBottleneckType::SlowSource:
        return "1. Keep the host and the input data close: the same cell, or at least the same "
               "region.\n2. Read from this source in parallel (" + analysis
               + "#source_datasets, " + perf + "#parallelizing_data_extraction).";
    case TfDataBottleneckType::SlowDataService:
        return "1. Fetching from the tf.data service was slow: profile the service worker.\n"
               "2. tf.data service: https://www.tensorflow.org/api_docs/python/tf/data/"
               "experimental/service?version=nightly\n3. More in " + analysis + ".";
    case TfDataBottleneckType::SlowRemoteSource:
        return "1. The remote source is slow: profile the host that serves it.\n2. More in "
               + analysis + ".";
    case TfDataBottleneckType::TransformationWithParallelVersion:
        return "1. Run it in parallel with num_parallel_calls=tf.data.experimental.AUTOTUNE ("
               + perf + "#parallelizing_data_transformation).\n2. If the data fits in memory "
               "and nothing before it is random (e.g. shuffle), add cache() after this "
               "transformation (" + perf + "#caching).\n3. More in " + analysis
               + "#transformation_datasets.";
    case TfDataBottleneckType::TransformationWithoutParallelVersion:
        return "1. This transformation is sequential: add outer parallelism by running several "
               "copies of the pipeline over sharded inputs and combining the results ("
               + analysis + "#transformation_datasets).\n2. If the data fits in memory and "
               "nothing before it is random (e.g. shuffle), add cache() after this "
               "transformation (" + perf + "#caching).\n3. More in " + analysis
               + "#3_are_you_reaching_high_cpu_utilization.";
    case TfDataBottleneckType::Other:
        break;
    }
    return "1. See the tf.data performance analysis guide: " + analysis + ".";
}

} // namespace

const TfDataIteratorStat *TfDataExecution::find(int64_t id) const
{
    auto it = std::lower_bound(iterators.begin(), iterators.end(), id,
                               [](const TfDataIteratorStat &s, int64_t v) { return s.id < v; });
    return it != iterators.end() && it->id == id ? &*it : nullptr;
}

TfDataBottleneckType tfDataBottleneckType(std::string_view n)
{
    static const std::vector<std::pair<std::string_view, TfDataBottleneckType>> kTable = {
        {"TFRecord", TfDataBottleneckType::SlowSource},
        {"SSTable", TfDataBottleneckType::SlowSource},
        {"RecordIO", TfDataBottleneckType::SlowSource},
        {"Spanner", TfDataBottleneckType::SlowSource},
        {"TFColumn", TfDataBottleneckType::SlowSource},
        {"SleepwalkRemoteDataset", TfDataBottleneckType::SlowSource},
        {"TextLine", TfDataBottleneckType::SlowSource},
        {"StitchedTimelineDataset", TfDataBottleneckType::SlowSource},
        {"DateKeyDataset", TfDataBottleneckType::SlowSource},
        {"CapacitorProto", TfDataBottleneckType::SlowSource},
        {"LMDB", TfDataBottleneckType::SlowSource},
        {"ExternalDataset", TfDataBottleneckType::SlowSource},
        {"PearModel", TfDataBottleneckType::SlowSource},
        {"FixedLengthRecordV2", TfDataBottleneckType::SlowSource},
        {"FromTensor", TfDataBottleneckType::SlowSource},
        {"TensorSlice", TfDataBottleneckType::SlowSource},
        {"Generator", TfDataBottleneckType::SlowSource},
        {"SyntheticDatasetOp", TfDataBottleneckType::SlowSource},
        {"DataService", TfDataBottleneckType::SlowDataService},
        {"GuzzlerDataGuzzlerRemoteDataset", TfDataBottleneckType::SlowRemoteSource},
        {"ReverbDataset", TfDataBottleneckType::SlowRemoteSource},
        {"DatasetSampleGame", TfDataBottleneckType::SlowRemoteSource},
        {"Courier", TfDataBottleneckType::SlowRemoteSource},
        {"ReverbEpisodeDataset", TfDataBottleneckType::SlowRemoteSource},
        {"Map", TfDataBottleneckType::TransformationWithParallelVersion},
        {"Interleave", TfDataBottleneckType::TransformationWithParallelVersion},
        {"Filter", TfDataBottleneckType::TransformationWithoutParallelVersion},
        {"Batch", TfDataBottleneckType::TransformationWithoutParallelVersion},
        {"Unbatch", TfDataBottleneckType::TransformationWithoutParallelVersion},
    };
    for (const auto &[name, type] : kTable) {
        if (name == n)
            return type;
    }
    return TfDataBottleneckType::Other;
}

std::string_view tfDataBottleneckTypeName(TfDataBottleneckType type)
{
    switch (type) {
    case TfDataBottleneckType::SlowSource: return "slow source";
    case TfDataBottleneckType::SlowDataService: return "slow tf.data service";
    case TfDataBottleneckType::SlowRemoteSource: return "slow remote source";
    case TfDataBottleneckType::TransformationWithParallelVersion:
        return "slow transformation (has a parallel version)";
    case TfDataBottleneckType::TransformationWithoutParallelVersion:
        return "slow transformation (no parallel version)";
    case TfDataBottleneckType::Other: break;
    }
    return "other";
}

std::string tfDataSuggestion(TfDataBottleneckType type)
{
    return suggestionFor(type);
}

namespace {

// "Profile longer" helps only a TensorFlow program: tf.data is TensorFlow's input API, so a
// JAX, XLA or PyTorch profile is told so instead of being sent to capture again.
std::string noActivitySummary(const Trace &trace)
{
    const std::string framework = frameworkOf(trace);
    if (framework == "tensorflow" || framework == "unknown")
        return "No tf.data activity was captured: try a longer profile.";
    const std::string writer = framework == "jax"       ? "JAX"
                               : framework == "pytorch" ? "PyTorch"
                                                        : "an XLA program";
    return "No tf.data activity: tf.data is TensorFlow's input pipeline API, and this profile "
           "was written by " + writer + ".";
}

} // namespace

TfDataAnalysis computeTfData(const Trace &trace, TfDataExecutions keep)
{
    TfDataAnalysis out;
    std::vector<KindInfo> kinds;
    std::vector<uint32_t> kindIndex(trace.kinds.size(), UINT32_MAX);
    for (size_t i = 0; i < trace.kinds.size(); ++i) {
        KindInfo k = classify(trace.string(trace.kinds[i].name));
        if (k.cls == EventClass::None)
            continue;
        kindIndex[i] = uint32_t(kinds.size());
        kinds.push_back(std::move(k));
    }
    if (kinds.empty()) {
        out.summary = noActivitySummary(trace);
        return out;
    }
    {
        // Every stat names its iterator by a view into one copy of each distinct name.
        auto names = std::make_shared<std::vector<std::string>>();
        std::map<std::string_view, size_t> index;
        for (const KindInfo &k : kinds) {
            if (k.cls != EventClass::Iterator)
                continue;
            if (index.try_emplace(k.longName, names->size()).second)
                names->emplace_back(k.longName);
        }
        for (KindInfo &k : kinds) {
            if (k.cls == EventClass::Iterator)
                k.longName = (*names)[index.at(k.longName)];
        }
        out.iteratorNames = std::move(names);
    }
    StringId idKey = UINT32_MAX, parentKey = UINT32_MAX, elementKey = UINT32_MAX;
    trace.strings.find("id", &idKey);
    trace.strings.find("parent_id", &parentKey);
    trace.strings.find("element_id", &elementKey);

    std::map<std::string, std::vector<TfDataPipeline>> byHost;
    for (const Plane &plane : trace.planes) {
        if (plane.kind == PlaneKind::Device || plane.kind == PlaneKind::Metadata)
            continue;
        checkCancelled();
        analysePlane(trace, plane, kinds, kindIndex, idKey, parentKey, elementKey, keep, &out,
                     &byHost);
    }
    for (auto &[host, list] : byHost) {
        std::stable_sort(list.begin(), list.end(),
                         [&](const TfDataPipeline &a, const TfDataPipeline &b) {
                             return a.firstStart < b.firstStart;
                         });
        int hostN = 0, deviceN = 0;
        for (TfDataPipeline &p : list) {
            p.name = p.device ? "Device:" + std::to_string(deviceN++)
                              : "Host:" + std::to_string(hostN++);
            out.pipelines.push_back(std::move(p));
        }
    }
    std::stable_sort(out.pipelines.begin(), out.pipelines.end(),
                     [](const TfDataPipeline &a, const TfDataPipeline &b) {
                         return a.maxLatency > b.maxLatency;
                     });
    for (const TfDataPipeline &p : out.pipelines) {
        if (p.device)
            continue;
        const TfDataExecution &x = p.executions.front();
        TfDataBottleneckRow row;
        row.host = p.host;
        row.pipeline = p.name;
        row.maxLatency = p.maxLatency;
        if (const TfDataIteratorStat *b = x.find(x.bottleneckId)) {
            row.iteratorName = std::string(b->name());
            row.iteratorLongName = std::string(b->longName);
        }
        row.iteratorLatency = x.bottleneckLatency;
        row.type = tfDataBottleneckType(row.iteratorName);
        row.suggestion = tfDataSuggestion(row.type);
        out.bottlenecks.push_back(std::move(row));
    }
    const TimePs worst = out.bottlenecks.empty() ? 0 : out.bottlenecks.front().maxLatency;
    out.inputBound = worst > kTfDataSlowCallPs;
    if (worst > kTfDataSlowCallPs)
        out.summary = "This profile has a tf.data input pipeline slower than 50 us. The rows below "
                      "show each slow pipeline's bottleneck and how to fix it.";
    else if (worst > 0)
        out.summary = "No tf.data input pipeline is slower than 50 us, but the job may still be "
                      "input bound if not all workers were captured.";
    else if (!out.pipelines.empty())
        // XProf judges host pipelines only; say why device ones alone give no verdict.
        out.summary = "Only device-side tf.data pipelines were captured (no host input "
                      "pipeline), so there is no input-bound verdict; they are listed below.";
    else
        out.summary = noActivitySummary(trace);
    return out;
}

std::shared_ptr<const TfDataAnalysis> tfDataAnalysis(AnalysisCache &cache)
{
    return cache.get<TfDataAnalysis>(
        [](AnalysisCache &c) { return computeTfData(c.trace()); });
}

namespace {
// The cache's key for the slowest-executions variant.
struct TfDataSlowest
{
    TfDataAnalysis analysis;
};
} // namespace

std::shared_ptr<const TfDataAnalysis> tfDataSlowestAnalysis(AnalysisCache &cache)
{
    const auto slowest = cache.get<TfDataSlowest>([](AnalysisCache &c) {
        return TfDataSlowest{computeTfData(c.trace(), TfDataExecutions::Slowest)};
    });
    return {slowest, &slowest->analysis};
}

} // namespace tracedesk::core::analysis
