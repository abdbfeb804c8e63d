#include "core/io/chromejsonassembler.h"

#include "core/io/kinetodialect.h"
#include "core/io/kinetometadata.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>

namespace tracedesk::core {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

bool containsWordCi(std::string_view text, std::string_view word)
{
    auto it = std::search(text.begin(), text.end(), word.begin(), word.end(),
                          [](char a, char b) { return std::tolower(uint8_t(a)) == b; });
    return it != text.end();
}

bool looksLikeDevice(std::string_view text)
{
    for (std::string_view w : {"gpu", "stream", "tpu", "device", "mtia", "npu", "xpu"}) {
        if (containsWordCi(text, w))
            return true;
    }
    return false;
}

// "stream 7" -> 7: the trailing number of a string tid, for Track::sourceId.
int64_t trailingNumber(std::string_view s)
{
    size_t i = s.size();
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        --i;
    int64_t v = 0;
    std::from_chars(s.data() + i, s.data() + s.size(), v);
    return v;
}

const ChromeArg *findArg(const ChromeEvent &e, std::string_view key)
{
    for (size_t i = 0; i < e.argCount; ++i) {
        if (e.args[i].key == key)
            return &e.args[i];
    }
    return nullptr;
}

bool numericArg(const ChromeArg &a, double *v)
{
    switch (a.type) {
    case ArgType::Int:
    case ArgType::Bool:
        *v = double(a.i);
        return true;
    case ArgType::UInt:
        *v = double(a.u);
        return true;
    case ArgType::Double:
        *v = a.d;
        return true;
    default:
        return false;
    }
}

// b - a for b >= a without overflow (timestamps span nearly the whole int64 range).
TimePs spanBetween(TimePs a, TimePs b)
{
    TimePs d = 0;
    if (__builtin_sub_overflow(b, a, &d))
        return b >= a ? std::numeric_limits<TimePs>::max() : std::numeric_limits<TimePs>::min();
    return d;
}

} // namespace

size_t ChromeJsonAssembler::Hash::operator()(const IdKey &k) const
{
    return size_t(mix64(uint64_t(k.value) * 4 + (k.isString ? 1 : 0) + (k.device ? 2 : 0)));
}

size_t ChromeJsonAssembler::Hash::operator()(const ThreadKey &k) const
{
    return size_t(mix64((*this)(k.pid) ^ (uint64_t(k.tid.value) * 4 + (k.tid.isString ? 1 : 0))));
}

size_t ChromeJsonAssembler::Hash::operator()(const std::array<uint64_t, 3> &k) const
{
    return size_t(mix64(k[0] ^ mix64(k[1] ^ mix64(k[2]))));
}

size_t ChromeJsonAssembler::Hash::operator()(const std::array<uint64_t, 4> &k) const
{
    return size_t(mix64(k[0] ^ mix64(k[1] ^ mix64(k[2] ^ mix64(k[3])))));
}

ChromeJsonAssembler::ChromeJsonAssembler(TraceBuilder &builder)
    : m_builder(builder), m_strings(builder.strings())
{
    m_keyFlops = m_strings.intern("flops");
    m_launchFlowCategory = m_strings.intern("ac2g");
}

StringId ChromeJsonAssembler::intern(std::string_view s)
{
    return m_strings.intern(s);
}

ChromeJsonAssembler::IdKey ChromeJsonAssembler::idKey(const JsonId &id)
{
    // By value as text, as Chrome's importer keys them: "25738" and 25738 are one thread.
    if (id.kind == JsonId::Kind::String) {
        if (auto v = kineto::canonicalInteger(id.text))
            return IdKey{*v, false};
        return IdKey{int64_t(intern(id.text)), true};
    }
    return IdKey{id.kind == JsonId::Kind::Number ? id.number : 0, false};
}

