#include "core/io/chromejsonreader.h"

namespace tracedesk::core {

Result<std::shared_ptr<Trace>> readChromeJson(const std::string &path, LoadControl *, const LoadOptions &)
{
    return fileError(path, "Chrome JSON reading is not available in this build");
}

} // namespace tracedesk::core
