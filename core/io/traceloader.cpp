#include "core/io/traceloader.h"
#include "core/io/decompress.h"
#include "core/io/graphcapturepair.h"

#include "core/io/chromejsonreader.h"
#include "core/io/legacyrun.h"
#include "core/io/memoryguard.h"
#include "core/io/nsys/nsysdatabase.h"
#include "core/io/nsys/nsysreader.h"
#include "core/io/rankrunloader.h"
#include "core/io/rocprof/rocprofreader.h"
#include "core/io/runfit.h"
#include "core/io/runranks.h"
#include "core/io/storecache.h"
#include "core/io/xspacereader.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace fs = std::filesystem;

namespace tracedesk::core {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool isXSpaceName(const std::string &name)
{
    return endsWith(lower(name), ".xplane.pb");
}

bool isJsonName(const std::string &name)
{
    const std::string n = lower(name);
    return endsWith(n, ".json") || endsWith(n, ".json.gz") || endsWith(n, ".json.zst");
}

bool isSqliteName(const std::string &name)
{
    return endsWith(lower(name), ".sqlite");
}

bool isCsvName(const std::string &name)
{
    const std::string n = lower(name);
    return endsWith(n, ".csv") || endsWith(n, ".csv.gz") || endsWith(n, ".csv.zst");
}

std::vector<std::string> filesMatching(const fs::path &dir, bool (*match)(const std::string &))
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (it->is_regular_file(fec) && match(it->path().filename().string()))
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool isRunDir(const fs::path &dir)
{
    return !filesMatching(dir, isXSpaceName).empty() || !filesMatching(dir, isJsonName).empty()
           || legacy::isLegacyRun(dir.string());
}

// A `*.xplane.pb` entry of `dir` that is not a regular file (filesMatching() skips those): the
// error that explains why a folder that looks like a run holds nothing to load.
std::optional<Error> unreadableProfileEntry(const fs::path &dir)
{
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!isXSpaceName(name))
            continue;
        std::error_code sec;
        const fs::file_status target = fs::status(it->path(), sec);
        if (fs::is_regular_file(target))
            continue;
        const std::string path = it->path().string();
        if (it->is_symlink(sec) && !fs::exists(target))
            return fileError(path, "is a link to nothing, not a regular file");
        if (fs::is_directory(target))
            return fileError(path, "is a folder, not a regular file");
        return fileError(path, "is not a regular file");
    }
    return std::nullopt;
}

// What a load of `source` reads: LoadOptions::ranks checked against the run (every rank named
// = no subset, so the whole run keeps one cache entry) or, with fitRanksToMemory, the first ranks
// that fit the budget; `note` then says why only those open.
Result<LoadOptions> rankOptions(const ResolvedSource &source, const LoadOptions &options,
                                std::string *note)
{
    // A rocprofv3 CSV set's files are parts of one profile, not ranks.
    if (source.format == SourceFormat::RocprofCsv)
        return options;
    const bool run = source.files.size() > 1 || source.format == SourceFormat::XSpace;
    const bool fit = options.ranks.empty() && options.fitRanksToMemory && source.files.size() > 1;
    if (options.ranks.empty() && !fit)
        return options;
    const std::vector<RunFile> all = runFiles(source.files);
    LoadOptions out = options;
    out.fitRanksToMemory = false;
    if (!options.ranks.empty()) {
        const std::string name = source.files.size() == 1
                                     ? source.files.front()
                                     : fs::path(source.files.front()).parent_path().string();
        auto picked = selectRanks(all, options.ranks, name);
        if (!picked)
            return picked.error();
        if (picked.value().size() == all.size() || !run)
            out.ranks.clear();
        return out;
    }
    const RunFit f = fitRanks(all, MemoryGuard(options.memoryLimitBytes).budget());
    if (f.partial) {
        out.ranks = f.ranks;
        *note = runFitNote(f);
    }
    return out;
}

} // namespace