uint32_t ChromeJsonAssembler::processFor(const IdKey &pid)
{
    auto [it, inserted] = m_processIndex.try_emplace(pid, uint32_t(m_processes.size()));
    if (!inserted)
        return it->second;
    Process p;
    p.key = pid;
    const std::string name = pid.isString ? std::string(m_builder.strings().view(StringId(pid.value)))
                             : pid.device ? "GPU " + std::to_string(pid.value)
                                          : "Process " + std::to_string(pid.value);
    p.plane = m_builder.addPlane(name, {}, pid.isString ? 0 : pid.value,
                                 pid.device ? PlaneKind::Device : PlaneKind::Host);
    m_processes.push_back(p);
    return it->second;
}

ChromeJsonAssembler::Thread &ChromeJsonAssembler::threadFor(const ChromeEvent &e, bool device)
{
    ThreadKey key{idKey(e.pid), idKey(e.tid)};
    key.pid.device = device;
    return threadForKey(key);
}

ChromeJsonAssembler::Thread &ChromeJsonAssembler::threadForKey(const ThreadKey &key)
{
    if (m_lastThread != kNone && m_threads[m_lastThread].key == key)
        return m_threads[m_lastThread];
    auto [it, inserted] = m_threadIndex.try_emplace(key, uint32_t(m_threads.size()));
    m_lastThread = it->second;
    if (!inserted)
        return m_threads[it->second];
    Thread t;
    t.key = key;
    t.process = processFor(key.pid);
    std::string name;
    int64_t sourceId = key.tid.value;
    if (key.tid.isString) {
        name = std::string(m_builder.strings().view(StringId(key.tid.value)));
        sourceId = trailingNumber(name);
    } else {
        name = "Thread " + std::to_string(key.tid.value);
    }
    t.track = m_builder.addTrack(m_processes[t.process].plane, name, sourceId);
    m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
    m_threads.push_back(std::move(t));
    return m_threads.back();
}

uint32_t ChromeJsonAssembler::kindFor(std::string_view name, std::string_view cat, uint32_t plane)
{
    const StringId n = intern(name);
    const StringId c = intern(cat);
    const std::vector<EventKind> &kinds = m_builder.trace().kinds;
    auto slotOf = [this](StringId n, StringId c, uint32_t plane) {
        return size_t(mix64((uint64_t(n) << 32 | c) ^ mix64(plane))) & (m_kindSlots.size() - 1);
    };
    size_t i = slotOf(n, c, plane);
    for (;; i = (i + 1) & (m_kindSlots.size() - 1)) {
        const uint32_t slot = m_kindSlots[i];
        if (slot == 0)
            break;
        const EventKind &k = kinds[slot - 1];
        if (k.name == n && k.category == c && k.plane == plane)
            return slot - 1;
    }
    EventKind k;
    k.name = n;
    k.displayName = n;
    k.category = c;
    k.role = kineto::roleOf(cat, name);
    k.plane = plane;
    const uint32_t kind = m_builder.addKind(k);
    m_kindSlots[i] = kind + 1;
    if (++m_kindCount * 2 > m_kindSlots.size()) {
        std::vector<uint32_t> old(m_kindSlots.size() * 2, 0);
        old.swap(m_kindSlots);
        const std::vector<EventKind> &all = m_builder.trace().kinds;
        for (uint32_t slot : old) {
            if (slot == 0)
                continue;
            const EventKind &e = all[slot - 1];
            size_t j = slotOf(e.name, e.category, e.plane);
            while (m_kindSlots[j] != 0)
                j = (j + 1) & (m_kindSlots.size() - 1);
            m_kindSlots[j] = slot;
        }
    }
    return kind;
}

uint32_t ChromeJsonAssembler::addSlice(uint32_t track, TimePs ts, TimePs dur, uint32_t kind,
                                       ArgsRef args)
{
    const uint32_t staged = m_builder.trackBuilder(track).addSlice(ts, dur, kind, args);
    const TimePs end = dur > 0 && ts <= std::numeric_limits<TimePs>::max() - dur ? ts + dur : ts;
    m_trackLast[track] = std::max(m_trackLast[track], end);
    return staged;
}

