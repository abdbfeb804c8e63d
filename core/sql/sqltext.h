#pragma once

// What SQL text holds between statements: blanks, semicolons and comments (`-- ...` to the
// line's end, `/* ... */`, an unterminated one to the text's end). Internal to core/sql.

#include <cctype>
#include <string_view>

namespace tracedesk::core::sql {

// `text` from its first character that is neither a blank nor inside a comment.
inline std::string_view skipBlanks(std::string_view text)
{
    for (;;) {
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
            text.remove_prefix(1);
        if (text.substr(0, 2) == "--") {
            const size_t eol = text.find('\n');
            text.remove_prefix(eol == std::string_view::npos ? text.size() : eol);
        } else if (text.substr(0, 2) == "/*") {
            const size_t close = text.find("*/", 2);
            text.remove_prefix(close == std::string_view::npos ? text.size() : close + 2);
        } else {
            return text;
        }
    }
}

// `text` from its first character that is none of those on (semicolons included).
inline std::string_view skipTrivia(std::string_view text)
{
    for (text = skipBlanks(text); !text.empty() && text.front() == ';'; text = skipBlanks(text))
        text.remove_prefix(1);
    return text;
}

} // namespace tracedesk::core::sql
