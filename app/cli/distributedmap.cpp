#include "distributedmap.h"

#include "distributedfiles.h"

#include "core/analysis/distributed/summaryfile.h"
#include "core/analysis/distributed/summaryreduce.h"

#include <cstdio>
#include <filesystem>

namespace tracedesk::cli {

using namespace core::analysis::distributed;
namespace fs = std::filesystem;

namespace {

// The file's position among the rank traces of its folder: the rank `distributed FOLDER`
// gives a trace that names no rank, so the map step must give the same.
uint64_t positionInFolder(const std::string &file)
{
    fs::path dir = fs::path(file).parent_path();
    if (dir.empty())
        dir = ".";
    std::vector<std::string> files;
    std::string error;
    if (!collectRankFiles({dir.string()}, &files, &error))
        return 0;
    const fs::path name = fs::path(file).filename();
    for (size_t i = 0; i < files.size(); ++i) {
        if (fs::path(files[i]).filename() == name)
            return i;
    }
    return 0;
}

} // namespace

int runDistributedMap(const ParsedArgs &args)
{
    const std::string file = args.value("map");
    if (file.empty() || !args.has("out") || args.value("out").empty())
        return fail("distributed: --map wants a rank FILE and --out DIR", kExitUsage);
    if (!args.positional.empty())
        return fail("distributed: --map summarises one FILE; no other files", kExitUsage);
    for (const char *other : {"reduce", "ranks", "align-step", "json", "jobs", "limit"}) {
        if (args.has(other))
            return fail(std::string("distributed: --map does not take --") + other, kExitUsage);
    }
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        return fail("distributed: " + file + ": no such file");

    core::LoadOptions load = loadOptionsFrom(args);
    load.useCache = args.has("cache");
    if (args.has("memory-limit")) {
        unsigned long long bytes = 0;
        if (!parseCount(args.value("memory-limit"), &bytes) || bytes == 0)
            return fail("distributed: --memory-limit wants a byte count, e.g. 512M", kExitUsage);
        load.memoryLimitBytes = bytes;
    }
    RankSummaryFile summary;
    summary.source = describeSource(file);
    summary.order = positionInFolder(file);
    auto made = summarizeRankFile(file, size_t(summary.order), nullptr, load);
    if (made)
        summary.summary = std::move(made).value();
    else
        summary.error = made.message();
    // A rank that cannot be loaded still gets its summary: the reduce lists its error as the
    // folder's own summary would.
    auto written = writeSummaryFile(summary, args.value("out"));
    if (!written)
        return fail("distributed: " + written.message());
    std::printf("%s\n", written.value().c_str());
    if (!made)
        return fail("distributed: " + made.message());
    return kExitOk;
}

bool collectSummaryFiles(const std::vector<std::string> &paths, std::vector<std::string> *files,
                         std::string *error)
{
    for (const std::string &path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            auto found = summaryFilesIn(path);
            if (!found) {
                *error = found.message();
                return false;
            }
            files->insert(files->end(), found.value().begin(), found.value().end());
        } else {
            files->push_back(path); // a missing one is the reduce's error, naming it
        }
    }
    return true;
}

} // namespace tracedesk::cli
