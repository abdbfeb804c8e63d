#include "core/io/rankname.h"

#include "core/base/asciilower.h"

#include <filesystem>
#include <regex>
#include <string>

namespace tracedesk::core {

std::optional<int64_t> rankFromFileName(std::string_view path)
{
    const std::string base =
        asciiLower(std::filesystem::path(std::string(path)).filename().string());
    static const std::regex kNamed(R"((?:rank|worker)[-_]?(\d+))");
    static const std::regex kTrailing(R"([-_](\d+)(?:\.pt\.trace)?\.json(?:\.gz|\.zst)?$)");
    std::smatch m;
    if (std::regex_search(base, m, kNamed) || std::regex_search(base, m, kTrailing)) {
        const std::string digits = m[1].str();
        if (digits.size() <= 9)
            return std::stoll(digits);
    }
    return std::nullopt;
}

} // namespace tracedesk::core
