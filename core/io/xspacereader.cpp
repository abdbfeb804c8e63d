#include "core/io/xspacereader.h"

#include "core/base/heapreuse.h"
#include "core/base/parallel.h"
#include "core/io/memoryguard.h"
#include "core/io/memoryusage.h"
#include "core/io/runranks.h"
#include "core/io/xspacegpuroles.h"
#include "core/io/xspaceline.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>

#ifdef __GLIBC__
#include <malloc.h>
#endif

// Design note (speed and memory). A load is three passes over the mapped bytes:
//  1. index, single-threaded per file: planes, metadata and stat tables, kinds, and the byte
//     range of every XLine; nothing inside a line is touched;
//  2. line headers, in parallel: names, ids, timestamps and the event count of each line, so
//     time bases can be settled (multi-host alignment, absolute-time files) before any event
//     is placed and each track's staging can be reserved exactly;
//  3. events, in parallel, largest lines first: each line is decoded into its TrackBuilder and
//     finished into rows at once, so staging never holds more than one line per worker.
// No event is copied anywhere but the track being built, and the file's pages are dropped from
// resident memory as soon as a pass has read them, so peak RSS stays near the store plus the
// staging of the lines in flight and the flow endpoints.

namespace tracedesk::core {

using namespace xspace;

namespace {

// Line timestamps at or past this many ns are taken as absolute epoch times (about 3 years
// after 1970; a relative timestamp this large would mean a multi-year profile).
constexpr int64_t kAbsoluteNs = int64_t(100'000'000) * 1'000'000'000;

std::optional<std::string> notXSpaceReason(std::string_view bytes)
{
    const auto *b = reinterpret_cast<const unsigned char *>(bytes.data());
    if (bytes.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return "is gzip-compressed, not a plain XSpace protobuf (a .json.gz trace?)";
    if (bytes.size() >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
        return "is zstd-compressed, not a plain XSpace protobuf (a .json.zst trace?)";
    // JSON text: printable from the start and opening with { or [. A protobuf has binary field
    // tags within its first few bytes, so it never passes the printable test.
    const size_t n = std::min<size_t>(bytes.size(), 256);
    char first = 0;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = b[i];
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
            return std::nullopt;
        if (!first && c > 0x20)
            first = char(c);
    }
    if (first == '{' || first == '[')
        return "holds JSON text, not an XSpace protobuf (open it as a Chrome trace .json)";
    return std::nullopt;
}

// Runs job(worker, i) for i in [0, count); stops handing out jobs once a job returns false or
// cancellation is requested.
template<typename Job>
void runParallel(size_t count, unsigned workers, LoadControl *control, Job &&job)
{
    parallelFor(count, workers, [&](unsigned worker, size_t i) {
        return !control->cancelRequested() && job(worker, i);
    });
}

struct ParallelError
{
    std::mutex mutex;
    std::optional<Error> error;
    size_t at = std::numeric_limits<size_t>::max();

    // Keeps the error of the earliest line so the message does not depend on scheduling.
    void record(size_t line, Error e)
    {
        std::lock_guard lock(mutex);
        if (line < at) {
            at = line;
            error = std::move(e);
        }
    }
};

// Records each pass of the load as a LoadPhase.
class PhaseClock
{
public:
    explicit PhaseClock(LoadInfo &info) : m_info(info) {}
    void mark(const char *name)
    {
        const auto now = std::chrono::steady_clock::now();
        m_info.phases.push_back({name, std::chrono::duration<double>(now - m_last).count(),
                                 currentRssBytes(), peakRssBytes()});
        m_last = now;
    }

private:
    LoadInfo &m_info;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

std::string plural(uint64_t n, const char *what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

} // namespace

std::string hostFromXSpacePath(const std::string &path)
{
    std::string name = std::filesystem::path(path).filename().string();
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (std::string_view suffix : {std::string_view(".xplane.pb"), std::string_view(".pb")}) {
        if (lower.size() > suffix.size() && lower.ends_with(suffix))
            return name.substr(0, name.size() - suffix.size());
    }
    return name;
}

namespace {

// Checks a file's first bytes before any decoding, so a wrong kind of file gets a message that
// says what it is instead of a wire-format complaint.
std::optional<Error> checkXSpaceBytes(const FileIndex &file)
{
    if (file.file.size() == 0)
        return fileError(file.path, "is empty");
    if (auto reason = notXSpaceReason(file.file.bytes()))
        return fileError(file.path, *reason);
    return std::nullopt;
}

// What memory refusals name: the file, or the run folder when several hosts load together.
std::string guardPathFor(const std::vector<FileIndex> &index)
{
    if (index.size() == 1)
        return index.front().path;
    const std::filesystem::path folder = std::filesystem::path(index.front().path).parent_path();
    return folder.empty() ? index.front().path : folder.string();
}

// Measured on a generated 1M-event training trace (`tracedesk-cli bench --generate 1000000`,
// and the peak RSS of `tracedesk-cli summary --no-cache` on the same file): the finished store
// holds 51 bytes per event (59 bytes of RSS), but the load peaks 172 MiB above the idle process
// with the 33 MiB file mapped, about 145 bytes per event beside the file: line staging of the
// lines in flight, their sort order, rows being built, pending flows and heap not yet given
// back. The estimate rounds that up to 160 bytes per event and counts the mapped file whole.
constexpr uint64_t kPeakBytesPerEvent = 160;
// Events decoded between two checks of the process's growth.
constexpr uint64_t kGrowthCheckEvents = uint64_t(1) << 20;
// Growth checks between two hand-backs of freed heap to the system: each finished line frees
// its staging, which the workers' heaps would otherwise keep until the load ends (about a
// gigabyte at 100M events, all of it on top of the store at the load's peak).
constexpr uint64_t kChecksPerTrim = 8;
// Freed heap kept, rather than handed back, for the flow chaining after the events.
constexpr size_t kKeepFreedHeapBytes = size_t(256) << 20;

Result<std::shared_ptr<Trace>> readIndexedFiles(std::vector<FileIndex> &index,
                                                LoadControl *control, const LoadOptions &options);

} // namespace

Result<std::shared_ptr<Trace>> readXSpaceFiles(const std::vector<std::string> &files,
                                               LoadControl *control, const LoadOptions &options)
{
    if (files.empty())
        return Error{"no XSpace file to read", false};
    // Part of a run (LoadOptions::ranks): the chosen hosts, in the order given.
    std::vector<std::string> chosen = files;
    std::string subsetNote;
    if (!options.ranks.empty()) {
        const std::vector<RunFile> all = runFiles(files);
        const std::string run = files.size() == 1
                                    ? files.front()
                                    : std::filesystem::path(files.front()).parent_path().string();
        auto picked = selectRanks(all, options.ranks, run);
        if (!picked)
            return picked.error();
        std::vector<RunFile> subset = std::move(picked).value();
        std::sort(subset.begin(), subset.end(),
                  [](const RunFile &a, const RunFile &b) { return a.position < b.position; });
        chosen.clear();
        for (const RunFile &f : subset)
            chosen.push_back(f.path);
        if (chosen.size() < files.size())
            subsetNote = shownRanksNote(options.ranks, rankNumbers(all).size());
    }
    std::vector<FileIndex> index(chosen.size());
    for (size_t f = 0; f < chosen.size(); ++f) {
        auto mapped = MappedFile::open(chosen[f]);
        if (!mapped)
            return mapped.error();
        index[f].path = chosen[f];
        index[f].file = std::move(mapped).value();
        if (auto error = checkXSpaceBytes(index[f]))
            return *error;
    }
    auto loaded = readIndexedFiles(index, control, options);
    if (loaded && !subsetNote.empty()) {
        // The first thing the warnings say: which hosts of the run this trace holds.
        LoadInfo &info = loaded.value()->info;
        info.warnings.insert(info.warnings.begin(), subsetNote);
        ++info.warningCount;
    }
    return loaded;
}

Result<std::shared_ptr<Trace>> readXSpaceBytes(std::string_view bytes, const std::string &name,
                                               LoadControl *control, const LoadOptions &options)
{
    std::vector<FileIndex> index(1);
    index[0].path = name;
    index[0].file = MappedFile::borrow(bytes);
    if (auto error = checkXSpaceBytes(index[0]))
        return *error;
    return readIndexedFiles(index, control, options);
}

namespace {

Result<std::shared_ptr<Trace>> readIndexedFiles(std::vector<FileIndex> &index,
                                                LoadControl *control, const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    const MemoryGuard guard(options.memoryLimitBytes);
    const std::string guardPath = guardPathFor(index);
    const std::string_view suggestion = index.size() > 1 ? kSuggestSingleHost
                                                         : kSuggestSmallerTrace;

    TraceBuilder builder;
    LoadInfo &info = builder.info();
    info.format = "xspace";
    for (const FileIndex &file : index) {
        info.sources.push_back(file.path);
        info.sourceBytes += file.file.size();
        control->addTotal(file.file.size());
    }

    PhaseClock clock(info);
    // Pass 1: structure, metadata, kinds.
    std::vector<std::unique_ptr<PlaneTables>> tables;
    std::vector<LineRef> lines;
    std::vector<uint32_t> lineFile;
    uint64_t metadataWarnings = 0;
    for (size_t f = 0; f < index.size(); ++f) {
        if (control->cancelRequested())
            return Result<std::shared_ptr<Trace>>::cancelled();
        if (auto error = indexXSpaceFile(index[f], tables, builder))
            return *error;
        info.hosts.push_back(index[f].host);
        metadataWarnings += index[f].recordsWarned;
        uint64_t lineBytes = 0;
        for (const LineRef &l : index[f].lines) {
            lines.push_back(l);
            lineFile.push_back(uint32_t(f));
            lineBytes += uint64_t(l.end - l.begin);
        }
        control->addDone(index[f].file.size() - lineBytes);
    }
    info.xlines = lines.size();
    clock.mark("index");

    const unsigned workers = unsigned(std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                                                         std::max<size_t>(lines.size(), 1)));
    auto lineError = [&](size_t i, const WireReader &r) {
        const FileIndex &file = index[lineFile[i]];
        return corruptError(file.path, file.file, r);
    };

    // Pass 2: line headers.
    std::vector<LineHeader> headers(lines.size());
    ParallelError failure;
    runParallel(lines.size(), workers, control, [&](unsigned, size_t i) {
        WireReader err;
        if (readLineHeader(lines[i], &headers[i], &err)) {
            // Counting events touched every page of the line; drop them until pass 3 reads
            // the line again (the names kept point into the mapping and read back on use).
            index[lineFile[i]].file.release(lines[i].begin, lines[i].end);
            return true;
        }
        failure.record(i, lineError(i, err));
        return false;
    });
    if (control->cancelRequested())
        return Result<std::shared_ptr<Trace>>::cancelled();
    if (failure.error)
        return *failure.error;
    clock.mark("line headers");

    // Every event is counted now: refuse before the store is built rather than run out of
    // memory half way through.
    {
        uint64_t events = 0;
        for (const LineHeader &h : headers)
            events += h.events;
        const uint64_t estimate = events * kPeakBytesPerEvent + info.sourceBytes;
        if (auto admitted = guard.admit(guardPath, estimate, suggestion); !admitted)
            return admitted.error();
    }

    // Time bases. A file normalised at save time (the usual case) keeps its relative times; an
    // absolute-time file is rebased onto its profile start (or its earliest line).
    std::vector<int64_t> fileBaseNs(index.size(), 0);
    std::vector<std::optional<int64_t>> epochNs(index.size());
    for (size_t f = 0; f < index.size(); ++f) {
        int64_t minAbsolute = std::numeric_limits<int64_t>::max();
        for (size_t i = 0; i < lines.size(); ++i) {
            if (lineFile[i] == f && headers[i].events > 0 && headers[i].timestampNs >= kAbsoluteNs)
                minAbsolute = std::min(minAbsolute, headers[i].timestampNs);
        }
        const auto start = index[f].profileStartNs;
        if (minAbsolute != std::numeric_limits<int64_t>::max()) {
            fileBaseNs[f] = start && int64_t(*start) <= minAbsolute ? int64_t(*start) : minAbsolute;
            epochNs[f] = fileBaseNs[f];
        } else if (start && *start <= uint64_t(std::numeric_limits<int64_t>::max())) {
            epochNs[f] = int64_t(*start);
        }
    }
    std::vector<int64_t> shiftNs(index.size(), 0);
    const bool allHaveStart = std::all_of(epochNs.begin(), epochNs.end(),
                                          [](const auto &e) { return e.has_value(); });
    if (allHaveStart) {
        const int64_t earliest = **std::min_element(epochNs.begin(), epochNs.end());
        for (size_t f = 0; f < index.size(); ++f)
            shiftNs[f] = *epochNs[f] - earliest;
        // The absolute time of 0, when it fits in picoseconds (epoch times do not: int64
        // picoseconds span only ~106 days; the start stays in the Task Environment stats).
        int64_t origin = 0;
        if (!__builtin_mul_overflow(earliest, int64_t(1000), &origin))
            builder.trace().originPs = origin;
    } else if (index.size() > 1) {
        info.warn("hosts are not aligned in time: not every file records its profile start "
                  "(Task Environment profile_start_time)");
    }

    // Tracks, in file order, and the jobs for pass 3.
    std::vector<LineJob> jobs(lines.size());
    uint64_t clamped = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const LineHeader &h = headers[i];
        const uint32_t plane = tables[lines[i].tables]->plane;
        const std::string_view name = h.displayName.empty() ? h.name : h.displayName;
        jobs[i].ref = lines[i];
        jobs[i].file = &index[lineFile[i]].file;
        jobs[i].track = builder.addTrack(plane, name, h.displayId != 0 ? h.displayId : h.id);
        jobs[i].events = h.events;
        const size_t f = lineFile[i];
        int64_t ns = h.timestampNs >= kAbsoluteNs ? h.timestampNs - fileBaseNs[f] : h.timestampNs;
        if (__builtin_add_overflow(ns, shiftNs[f], &ns)
            || __builtin_mul_overflow(ns, int64_t(1000), &jobs[i].basePs)) {
            jobs[i].basePs = 0;
            ++clamped;
        }
        info.xevents += h.events;
    }
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return jobs[a].ref.end - jobs[a].ref.begin > jobs[b].ref.end - jobs[b].ref.begin;
    });

