#include "benchreduce.h"
#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "benchsupport.h"

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/operatortree.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/generate/generator.h"
#include "core/io/memoryusage.h"
#include "core/io/storecache.h"
#include "core/io/traceloader.h"
#include "core/model/timeformat.h"
#include "core/query/querybench.h"
#include "core/sql/sqlbench.h"

#if __has_include("core/io/xspacebaseline.h")
#include "core/io/xspacebaseline.h"
#define TRACEDESK_HAVE_XSPACE_BASELINE 1
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace tracedesk::cli {

const char *const kBenchUsage =
    "  bench FILE|--generate N [--format xspace|json|kineto] [--seed S] [--json] [--keep DIR]\n"
    "      Measure loading: load time, events per second, memory per event, peak RSS, reopen\n"
    "      time and peak RSS from the store cache, (XSpace) a plain protobuf parse for\n"
    "      comparison, the timeline stages: frame building zoomed out / mid / in, a name\n"
    "      search, (PyTorch traces) each PyTorch analysis computed from the loaded store,\n"
    "      and SQL: GROUP BY name over all slices and a 1 ms window, with RSS before / peak /\n"
    "      after.\n"
    "      --generate writes a synthetic trace of about N events first (into a temporary\n"
    "      folder, or into DIR with --keep).\n"
    "  bench --reduce-ranks N [--generate E] [--seed S] [--json] [--keep DIR]\n"
    "      Measure the reduce of a distributed run: generate N PyTorch ranks of about E\n"
    "      events each (2000), map every rank to its summary on every core, then time the\n"
    "      reduce of the summaries as `distributed --reduce` runs it: its wall time and peak\n"
    "      RSS (the goal for 1,024 ranks: 10 s and 1 GiB).";

namespace {

// Reads a file to its end into a small buffer, so its pages are in the page cache (not in the
// process's memory).
void readThrough(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return;
    std::vector<char> buffer(size_t(1) << 20);
    while (std::fread(buffer.data(), 1, buffer.size(), f) == buffer.size()) {
    }
    std::fclose(f);
}

struct BenchResult
{
    std::string file;
    std::string format;
    uint64_t fileBytes = 0;
    uint64_t events = 0;
    double loadSeconds = 0;
    std::vector<core::LoadPhase> loadPhases;
    double eventsPerSecond = 0;
    double bytesPerEvent = 0;
    double storeBytesPerEvent = 0;
    uint64_t peakRssBytes = 0;
    bool peakIsProcessPeak = false;
    double storeWriteSeconds = 0;
    uint64_t storeFileBytes = 0;
    double reopenSeconds = 0;
    uint64_t reopenPeakRssBytes = 0; // 0: the peak could not be reset before the reopen
    double naiveParseSeconds = -1;
    double warmReadSeconds = 0;   // reading the input once before the timed load
    double loadKernelSeconds = 0; // CPU time in the kernel during the load, every thread
    uint64_t freeMemoryBeforeLoad = 0;
    // Extra timings reported as-is (name -> milliseconds), see measureViewTimings().
    std::vector<std::pair<std::string, double>> viewTimings;
    std::string searchQuery;
    uint64_t searchMatches = 0;
    // PyTorch traces: each analysis in dependency order (name -> milliseconds), and their sum.
    std::vector<std::pair<std::string, double>> analysisTimings;
    core::sql::SqlBenchResult sql;
};

constexpr int kFrameWidthPx = 1920;
constexpr int kRepetitions = 7;

// The search query: the middle (up to) four characters of the most frequent slice name. Every
// trace with slices has one, it matches at least that name's slices (so the scan does real
// work on any input, generated or recorded), and being taken from the middle it exercises a
// substring match rather than a prefix.
std::string benchSearchQuery(const core::Trace &trace)
{
    std::vector<uint64_t> counts(trace.kinds.size(), 0);
    for (const core::Track &track : trace.tracks) {
        for (const core::Row &row : track.rows) {
            for (uint32_t k : row.kind) {
                if (k < counts.size())
                    ++counts[k];
            }
        }
    }
    const auto best = std::max_element(counts.begin(), counts.end());
    if (best == counts.end() || *best == 0)
        return {};
    const std::string_view name = trace.string(trace.kinds[size_t(best - counts.begin())].name);
    const size_t length = std::min<size_t>(4, name.size());
    return std::string(name.substr((name.size() - length) / 2, length));
}

// Timings of the timeline stages on the loaded trace (before it is released for the reopen
// measurement): medians of kRepetitions frames of every row at three zooms, and the search.
void measureViewTimings(const core::Trace &trace, BenchResult *r)
{
    // Without slices the query is empty and runQueryBench falls back to its own choice.
    const core::QueryBenchResult q =
        core::runQueryBench(trace, kFrameWidthPx, kRepetitions, benchSearchQuery(trace));
    r->searchQuery = q.searchQuery;
    r->searchMatches = q.searchMatches;
    r->viewTimings = {{"frame_build_ms_out", q.frameBuildMsOut},
                      {"frame_build_ms_mid", q.frameBuildMsMid},
                      {"frame_build_ms_quarter", q.frameBuildMsQuarter},
                      {"frame_build_ms_sixteenth", q.frameBuildMsSixteenth},
                      {"frame_build_ms_in", q.frameBuildMsIn},
                      {"search_ms", q.searchMs},
                      {"lod_index_build_ms", q.indexBuildMs}};
}

// Each PyTorch analysis on a fresh cache, in dependency order, so each timing is that analysis
// alone (the ones it builds on are already cached).
void measurePyTorchAnalyses(const core::TracePtr &trace, BenchResult *r)
{
    namespace pt = core::analysis::pytorch;
    if (trace->info.run.framework != "pytorch")
        return;
    core::analysis::AnalysisCache cache(trace);
    double total = 0;
    auto time = [&](const char *name, auto &&run) {
        const auto started = std::chrono::steady_clock::now();
        run();
        const double ms = secondsSince(started) * 1e3;
        total += ms;
        r->analysisTimings.emplace_back(name, ms);
    };
    time("kineto_index_ms", [&] { pt::kinetoIndex(cache); });
    time("operator_tree_ms", [&] { pt::operatorTree(cache); });
    time("steps_ms", [&] { pt::pytorchSteps(cache); });
    time("memory_ms", [&] { pt::pytorchMemory(cache); });
    time("overview_ms", [&] { pt::pytorchOverview(cache); });
    time("operator_stats_ms", [&] { pt::operatorStats(cache); });
    time("kernel_view_ms", [&] { pt::kernelView(cache); });
    r->analysisTimings.emplace_back("pytorch_analyses_total_ms", total);
}

int reopenFromCache(const std::string &path, core::TracePtr &trace, BenchResult *r)
{
    ScratchDir cache;
    if (!cache.create())
        return fail("bench: cannot create a temporary cache folder");
    core::LoadOptions options;
    options.cacheDir = cache.path();
    auto resolved = core::resolveSource(path);
    if (!resolved)
        return fail(resolved.message());
    const std::vector<std::string> &files = resolved.value().files;
    const std::string cacheFile = core::cacheFileFor(files, options);
    if (cacheFile.empty())
        return fail("bench: " + path + ": cannot compute the store cache key");
    auto started = std::chrono::steady_clock::now();
    auto written = core::writeStoreFile(*trace, cacheFile);
    if (!written)
        return fail("bench: " + written.message());
    r->storeWriteSeconds = secondsSince(started);
    std::error_code ec;
    r->storeFileBytes = fs::file_size(cacheFile, ec);
    trace.reset();
    releaseFreeMemory();

    options.useCache = true;
    const bool peakReset = core::resetPeakRss();
    started = std::chrono::steady_clock::now();
    auto reopened = core::loadTrace(path, nullptr, options);
    r->reopenSeconds = secondsSince(started);
    r->reopenPeakRssBytes = peakReset ? core::peakRssBytes() : 0;
    if (!reopened)
        return fail("bench: reopening from the store cache failed: " + reopened.message());
    if (!reopened.value()->info.fromCache)
        return fail("bench: " + path + ": the store cache was not used on reopen");
    if (reopened.value()->eventCount() != r->events)
        return fail("bench: " + path + ": the store cache returned a different event count");
    return kExitOk;
}

void printResult(const BenchResult &r, bool asJson)
{
    if (asJson) {
        JsonOut json;
        json.beginObject()
            .value("file", r.file)
            .value("format", r.format)
            .value("file_bytes", r.fileBytes)
            .value("events", r.events)
            .value("load_s", r.loadSeconds)
            .value("warm_read_s", r.warmReadSeconds)
            .value("load_kernel_s", r.loadKernelSeconds)
            .value("free_memory_before_load_bytes", r.freeMemoryBeforeLoad)
            .value("events_per_s", r.eventsPerSecond)
            .value("bytes_per_event", r.bytesPerEvent)
            .value("store_bytes_per_event", r.storeBytesPerEvent)
            .value("peak_rss_bytes", r.peakRssBytes)
            .value("peak_rss_is_process_peak", r.peakIsProcessPeak)
            .value("store_write_s", r.storeWriteSeconds)
            .value("store_file_bytes", r.storeFileBytes)
            .value("reopen_s", r.reopenSeconds);
        if (r.reopenPeakRssBytes > 0)
            json.value("reopen_peak_rss_bytes", r.reopenPeakRssBytes);
        else
            json.null("reopen_peak_rss_bytes");
        json.beginArray("load_phases");
        for (const core::LoadPhase &p : r.loadPhases)
            json.beginObject()
                .value("name", p.name)
                .value("s", p.seconds)
                .value("rss_bytes", p.rssBytes)
                .value("peak_rss_bytes", p.peakRssBytes)
                .endObject();
        json.endArray();
        if (r.format == "xspace")
            json.value("naive_parse_s", r.naiveParseSeconds);
        for (const auto &[key, ms] : r.viewTimings)
            json.value(key, ms);
        json.value("search_query", r.searchQuery).value("search_matches", r.searchMatches);
        for (const auto &[key, ms] : r.analysisTimings)
            json.value(key, ms);
        json.value("sql_group_by_name_ms", r.sql.groupByNameMs)
            .value("sql_group_by_name_rows", r.sql.groupByNameRows)
            .value("sql_window_1ms_ms", r.sql.window1msMs)
            .value("sql_window_1ms_slices", r.sql.window1msSlices)
            .value("sql_rss_before_bytes", r.sql.rssBeforeBytes)
            .value("sql_rss_peak_bytes", r.sql.rssPeakBytes)
            .value("sql_rss_after_bytes", r.sql.rssAfterBytes);
        json.endObject();
        std::printf("%s\n", json.text().c_str());
        return;
    }
    std::printf("File:              %s (%s, %llu bytes)\n", r.file.c_str(), r.format.c_str(),
                static_cast<unsigned long long>(r.fileBytes));
    std::printf("Events:            %llu\n", static_cast<unsigned long long>(r.events));
    std::printf("Input read:        %.3f s, before the load (so the load and the naive parse both "
                "read it from the page cache)\n",
                r.warmReadSeconds);
    std::printf("Load:              %.3f s (%.0f events/s; %.3f s of CPU in the kernel, %.1f GiB "
                "of memory free before it)\n",
                r.loadSeconds, r.eventsPerSecond, r.loadKernelSeconds,
                double(r.freeMemoryBeforeLoad) / double(uint64_t(1) << 30));
    for (const core::LoadPhase &p : r.loadPhases)
        std::printf("  %-16s %8.3f s, RSS %8.1f MiB at its end, peak %8.1f MiB\n",
                    (p.name + ":").c_str(), p.seconds, double(p.rssBytes) / (1 << 20),
                    double(p.peakRssBytes) / (1 << 20));
    std::printf("Memory per event:  %.1f bytes RSS, %.1f bytes in the store\n", r.bytesPerEvent,
                r.storeBytesPerEvent);
    std::printf("Peak RSS:          %.1f MiB%s\n", double(r.peakRssBytes) / (1 << 20),
                r.peakIsProcessPeak ? " (process peak; could not reset)" : "");
    std::printf("Store cache:       written in %.3f s (%llu bytes), reopened in %.3f s\n",
                r.storeWriteSeconds, static_cast<unsigned long long>(r.storeFileBytes),
                r.reopenSeconds);
    if (r.reopenPeakRssBytes > 0)
        std::printf("Reopen peak RSS:   %.1f MiB\n", double(r.reopenPeakRssBytes) / (1 << 20));
    if (r.format == "xspace") {
        if (r.naiveParseSeconds >= 0)
            std::printf("Naive protobuf:    %.3f s\n", r.naiveParseSeconds);
        else
            std::printf("Naive protobuf:    not available\n");
    }
    std::printf("Timeline (median of %d, %d px wide, in ms):\n", kRepetitions, kFrameWidthPx);
    for (const auto &[key, ms] : r.viewTimings)
        std::printf("  %-26s %.3f\n", (key + ":").c_str(), ms);
    std::printf("  search query:        \"%s\" (%llu matches)\n", r.searchQuery.c_str(),
                static_cast<unsigned long long>(r.searchMatches));
    if (!r.analysisTimings.empty()) {
        std::printf("PyTorch analyses (ms):\n");
        for (const auto &[key, ms] : r.analysisTimings)
            std::printf("  %-26s %.1f\n", (key + ":").c_str(), ms);
    }
    std::printf("SQL (median, ms):  GROUP BY name %.1f (%llu names), 1 ms window %.3f (%llu "
                "slices)\n",
                r.sql.groupByNameMs, static_cast<unsigned long long>(r.sql.groupByNameRows),
                r.sql.window1msMs, static_cast<unsigned long long>(r.sql.window1msSlices));
    std::printf("SQL RSS:           %.1f MiB before, %.1f MiB peak, %.1f MiB after\n",
                double(r.sql.rssBeforeBytes) / (1 << 20), double(r.sql.rssPeakBytes) / (1 << 20),
                double(r.sql.rssAfterBytes) / (1 << 20));
}

} // namespace

int runBench(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"generate", true}, {"format", true}, {"seed", true},
                                           {"json", false},    {"keep", true},   {"help", false},
                                           {"reduce-ranks", true}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("bench: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kBenchUsage);
        return kExitOk;
    }
    if (args.has("reduce-ranks"))
        return runReduceBench(args);
    const bool generate = args.has("generate");
    if (generate == (args.positional.size() == 1) || args.positional.size() > 1)
        return fail("bench: give either one FILE or --generate N (try bench --help)", kExitUsage);

    ScratchDir scratch;
    std::string path;
    if (generate) {
        core::GeneratorOptions options;
        unsigned long long n = 0, seed = 1;
        if (!parseCount(args.value("generate"), &n) || n == 0)
            return fail("bench: --generate needs a positive count, e.g. --generate 1M", kExitUsage);
        if (!core::parseGeneratedFormat(args.value("format", "xspace"), &options.format))
            return fail("bench: unknown --format '" + args.value("format")
                            + "' (xspace, json or kineto)",
                        kExitUsage);
        if (args.has("seed") && !parseCount(args.value("seed"), &seed))
            return fail("bench: --seed needs a non-negative integer", kExitUsage);
        options.events = n;
        options.seed = seed;
        const bool ready = args.has("keep") ? scratch.use(args.value("keep")) : scratch.create();
        if (!ready)
            return fail("bench: cannot create the folder for the generated trace");
        const char *name = options.format == core::GeneratedFormat::XSpace   ? "bench.xplane.pb"
                           : options.format == core::GeneratedFormat::Kineto ? "bench.pt.trace.json"
                                                                             : "bench.trace.json";
        path = (fs::path(scratch.path()) / name).string();
        auto generated = core::generateTrace(options, path);
        if (!generated)
            return fail(generated.message());
        releaseFreeMemory();
    } else {
        if (args.has("format") || args.has("keep") || args.has("seed"))
            return fail("bench: --format, --seed and --keep only apply with --generate",
                        kExitUsage);
        path = args.positional.front();
    }

    auto source = core::resolveSource(path);
    if (!source)
        return fail(source.message());
    BenchResult r;
    r.file = path;
    r.format = core::sourceFormatName(source.value().format);
    for (const auto &f : source.value().files) {
        std::error_code ec;
        r.fileBytes += fs::file_size(f, ec);
    }

    // The naive parse reads a file the load has just read; the load gets the same start, else
    // a file not yet in the page cache charges the disk to the load alone.
    {
        const auto readStarted = std::chrono::steady_clock::now();
        for (const auto &f : source.value().files)
            readThrough(f);
        r.warmReadSeconds = secondsSince(readStarted);
    }
    core::LoadOptions options;
    options.useCache = false;
    const uint64_t rssBefore = core::currentRssBytes();
    r.peakIsProcessPeak = !core::resetPeakRss();
    // Free memory, not page cache: pages the load touches where there is none are reclaimed
    // from the page cache first, which the kernel time then shows.
    r.freeMemoryBeforeLoad = core::freeMemoryBytes();
    const double kernelBefore = core::kernelCpuSeconds();
    const auto started = std::chrono::steady_clock::now();
    auto loaded = core::loadResolved(source.value(), nullptr, options);
    r.loadSeconds = secondsSince(started);
    r.loadKernelSeconds = core::kernelCpuSeconds() - kernelBefore;
    if (!loaded)
        return fail(loaded.message());
    core::TracePtr trace = std::move(loaded).value();
    r.peakRssBytes = core::peakRssBytes();
    r.loadPhases = trace->info.phases;
    const uint64_t rssAfter = core::currentRssBytes();
    r.events = trace->eventCount();
    if (r.events == 0)
        return fail(path + ": holds no events to benchmark");
    r.eventsPerSecond = r.loadSeconds > 0 ? double(r.events) / r.loadSeconds : 0;
    r.bytesPerEvent = rssAfter > rssBefore ? double(rssAfter - rssBefore) / double(r.events) : 0;
    r.storeBytesPerEvent = double(trace->memoryBytes()) / double(r.events);

    measureViewTimings(*trace, &r);
    measurePyTorchAnalyses(trace, &r);
    releaseFreeMemory();
    r.sql = core::sql::runSqlBench(trace);
    if (!r.sql.error.empty())
        return fail("bench: SQL: " + r.sql.error);

    if (const int code = reopenFromCache(path, trace, &r); code != kExitOk)
        return code;

#ifdef TRACEDESK_HAVE_XSPACE_BASELINE
    if (r.format == "xspace" && source.value().files.size() == 1) {
        releaseFreeMemory();
        r.naiveParseSeconds = core::naiveXSpaceParseSeconds(source.value().files.front());
    }
#endif
    printResult(r, args.has("json"));
    return kExitOk;
}

} // namespace tracedesk::cli