ArgsRef ChromeJsonAssembler::writeArgs(uint32_t track, const ChromeEvent &e, uint32_t)
{
    m_sideScratch.clear();
    if (e.argCount == 0)
        return kNoArgs;
    ArgsArena::Writer w(m_builder.track(track).args);
    for (size_t i = 0; i < e.argCount; ++i) {
        const ChromeArg &a = e.args[i];
        const StringId key = intern(a.key);
        w.add(key, a.type, a.i, a.u, a.d, a.s);
        if (key >= m_sideOfKey.size())
            m_sideOfKey.resize(size_t(key) + 1024, -2);
        int8_t &column = m_sideOfKey[key];
        if (column == -2) {
            const auto c = key == m_keyFlops ? std::optional(SideColumn::Flops)
                                             : kineto::sideColumnOf(a.key);
            column = c ? int8_t(*c) : int8_t(-1);
        }
        if (column == int8_t(SideColumn::ExternalId) && !m_kinetoDecided)
            m_kineto = true;
        if (column >= 0) {
            const int64_t v = sideValue(SideColumn(column), a);
            if (v != kNoValue)
                m_sideScratch.emplace_back(SideColumn(column), v);
        }
    }
    const ArgsRef ref = w.finish();
    if (ref == kNoArgs)
        ++m_argsDropped;
    return ref;
}

ArgsRef ChromeJsonAssembler::mergeArgs(uint32_t track, ArgsRef first, const ChromeEvent &e)
{
    if (e.argCount == 0)
        return first;
    if (first == kNoArgs)
        return writeArgs(track, e, 0);
    // E adds args to its B: re-encode both lists as one record (rare, so kept simple).
    ArgsArena &arena = m_builder.track(track).args;
    m_mergeScratch.clear();
    arena.forEach(first, [&](const ArgValue &v) { m_mergeScratch.push_back(v); });
    // The writer stages in a scratch buffer, so the views into the arena stay valid until finish().
    ArgsArena::Writer w(arena);
    for (const ArgValue &v : m_mergeScratch)
        w.add(v.key, v.type, v.i, v.type == ArgType::StringRef ? v.str : v.u, v.d, v.s);
    for (size_t i = 0; i < e.argCount; ++i) {
        const ChromeArg &a = e.args[i];
        w.add(intern(a.key), a.type, a.i, a.u, a.d, a.s);
    }
    return w.finish();
}

uint64_t ChromeJsonAssembler::flowId(const JsonId &id)
{
    if (id.kind == JsonId::Kind::Number)
        return uint64_t(id.number);
    std::string_view t = id.text;
    uint64_t v = 0;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        auto r = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size())
            return v;
    } else {
        auto r = std::from_chars(t.data(), t.data() + t.size(), v);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size() && !t.empty())
            return v;
    }
    return ChromeJsonStrings::hash(t);
}

void ChromeJsonAssembler::malformed(const char *problem)
{
    ++m_problems[problem];
}

void ChromeJsonAssembler::repaired(const char *problem)
{
    ++m_repairs[problem];
}

void ChromeJsonAssembler::event(const ChromeEvent &e)
{
    if (e.isSentinel())
        return; // `{}` closing an array
    if (e.ph.empty()) {
        ++m_missingPh;
        return;
    }
    ++m_events;
    if (e.ph.size() == 1)
        ++m_phaseCounts[uint8_t(e.ph[0])];
    else
        ++m_otherPhases[std::string(e.ph)];
    const char ph = e.ph.size() == 1 ? e.ph[0] : '\0';
    if (ph == 'M') {
        metadata(e);
        return;
    }
    const bool known = std::strchr("XBEiICbenSTpFstf", ph) != nullptr && ph != '\0';
    if (!known) {
        ++m_unsupported[std::string(e.ph)];
        return;
    }
    if (!e.hasTs) {
        ++m_missingTs;
        return;
    }
    switch (ph) {
    case 'X': complete(e); break;
    case 'B': begin(e); break;
    case 'E': end(e); break;
    case 'i':
    case 'I': instant(e); break;
    case 'C': counter(e); break;
    case 'b':
    case 'S': asyncEvent(e, 'b'); break;
    case 'e':
    case 'F': asyncEvent(e, 'e'); break;
    case 'n':
    case 'T':
    case 'p': asyncEvent(e, 'n'); break;
    default: flow(e, ph); break;
    }
}

