#include "core/sql/sqltokens.h"

#include "core/sql/sqltext.h"

#include <cctype>

namespace tracedesk::core::sql {

namespace {

bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

bool isWord(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The length of the number at the text's start (digits, then optionally a fraction and an
// exponent), 0 when what follows it would make it something else (1abc, 0x10, 1.2.3).
size_t numberLength(std::string_view t, bool *real)
{
    size_t n = 0;
    while (n < t.size() && isDigit(t[n]))
        ++n;
    *real = false;
    if (n < t.size() && t[n] == '.') {
        *real = true;
        ++n;
        while (n < t.size() && isDigit(t[n]))
            ++n;
    }
    if (n < t.size() && (t[n] == 'e' || t[n] == 'E')) {
        size_t e = n + 1;
        if (e < t.size() && (t[e] == '+' || t[e] == '-'))
            ++e;
        if (e >= t.size() || !isDigit(t[e]))
            return 0;
        while (e < t.size() && isDigit(t[e]))
            ++e;
        *real = true;
        n = e;
    }
    if (n < t.size() && (isWord(t[n]) || t[n] == '.'))
        return 0;
    return n;
}

} // namespace

bool sameName(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t k = 0; k < a.size(); ++k)
        if (std::tolower(static_cast<unsigned char>(a[k])) !=
            std::tolower(static_cast<unsigned char>(b[k])))
            return false;
    return true;
}

SqlTokens::SqlTokens(std::string_view text)
    : m_rest(text)
{
    advance();
}

SqlToken SqlTokens::take()
{
    SqlToken t = std::move(m_token);
    advance();
    return t;
}

bool SqlTokens::takeKeyword(std::string_view word)
{
    if (!isKeyword(word))
        return false;
    advance();
    return true;
}

bool SqlTokens::takePunct(std::string_view p)
{
    if (!isPunct(p))
        return false;
    advance();
    return true;
}

void SqlTokens::advance()
{
    m_rest = skipBlanks(m_rest); // a semicolon is a token: it may end the statement
    m_token = {};
    if (m_rest.empty())
        return;
    const char c = m_rest.front();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t n = 1;
        while (n < m_rest.size() && isWord(m_rest[n]))
            ++n;
        return set(SqlToken::Name, n, 0);
    }
    if (isDigit(c) || (c == '.' && m_rest.size() > 1 && isDigit(m_rest[1]))) {
        bool real = false;
        const size_t n = numberLength(m_rest, &real);
        if (n == 0)
            return setBad();
        return set(real ? SqlToken::Real : SqlToken::Integer, n, 0);
    }
    if (c == '"' || c == '`' || c == '[' || c == '\'') {
        const char close = c == '[' ? ']' : c;
        // A doubled quote inside a name or string is rare enough to leave to SQLite.
        const size_t end = m_rest.find(close, 1);
        if (end == std::string_view::npos ||
            (close != ']' && end + 1 < m_rest.size() && m_rest[end + 1] == close))
            return setBad();
        // "" names no column: SQLite reads it as the empty string.
        if (end == 1 && c != '\'')
            return setBad();
        set(c == '\'' ? SqlToken::String : SqlToken::Name, end + 1, 1);
        m_token.quoted = true;
        return;
    }
    for (std::string_view two : {"<=", ">=", "<>", "!=", "=="})
        if (m_rest.substr(0, 2) == two)
            return set(SqlToken::Punct, 2, 0);
    if (std::string_view("(),*.;=<>/-").find(c) != std::string_view::npos)
        return set(SqlToken::Punct, 1, 0);
    setBad();
}

void SqlTokens::set(SqlToken::Type type, size_t length, size_t quote)
{
    m_token.type = type;
    m_token.text = std::string(m_rest.substr(quote, length - 2 * quote));
    m_rest.remove_prefix(length);
}

void SqlTokens::setBad()
{
    m_token.type = SqlToken::Bad;
    m_rest = {};
}

} // namespace tracedesk::core::sql
