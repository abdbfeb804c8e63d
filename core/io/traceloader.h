#pragma once

// TraceLoader: the one entry point for opening a profile. It works out what a path is (an
// XSpace file, a Chrome JSON file, an Nsight Systems SQLite export (by its SQLite header), a
// rocprofv3 results document (by its first key), CSV set (by its headers; a folder of them or
// one of their files) or rocpd database (an SQLite file with rocpd tables), a run folder of per-host XSpace files, a folder of PyTorch
// rank traces (core/io/rankrunloader.h), or a logdir of runs), consults the store cache, runs the
// right reader, and fills in LoadInfo timing. Several files given together are one run: XSpace
// hosts, or Chrome JSON ranks merged on one clock.
//
// Part of a run: LoadOptions::ranks picks ranks (checked against the run before anything is
// read; naming every rank = the whole run, one cache entry), and LoadOptions::fitRanksToMemory
// opens only the first ranks that fit the memory budget when the whole run would not
// (core/io/runfit.h), with a warning naming the sizes. A part is cached under its own key.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace tracedesk::core {

enum class SourceFormat { XSpace, ChromeJson, NsysSqlite, RocprofJson, RocprofCsv, Rocpd };

// The format's name as LoadInfo::format spells it ("xspace", "chrome-json", "nsys-sqlite",
// "rocprof-json", "rocprof-csv", "rocpd").
const char *sourceFormatName(SourceFormat format);

struct ResolvedSource
{
    SourceFormat format = SourceFormat::XSpace;
    // What will be read: one per host for an XSpace run folder, one per rank for a run of
    // Chrome JSON rank traces (more than one file = merged by readChromeJsonRun).
    std::vector<std::string> files;
    std::string displayName;          // the run or file name, for titles
    std::string runName;              // set when a logdir was resolved to one of its runs
    // A legacy per-tool run folder (core/legacy): loads as an empty trace; files = {folder}.
    bool legacyTools = false;
    // A CUDA / HIP graph capture trace opened with the replay in `files` (graphcapturepair.h):
    // loaded beside it as Trace::graphCapture.
    std::string graphCapture;
};

// Format from a file name, else from its first bytes. Error when neither tells.
Result<SourceFormat> detectFormat(const std::string &path);
// Runs of a logdir (`<logdir>/plugins/profile/<run>/`) or of a `plugins/profile` folder,
// oldest first; empty when `dir` holds none.
std::vector<std::string> listRuns(const std::string &dir);
Result<ResolvedSource> resolveSource(const std::string &path, const std::string &runName = {});

// Several files given together (command line, a drop): one run of XSpace hosts or of Chrome
// JSON ranks; one path resolves as resolveSource() does.
Result<ResolvedSource> resolveSources(const std::vector<std::string> &paths,
                                      const std::string &runName = {});

Result<TracePtr> loadTrace(const std::string &path, LoadControl *control = nullptr,
                           const LoadOptions &options = {});
Result<TracePtr> loadTraces(const std::vector<std::string> &paths, LoadControl *control = nullptr,
                            const LoadOptions &options = {});
// The store cache write of a load whose caller takes it over (loadResolved): run it on any
// thread once the trace is in use. Setting `stop` ends it early and leaves no cache file.
using DeferredCacheWrite = std::function<void(const std::atomic<bool> *stop)>;

// With `deferredCacheWrite`, a trace read from its sources is returned before its store cache
// is written: the write is handed back there (left empty when there is nothing to write), so a
// GUI shows the trace without waiting for it. Without, the cache is written before returning.
Result<TracePtr> loadResolved(const ResolvedSource &source, LoadControl *control,
                              const LoadOptions &options,
                              DeferredCacheWrite *deferredCacheWrite = nullptr);

} // namespace tracedesk::core
