#pragma once

// Reading an Nsight Systems SQLite export (`nsys export --type sqlite FILE.nsys-rep`) into a
// Trace: the database is opened read-only, its schema asked what it holds, and NsysImporter maps
// the tables into the store's model (nsysimporter.h says how). LoadInfo::format is
// "nsys-sqlite".
//
// Errors name the file and the problem: not an SQLite file, an SQLite file that is no Nsight
// Systems export, a corrupt database. A `.nsys-rep` / `.qdrep` report is Nsight Systems' own
// binary format, which only nsys reads: nsysReportAdvice() says how to export it.

#include "core/base/loadcontrol.h"
#include "core/base/result.h"
#include "core/io/loadoptions.h"
#include "core/model/trace.h"

#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readNsysSqlite(const std::string &path,
                                              LoadControl *control = nullptr,
                                              const LoadOptions &options = {});

// The same from bytes in memory (the fuzz target); `name` names the input in errors.
Result<std::shared_ptr<Trace>> readNsysSqliteBytes(const std::string &name, const void *data,
                                                   size_t size, LoadControl *control = nullptr,
                                                   const LoadOptions &options = {});

// Several exports of one job (one per rank) as one trace: a section `rank N` per export (N from
// the file name, else the order given), on one clock by each export's UTC session start. A file
// that cannot be read fails the load, naming it.
Result<std::shared_ptr<Trace>> readNsysSqliteRun(const std::vector<std::string> &paths,
                                                 LoadControl *control = nullptr,
                                                 const LoadOptions &options = {});

// Whether `fileName` is an Nsight Systems report (.nsys-rep, or .qdrep before 2021.3).
bool isNsysReportName(const std::string &fileName);
// The error for such a report: what it is and the command that exports it.
Error nsysReportAdvice(const std::string &path);

} // namespace tracedesk::core
