#pragma once

// The rank traces `distributed` reads from its arguments: a folder gives its trace files
// (sorted), a file itself. Shared by the summary of a run and its map step, so a rank's
// position (its rank of last resort) is the same in both.

#include <string>
#include <vector>

namespace tracedesk::cli {

bool isRankTraceFile(const std::string &name);

bool collectRankFiles(const std::vector<std::string> &paths, std::vector<std::string> *files,
                      std::string *error);

} // namespace tracedesk::cli
