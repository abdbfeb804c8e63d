#include "core/analysis/distributed/summaryreduce.h"

#include "core/analysis/distributed/summaryfile.h"
#include "core/base/parallel.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace tracedesk::core::analysis::distributed {

namespace fs = std::filesystem;

namespace {

// What a profile folder holds besides summaries: with one of these it is a run of traces.
bool looksLikeTrace(std::string_view name)
{
    for (std::string_view suffix : {".json", ".json.gz", ".json.zst", ".pb", ".pb.gz"}) {
        if (name.ends_with(suffix))
            return true;
    }
    return false;
}

} // namespace

Result<std::vector<std::string>> summaryFilesIn(const std::string &dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return fileError(dir, "no such folder");
    std::vector<std::string> out;
    for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
        if (e.is_regular_file(ec) && isSummaryFileName(e.path().filename().string()))
            out.push_back(e.path().string());
    }
    if (ec)
        return fileError(dir, "cannot be listed (" + ec.message() + ")");
    if (out.empty()) {
        return fileError(dir, "no rank summaries (*" + std::string(kSummarySuffix)
                                  + ", written by distributed --map)");
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool isSummaryFolder(const std::string &dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return false;
    bool summaries = false;
    for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (looksLikeTrace(name))
            return false;
        summaries = summaries || (e.is_regular_file(ec) && isSummaryFileName(name));
    }
    return summaries && !ec;
}

namespace {

// `parallel`: files read at once, 0 = one per core. `traceFiles`, when given, receives the
// traces' absolute paths in rank order, and every rank's file is its absolute path.
DistributedSummary reduce(const std::vector<std::string> &summaryFiles,
                          const std::string &alignStep, unsigned parallel,
                          std::vector<std::string> *traceFiles)
{
    std::vector<std::optional<Result<RankSummaryFile>>> read(summaryFiles.size());
    parallelFor(summaryFiles.size(), parallel, [&](unsigned, size_t i) {
        read[i] = readSummaryFile(summaryFiles[i]);
        return true;
    });

    std::vector<RankError> unreadable;
    std::vector<RankSummaryFile> files;
    files.reserve(read.size());
    for (size_t i = 0; i < read.size(); ++i) {
        Result<RankSummaryFile> &r = *read[i];
        if (r)
            files.push_back(std::move(r).value());
        else
            unreadable.push_back({summaryFiles[i], r.message()});
    }
    read.clear();
    // The order summarizeRun() met the traces in: a repeated rank keeps the first, as there.
    std::stable_sort(files.begin(), files.end(),
                     [](const RankSummaryFile &a, const RankSummaryFile &b) {
                         if (a.order != b.order)
                             return a.order < b.order;
                         return a.source.path < b.source.path;
                     });
    std::vector<RankSummary> ranks;
    std::vector<RankError> errors = std::move(unreadable);
    ranks.reserve(files.size());
    for (RankSummaryFile &f : files) {
        if (traceFiles) {
            traceFiles->push_back(f.source.absolutePath);
            if (f.summary)
                f.summary->file = f.source.absolutePath;
            f.source.path = f.source.absolutePath;
        }
        if (f.summary)
            ranks.push_back(std::move(*f.summary));
        else
            errors.push_back({f.source.path, f.error});
    }
    DistributedSummary out = combineRanks(std::move(ranks), alignStep);
    out.errors.insert(out.errors.begin(), errors.begin(), errors.end());
    return out;
}

} // namespace

DistributedSummary reduceSummaries(const std::vector<std::string> &summaryFiles,
                                   const std::string &alignStep, unsigned parallel)
{
    return reduce(summaryFiles, alignStep, std::max(parallel, 1u), nullptr);
}

Result<SummaryRun> openSummaryRun(const std::string &dir, const std::string &alignStep)
{
    auto files = summaryFilesIn(dir);
    if (!files)
        return files.error();
    SummaryRun out;
    out.run = reduce(files.value(), alignStep, 0, &out.traceFiles);
    if (out.run.ranks.empty()) {
        return fileError(dir, "no rank summary could be read"
                                  + (out.run.errors.empty()
                                         ? std::string()
                                         : " (" + out.run.errors.front().message + ")"));
    }
    return out;
}

} // namespace tracedesk::core::analysis::distributed