    // Pass 3: events.
    std::mutex shared;
    const StringId unknownName = builder.intern("unknown");
    std::vector<LineDecoder> decoders;
    decoders.reserve(workers);
    for (unsigned w = 0; w < workers; ++w)
        decoders.emplace_back(builder, tables, shared, unknownName);
    std::atomic<uint64_t> sinceCheck{0};
    std::atomic<uint64_t> checks{0};
    std::mutex memoryMutex;
    std::optional<Error> memoryError;
    // Each line's staging is freed as the next is allocated: reused from the heap, not mapped
    // and zeroed anew. Not past this pass: the flows are chained with their peak kept low.
    std::optional<HeapReuse> reuse(std::in_place);
    runParallel(order.size(), workers, control, [&](unsigned worker, size_t k) {
        const size_t i = order[k];
        WireReader err;
        if (!decoders[worker].decode(jobs[i], &err)) {
            failure.record(i, lineError(i, err));
            return false;
        }
        if (sinceCheck.fetch_add(jobs[i].events) + jobs[i].events >= kGrowthCheckEvents) {
            sinceCheck.store(0);
#ifdef __GLIBC__
            if (++checks % kChecksPerTrim == 0)
                ::malloc_trim(0);
#endif
            if (auto fits = guard.checkGrowth(guardPath, suggestion); !fits) {
                std::lock_guard lock(memoryMutex);
                if (!memoryError)
                    memoryError = fits.error();
                return false;
            }
        }
        // The line's bytes are done with; keep resident memory to the store being built.
        index[lineFile[i]].file.release(jobs[i].ref.begin, jobs[i].ref.end);
        control->addDone(uint64_t(jobs[i].ref.end - jobs[i].ref.begin));
        return true;
    });
    reuse.reset();
    if (control->cancelRequested())
        return Result<std::shared_ptr<Trace>>::cancelled();
    if (failure.error)
        return *failure.error;
    if (memoryError)
        return *memoryError;
    clock.mark("events");