void ChromeJsonAssembler::complete(const ChromeEvent &e)
{
    const SliceRole role = kineto::roleOf(e.cat, e.name);
    if (kineto::isDeviceRole(role))
        m_kinetoDecided = true;
    Thread &t = threadFor(e, m_kineto && kineto::isDeviceRole(role));
    const uint32_t plane = m_processes[t.process].plane;
    if (!e.hasDur)
        ++m_missingDur;
    const uint32_t kind = kindFor(e.name, e.cat, plane);
    const ArgsRef args = writeArgs(t.track, e, 0);
    const uint32_t staged = addSlice(t.track, e.ts, e.hasDur ? e.dur : 0, kind, args);
    setSides(t.track, staged, role);
    if (e.bindId.present() && (e.flowIn || e.flowOut)) {
        const FlowPhase phase = e.flowIn && e.flowOut ? FlowPhase::Step
                                : e.flowOut           ? FlowPhase::Start
                                                      : FlowPhase::End;
        m_builder.addFlowOnSlice(t.track, staged, e.ts, flowId(e.bindId), kEmptyString, phase);
    }
}

void ChromeJsonAssembler::begin(const ChromeEvent &e)
{
    Thread &t = threadFor(e);
    const uint32_t kind = kindFor(e.name, e.cat, m_processes[t.process].plane);
    t.stack.push_back(Open{e.ts, kind, writeArgs(t.track, e, 0), 0, t.track});
    m_trackLast[t.track] = std::max(m_trackLast[t.track], e.ts);
}

void ChromeJsonAssembler::end(const ChromeEvent &e)
{
    Thread &t = threadFor(e);
    if (t.stack.empty()) {
        ++m_unmatchedEnd;
        return;
    }
    const Open open = t.stack.back();
    t.stack.pop_back();
    const ArgsRef args = mergeArgs(t.track, open.args, e);
    TimePs dur = spanBetween(open.ts, e.ts);
    if (dur < 0) {
        ++m_endBeforeBegin;
        dur = 0;
    }
    addSlice(t.track, open.ts, dur, open.kind, args);
}

uint32_t ChromeJsonAssembler::globalInstantTrack()
{
    if (m_globalTrack == kNone) {
        m_globalPlane = m_builder.addPlane("Global", {}, -1, PlaneKind::Other);
        m_globalTrack = m_builder.addTrack(m_globalPlane, "Instant events", 0);
        m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
    }
    return m_globalTrack;
}

void ChromeJsonAssembler::instant(const ChromeEvent &e)
{
    uint32_t track = 0;
    uint32_t plane = 0;
    if (e.scope == 'g') {
        track = globalInstantTrack();
        plane = m_globalPlane;
    } else if (e.scope == 'p') {
        Process &p = m_processes[processFor(idKey(e.pid))];
        if (p.instantTrack == kNone) {
            p.instantTrack = m_builder.addTrack(p.plane, "Instant events", 0);
            m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
        }
        track = p.instantTrack;
        plane = p.plane;
    } else {
        Thread &t = threadFor(e);
        track = t.track;
        plane = m_processes[t.process].plane;
    }
    const uint32_t kind = kindFor(e.name, e.cat, plane);
    const ArgsRef args = writeArgs(track, e, 0);
    const uint32_t staged = addSlice(track, e.ts, 0, kind, args);
    setSides(track, staged, m_builder.trace().kinds[kind].role);
}

