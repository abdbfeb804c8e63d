#include "core/analysis/pytorch/numberedsteps.h"

#include "core/base/asciilower.h"

#include <array>

namespace tracedesk::core::analysis::pytorch {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool isSeparator(char c)
{
    return c == ' ' || c == '_' || c == '-' || c == '#' || c == ':' || c == '=';
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

// The digits at the start of `s` as a number (at most 18 of them), advancing past them.
std::optional<int64_t> number(std::string_view &s)
{
    size_t n = 0;
    while (n < s.size() && isDigit(s[n]))
        ++n;
    if (n == 0 || n > 18)
        return std::nullopt;
    int64_t v = 0;
    for (size_t i = 0; i < n; ++i)
        v = v * 10 + (s[i] - '0');
    s.remove_prefix(n);
    return v;
}

// Longest first, so "iteration" is not read as "iter" followed by "ation".
constexpr std::array<std::string_view, 6> kWords = {"global_step", "global step", "iteration",
                                                    "batch",       "step",        "iter"};

} // namespace

std::optional<NumberedStepName> parseNumberedStepName(std::string_view name)
{
    const std::string text = asciiLower(trimmed(name));
    std::string_view s = text;
    size_t prefix = 0;
    for (std::string_view train : {"training", "train"}) {
        if (s.substr(0, train.size()) == train) {
            prefix = train.size();
            if (prefix < s.size() && (s[prefix] == '_' || s[prefix] == ' ' || s[prefix] == '-'))
                ++prefix;
            break;
        }
    }
    std::string_view rest = s.substr(prefix);
    std::string_view word;
    for (std::string_view w : kWords) {
        if (rest.substr(0, w.size()) == w) {
            word = w;
            break;
        }
    }
    // "train" alone is not a step word ("train 3" is not a step), nor is a prefix without one.
    if (word.empty())
        return std::nullopt;
    rest.remove_prefix(word.size());
    size_t separators = 0;
    while (!rest.empty() && isSeparator(rest.front()) && separators < 3) {
        rest.remove_prefix(1);
        ++separators;
    }
    const auto n = number(rest);
    if (!n)
        return std::nullopt;
    rest = trimmed(rest);
    if (!rest.empty()) {
        // "12/100", "12 / 100", "12 of 100".
        if (rest.front() == '/')
            rest.remove_prefix(1);
        else if (rest.substr(0, 3) == "of ")
            rest.remove_prefix(3);
        else
            return std::nullopt;
        rest = trimmed(rest);
        if (!number(rest) || !rest.empty())
            return std::nullopt;
    }
    return NumberedStepName{std::string(s.substr(0, prefix + word.size())), *n};
}

} // namespace tracedesk::core::analysis::pytorch
