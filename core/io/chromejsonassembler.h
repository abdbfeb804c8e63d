#pragma once

// ChromeJsonAssembler: turns parsed Chrome trace events into planes, tracks, slices, counters
// and flows through a TraceBuilder.
//
// pid -> Plane, (pid, tid) -> thread Track; per-process "Instant events" tracks (scope p), one
// global one (scope g); one Counter track per (pid, name, id, series key); one async track per
// (pid, event name) for b/e/n and S/T/p/F. Metadata (M) may arrive before or after the events
// it names, so names, sort indices and plane kinds are applied in finish().
//
// Design note (unmatched B/E): E pops the innermost open B of its thread; an E with nothing open
// is counted and dropped; an E earlier than its B gives a 0-length slice at the B (counted). A B
// still open at the end is closed at the latest timestamp seen on its track (0-length if nothing
// later), with one summary warning. Async begins are handled the
// same way on their async track. Event kinds are interned by (name, cat, plane).
// One thread; finish() once, before TraceBuilder::build().

#include "core/io/chromejsonparser.h"
#include "core/io/chromejsonstrings.h"
#include "core/model/tracebuilder.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace tracedesk::core {

class ChromeJsonAssembler : public ChromeJsonParser::Sink
{
public:
    explicit ChromeJsonAssembler(TraceBuilder &builder);

    void event(const ChromeEvent &event) override;
    void malformed(const char *problem) override;
    void repaired(const char *problem) override;
    void truncated() { ++m_truncated; }
    // The text ended without closing its event array or top-level object.
    void unclosed() { m_unclosed = true; }
    // The file is a Kineto (PyTorch profiler) trace, as its top-level keys before the events
    // say: GPU activities then go to device planes and launches bind by correlation id. Files
    // that write those keys after their events are recognised by their first "External id".
    void setKineto(bool kineto) { m_kineto = kineto; }
    // The file's other top-level keys (Kineto run metadata), before finish().
    void setTopLevel(std::vector<std::pair<std::string, std::string>> values)
    {
        m_topLevel = std::move(values);
    }
    void finish();

    uint64_t eventCount() const { return m_events; }

private:
    // A pid or tid: a number, or an interned string. `device` marks the pid of a GPU activity:
    // Kineto writes the device index there, which may equal an OS pid of the same file.
    struct IdKey
    {
        int64_t value = 0;
        bool isString = false;
        bool device = false;
        bool operator==(const IdKey &) const = default;
    };
    struct ThreadKey
    {
        IdKey pid;
        IdKey tid;
        bool operator==(const ThreadKey &) const = default;
    };
    struct Hash
    {
        size_t operator()(const IdKey &k) const;
        size_t operator()(const ThreadKey &k) const;
        size_t operator()(const std::array<uint64_t, 3> &k) const;
        size_t operator()(const std::array<uint64_t, 4> &k) const;
    };
    struct Open
    {
        TimePs ts;
        uint32_t kind;
        ArgsRef args;
        StringId name;
        uint32_t track;
    };
    struct Process
    {
        IdKey key;
        uint32_t plane = 0;
        uint32_t instantTrack = UINT32_MAX;
    };
    struct Thread
    {
        ThreadKey key;
        uint32_t process = 0;
        uint32_t track = 0;
        std::vector<Open> stack;
    };
    struct ProcessMeta
    {
        std::string name;
        std::vector<std::string> labels;
        bool hasSort = false;
        int64_t sort = 0;
    };
    struct ThreadMeta
    {
        std::string name;
        bool hasSort = false;
        int64_t sort = 0;
    };

    StringId intern(std::string_view s);
    IdKey idKey(const JsonId &id);
    uint32_t processFor(const IdKey &pid);
    Thread &threadFor(const ChromeEvent &e, bool device = false);
    Thread &threadForKey(const ThreadKey &key);
    uint32_t kindFor(std::string_view name, std::string_view cat, uint32_t plane);
    ArgsRef writeArgs(uint32_t track, const ChromeEvent &e, uint32_t staged);
    ArgsRef mergeArgs(uint32_t track, ArgsRef first, const ChromeEvent &e);
    uint32_t addSlice(uint32_t track, TimePs ts, TimePs dur, uint32_t kind, ArgsRef args);
    uint64_t flowId(const JsonId &id);