    LineCounters sum;
    for (const LineDecoder &d : decoders) {
        sum.unknownKinds += d.counters().unknownKinds;
        sum.unknownStats += d.counters().unknownStats;
        sum.badFlows += d.counters().badFlows;
        sum.clampedTimes += d.counters().clampedTimes;
    }
    // The decoders' buffers (placements of the largest line each met) go before the flows
    // are chained, the load's other memory peak.
    decoders.clear();
#ifdef __GLIBC__
    // Freed line staging stays in the workers' heaps until trimmed; with it held, chaining the
    // flows next would peak a gigabyte higher at 100M events (659 MiB held there). A smaller
    // hold is kept for the chaining to reuse (175 MiB at 10M events, whose hand-back and
    // faulting in again cost 25-45 ms); the trim at the end of the load returns it.
    if (::mallinfo2().fordblks > kKeepFreedHeapBytes)
        ::malloc_trim(0);
#endif
    sum.unknownStats += metadataWarnings;
    sum.clampedTimes += clamped;
    if (sum.unknownKinds > 0)
        info.warn(plural(sum.unknownKinds, "event") + " name event metadata missing from their "
                  "plane; shown with the kind 'unknown'");
    if (sum.unknownStats > 0)
        info.warn(plural(sum.unknownStats, "stat") + " name stat metadata missing from their "
                  "plane; dropped");
    if (sum.badFlows > 0)
        info.warn(plural(sum.badFlows, "flow stat") + " without a direction; ignored");
    if (sum.clampedTimes > 0)
        info.warn(plural(sum.clampedTimes, "time") + " out of range; clamped");

    std::shared_ptr<Trace> trace = builder.build(control);
    if (!trace)
        return Result<std::shared_ptr<Trace>>::cancelled();
    // The builder's info is the trace's: the clock keeps recording into it.
    clock.mark("rows and flows");
    mapXSpaceGpuRoles(*trace);
    clock.mark("gpu roles");
#ifdef __GLIBC__
    // Line staging was freed track by track; hand the retained heap back to the system so the
    // process holds about the store's size once loaded.
    ::malloc_trim(0);
    clock.mark("heap trim");
#endif
    return trace;
}

} // namespace

} // namespace tracedesk::core
