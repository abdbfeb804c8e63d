#include "core/analysis/steps.h"
#include "core/base/cancel.h"
#include "core/base/parallel.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
#include <unordered_set>

// Design note (speed). Everything per event is an array read: the group comes from RowGroups,
// the event type from a per-kind table built once, and the correlation id from the side
// column. Only host events that belong to a step and sit in a row with args are decoded, and
// only when the trace interns `step_name` or `_ipl_stage_name` at all. Events are bucketed per
// step as (start, end, type) and each step is swept on its own, so memory is one span (17
// bytes) per grouped event and the sweep is O(n log n) per step. The steps of a batch are swept
// on every core and kept in group order.

namespace tracedesk::core::analysis {

const char *const kNoStepMarkerMessage =
    "No step marker observed and hence the step time is unknown. This may happen if (1) training "
    "steps are not instrumented (e.g., if you are not using Keras or StepTraceAnnotation) or (2) "
    "the profiling duration is shorter than the step time. For (1), you need to add step "
    "instrumentation; for (2), you may try to profile longer.";
const char *const kNoDeviceTraceMessage =
    "No device trace was collected. This might happen if your job hadn't been run on the device "
    "when sampling was turned on. You could try the sampling again later.";
const char *const kIncompleteStepMessage =
    "Incomplete step observed and hence the step time is unknown. Instead, we use the trace "
    "duration as the step time. This may happen if your profiling duration is shorter than the "
    "step time. In this case, you may try to profile longer.";

std::string stepsDroppedMessage(int count)
{
    return std::to_string(count)
           + " incomplete steps were dropped at the beginning and end of the profile, and hence "
             "excluded from the analysis.";
}

const char *eventTypeName(EventType type)
{
    static const char *const names[kEventTypeCount] = {
        "UNKNOWN_TIME", "HOST_COMPUTE", "HOST_PREPROCESS", "HOST_POSTPROCESS",
        "HOST_BATCH_FORMATION", "HOST_RUNTIME", "HOST_COMPILE", "HOST_TO_HOST",
        "HOST_TO_DEVICE", "HOST_PREPARE", "DEVICE_COLLECTIVES", "HOST_WAIT_INPUT",
        "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_COMPUTE_32", "DEVICE_COMPUTE_16",
        "DEVICE_WAIT_DEVICE", "DEVICE_WAIT_HOST"};
    return int(type) < kEventTypeCount ? names[int(type)] : "";
}

namespace detail {

namespace {
bool startsWithCi(std::string_view s, std::string_view prefix)
{
    if (s.size() < prefix.size())
        return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower((unsigned char)s[i]) != std::tolower((unsigned char)prefix[i]))
            return false;
    }
    return true;
}
} // namespace

int memcpyKind(std::string_view name)
{
    if (name.find(':') != std::string_view::npos)
        return 0;
    static const std::pair<std::string_view, int> prefixes[] = {
        {"MEMCPYHToD", 1}, {"MEMCPYDToH", 2}, {"MEMCPYDToD", 3}, {"MEMCPYHToH", 4},
        {"MemcpyH2D", 1},  {"MemcpyD2H", 2},  {"MemcpyD2D", 3},  {"MemcpyH2H", 4}};
    for (const auto &[prefix, kind] : prefixes) {
        if (startsWithCi(name, prefix))
            return kind;
    }
    return 0;
}

bool isTensorCorePlaneName(std::string_view name)
{
    constexpr std::string_view prefix = "/device:TPU:";
    if (!name.starts_with(prefix))
        return false;
    for (char c : name.substr(prefix.size())) {
        if (!std::isdigit((unsigned char)c))
            return false;
    }
    return true;
}

bool isDerivedLineId(int64_t id)
{
    constexpr int64_t base = int32_t(0xdeadbeef);
    return id >= base && id <= base + 289;
}

} // namespace detail