const char *sourceFormatName(SourceFormat format)
{
    switch (format) {
    case SourceFormat::XSpace: return "xspace";
    case SourceFormat::ChromeJson: return "chrome-json";
    case SourceFormat::NsysSqlite: return "nsys-sqlite";
    case SourceFormat::RocprofJson: return "rocprof-json";
    case SourceFormat::RocprofCsv: return "rocprof-csv";
    case SourceFormat::Rocpd: return "rocpd";
    }
    return "unknown";
}

// A JSON document is a rocprofv3 results document or Chrome trace JSON, told by its first key.
SourceFormat jsonFormat(const std::string &path)
{
    return looksLikeRocprofJson(readFileHead(path, 256)) ? SourceFormat::RocprofJson
                                                         : SourceFormat::ChromeJson;
}

Result<SourceFormat> detectFormat(const std::string &path)
{
    const std::string name = fs::path(path).filename().string();
    if (isNsysReportName(name))
        return nsysReportAdvice(path);
    if (isXSpaceName(name))
        return SourceFormat::XSpace;
    if (isJsonName(name))
        return jsonFormat(path);
    if (isCsvName(name)) {
        const std::string head = readFileHead(path, 16384);
        if (head.empty())
            return fileError(path, "is empty or cannot be read");
        if (looksLikeRocprofCsv(head))
            return SourceFormat::RocprofCsv;
        return fileError(path, "is a CSV file but not one rocprofv3 writes for a trace (kernel, "
                               "API, memory copy or allocation trace, counter collection)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fileError(path, "cannot be opened for reading");
    unsigned char head[64] = {};
    in.read(reinterpret_cast<char *>(head), sizeof head);
    const auto n = size_t(in.gcount());
    if (n == 0)
        return fileError(path, "is empty");
    if (n >= nsys::kSqliteMagic.size()
        && std::string_view(reinterpret_cast<const char *>(head), nsys::kSqliteMagic.size())
               == nsys::kSqliteMagic)
        return isRocpdDatabase(path) ? SourceFormat::Rocpd : SourceFormat::NsysSqlite;
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return jsonFormat(path);
    if (n >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd)
        return jsonFormat(path);
    for (size_t i = 0; i < n; ++i) {
        if (std::isspace(head[i]))
            continue;
        if (head[i] == '{' || head[i] == '[')
            return jsonFormat(path);
        break;
    }
    // An XSpace starts with field 1 (planes), length-delimited: tag byte 0x0a.
    if (head[0] == 0x0a || head[0] == 0x12 || head[0] == 0x1a || head[0] == 0x22)
        return SourceFormat::XSpace;
    if (looksLikeRocprofCsv(readFileHead(path, 16384)))
        return SourceFormat::RocprofCsv;
    return fileError(path, "is neither an XSpace profile (.xplane.pb), Chrome trace JSON, an "
                           "Nsight Systems SQLite export nor rocprofv3 output");
}

std::vector<std::string> listRuns(const std::string &dir)
{
    fs::path base(dir);
    std::error_code ec;
    if (fs::is_directory(base / "plugins" / "profile", ec))
        base = base / "plugins" / "profile";
    std::vector<std::string> runs;
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code dec;
        if (it->is_directory(dec) && isRunDir(it->path()))
            runs.push_back(it->path().filename().string());
    }
    // Run names are %Y_%m_%d_%H_%M_%S timestamps, so name order is time order.
    std::sort(runs.begin(), runs.end());
    return runs;
}

// A replay and its graph capture in one folder: the folder's two trace files, or its one trace
// file and the one trace file of a subfolder (vLLM writes capture_traces/ beside the replay).
std::optional<GraphCapturePair> graphCapturePairIn(const fs::path &dir,
                                                   const std::vector<std::string> &jsons)
{
    if (jsons.size() == 2)
        return findGraphCapturePair(jsons);
    if (jsons.size() != 1)
        return std::nullopt;
    std::vector<std::string> nested;
    std::error_code ec;
    for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_directory(ec))
            continue;
        for (std::string &f : filesMatching(entry.path(), isJsonName)) {
            // Only traces: a capture folder also holds small metadata JSON files.
            if (readFileHead(f, size_t(1) << 20).find("\"traceEvents\"") != std::string::npos)
                nested.push_back(std::move(f));
        }
    }
    if (nested.size() != 1)
        return std::nullopt;
    return findGraphCapturePair({jsons.front(), nested.front()});
}

