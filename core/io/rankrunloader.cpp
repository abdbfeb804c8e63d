#include "core/io/rankrunloader.h"

#include "core/base/asciilower.h"
#include "core/base/parallel.h"
#include "core/io/chromejsonreader.h"
#include "core/io/decompress.h"
#include "core/io/memoryguard.h"
#include "core/io/rankname.h"
#include "core/io/rankpart.h"
#include "core/io/runfit.h"
#include "core/io/runranks.h"
#include "core/io/storecache.h"
#include "core/model/tracemerge.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Kineto writes its top-level keys before (or, in old files, soon after) the event array; the
// first 64 KiB are enough to tell.
bool hasKinetoKeys(const std::string &path)
{
    const std::string head = readFileHead(path, 64 * 1024);
    for (const char *key : {"\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
                            "\"baseTimeNanoseconds\"", "\"computeProperties\""}) {
        if (head.find(key) != std::string::npos)
            return true;
    }
    return false;
}

// The earliest start of a host-side `ProfilerStep#<step>` slice in `trace`, if any.
std::optional<TimePs> stepMarkerStart(const Trace &trace, const std::string &step)
{
    const std::string name = "ProfilerStep#" + step;
    std::vector<bool> isMarker(trace.kinds.size(), false);
    bool any = false;
    for (size_t k = 0; k < trace.kinds.size(); ++k) {
        if (trace.string(trace.kinds[k].name) == name)
            isMarker[k] = any = true;
    }
    if (!any)
        return std::nullopt;
    std::optional<TimePs> best;
    for (const Track &track : trace.tracks) {
        if (track.type != TrackType::Slices
            || trace.planes[track.plane].kind != PlaneKind::Host)
            continue;
        for (const Row &row : track.rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                if (isMarker[row.kind[i]] && (!best || row.start[i] < *best))
                    best = row.start[i];
            }
        }
    }
    return best;
}

// One rank's store: from the store cache when the distributed summary left it there (keyed by
// the file alone, so the options that only concern the merged run are left out), else read.
Result<std::shared_ptr<Trace>> loadRank(const std::string &file, LoadControl *control,
                                        const LoadOptions &options)
{
    if (options.useCache) {
        LoadOptions own = options;
        own.alignStep.clear();
        own.ranks.clear();
        own.fitRanksToMemory = false;
        if (auto cached = loadCachedTrace({file}, own, control))
            return cached;
        if (control->cancelRequested())
            return Result<std::shared_ptr<Trace>>::cancelled();
    }
    return readChromeJson(file, control, options);
}

struct LoadedRank
{
    std::shared_ptr<Trace> trace;
    std::string file;
    int64_t rank = -1;
    size_t order = 0;
};

} // namespace

bool isKinetoTraceFile(const std::string &path)
{
    const std::string name = asciiLower(fs::path(path).filename().string());
    if (endsWith(name, ".pt.trace.json") || endsWith(name, ".pt.trace.json.gz")
        || endsWith(name, ".pt.trace.json.zst"))
        return true;
    if (endsWith(name, ".json") || endsWith(name, ".json.gz"))
        return hasKinetoKeys(path);
    return false;
}

std::vector<std::string> kinetoTraceFiles(const std::vector<std::string> &jsonFiles)
{
    std::vector<std::string> out;
    for (const std::string &f : jsonFiles) {
        if (isKinetoTraceFile(f))
            out.push_back(f);
    }
    return out;
}

std::string rankLabel(int64_t rank)
{
    return "rank " + std::to_string(rank);
}