namespace {

using detail::isDerivedLineId;

bool isDerivedLineName(std::string_view n)
{
    return n == "Steps" || n == "XLA Modules" || n == "XLA Ops" || n == "Framework Ops"
           || n == "Framework Name Scope" || n == "TensorFlow Ops" || n == "TensorFlow Name Scope"
           || n == "Source code" || n == "Launch Stats" || n == "Host Offload Ops";
}

bool isStepsLine(const Trace &trace, const Track &t)
{
    return t.sourceId == int64_t(int32_t(0xdeadbeef)) || trace.string(t.name) == "Steps";
}

enum class HostClass : uint8_t { Explicit, NotReal, ToDevice, ToHost, Executor, WaitInput, Other };

bool isExplicitMarker(std::string_view n)
{
    return (n.starts_with("train") || n.starts_with("test") || n.starts_with("TraceContext"))
           && n.find('/') == std::string_view::npos;
}

HostClass classifyHostKind(std::string_view n)
{
    if (isExplicitMarker(n))
        return HostClass::Explicit;
    if (n.starts_with("EagerExecute") || n.starts_with("EagerLocalExecute")
        || n.starts_with("EagerKernelExecute") || n.starts_with("FunctionRun"))
        return HostClass::NotReal;
    const size_t colon = n.rfind(':');
    const std::string_view type = colon == std::string_view::npos ? n : n.substr(colon + 1);
    const int memcpy = detail::memcpyKind(n);
    if (type.starts_with("InfeedEnqueue") || memcpy == 1)
        return HostClass::ToDevice;
    if (memcpy == 4)
        return HostClass::ToHost;
    if (detail::startsWithCi(n, "ExecutorState::Process"))
        return HostClass::Executor;
    if (detail::startsWithCi(n, "IteratorGetNext"))
        return HostClass::WaitInput;
    return HostClass::Other;
}

EventType classifyDeviceKind(std::string_view n)
{
    switch (detail::memcpyKind(n)) {
    case 1: return EventType::HostToDevice;
    case 2: return EventType::DeviceToHost;
    case 3: return EventType::DeviceToDevice;
    default: break;
    }
    if (detail::startsWithCi(n, "nccl"))
        return EventType::DeviceCollectives;
    return n.find("half") != std::string_view::npos || n.find("fp16") != std::string_view::npos
               ? EventType::DeviceCompute16
               : EventType::DeviceCompute32;
}

struct Span
{
    TimePs start;
    TimePs end;
    EventType type;
};

// Every step's spans, bucketed by group: bounds and types in arrays of their own (17 bytes a
// span, not a padded 24: half a gigabyte less at the peak of a 100M-event trace's analysis).
struct SpanColumns
{
    struct Bounds
    {
        TimePs start;
        TimePs end;
    };
    std::unique_ptr<Bounds[]> bounds; // filled by the second walk: not zeroed first
    std::unique_ptr<EventType[]> types;

    void allocate(uint64_t n)
    {
        bounds.reset();
        types.reset();
        bounds.reset(new Bounds[n]);
        types.reset(new EventType[n]);
    }
    void set(uint64_t at, const Span &s)
    {
        bounds[at] = {s.start, s.end};
        types[at] = s.type;
    }
    // The spans [offset, offset + count) into `out` (a buffer reused from step to step).
    void copy(uint64_t offset, uint64_t count, std::vector<Span> *out) const
    {
        out->resize(count);
        for (uint64_t k = 0; k < count; ++k)
            (*out)[k] = {bounds[offset + k].start, bounds[offset + k].end, types[offset + k]};
    }
};

// The walk that collects the steps' spans runs once to count each group's spans, then once per
// batch of groups (by id, a bounded number of spans each), so the spans held at a time are
// bounded however big the trace. A row's groups come in ascending order when its events and its
// steps do (nearly every row): its walk resumes in each batch where the last one stopped, so it
// is walked once over all batches. A row that is not in group order is walked whole each time.
class StepWalk
{
public:
    static constexpr size_t kUnordered = std::numeric_limits<size_t>::max();

