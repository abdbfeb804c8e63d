#include "distributedfiles.h"

#include <algorithm>
#include <filesystem>

namespace tracedesk::cli {

bool isRankTraceFile(const std::string &name)
{
    for (const char *suffix : {".json", ".json.gz", ".json.zst", ".xplane.pb"}) {
        const std::string s(suffix);
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
            return true;
    }
    return false;
}

bool collectRankFiles(const std::vector<std::string> &paths, std::vector<std::string> *files,
                      std::string *error)
{
    namespace fs = std::filesystem;
    for (const std::string &path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            std::vector<std::string> found;
            for (const fs::directory_entry &e : fs::directory_iterator(path, ec)) {
                if (e.is_regular_file(ec) && isRankTraceFile(e.path().filename().string()))
                    found.push_back(e.path().string());
            }
            std::sort(found.begin(), found.end());
            if (found.empty()) {
                *error = path + ": no rank traces (*.json, *.json.gz, *.json.zst, *.xplane.pb)";
                return false;
            }
            files->insert(files->end(), found.begin(), found.end());
        } else if (fs::exists(path, ec)) {
            files->push_back(path);
        } else {
            *error = path + ": no such file or directory";
            return false;
        }
    }
    return true;
}

} // namespace tracedesk::cli