Result<std::shared_ptr<Trace>> readChromeJsonRun(const std::vector<std::string> &files,
                                                 LoadControl *control, const LoadOptions &options)
{
    LoadControl localControl;
    if (!control)
        control = &localControl;
    const std::string folder =
        files.empty() ? std::string() : fs::path(files.front()).parent_path().string();
    if (files.empty())
        return fileError(folder, "holds no rank traces");

    // The ranks asked for (all by default); a rank keeps its position among every file given,
    // so a file named by its position is named alike whichever part of the run is open.
    std::vector<RunFile> chosen;
    size_t runRanks = 0; // the run's rank count when only part of it is asked for
    if (options.ranks.empty()) {
        for (size_t i = 0; i < files.size(); ++i)
            chosen.push_back({files[i], i, -1, {}});
    } else {
        const std::vector<RunFile> all = runFiles(files);
        auto picked = selectRanks(all, options.ranks, folder);
        if (!picked)
            return picked.error();
        chosen = std::move(picked).value();
        std::sort(chosen.begin(), chosen.end(),
                  [](const RunFile &a, const RunFile &b) { return a.position < b.position; });
        if (chosen.size() < all.size())
            runRanks = rankNumbers(all).size();
    }
    std::vector<std::string> paths;
    for (const RunFile &f : chosen)
        paths.push_back(f.path);

    // Every rank adds its bytes to the one control, so progress is summed over ranks. As many
    // load at once as the memory budget leaves room for beside the finished stores.
    const unsigned workers = rankLoadWorkers(paths, MemoryGuard(options.memoryLimitBytes).budget(),
                                             std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::optional<Result<std::shared_ptr<Trace>>>> results(chosen.size());
    parallelFor(chosen.size(), workers, [&](unsigned, size_t i) {
        results[i] = loadRank(chosen[i].path, control, options);
        return !control->cancelRequested();
    });
    if (control->cancelRequested())
        return Result<std::shared_ptr<Trace>>::cancelled();

    std::vector<std::string> failures;
    std::vector<LoadedRank> ranks;
    for (size_t i = 0; i < chosen.size(); ++i) {
        const std::string &file = chosen[i].path;
        if (!results[i] || !*results[i]) {
            failures.push_back(results[i] ? results[i]->message() : file + ": was not loaded");
            continue;
        }
        LoadedRank r;
        r.trace = std::move(*results[i]).value();
        r.file = file;
        r.order = chosen[i].position;
        const DistributedInfo &dist = r.trace->info.run.distributed;
        if (dist.present && dist.rank >= 0)
            r.rank = dist.rank;
        else if (const auto named = rankFromFileName(file))
            r.rank = *named;
        else
            r.rank = int64_t(chosen[i].position);
        ranks.push_back(std::move(r));
    }
    results.clear();
    if (ranks.empty()) {
        std::string message = "no rank trace could be loaded";
        if (!failures.empty())
            message += " (" + failures.front() + ")";
        return fileError(folder, message);
    }
    std::stable_sort(ranks.begin(), ranks.end(), [](const LoadedRank &a, const LoadedRank &b) {
        return a.rank < b.rank;
    });

    // One clock: the earliest known origin is the merged time 0.
    bool anyOrigin = false;
    int64_t minOrigin = 0;
    for (const LoadedRank &r : ranks) {
        const int64_t o = r.trace->info.run.clockOriginNs;
        if (o != 0) {
            minOrigin = anyOrigin ? std::min(minOrigin, o) : o;
            anyOrigin = true;
        }
    }

    LoadInfo info;
    info.format = "chrome-json";
    info.sources = paths;
    info.run = ranks.front().trace->info.run;
    info.run.clockOriginNs = anyOrigin ? minOrigin : 0;
    if (runRanks > 0) {
        // The ranks that did load (a rank that failed is named below).
        std::vector<int64_t> shown;
        for (const LoadedRank &r : ranks)
            shown.push_back(r.rank);
        info.warn(shownRanksNote(shown, runRanks));
    }
    for (const std::string &f : failures)
        info.warn(f);

    // Optional step alignment: each rank's extra move, so its step marker starts at the
    // earliest rank's on the merged clock.
    std::vector<TimePs> alignMove(ranks.size(), 0);
    if (!options.alignStep.empty()) {
        std::vector<std::optional<TimePs>> at(ranks.size());
        std::optional<TimePs> earliest;
        for (size_t i = 0; i < ranks.size(); ++i) {
            const Trace &t = *ranks[i].trace;
            const int64_t origin = t.info.run.clockOriginNs;
            const TimePs base = origin != 0 && anyOrigin ? (origin - minOrigin) * 1000 : 0;
            if (const auto s = stepMarkerStart(t, options.alignStep)) {
                at[i] = *s + base;
                earliest = earliest ? std::min(*earliest, *at[i]) : *at[i];
            }
        }
        for (size_t i = 0; i < ranks.size(); ++i) {
            if (at[i] && earliest)
                alignMove[i] = *earliest - *at[i];
            else
                info.warn(rankLabel(ranks[i].rank) + ": no ProfilerStep#" + options.alignStep
                          + "; its clock is not aligned");
        }
    }

    std::vector<MergePart> parts;
    std::vector<std::string> seen;
    size_t position = 0;
    for (LoadedRank &r : ranks) {
        const std::string fileName = fs::path(r.file).filename().string();
        std::string label = rankLabel(r.rank);
        if (std::find(seen.begin(), seen.end(), label) != seen.end()) {
            info.warn(fileName + ": " + label + " is given by another file too; shown as "
                      + label + " (" + fileName + ")");
            label += " (" + fileName + ")";
        }
        seen.push_back(label);
        const TimePs shift =
            addRankPart(info, r.trace->info, fileName, label, minOrigin, anyOrigin);
        parts.push_back(MergePart{std::move(r.trace), label, fileName,
                                  shift + alignMove[position++]});
    }
    ranks.clear();

    std::shared_ptr<Trace> merged = mergeTraces(std::move(parts));
    // Warnings of the merge itself (a shift dropped for overflow) follow the loader's.
    for (const std::string &w : merged->info.warnings)
        info.warn(w);
    merged->info = std::move(info);
    return merged;
}

} // namespace tracedesk::core
