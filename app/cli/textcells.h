#pragma once

// Cell texts of the CLI's fixed-width tables.

#include <cstdio>
#include <optional>
#include <string>

namespace tracedesk::cli {

// `s` cut to `width` characters, the cut marked with "...".
inline std::string clip(const std::string &s, size_t width)
{
    return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

// "12.34%", or "-" when there is no value.
inline std::string percentText(std::optional<double> percent)
{
    if (!percent)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", *percent);
    return buf;
}

// A fraction as a percentage, absent stays absent.
inline std::optional<double> times100(std::optional<double> fraction)
{
    if (!fraction)
        return std::nullopt;
    return 100.0 * *fraction;
}

} // namespace tracedesk::cli