Result<ResolvedSource> resolveSource(const std::string &path, const std::string &runName)
{
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return fileError(path, "no such file or directory");

    if (fs::is_regular_file(status)) {
        auto format = detectFormat(path);
        if (!format)
            return format.error();
        if (format.value() == SourceFormat::RocprofCsv) {
            // One file of a CSV set opens the whole set.
            auto set = rocprofCsvSetOf(path);
            std::string name = fs::path(path).filename().string();
            if (set.size() > 1)
                name += " (with " + std::to_string(set.size() - 1) + " more files of its set)";
            return ResolvedSource{SourceFormat::RocprofCsv, std::move(set), name, {}};
        }
        return ResolvedSource{format.value(), {path}, fs::path(path).filename().string(), {}};
    }
    if (!fs::is_directory(status))
        return fileError(path, "is not a regular file or a folder");

    auto fromRunDir = [](const fs::path &dir, const std::string &run) -> Result<ResolvedSource> {
        auto xspaces = filesMatching(dir, isXSpaceName);
        if (!xspaces.empty())
            return ResolvedSource{SourceFormat::XSpace, xspaces, dir.filename().string(), run};
        if (legacy::isLegacyRun(dir.string())) {
            // The trace viewer's Chrome JSON loads as before; the tool files seed the analyses.
            auto traces = filesMatching(dir, [](const std::string &n) {
                return endsWith(lower(n), ".trace.json.gz");
            });
            if (!traces.empty())
                return ResolvedSource{SourceFormat::ChromeJson, {traces.front()},
                                      dir.filename().string(), run};
            return ResolvedSource{SourceFormat::XSpace, {dir.string()}, dir.filename().string(),
                                  run, true};
        }
        auto jsons = filesMatching(dir, isJsonName);
        if (auto pair = graphCapturePairIn(dir, jsons)) {
            ResolvedSource source{SourceFormat::ChromeJson, {pair->replay},
                                  dir.filename().string() + " (replay with its graph capture)",
                                  run};
            source.graphCapture = pair->capture;
            return source;
        }
        if (jsons.size() == 1)
            return ResolvedSource{jsonFormat(jsons.front()), jsons, dir.filename().string(), run};
        // Several PyTorch rank traces: one run, its ranks merged on one clock.
        if (auto ranks = kinetoTraceFiles(jsons); ranks.size() > 1)
            return ResolvedSource{SourceFormat::ChromeJson, ranks, dir.filename().string(), run};
        if (jsons.size() > 1)
            return fileError(dir.string(), "holds " + std::to_string(jsons.size())
                                               + " Chrome trace files; open one of them");
        if (auto odd = unreadableProfileEntry(dir))
            return *odd;
        return fileError(dir.string(), "contains no profile (.xplane.pb or trace .json)");
    };

    if (isRunDir(path))
        return fromRunDir(path, {});

    const auto runs = listRuns(path);
    if (runs.empty()) {
        // A folder of Nsight Systems exports (one per rank) is one run.
        if (auto exports = filesMatching(path, isSqliteName); !exports.empty())
            return ResolvedSource{SourceFormat::NsysSqlite, exports,
                                  fs::path(path).filename().string(), {}};
        // rocprofv3's CSV files (one set per process) are one profile.
        if (auto csvs = rocprofCsvFilesIn(path); !csvs.empty())
            return ResolvedSource{SourceFormat::RocprofCsv, csvs,
                                  fs::path(path).filename().string(), {}};
        if (auto odd = unreadableProfileEntry(path))
            return *odd;
        return fileError(path, "contains no profile: expected <host>.xplane.pb files, a trace "
                               ".json, or a logdir with plugins/profile/<run>/");
    }
    fs::path base(path);
    if (fs::is_directory(base / "plugins" / "profile", ec))
        base = base / "plugins" / "profile";
    std::string chosen = runs.back();
    if (!runName.empty()) {
        if (std::find(runs.begin(), runs.end(), runName) == runs.end())
            return fileError(path, "has no run named '" + runName + "'");
        chosen = runName;
    }
    return fromRunDir(base / chosen, chosen);
}