    explicit StepWalk(const Trace &trace)
    {
        m_resume.resize(trace.tracks.size());
        for (size_t t = 0; t < trace.tracks.size(); ++t)
            m_resume[t].assign(trace.tracks[t].rows.size(), 0);
    }

    void startBatch(int64_t lo, int64_t hi)
    {
        m_counting = false;
        m_lo = lo;
        m_hi = hi;
    }
    // The first event of the row to visit.
    size_t first(uint32_t track, uint32_t row) const
    {
        const size_t at = m_resume[track][row];
        return m_counting || at == kUnordered ? 0 : at;
    }
    // Whether event `i` (of group g >= 0) is collected; false with `stop` set when the row's
    // walk ends here for this batch. `last` is the row's previous group, -1 at its start.
    bool take(uint32_t track, uint32_t row, size_t i, int64_t g, int64_t &last, bool &stop)
    {
        if (m_counting) {
            if (g < last)
                m_resume[track][row] = kUnordered;
            last = g;
            return true;
        }
        if (g >= m_hi && m_resume[track][row] != kUnordered) {
            m_resume[track][row] = i;
            stop = true;
            return false;
        }
        return g >= m_lo && g < m_hi;
    }
    // The row's walk reached its end.
    void finished(uint32_t track, uint32_t row, size_t size)
    {
        if (!m_counting && m_resume[track][row] != kUnordered)
            m_resume[track][row] = size;
    }

private:
    std::vector<std::vector<size_t>> m_resume;
    bool m_counting = true;
    int64_t m_lo = 0;
    int64_t m_hi = 0;
};

struct Marker
{
    TimePs begin = 0;
    TimePs duration = -1;   // -1: none
    std::string_view name;
    void offer(TimePs b, TimePs d, std::string_view n)
    {
        if (d > duration) {
            begin = b;
            duration = d;
            name = n;
        }
    }
    bool contains(const Marker &o) const
    {
        return duration >= 0 && begin <= o.begin && o.begin + o.duration <= begin + duration;
    }
};

struct Group
{
    int64_t id = 0;
    Marker device;
    Marker host;
    std::string stepName;
    uint64_t spanOffset = 0; // the group's spans: [spanOffset, spanOffset + spanCount)
    uint64_t spanCount = 0;
};

class GroupTable
{
public:
    Group &at(int64_t id)
    {
        if (id == m_lastId)
            return m_groups[m_lastIndex];
        auto [it, inserted] = m_index.try_emplace(id, m_groups.size());
        if (inserted) {
            m_groups.emplace_back();
            m_groups.back().id = id;
        }
        m_lastId = id;
        m_lastIndex = it->second;
        return m_groups[it->second];
    }
    bool has(int64_t id) const { return m_index.count(id) != 0; }
    std::vector<Group> &groups() { return m_groups; }

private:
    std::unordered_map<int64_t, size_t> m_index;
    std::vector<Group> m_groups;
    int64_t m_lastId = kNoValue;
    size_t m_lastIndex = 0;
};

// Assigns every instant of [begin, end) to the highest-priority covering type.
std::array<TimePs, kEventTypeCount> sweep(std::span<Span> all, TimePs begin, TimePs end)
{
    std::array<TimePs, kEventTypeCount> acc{};
    size_t n = 0;
    for (Span s : all) {
        s.start = std::max(s.start, begin);
        s.end = std::min(s.end, end);
        if (s.end > s.start)
            all[n++] = s;
    }
    const std::span<Span> spans = all.first(n);
    std::sort(spans.begin(), spans.end(),
              [](const Span &a, const Span &b) { return a.start < b.start; });
    using Open = std::pair<TimePs, int>;
    std::priority_queue<Open, std::vector<Open>, std::greater<>> open;
    std::array<uint32_t, kEventTypeCount> active{};
    uint32_t mask = 0;
    TimePs t = begin;
    size_t i = 0;
    while (i < spans.size() || !open.empty()) {
        TimePs next = end;
        if (i < spans.size())
            next = std::min(next, spans[i].start);
        if (!open.empty())
            next = std::min(next, open.top().first);
        if (next > t) {
            const int owner = mask ? 31 - std::countl_zero(mask) : 0;
            acc[size_t(owner)] += next - t;
            t = next;
        }
        while (!open.empty() && open.top().first <= t) {
            const int type = open.top().second;
            open.pop();
            if (--active[size_t(type)] == 0)
                mask &= ~(1u << type);
        }
        while (i < spans.size() && spans[i].start <= t) {
            const int type = int(spans[i].type);
            open.push({spans[i].end, type});
            if (active[size_t(type)]++ == 0)
                mask |= 1u << type;
            ++i;
        }
    }
    if (end > t)
        acc[size_t(EventType::UnknownTime)] += end - t;
    return acc;
}

} // namespace

