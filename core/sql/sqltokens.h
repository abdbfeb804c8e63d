#pragma once

// SqlTokens: the tokens of one SQL statement, as far as the grammar of aggregateplan.h needs
// them: names (bare or quoted with "", ``, []), integer and decimal literals, string literals
// ('text'), punctuation and the comparison and arithmetic operators. A name or string with a
// doubled quote inside is Bad (rare enough to leave to SQLite), and so is an empty quoted name. Blanks and comments
// between tokens are skipped; a semicolon is a token. Anything else is a Bad token, after which
// the text ends. Internal to core/sql.

#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core::sql {

struct SqlToken
{
    enum Type : uint8_t { End, Name, Integer, Real, String, Punct, Bad } type = End;
    // A name or string unquoted, a number's characters, the punctuation or operator.
    std::string text;
    bool quoted = false; // a quoted name: never a keyword
};

// ASCII case-insensitive equality (SQLite's rule for keywords and names).
bool sameName(std::string_view a, std::string_view b);

class SqlTokens
{
public:
    explicit SqlTokens(std::string_view text);

    const SqlToken &peek() const { return m_token; }
    SqlToken take();
    // A bare (unquoted) word, case-insensitive: the grammar's keywords.
    bool isKeyword(std::string_view word) const
    {
        return m_token.type == SqlToken::Name && !m_token.quoted && sameName(m_token.text, word);
    }
    bool takeKeyword(std::string_view word);
    bool isPunct(std::string_view p) const
    {
        return m_token.type == SqlToken::Punct && m_token.text == p;
    }
    bool takePunct(std::string_view p);

private:
    void advance();
    void set(SqlToken::Type type, size_t length, size_t quote);
    void setBad();

    std::string_view m_rest;
    SqlToken m_token;
};

} // namespace tracedesk::core::sql
