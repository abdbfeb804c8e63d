#include "core/io/xspacereader.h"

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readXSpaceFiles(const std::vector<std::string> &files, LoadControl *,
                                               const LoadOptions &)
{
    return fileError(files.empty() ? std::string("(none)") : files.front(),
                     "XSpace reading is not available in this build");
}

std::string hostFromXSpacePath(const std::string &path)
{
    return path;
}

} // namespace tracedesk::core