StepDb computeStepDb(const Trace &trace, const StepGroups &groups, const StepDbOptions &options)
{
    StepDb db;
    db.groupedInFile = groups.fromFile;
    bool anyTpu = false, anyGpu = false, anyHost = false, deviceEvents = false;
    for (const Plane &p : trace.planes) {
        const std::string_view name = trace.string(p.name);
        if (detail::isTensorCorePlaneName(name))
            anyTpu = true;
        else if (p.kind == PlaneKind::Device && !name.starts_with("/device:TPU")
                 && !name.starts_with("/device:CUSTOM"))
            anyGpu = true;
        else if (p.kind == PlaneKind::Host)
            anyHost = true;
        if (p.kind == PlaneKind::Device) {
            for (uint32_t t : p.tracks)
                deviceEvents = deviceEvents || trace.tracks[t].sliceCount > 0;
        }
    }
    if (anyTpu) {
        db.hardware = StepHardware::Tpu;
        db.hasDevice = true;
        db.steps = detail::computeTpuSteps(trace, groups);
    } else {
        db.hardware = anyGpu ? StepHardware::Gpu : anyHost ? StepHardware::CpuOnly : StepHardware::None;
        db.hasDevice = anyGpu;

        GroupTable table;
        std::vector<EventType> deviceType(trace.kinds.size());
        std::vector<HostClass> hostClass(trace.kinds.size());
        for (size_t k = 0; k < trace.kinds.size(); ++k) {
            deviceType[k] = classifyDeviceKind(trace.string(trace.kinds[k].name));
            hostClass[k] = classifyHostKind(trace.string(trace.kinds[k].name));
        }
        StringId shapeKey = kEmptyString, stepNameKey = kEmptyString, iplKey = kEmptyString;
        const bool hasShape = trace.strings.find("shape", &shapeKey);
        const bool hasStepName = trace.strings.find("step_name", &stepNameKey);
        const bool hasIpl = trace.strings.find("_ipl_stage_name", &iplKey);

        // The events of every step are walked once to count each group's spans, then once per
        // batch into an array sized exactly (StepWalk), so a 100M-event trace's spans take no
        // growth slack, no allocation per group and a bounded amount of memory. Everything else
        // the walk records is the same every time.
        SpanColumns spans;
        std::unordered_set<int64_t> deviceGroups;
        StepWalk walk(trace);
        auto collect = [&](auto &&emit) {
            // Device planes: markers and events, kept per plane only for groups with a marker there.
            for (uint32_t pi = 0; pi < trace.planes.size(); ++pi) {
                checkCancelled();
                const Plane &p = trace.planes[pi];
                const std::string_view pname = trace.string(p.name);
                if (p.kind != PlaneKind::Device || pname.starts_with("/device:TPU")
                    || pname.starts_with("/device:CUSTOM"))
                    continue;
                std::unordered_map<int64_t, Marker> markers;
                // Grouped here: the Steps line XProf derives after grouping (eventgrouping.h).
                for (const StepGroups::DeviceStep &d : groups.deviceSteps) {
                    if (d.plane == pi)
                        markers[d.group].offer(d.begin, d.duration, groups.names[size_t(d.group)]);
                }
                const std::vector<uint32_t> none;
                for (uint32_t ti : groups.fromFile ? p.tracks : none) {
                    const Track &t = trace.tracks[ti];
                    if (!isStepsLine(trace, t))
                        continue;
                    for (uint32_t r = 0; r < t.rows.size(); ++r) {
                        const Row &row = t.rows[r];
                        RowGroups group(trace, groups, ti, r);
                        for (size_t i = 0; i < row.size(); ++i) {
                            const int64_t g = group(i);
                            if (g >= 0)
                                markers[g].offer(row.start[i], row.duration[i],
                                                 trace.string(trace.kinds[row.kind[i]].name));
                        }
                    }
                }
                if (markers.empty())
                    continue;
                std::unordered_set<int64_t> used;
                for (uint32_t ti : p.tracks) {
                    const Track &t = trace.tracks[ti];
                    if (isDerivedLineId(t.sourceId) || isDerivedLineName(trace.string(t.name)))
                        continue;
                    for (uint32_t r = 0; r < t.rows.size(); ++r) {
                        const Row &row = t.rows[r];
                        RowGroups group(trace, groups, ti, r);
                        const auto &corrCol = row.side[size_t(SideColumn::CorrelationId)];
                        // Events come in time order, a step's one after another: the lookups
                        // by group are made once per run of one group, not per event.
                        int64_t lastGroup = kNoValue, seen = -1;
                        bool hasMarker = false, inUsed = false, stop = false;
                        for (size_t i = walk.first(ti, r); i < row.size(); ++i) {
                            const int64_t g = group(i);
                            if (g < 0)
                                continue;
                            if (!walk.take(ti, r, i, g, seen, stop)) {
                                if (stop)
                                    break;
                                continue;
                            }
                            int64_t corr = corrCol.empty() ? kNoValue : corrCol[i];
                            if (corr == kNoValue)
                                corr = trace.kinds[row.kind[i]].side[size_t(SideColumn::CorrelationId)];
                            if (corr == kNoValue || corr < 0)
                                continue;
                            if (g != lastGroup) {
                                lastGroup = g;
                                hasMarker = markers.count(g) != 0;
                                inUsed = false;
                            }
                            if (!hasMarker)
                                continue;
                            EventType type = deviceType[row.kind[i]];
                            if (hasShape && (type == EventType::DeviceCompute16
                                             || type == EventType::DeviceCompute32)
                                && row.argsAt(i) != kNoArgs) {
                                ArgValue v;
                                if (t.args.find(row.argsAt(i), shapeKey, &v)) {
                                    const std::string_view text = v.type == ArgType::StringRef
                                                                      ? trace.string(v.str)
                                                                      : v.s;
                                    type = text.find("half") != std::string_view::npos
                                               ? EventType::DeviceCompute16
                                               : EventType::DeviceCompute32;
                                }
                            }
                            Group &grp = table.at(g);
                            emit(grp, Span{row.start[i], row.end(i), type});
                            if (!inUsed) {
                                used.insert(g);
                                inUsed = true;
                            }
                        }
                        if (!stop)
                            walk.finished(ti, r, row.size());
                    }
                }
                for (int64_t g : used) {
                    const Marker &m = markers[g];
                    table.at(g).device.offer(m.begin, m.duration, m.name);
                    deviceGroups.insert(g);
                }
            }

            // Host threads.
            for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
                checkCancelled();
                const Track &t = trace.tracks[ti];
                const Plane &p = trace.planes[t.plane];
                if (p.kind != PlaneKind::Host || trace.string(p.name) == "/host:metadata")
                    continue;
                // Root input-pipeline stages: stage slices with no stage slice above them.
                std::vector<std::vector<uint8_t>> rootStage;
                if (hasIpl) {
                    rootStage.resize(t.rows.size());
                    std::vector<std::pair<TimePs, TimePs>> stages;   // shallower rows' stages
                    for (uint32_t r = 0; r < t.rows.size(); ++r) {
                        const Row &row = t.rows[r];
                        rootStage[r].assign(row.size(), 0);
                        std::vector<std::pair<TimePs, TimePs>> mine;
                        for (size_t i = 0; i < row.size(); ++i) {
                            ArgValue v;
                            if (row.argsAt(i) == kNoArgs || !t.args.find(row.argsAt(i), iplKey, &v))
                                continue;
                            const bool nested = std::any_of(stages.begin(), stages.end(), [&](auto &s) {
                                return s.first <= row.start[i] && row.end(i) <= s.second;
                            });
                            rootStage[r][i] = !nested;
                            mine.push_back({row.start[i], row.end(i)});
                        }
                        stages.insert(stages.end(), mine.begin(), mine.end());
                    }
                }
                for (uint32_t r = 0; r < t.rows.size(); ++r) {
                    const Row &row = t.rows[r];
                    RowGroups group(trace, groups, ti, r);
                    const auto &corrCol = row.side[size_t(SideColumn::CorrelationId)];
                    int64_t lastGroup = kNoValue, seen = -1;
                    bool onDevice = false, stop = false;
                    for (size_t i = walk.first(ti, r); i < row.size(); ++i) {
                        const int64_t g = group(i);
                        if (g < 0)
                            continue;
                        if (!walk.take(ti, r, i, g, seen, stop)) {
                            if (stop)
                                break;
                            continue;
                        }
                        if (g != lastGroup) {
                            lastGroup = g;
                            onDevice = !db.hasDevice || deviceGroups.count(g) != 0;
                        }
                        if (!onDevice)
                            continue;
                        std::string_view stepName;
                        if (hasStepName && row.argsAt(i) != kNoArgs) {
                            ArgValue v;
                            if (t.args.find(row.argsAt(i), stepNameKey, &v))
                                stepName = v.type == ArgType::StringRef ? trace.string(v.str) : v.s;
                        }
                        const bool computedRoot = !groups.fromFile && size_t(g) < groups.roots.size()
                                                  && groups.stepNamed[size_t(g)]
                                                  && groups.roots[size_t(g)] == SliceRef{ti, r, uint32_t(i)};
                        if (computedRoot && stepName.empty())
                            stepName = groups.names[size_t(g)];
                        const HostClass cls = hostClass[row.kind[i]];
                        Group &grp = table.at(g);
                        const std::string_view name = trace.string(trace.kinds[row.kind[i]].name);
                        if (cls == HostClass::Explicit || !stepName.empty()) {
                            grp.host.offer(row.start[i], row.duration[i], name);
                        } else if (cls != HostClass::NotReal) {
                            int64_t corr = corrCol.empty() ? kNoValue : corrCol[i];
                            if (corr == kNoValue)
                                corr = trace.kinds[row.kind[i]].side[size_t(SideColumn::CorrelationId)];
                            EventType type = EventType::HostCompute;
                            if (cls == HostClass::ToDevice)
                                type = EventType::HostToDevice;
                            else if (cls == HostClass::ToHost)
                                type = EventType::HostToHost;
                            else if (db.hasDevice && (corr != kNoValue || cls == HostClass::Executor))
                                type = EventType::HostPrepare;
                            else if (cls == HostClass::WaitInput || (hasIpl && rootStage[r][i]))
                                type = EventType::HostWaitInput;
                            emit(grp, Span{row.start[i], row.end(i), type});
                        }
                        if (!stepName.empty() && grp.stepName.empty())
                            grp.stepName = std::string(stepName);
                    }
                    if (!stop)
                        walk.finished(ti, r, row.size());
                }
            }
        };
        collect([&](Group &grp, const Span &) { ++grp.spanCount; });

        std::vector<size_t> byId(table.groups().size());
        for (size_t k = 0; k < byId.size(); ++k)
            byId[k] = k;
        std::sort(byId.begin(), byId.end(), [&](size_t a, size_t b) {
            return table.groups()[a].id < table.groups()[b].id;
        });
        db.steps.reserve(byId.size());   // at most one step per group: no growth slack kept
        for (size_t first = 0, last = 0; first < byId.size(); first = last) {
            uint64_t batchSpans = 0;
            for (last = first; last < byId.size(); ++last) {
                const uint64_t n = table.groups()[byId[last]].spanCount;
                if (last > first && batchSpans + n > options.batchSpans)
                    break;
                batchSpans += n;
            }
            uint64_t next = 0;
            for (size_t k = first; k < last; ++k) {
                Group &g = table.groups()[byId[k]];
                g.spanOffset = next;
                next += g.spanCount;
                g.spanCount = 0;
            }
            spans.allocate(batchSpans);
            walk.startBatch(table.groups()[byId[first]].id,
                            last < byId.size() ? table.groups()[byId[last]].id
                                               : std::numeric_limits<int64_t>::max());
            collect([&](Group &grp, const Span &span) {
                spans.set(grp.spanOffset + grp.spanCount++, span);
            });
            // Each step's sweep reads only its own spans: the batch's steps are swept on every
            // core, each worker in a span buffer of its own, and kept in group order.
            std::vector<std::optional<StepInfo>> made(last - first);
            const unsigned workers = workerCount(last - first);
            std::vector<std::vector<Span>> stepSpans(workers);
            parallelFor(last - first, workers, [&](unsigned worker, size_t j) {
                const Group &g = table.groups()[byId[first + j]];
                if (db.hasDevice && !deviceGroups.count(g.id))
                    return true;
                Marker span = g.device.duration >= 0 ? g.device : g.host;
                if (g.device.duration >= 0 && g.host.contains(g.device))
                    span = g.host;
                if (span.duration < 0)
                    return true;
                StepInfo s;
                s.groupId = g.id;
                s.begin = span.begin;
                s.duration = span.duration;
                spans.copy(g.spanOffset, g.spanCount, &stepSpans[worker]);
                s.typePs = sweep(stepSpans[worker], span.begin, span.begin + span.duration);
                const bool keep = db.hasDevice ? s.type(EventType::DeviceCompute16)
                                                         + s.type(EventType::DeviceCompute32) > 0
                                               : s.type(EventType::HostCompute) > 0;
                if (!keep)
                    return true;
                s.name = !g.stepName.empty() ? g.stepName
                         : !g.device.name.empty() ? std::string(g.device.name)
                                                  : std::to_string(g.id);
                made[j] = std::move(s);
                return true;
            });
            for (std::optional<StepInfo> &s : made)
                if (s)
                    db.steps.push_back(std::move(*s));
        }
        std::sort(db.steps.begin(), db.steps.end(), [](const StepInfo &a, const StepInfo &b) {
            return a.begin != b.begin ? a.begin < b.begin : a.groupId < b.groupId;
        });
    }

    if (options.dropIncompleteSteps && db.steps.size() > 5) {
        db.steps.erase(db.steps.begin());
        db.steps.pop_back();
        db.droppedSteps = 2;
        db.diagnostics.info.push_back(stepsDroppedMessage(2));
    }
    for (const StepInfo &s : db.steps) {
        db.compute16Ps += s.type(EventType::DeviceCompute16);
        db.compute32Ps += s.type(EventType::DeviceCompute32);
    }
    if ((anyGpu || anyTpu) && !deviceEvents)
        db.diagnostics.warnings.push_back(kNoDeviceTraceMessage);
    if (db.steps.empty())
        db.diagnostics.warnings.push_back(kNoStepMarkerMessage);
    for (const std::string &w : trace.info.warnings)
        db.diagnostics.warnings.push_back(w);
    return db;
}

std::shared_ptr<const StepDb> stepDb(AnalysisCache &cache)
{
    auto groups = stepGroups(cache);
    return cache.get<StepDb>(
        [&](AnalysisCache &c) { return computeStepDb(c.trace(), *groups); });
}

} // namespace tracedesk::core::analysis