// Loads the graph capture opened with a replay into `trace`. A capture that cannot be read
// leaves a warning and the replay as it is; false only when the load was cancelled.
bool attachGraphCapture(Trace &trace, const ResolvedSource &source, LoadControl *control,
                        const LoadOptions &options)
{
    const std::string &path =
        source.graphCapture.empty() ? options.graphCapture : source.graphCapture;
    if (path.empty())
        return true;
    LoadOptions captureOptions = options;
    captureOptions.ranks.clear();
    captureOptions.alignStep.clear();
    captureOptions.graphCapture.clear();
    auto capture = loadTrace(path, control, captureOptions);
    if (capture) {
        trace.graphCapture = capture.value();
        return true;
    }
    if (control->cancelRequested())
        return false;
    trace.info.warn("graph capture " + path + " not loaded: " + capture.message());
    return true;
}

Result<TracePtr> loadResolved(const ResolvedSource &source, LoadControl *control,
                              const LoadOptions &options, DeferredCacheWrite *deferredCacheWrite)
{
    if (deferredCacheWrite)
        *deferredCacheWrite = {};
    LoadControl localControl;
    if (!control)
        control = &localControl;
    const auto started = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };

    if (source.legacyTools) {
        auto trace = std::make_shared<Trace>();
        trace->info.format = legacy::kLegacyFormat;
        trace->info.sources = source.files;
        trace->info.warn(legacy::kLegacyNote);
        trace->info.loadSeconds = elapsed();
        return TracePtr(std::move(trace));
    }
    std::string fitNote;
    auto ranked = rankOptions(source, options, &fitNote);
    if (!ranked)
        return ranked.error();
    const LoadOptions &effective = ranked.value();
    // The sources' identity before they are read; the trace is cached only if it still holds.
    const std::string cacheFile = effective.useCache ? cacheFileFor(source.files, effective)
                                                     : std::string();
    if (effective.useCache) {
        if (auto cached = loadCachedTrace(source.files, effective, control)) {
            cached->info.fromCache = true;
            if (!attachGraphCapture(*cached, source, control, options))
                return Result<TracePtr>::cancelled();
            cached->info.loadSeconds = elapsed();
            if (!fitNote.empty())
                cached->info.warn(fitNote);
            return TracePtr(std::move(cached));
        }
        if (control->cancelRequested())
            return Result<TracePtr>::cancelled();
    }

    Result<std::shared_ptr<Trace>> loaded =
        source.format == SourceFormat::XSpace ? readXSpaceFiles(source.files, control, effective)
        : source.format == SourceFormat::NsysSqlite
            ? (source.files.size() > 1 ? readNsysSqliteRun(source.files, control, effective)
                                       : readNsysSqlite(source.files.front(), control, effective))
        : source.format == SourceFormat::RocprofCsv ? readRocprofCsv(source.files, control, effective)
        : source.format == SourceFormat::Rocpd
            ? (source.files.size() > 1
                   ? Result<std::shared_ptr<Trace>>(fileError(
                         source.files[1], "is a second rocpd database: open one at a time (each "
                                          "holds every process it profiled)"))
                   : readRocpd(source.files.front(), control, effective))
        : source.format == SourceFormat::RocprofJson
            ? (source.files.size() > 1
                   ? Result<std::shared_ptr<Trace>>(fileError(
                         source.files[1], "is a second rocprofv3 results document: open one at "
                                          "a time (each holds every process it profiled)"))
                   : readRocprofJson(source.files.front(), control, effective))
        : source.files.size() > 1 ? readChromeJsonRun(source.files, control, effective)
                                  : readChromeJson(source.files.front(), control, effective);
    if (!loaded)
        return loaded.error();
    std::shared_ptr<Trace> trace = std::move(loaded).value();
    if (control->cancelRequested())
        return Result<TracePtr>::cancelled();
    trace->info.loadSeconds = elapsed();
    // The cache holds the store as read: the notes added below apply to this opening only (the
    // same store opened later may fit; the capture is attached on every opening).
    std::optional<LoadInfo> savedInfo;
    if (effective.useCache && !cacheFile.empty())
        savedInfo = trace->info;
    if (!fitNote.empty())
        trace->info.warn(fitNote);
    if (!attachGraphCapture(*trace, source, control, options))
        return Result<TracePtr>::cancelled();
    TracePtr done = std::move(trace);
    if (savedInfo) {
        DeferredCacheWrite write = [done, info = std::move(*savedInfo), files = source.files,
                                    effective, cacheFile](const std::atomic<bool> *stop) {
            saveCachedTrace(*done, files, effective, cacheFile, {&info, stop});
        };
        if (deferredCacheWrite)
            *deferredCacheWrite = std::move(write);
        else
            write(nullptr);
    }
    return done;
}