void ChromeJsonAssembler::counter(const ChromeEvent &e)
{
    const uint32_t process = processFor(idKey(e.pid));
    const StringId name = intern(e.name);
    const uint64_t id = e.id.present() ? flowId(e.id) : 0;
    for (size_t i = 0; i < e.argCount; ++i) {
        const ChromeArg &a = e.args[i];
        double value = 0;
        if (!numericArg(a, &value)) {
            ++m_badCounterValues;
            continue;
        }
        const StringId key = intern(a.key);
        const uint64_t idPart = e.id.present() ? id * 2 + 1 : 0;
        auto [it, inserted] = m_counterTracks.try_emplace({process, name, idPart, key}, 0);
        if (inserted) {
            std::string trackName(e.name);
            if (e.id.present())
                trackName += " " + (e.id.kind == JsonId::Kind::String ? std::string(e.id.text)
                                                                      : std::to_string(e.id.number));
            trackName += " (" + std::string(a.key) + ")";
            it->second = m_builder.addTrack(m_processes[process].plane, trackName, 0,
                                            TrackType::Counter);
            m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
        }
        m_builder.trackBuilder(it->second).addCounterSample(e.ts, value);
    }
}

void ChromeJsonAssembler::metadata(const ChromeEvent &e)
{
    const ChromeArg *a = nullptr;
    auto text = [&](std::string_view key) -> const ChromeArg * {
        const ChromeArg *arg = findArg(e, key);
        return arg && arg->type == ArgType::String ? arg : nullptr;
    };
    auto number = [&](std::string_view key, int64_t *out) {
        const ChromeArg *arg = findArg(e, key);
        double v = 0;
        if (!arg || !numericArg(*arg, &v))
            return false;
        *out = arg->type == ArgType::Int ? arg->i : int64_t(v);
        return true;
    };
    if (e.name == "process_name" && (a = text("name"))) {
        m_processMeta[idKey(e.pid)].name = std::string(a->s);
    } else if (e.name == "process_labels" && (a = text("labels"))) {
        m_processMeta[idKey(e.pid)].labels.emplace_back(a->s);
    } else if (e.name == "process_sort_index") {
        ProcessMeta &m = m_processMeta[idKey(e.pid)];
        m.hasSort = number("sort_index", &m.sort) || m.hasSort;
    } else if (e.name == "thread_name" && (a = text("name"))) {
        m_threadMeta[ThreadKey{idKey(e.pid), idKey(e.tid)}].name = std::string(a->s);
    } else if (e.name == "thread_sort_index") {
        ThreadMeta &m = m_threadMeta[ThreadKey{idKey(e.pid), idKey(e.tid)}];
        m.hasSort = number("sort_index", &m.sort) || m.hasSort;
    }
}

uint32_t ChromeJsonAssembler::asyncTrack(uint32_t process, StringId name)
{
    auto [it, inserted] = m_asyncTracks.try_emplace({process, name, 0}, 0);
    if (inserted) {
        it->second = m_builder.addTrack(m_processes[process].plane, m_builder.strings().view(name), 0);
        m_trackLast.resize(m_builder.trackCount(), std::numeric_limits<TimePs>::min());
    }
    return it->second;
}

void ChromeJsonAssembler::asyncEvent(const ChromeEvent &e, char kind)
{
    const uint32_t process = processFor(idKey(e.pid));
    const uint32_t plane = m_processes[process].plane;
    const StringId name = intern(e.name);
    const StringId cat = intern(e.cat);
    const std::array<uint64_t, 3> lane{process, cat, e.id.present() ? flowId(e.id) : 0};
    if (kind == 'n') {
        const uint32_t track = asyncTrack(process, name);
        addSlice(track, e.ts, 0, kindFor(e.name, e.cat, plane), writeArgs(track, e, 0));
        return;
    }
    if (kind == 'b') {
        const uint32_t track = asyncTrack(process, name);
        m_asyncOpen[lane].push_back(
            Open{e.ts, kindFor(e.name, e.cat, plane), writeArgs(track, e, 0), name, track});
        m_trackLast[track] = std::max(m_trackLast[track], e.ts);
        return;
    }
    auto it = m_asyncOpen.find(lane);
    if (it == m_asyncOpen.end() || it->second.empty()) {
        ++m_unmatchedAsyncEnd;
        return;
    }
    // The innermost open begin of the same name, else the innermost one.
    std::vector<Open> &open = it->second;
    size_t at = open.size() - 1;
    for (size_t k = open.size(); k-- > 0;) {
        if (open[k].name == name || e.name.empty()) {
            at = k;
            break;
        }
    }
    const Open o = open[at];
    open.erase(open.begin() + ptrdiff_t(at));
    TimePs dur = spanBetween(o.ts, e.ts);
    if (dur < 0) {
        ++m_endBeforeBegin;
        dur = 0;
    }
    addSlice(o.track, o.ts, dur, o.kind, mergeArgs(o.track, o.args, e));
}