    void complete(const ChromeEvent &e);
    void begin(const ChromeEvent &e);
    void end(const ChromeEvent &e);
    void instant(const ChromeEvent &e);
    void counter(const ChromeEvent &e);
    void metadata(const ChromeEvent &e);
    void asyncEvent(const ChromeEvent &e, char kind);
    void flow(const ChromeEvent &e, char kind);
    uint32_t asyncTrack(uint32_t process, StringId name);
    uint32_t globalInstantTrack();
    void applyMetadata();
    void bindLaunches();
    void addLaunchQueues();
    void setSides(uint32_t track, uint32_t staged, SliceRole role);
    int64_t sideValue(SideColumn column, const ChromeArg &a);
    void summarise();

    TraceBuilder &m_builder;
    std::vector<TimePs> m_trackLast;   // latest end seen per track, for closing open begins
    ChromeJsonStrings m_strings;
    std::vector<Process> m_processes;
    std::unordered_map<IdKey, uint32_t, Hash> m_processIndex;
    std::vector<Thread> m_threads;
    std::unordered_map<ThreadKey, uint32_t, Hash> m_threadIndex;
    uint32_t m_lastThread = UINT32_MAX;
    // (name, cat, plane) -> kind: open addressing over kind index + 1 (0 = free), compared
    // against Trace::kinds, so a million distinct names cost 4-8 bytes each here.
    std::vector<uint32_t> m_kindSlots = std::vector<uint32_t>(1024, 0);
    size_t m_kindCount = 0;
    std::unordered_map<std::array<uint64_t, 4>, uint32_t, Hash> m_counterTracks;
    std::unordered_map<std::array<uint64_t, 3>, uint32_t, Hash> m_asyncTracks;
    std::unordered_map<std::array<uint64_t, 3>, std::vector<Open>, Hash> m_asyncOpen;
    std::unordered_map<IdKey, ProcessMeta, Hash> m_processMeta;
    std::unordered_map<ThreadKey, ThreadMeta, Hash> m_threadMeta;
    uint32_t m_globalPlane = UINT32_MAX;
    uint32_t m_globalTrack = UINT32_MAX;
    StringId m_keyFlops = 0;
    // Per interned arg key: the side column it fills (-1 none, -2 not looked up yet).
    std::vector<int8_t> m_sideOfKey;
    std::vector<std::pair<SideColumn, int64_t>> m_sideScratch;
    // Kineto: launches by correlation id and the GPU activities naming one, bound as flows in
    // finish(); the launch flow events themselves are kept only as a fallback.
    struct Staged
    {
        uint32_t track;
        uint32_t staged;
    };
    std::unordered_map<int64_t, Staged> m_launchByCorrelation;
    std::vector<std::pair<int64_t, Staged>> m_activities;
    void noteQueued(const Staged &launch, const Staged &work);
    std::map<uint32_t, std::vector<std::pair<TimePs, int>>> m_queueChanges; // stream track -> +-1
    struct LaunchFlow
    {
        ThreadKey thread;
        TimePs ts;
        uint64_t id;
        StringId category;
        FlowPhase phase;
        bool bindNext;
    };
    std::vector<LaunchFlow> m_launchFlows;
    std::vector<std::pair<std::string, std::string>> m_topLevel;
    bool m_kineto = false;
    // Set once a GPU activity is placed: from then on the dialect decision stands, so one
    // file's GPU activities never land on two kinds of plane.
    bool m_kinetoDecided = false;
    StringId m_launchFlowCategory = 0;
    std::vector<ArgValue> m_mergeScratch;

    uint64_t m_events = 0;
    uint64_t m_phaseCounts[256] = {};
    std::map<std::string, uint64_t> m_otherPhases;
    std::map<std::string, uint64_t> m_unsupported;
    std::map<std::string, uint64_t> m_problems;
    std::map<std::string, uint64_t> m_repairs;
    uint64_t m_truncated = 0;
    bool m_unclosed = false;
    uint64_t m_missingDur = 0;
    uint64_t m_missingTs = 0;
    uint64_t m_missingPh = 0;
    uint64_t m_unmatchedEnd = 0;
    uint64_t m_endBeforeBegin = 0;
    uint64_t m_unclosedBegin = 0;
    uint64_t m_unmatchedAsyncEnd = 0;
    uint64_t m_unclosedAsync = 0;
    uint64_t m_flowWithoutId = 0;
    uint64_t m_badCounterValues = 0;
    uint64_t m_argsDropped = 0;
};

} // namespace tracedesk::core
