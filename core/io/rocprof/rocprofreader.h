#pragma once

// Reading what rocprofv3 (ROCm's profiler, rocprofiler-sdk) writes into a Trace:
// - the JSON results document (`--output-format json`, `{"rocprofiler-sdk-tool": [...]}`, plain
//   or gzip / zstd compressed): LoadInfo::format "rocprof-json";
// - the CSV set (`--output-format csv`: `<prefix>_kernel_trace.csv`, `_hip_api_trace.csv`,
//   `_memory_copy_trace.csv`, `_marker_api_trace.csv`, `_counter_collection.csv`, ...), every file
//   of a set, or of several sets (the processes of one job), as one profile: "rocprof-csv".
// - the rocpd SQLite database (ROCm 7's default): "rocpd";
// - the RPD SQLite database of rocmProfileData (rpd_tracer; rpdtables.h): "rpd".
// Each decodes records (rocprofrecords.h) that RocprofImporter maps into the store's model.
//
// Errors name the file and the problem: not JSON, truncated, no rocprofiler-sdk-tool array; a
// CSV without a header naming its columns, or without the start times every record needs.
// Records a reader cannot use are skipped and counted as load warnings.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readRocprofJson(const std::string &path,
                                               LoadControl *control = nullptr,
                                               const LoadOptions &options = {});
// The same from bytes in memory (the fuzz target); `name` names the input in errors.
Result<std::shared_ptr<Trace>> readRocprofJsonBytes(const std::string &name, const void *data,
                                                    size_t size, LoadControl *control = nullptr,
                                                    const LoadOptions &options = {});

// The CSV files of one or more sets, read as one profile; a file of no kind rocprofv3 writes
// for its traces (its agent_info, its statistics) is skipped with a warning.
Result<std::shared_ptr<Trace>> readRocprofCsv(const std::vector<std::string> &paths,
                                              LoadControl *control = nullptr,
                                              const LoadOptions &options = {});
// One CSV file from bytes in memory (the fuzz target).
Result<std::shared_ptr<Trace>> readRocprofCsvBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control = nullptr,
                                                   const LoadOptions &options = {});

// The rocpd SQLite database (rocprofv3's default output from ROCm 7, rocpd schema 3.0.1 on):
// "rocpd". Every run it holds (a table set per run) is read into one profile. An RPD database
// (rocmProfileData's unsuffixed rocpd_op / rocpd_api tables) is read by the same call: "rpd".
Result<std::shared_ptr<Trace>> readRocpd(const std::string &path, LoadControl *control = nullptr,
                                         const LoadOptions &options = {});
// The same from bytes in memory (the fuzz target).
Result<std::shared_ptr<Trace>> readRocpdBytes(const std::string &name, const void *data,
                                              size_t size, LoadControl *control = nullptr,
                                              const LoadOptions &options = {});
// Whether an SQLite file is a rocpd or RPD database (it has a rocpd_string table).
bool isRocpdDatabase(const std::string &path);

// Whether a document's first bytes are a rocprofv3 results document's.
bool looksLikeRocprofJson(std::string_view head);
// Whether a CSV file's first line is a header rocprofv3 writes for a trace file.
bool looksLikeRocprofCsv(std::string_view head);
// The rocprofv3 trace CSV files of `dir`, sorted.
std::vector<std::string> rocprofCsvFilesIn(const std::string &dir);
// The files of the set `file` belongs to: the trace CSV files beside it that share its prefix
// (`1234_kernel_trace.csv` and `1234_hip_api_trace.csv`); at least `file` itself.
std::vector<std::string> rocprofCsvSetOf(const std::string &file);

} // namespace tracedesk::core