void ChromeJsonAssembler::flow(const ChromeEvent &e, char kind)
{
    if (!e.id.present()) {
        ++m_flowWithoutId;
        return;
    }
    const FlowPhase phase = kind == 's' ? FlowPhase::Start
                            : kind == 't' ? FlowPhase::Step
                                          : FlowPhase::End;
    const bool bindNext = kind != 's' && e.bp != 'e';
    // Until the dialect is decided a launch flow waits: a Kineto file binds launches by
    // correlation id instead.
    if ((m_kineto || !m_kinetoDecided) && kineto::isLaunchFlow(e.cat, e.name)) {
        m_launchFlows.push_back(LaunchFlow{ThreadKey{idKey(e.pid), idKey(e.tid)}, e.ts,
                                           flowId(e.id), intern(e.cat), phase, bindNext});
        return;
    }
    const Thread &t = threadFor(e);
    m_builder.addFlowAt(t.track, e.ts, flowId(e.id), intern(e.cat), phase, bindNext);
}

void ChromeJsonAssembler::finish()
{
    auto closeAt = [&](const Open &o) {
        const TimePs last = std::max(o.ts, m_trackLast[o.track]);
        addSlice(o.track, o.ts, spanBetween(o.ts, last), o.kind, o.args);
    };
    for (Thread &t : m_threads) {
        for (const Open &o : t.stack) {
            ++m_unclosedBegin;
            closeAt(o);
        }
        t.stack.clear();
    }
    for (auto &[lane, open] : m_asyncOpen) {
        for (const Open &o : open) {
            ++m_unclosedAsync;
            closeAt(o);
        }
    }
    m_asyncOpen.clear();
    RunMetadata &run = m_builder.info().run;
    const bool kinetoKeys = kineto::readRunMetadata(m_topLevel, &run);
    m_topLevel.clear();
    if (kinetoKeys || m_kineto)
        run.framework = "pytorch";
    bindLaunches();
    applyMetadata();
    addLaunchQueues();
    summarise();
}

