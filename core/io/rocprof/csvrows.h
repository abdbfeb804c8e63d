#pragma once

// CsvRows: the rows of a CSV text (RFC 4180: fields optionally quoted, `""` inside quotes, CRLF
// or LF line ends), one row at a time as views of its fields, and the header's columns by name.
// rocprofv3 quotes every field from ROCm 7 on and only text fields before; both read the same.
//
// The views point into the text, or into storage the reader owns for a field that held `""`:
// valid until the next call to next(). One thread.

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core::rocprof {

class CsvRows
{
public:
    explicit CsvRows(std::string_view text);

    // The next row's fields; false at the end of the text. A blank line is skipped.
    bool next(std::vector<std::string_view> &fields);
    // A quote opened and never closed (the text is cut short): the last row ends at the text's
    // end.
    bool unterminatedQuote() const { return m_unterminated; }
    // The byte offset reached, for progress.
    size_t position() const { return m_pos; }

private:
    std::string_view m_text;
    size_t m_pos = 0;
    bool m_unterminated = false;
    std::deque<std::string> m_unescaped;
};

// A header's columns by name: the index of each, or -1 when the file lacks it.
class CsvColumns
{
public:
    CsvColumns() = default;
    explicit CsvColumns(const std::vector<std::string_view> &header);

    int index(std::string_view name) const;
    bool has(std::string_view name) const { return index(name) >= 0; }
    // The first of `names` the header has, or -1 (columns renamed between versions).
    int firstOf(std::initializer_list<std::string_view> names) const;
    const std::vector<std::string> &names() const { return m_names; }

private:
    std::vector<std::string> m_names;
};

// A field of `row` (empty when the row is short or the column missing).
inline std::string_view fieldAt(const std::vector<std::string_view> &row, int column)
{
    return column >= 0 && size_t(column) < row.size() ? row[size_t(column)] : std::string_view();
}

// An integer field (surrounding spaces allowed; "12.000" reads as 12); nullopt when it is empty
// or not a number.
std::optional<int64_t> parseInt(std::string_view field);
std::optional<double> parseDouble(std::string_view field);
// An agent as rocprofv3's CSV names it: "Agent 4" (ROCm 6.4 on) or "4" (before).
std::optional<int64_t> parseAgent(std::string_view field);

} // namespace tracedesk::core::rocprof
