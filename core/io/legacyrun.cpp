#include "core/io/legacyrun.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace fs = std::filesystem;

namespace tracedesk::core::legacy {

namespace {

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size()
           && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

bool isLegacyToolFile(const std::string &fileName)
{
    return std::any_of(std::begin(kLegacyToolSuffixes), std::end(kLegacyToolSuffixes),
                       [&](std::string_view s) { return endsWith(fileName, s); });
}

bool isLegacyRun(const std::string &dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return false;
    bool tools = false;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (!it->is_regular_file(fec))
            continue;
        const std::string name = it->path().filename().string();
        if (endsWith(name, ".xplane.pb"))
            return false;
        tools = tools || isLegacyToolFile(name);
    }
    return tools;
}

LegacyRunContents legacyRunContents(const std::string &dir)
{
    // Panel names per suffix of kLegacyToolSuffixes (same order).
    static constexpr const char *kToolNames[] = {
        "Overview", "Overview", "Input Pipeline", "Input Pipeline", "Framework Op Stats",
        "Op Profile", "Kernel Stats", "Memory Viewer", "Pod Viewer", "Memory Profile",
        "Trace table", "Trace table", "HLO Op Stats", "Roofline Model"};
    static_assert(std::size(kToolNames) == std::size(kLegacyToolSuffixes));
    LegacyRunContents out;
    std::vector<bool> present(std::size(kLegacyToolSuffixes), false);
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fec;
        if (!it->is_regular_file(fec))
            continue;
        const std::string name = it->path().filename().string();
        for (size_t i = 0; i < std::size(kLegacyToolSuffixes); ++i) {
            if (!endsWith(name, kLegacyToolSuffixes[i]))
                continue;
            present[i] = true;
            out.hosts.push_back(name.substr(0, name.size() - kLegacyToolSuffixes[i].size()));
            break;
        }
    }
    for (size_t i = 0; i < present.size(); ++i) {
        if (present[i]
            && std::find(out.tools.begin(), out.tools.end(), kToolNames[i]) == out.tools.end())
            out.tools.emplace_back(kToolNames[i]);
    }
    std::sort(out.hosts.begin(), out.hosts.end());
    out.hosts.erase(std::unique(out.hosts.begin(), out.hosts.end()), out.hosts.end());
    return out;
}

std::string legacyRunFolder(const LoadInfo &info)
{
    if (info.sources.empty())
        return {};
    fs::path p(info.sources.front());
    std::error_code ec;
    if (!fs::is_directory(p, ec))
        p = p.parent_path();
    return isLegacyRun(p.string()) ? p.string() : std::string();
}

} // namespace tracedesk::core::legacy