void ChromeJsonAssembler::applyMetadata()
{
    Trace &trace = m_builder.trace();
    const bool kineto = m_kineto;
    for (const Process &p : m_processes) {
        Plane &plane = trace.planes[p.plane];
        IdKey metaKey = p.key;
        metaKey.device = false;
        const auto it = m_processMeta.find(metaKey);
        if (p.key.device) {
            // A GPU activity's pid is its device index; the process name Kineto writes there
            // ("python") is the host's, so the plane is named by its device label.
            if (it != m_processMeta.end()) {
                for (const std::string &label : it->second.labels) {
                    if (looksLikeDevice(label))
                        plane.name = intern(label);
                }
            }
            plane.kind = PlaneKind::Device;
            plane.sortIndex = int32_t(std::clamp<int64_t>(p.key.value, INT32_MIN, INT32_MAX));
            continue;
        }
        std::string label(m_builder.strings().view(plane.name));
        if (it != m_processMeta.end()) {
            if (!it->second.name.empty()) {
                plane.name = intern(it->second.name);
                label = it->second.name;
            }
            for (const std::string &l : it->second.labels)
                label += " " + l;
            if (it->second.hasSort)
                plane.sortIndex = int32_t(std::clamp<int64_t>(it->second.sort, INT32_MIN, INT32_MAX));
        }
        // In a Kineto trace a process is a device only through its activities (above): an OS
        // pid may equal a device index, and then carries that device's labels too.
        plane.kind = !kineto && looksLikeDevice(label) ? PlaneKind::Device : PlaneKind::Host;
    }
    for (const Thread &t : m_threads) {
        Track &track = m_builder.track(t.track);
        ThreadKey metaKey = t.key;
        metaKey.pid.device = false;
        if (auto it = m_threadMeta.find(metaKey); it != m_threadMeta.end()) {
            if (!it->second.name.empty()) {
                std::string_view name = it->second.name;
                while (!name.empty() && name.back() == ' ')
                    name.remove_suffix(1);
                track.name = intern(name);
            }
            if (it->second.hasSort)
                track.sortIndex = int32_t(std::clamp<int64_t>(it->second.sort, INT32_MIN, INT32_MAX));
        } else if (t.key.pid.device && !t.key.tid.isString) {
            track.name = intern("Stream " + std::to_string(t.key.tid.value));
        }
        // Chrome JSON without metadata: a process whose threads are streams is a device.
        Plane &plane = trace.planes[m_processes[t.process].plane];
        if (!kineto && plane.kind == PlaneKind::Host
            && containsWordCi(m_builder.strings().view(track.name), "stream"))
            plane.kind = PlaneKind::Device;
    }
}

void ChromeJsonAssembler::summarise()
{
    LoadInfo &info = m_builder.info();
    for (int c = 0; c < 256; ++c) {
        if (m_phaseCounts[c])
            info.recordsByPhase[std::string(1, char(c))] += m_phaseCounts[c];
    }
    for (const auto &[ph, n] : m_otherPhases)
        info.recordsByPhase[ph] += n;
    auto warnCount = [&info](uint64_t n, const std::string &what) {
        if (n == 0)
            return;
        info.warn(std::to_string(n) + " " + what);
        info.warningCount += n - 1;
    };
    for (const auto &[problem, n] : m_problems)
        warnCount(n, std::string("event(s) skipped: ") + problem);
    warnCount(m_missingPh, "event(s) without \"ph\" skipped");
    warnCount(m_missingTs, "event(s) without \"ts\" skipped");
    warnCount(m_truncated, "event(s) cut off by the end of the file skipped");
    if (m_unclosed && m_truncated == 0)
        info.warn("the file ends before closing its event list (it may be cut short)");
    warnCount(m_missingDur, "complete (X) event(s) without \"dur\" shown as 0-length");
    for (const auto &[problem, n] : m_repairs)
        warnCount(n, std::string("event(s) kept with ") + problem);
    warnCount(m_unmatchedEnd, "end (E) event(s) without a matching begin (B) dropped");
    warnCount(m_endBeforeBegin, "end event(s) earlier than their begin shown as 0-length");
    warnCount(m_unclosedBegin, "begin (B) event(s) never ended, closed at their thread's last timestamp");
    warnCount(m_unmatchedAsyncEnd, "async end event(s) without a matching begin dropped");
    warnCount(m_unclosedAsync, "async begin event(s) never ended, closed at their track's last timestamp");
    warnCount(m_flowWithoutId, "flow event(s) without \"id\" dropped");
    warnCount(m_badCounterValues, "counter value(s) that are not numbers ignored");
    warnCount(m_argsDropped, "event(s) lost their args (a track's args passed 4 GiB)");
    if (!m_unsupported.empty()) {
        uint64_t total = 0;
        std::string detail;
        for (const auto &[ph, n] : m_unsupported) {
            total += n;
            detail += (detail.empty() ? "" : ", ") + ph + ": " + std::to_string(n);
        }
        info.warn(std::to_string(total) + " event(s) of unsupported phases not shown (" + detail + ")");
    }
}

} // namespace tracedesk::core