Result<ResolvedSource> resolveSources(const std::vector<std::string> &paths,
                                      const std::string &runName)
{
    if (paths.empty())
        return Error{"no file given", false};
    if (paths.size() == 1)
        return resolveSource(paths.front(), runName);
    std::optional<SourceFormat> format;
    for (const std::string &path : paths) {
        std::error_code ec;
        const fs::file_status status = fs::status(path, ec);
        if (ec || !fs::exists(status))
            return fileError(path, "no such file or directory");
        if (!fs::is_regular_file(status))
            return fileError(path, "is not a file; give several files, or one folder");
        auto detected = detectFormat(path);
        if (!detected)
            return detected.error();
        if (format && *format != detected.value())
            return fileError(path, std::string("is ") + sourceFormatName(detected.value())
                                       + " among " + sourceFormatName(*format)
                                       + " files: one run holds one format");
        format = detected.value();
    }
    // Named after the folder the files share, else after the first file.
    const fs::path folder = fs::path(paths.front()).parent_path();
    const bool oneFolder = std::all_of(paths.begin(), paths.end(), [&](const std::string &p) {
        return fs::path(p).parent_path() == folder;
    });
    std::string name = oneFolder && !folder.filename().empty()
                           ? folder.filename().string()
                           : fs::path(paths.front()).filename().string();
    if (*format == SourceFormat::ChromeJson) {
        if (auto pair = findGraphCapturePair(paths)) {
            ResolvedSource source{*format,
                                  {pair->replay},
                                  fs::path(pair->replay).filename().string() +
                                      " (replay with its graph capture)",
                                  {}};
            source.graphCapture = pair->capture;
            return source;
        }
    }
    name += " (" + std::to_string(paths.size()) + " files)";
    return ResolvedSource{*format, paths, name, {}};
}

Result<TracePtr> loadTraces(const std::vector<std::string> &paths, LoadControl *control,
                            const LoadOptions &options)
{
    auto source = resolveSources(paths, options.runName);
    if (!source)
        return source.error();
    return loadResolved(source.value(), control, options);
}

Result<TracePtr> loadTrace(const std::string &path, LoadControl *control, const LoadOptions &options)
{
    auto source = resolveSource(path, options.runName);
    if (!source)
        return source.error();
    return loadResolved(source.value(), control, options);
}

} // namespace tracedesk::core
