// `bench --reduce-ranks N`: the reduce step of a large distributed run. N small PyTorch ranks
// are generated, each is mapped to its summary file (on every core), then the summaries are
// reduced as `distributed --reduce` does, timed, with the RSS high-water mark reset before it.
// (A child process would not do: Linux carries the parent's high-water mark into a spawned
// child's maxrss.)

#include "benchreduce.h"

#include "benchsupport.h"
#include "distributedfiles.h"
#include "jsonout.h"

#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/summaryfile.h"
#include "core/analysis/distributed/summaryreduce.h"
#include "core/generate/kinetorungenerator.h"
#include "core/io/memoryusage.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

namespace tracedesk::cli {

namespace fs = std::filesystem;
using namespace core::analysis::distributed;

namespace {

constexpr uint64_t kDefaultEventsPerRank = 2000;
// The goal for 1,024 ranks: the reduce in 10 s and 1 GB.
constexpr double kGoalSeconds = 10.0;
constexpr double kGoalBytes = 1024.0 * 1024 * 1024;

uint64_t bytesUnder(const std::string &dir)
{
    uint64_t total = 0;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file(ec))
            total += entry.file_size(ec);
    }
    return total;
}

struct ReduceBench
{
    uint64_t ranks = 0;
    uint64_t events = 0;
    uint64_t runBytes = 0;
    double generateSeconds = 0;
    double mapSeconds = 0;
    unsigned mapThreads = 0;
    uint64_t summaryBytes = 0;
    double reduceSeconds = 0;
    uint64_t reduceRssBeforeBytes = 0;
    uint64_t reducePeakRssBytes = 0;
    bool peakIsProcessPeak = false;
    uint64_t reducedRanks = 0;
    uint64_t matchedCollectives = 0;
};

// Every rank file summarised into `out`, `threads` at a time; false with *error naming the
// first file that failed.
bool mapRanks(const std::vector<std::string> &files, const std::string &out, unsigned threads,
              std::string *error)
{
    std::atomic<size_t> next{0};
    std::mutex failed;
    auto work = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            core::LoadOptions load;
            load.useCache = false;
            RankSummaryFile summary;
            summary.source = describeSource(files[i]);
            summary.order = i;
            auto made = summarizeRankFile(files[i], i, nullptr, load);
            std::string problem;
            if (!made) {
                problem = made.message();
            } else {
                summary.summary = std::move(made).value();
                if (auto written = writeSummaryFile(summary, out); !written)
                    problem = written.message();
            }
            if (!problem.empty()) {
                std::lock_guard lock(failed);
                if (error->empty())
                    *error = problem;
                next = files.size();
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    return error->empty();
}

// The reduce as `distributed --reduce DIR` runs it (one file read at a time), in this process
// with its RSS high-water mark reset first; the map's memory is given back before.
bool runReduce(const std::string &dir, ReduceBench *r, std::string *error)
{
    auto found = summaryFilesIn(dir);
    if (!found) {
        *error = found.message();
        return false;
    }
    releaseFreeMemory();
    r->reduceRssBeforeBytes = core::currentRssBytes();
    r->peakIsProcessPeak = !core::resetPeakRss();
    const auto started = std::chrono::steady_clock::now();
    const DistributedSummary summary = reduceSummaries(found.value());
    r->reduceSeconds = secondsSince(started);
    r->reducePeakRssBytes = core::peakRssBytes();
    r->reducedRanks = summary.ranks.size();
    r->matchedCollectives = summary.collectives.size();
    if (!summary.errors.empty()) {
        *error = "the reduce met " + std::to_string(summary.errors.size())
                 + " rank error(s), the first: " + summary.errors.front().message;
        return false;
    }
    if (summary.ranks.size() != r->ranks || !summary.fullyMatched()) {
        *error = "the reduce gave " + std::to_string(summary.ranks.size()) + " ranks of "
                 + std::to_string(r->ranks) + (summary.fullyMatched() ? "" : ", not fully matched");
        return false;
    }
    return true;
}

void printReduceBench(const ReduceBench &r, bool asJson)
{
    if (asJson) {
        JsonOut json;
        json.beginObject()
            .value("reduce_ranks", r.ranks)
            .value("reduce_run_events", r.events)
            .value("reduce_run_bytes", r.runBytes)
            .value("reduce_generate_s", r.generateSeconds)
            .value("reduce_map_s", r.mapSeconds)
            .value("reduce_map_threads", uint64_t(r.mapThreads))
            .value("reduce_summary_bytes", r.summaryBytes)
            .value("reduce_s", r.reduceSeconds)
            .value("reduce_rss_before_bytes", r.reduceRssBeforeBytes)
            .value("reduce_peak_rss_bytes", r.reducePeakRssBytes)
            .value("reduce_peak_rss_is_process_peak", r.peakIsProcessPeak)
            .value("reduce_matched_collectives", r.matchedCollectives)
            .endObject();
        std::printf("%s\n", json.text().c_str());
        return;
    }
    const double mib = 1024.0 * 1024;
    std::printf("Run:               %llu ranks, %llu events, %.1f MiB of traces (generated in "
                "%.1f s)\n",
                static_cast<unsigned long long>(r.ranks), static_cast<unsigned long long>(r.events),
                double(r.runBytes) / mib, r.generateSeconds);
    std::printf("Map:               %.1f s on %u thread(s), %.1f ms per rank; summaries %.1f MiB\n",
                r.mapSeconds, r.mapThreads, 1e3 * r.mapSeconds * r.mapThreads / double(r.ranks),
                double(r.summaryBytes) / mib);
    std::printf("Reduce:            %.3f s, peak RSS %.1f MiB%s (%.1f MiB before); %llu ranks, "
                "%llu collectives matched\n",
                r.reduceSeconds, double(r.reducePeakRssBytes) / mib,
                r.peakIsProcessPeak ? " (process peak; could not reset)" : "",
                double(r.reduceRssBeforeBytes) / mib,
                static_cast<unsigned long long>(r.reducedRanks),
                static_cast<unsigned long long>(r.matchedCollectives));
    std::printf("Goal (1,024 ranks): <= %.0f s and <= %.0f MiB\n", kGoalSeconds, kGoalBytes / mib);
}

} // namespace

