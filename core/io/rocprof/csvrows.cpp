#include "core/io/rocprof/csvrows.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace tracedesk::core::rocprof {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

CsvRows::CsvRows(std::string_view text) : m_text(text)
{
    // A UTF-8 byte order mark is not part of the first column's name.
    if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
        m_pos = 3;
}

bool CsvRows::next(std::vector<std::string_view> &fields)
{
    fields.clear();
    m_unescaped.clear();
    const size_t n = m_text.size();
    while (m_pos < n && (m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
        ++m_pos;
    if (m_pos >= n)
        return false;
    while (true) {
        if (m_pos < n && m_text[m_pos] == '"') {
            // Quoted: up to the closing quote; `""` is one quote.
            const size_t begin = ++m_pos;
            size_t end = n;
            bool escaped = false;
            while (true) {
                const size_t q = m_text.find('"', m_pos);
                if (q == std::string_view::npos) {
                    m_unterminated = true;
                    m_pos = n;
                    break;
                }
                if (q + 1 < n && m_text[q + 1] == '"') {
                    escaped = true;
                    m_pos = q + 2;
                    continue;
                }
                end = q;
                m_pos = q + 1;
                break;
            }
            std::string_view raw = m_text.substr(begin, end - begin);
            if (escaped) {
                std::string &s = m_unescaped.emplace_back();
                s.reserve(raw.size());
                for (size_t i = 0; i < raw.size(); ++i) {
                    s += raw[i];
                    if (raw[i] == '"' && i + 1 < raw.size() && raw[i + 1] == '"')
                        ++i;
                }
                raw = s;
            }
            fields.push_back(raw);
            // Whatever follows the closing quote up to the separator is dropped.
            while (m_pos < n && m_text[m_pos] != ',' && m_text[m_pos] != '\n')
                ++m_pos;
        } else {
            size_t end = m_pos;
            while (end < n && m_text[end] != ',' && m_text[end] != '\n')
                ++end;
            fields.push_back(trim(m_text.substr(m_pos, end - m_pos)));
            m_pos = end;
        }
        if (m_pos >= n)
            return true;
        if (m_text[m_pos] == '\n') {
            ++m_pos;
            return true;
        }
        ++m_pos;   // the comma
        if (m_pos >= n) {
            fields.emplace_back();
            return true;
        }
    }
}

CsvColumns::CsvColumns(const std::vector<std::string_view> &header)
{
    for (std::string_view h : header)
        m_names.emplace_back(trim(h));
}

int CsvColumns::index(std::string_view name) const
{
    for (size_t i = 0; i < m_names.size(); ++i) {
        if (m_names[i] == name)
            return int(i);
    }
    return -1;
}

int CsvColumns::firstOf(std::initializer_list<std::string_view> names) const
{
    for (std::string_view n : names) {
        if (int i = index(n); i >= 0)
            return i;
    }
    return -1;
}

std::optional<int64_t> parseInt(std::string_view field)
{
    field = trim(field);
    if (field.empty())
        return std::nullopt;
    int64_t v = 0;
    const char *end = field.data() + field.size();
    auto [ptr, ec] = std::from_chars(field.data(), end, v);
    if (ec == std::errc() && ptr == end)
        return v;
    if (ec == std::errc() && *ptr == '.') {
        // "12.000000": counters and some sizes are written as decimals.
        for (const char *p = ptr + 1; p < end; ++p) {
            if (*p < '0' || *p > '9')
                return std::nullopt;
        }
        return v;
    }
    return std::nullopt;
}

std::optional<double> parseDouble(std::string_view field)
{
    field = trim(field);
    if (field.empty() || field.size() > 64)
        return std::nullopt;
    const std::string s(field);
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<int64_t> parseAgent(std::string_view field)
{
    field = trim(field);
    const size_t space = field.rfind(' ');
    if (space != std::string_view::npos)
        field = field.substr(space + 1);
    return parseInt(field);
}

} // namespace tracedesk::core::rocprof