int runReduceBench(const ParsedArgs &args)
{
    unsigned long long ranks = 0, perRank = kDefaultEventsPerRank;
    if (!parseCount(args.value("reduce-ranks"), &ranks) || ranks == 0 || ranks > 4096)
        return fail("bench: --reduce-ranks wants a number from 1 to 4096", kExitUsage);
    if (args.has("generate") && (!parseCount(args.value("generate"), &perRank) || perRank == 0))
        return fail("bench: with --reduce-ranks, --generate is the events per rank", kExitUsage);
    if (!args.positional.empty() || args.has("format"))
        return fail("bench: --reduce-ranks generates its own Kineto run; no FILE or --format",
                    kExitUsage);
    ScratchDir scratch;
    const bool ready = args.has("keep") ? scratch.use(args.value("keep")) : scratch.create();
    if (!ready)
        return fail("bench: cannot create the folder for the generated run");
    const std::string runDir = (fs::path(scratch.path()) / "run").string();
    const std::string sumDir = (fs::path(scratch.path()) / "summaries").string();

    ReduceBench r;
    r.ranks = ranks;
    core::RankRunOptions run;
    run.ranks = int(ranks);
    run.eventsPerRank = perRank;
    run.overwrite = true;
    if (args.has("seed")) {
        unsigned long long seed = 0;
        if (!parseCount(args.value("seed"), &seed))
            return fail("bench: --seed needs a non-negative integer", kExitUsage);
        run.seed = seed;
    }
    auto started = std::chrono::steady_clock::now();
    auto generated = core::generateKinetoRun(run, runDir);
    if (!generated)
        return fail(generated.message());
    r.generateSeconds = secondsSince(started);
    r.events = generated.value().events;
    r.runBytes = generated.value().fileBytes;

    std::vector<std::string> files;
    std::string error;
    if (!collectRankFiles({runDir}, &files, &error))
        return fail("bench: " + error);
    r.mapThreads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
    started = std::chrono::steady_clock::now();
    if (!mapRanks(files, sumDir, r.mapThreads, &error))
        return fail("bench: map: " + error);
    r.mapSeconds = secondsSince(started);
    r.summaryBytes = bytesUnder(sumDir);

    if (!runReduce(sumDir, &r, &error))
        return fail("bench: " + error);
    printReduceBench(r, args.has("json"));
    return kExitOk;
}

} // namespace tracedesk::cli
