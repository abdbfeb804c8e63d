#include "core/sql/aggregateplan.h"

#include "core/sql/sqltext.h"

#include <array>
#include <cctype>
#include <string>

namespace tracedesk::core::sql {

namespace {

struct Token
{
    enum Type : uint8_t { End, Name, Number, Punct, Bad } type = End;
    std::string text; // a name unquoted, a number's digits, the punctuation character
    bool quoted = false;
};

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

// The statement's tokens, as far as the plan's grammar needs: anything else is Bad.
class Tokens
{
public:
    explicit Tokens(std::string_view text)
        : m_rest(text)
    {
        advance();
    }

    const Token &peek() const { return m_token; }
    Token take()
    {
        Token t = std::move(m_token);
        advance();
        return t;
    }
    // A bare (unquoted) word, case-insensitive: the grammar's keywords.
    bool isKeyword(std::string_view word) const
    {
        return m_token.type == Token::Name && !m_token.quoted && sameName(m_token.text, word);
    }
    bool takeKeyword(std::string_view word)
    {
        if (!isKeyword(word))
            return false;
        advance();
        return true;
    }
    bool isPunct(char c) const
    {
        return m_token.type == Token::Punct && m_token.text[0] == c;
    }
    bool takePunct(char c)
    {
        if (!isPunct(c))
            return false;
        advance();
        return true;
    }

private:
    void advance()
    {
        m_rest = skipBlanks(m_rest); // a semicolon is a token: it may end the statement
        m_token = {};
        if (m_rest.empty())
            return;
        const char c = m_rest.front();
        const auto isWord = [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        };
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t n = 1;
            while (n < m_rest.size() && isWord(m_rest[n]))
                ++n;
            setToken(Token::Name, n, 0);
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t n = 1;
            while (n < m_rest.size() && std::isdigit(static_cast<unsigned char>(m_rest[n])))
                ++n;
            // 1e3, 1.5, 0x10, 12abc: not an integer literal of the grammar.
            if (n < m_rest.size() && (isWord(m_rest[n]) || m_rest[n] == '.'))
                return setBad();
            setToken(Token::Number, n, 0);
        } else if (c == '"' || c == '`' || c == '[') {
            const char close = c == '[' ? ']' : c;
            const size_t end = m_rest.find(close, 1);
            // A doubled quote inside the name is rare enough to leave to SQLite.
            if (end == std::string_view::npos ||
                (end + 1 < m_rest.size() && m_rest[end + 1] == close && close != ']'))
                return setBad();
            setToken(Token::Name, end + 1, 1);
            m_token.quoted = true;
        } else if (std::string_view("(),*.;").find(c) != std::string_view::npos) {
            setToken(Token::Punct, 1, 0);
        } else {
            setBad();
        }
    }
    void setToken(Token::Type type, size_t length, size_t quote)
    {
        m_token.type = type;
        m_token.text = std::string(m_rest.substr(quote, length - 2 * quote));
        m_rest.remove_prefix(length);
    }
    void setBad()
    {
        m_token.type = Token::Bad;
        m_rest = {};
    }
    std::string_view m_rest;
    Token m_token;
};

const std::array<std::pair<std::string_view, SliceField>, 6> kFields = {{
    {"id", SliceField::Id},
    {"track", SliceField::Track},
    {"depth", SliceField::Depth},
    {"ts", SliceField::Ts},
    {"dur", SliceField::Dur},
    {"end", SliceField::End},
}};

const std::array<std::pair<std::string_view, AggregateFn>, 6> kFunctions = {{
    {"count", AggregateFn::Count},
    {"sum", AggregateFn::Sum},
    {"total", AggregateFn::Total},
    {"min", AggregateFn::Min},
    {"max", AggregateFn::Max},
    {"avg", AggregateFn::Avg},
}};

std::optional<GroupKey> keyNamed(std::string_view name)
{
    if (sameName(name, "name"))
        return GroupKey::Name;
    if (sameName(name, "category"))
        return GroupKey::Category;
    return std::nullopt;
}

// The words that end an item or term where an alias could stand.
bool isClauseWord(const Tokens &tokens)
{
    for (std::string_view w : {"from", "group", "order", "limit", "offset", "asc", "desc", "as",
                               "collate", "nulls", "where", "having", "window", "union",
                               "except", "intersect"})
        if (tokens.isKeyword(w))
            return true;
    return false;
}

// After a function's name and its '(': count(*) or f(column) and the ')'.
std::optional<PlanValue> parseCall(Tokens &tokens, AggregateFn fn)
{
    PlanValue value{fn, SliceField::None};
    if (fn == AggregateFn::Count && tokens.takePunct('*'))
        return tokens.takePunct(')') ? std::optional(value) : std::nullopt;
    if (tokens.peek().type != Token::Name)
        return std::nullopt;
    const Token column = tokens.take();
    for (const auto &[name, field] : kFields)
        if (sameName(column.text, name))
            value.field = field;
    if (value.field == SliceField::None || !tokens.takePunct(')'))
        return std::nullopt;
    return value;
}

// A select item or ORDER BY term that starts with a name: an aggregate call, or a column
// (returned as Key with its name in *column for the caller to resolve).
std::optional<PlanValue> parseValue(Tokens &tokens, std::string *column)
{
    if (tokens.peek().type != Token::Name)
        return std::nullopt;
    const Token word = tokens.take();
    if (!tokens.takePunct('(')) {
        if (tokens.isPunct('.'))
            return std::nullopt;
        *column = word.text;
        return PlanValue{};
    }
    if (word.quoted)
        return std::nullopt;
    for (const auto &[name, fn] : kFunctions)
        if (sameName(word.text, name))
            return parseCall(tokens, fn);
    return std::nullopt;
}

std::optional<uint64_t> parseCount(Tokens &tokens)
{
    if (tokens.peek().type != Token::Number || tokens.peek().text.size() > 18)
        return std::nullopt;
    return std::stoull(tokens.take().text);
}

} // namespace

std::optional<AggregatePlan> parseAggregatePlan(std::string_view sql)
{
    Tokens tokens(sql);
    if (!tokens.takeKeyword("select"))
        return std::nullopt;
    AggregatePlan plan;
    std::vector<std::string> aliases;
    std::vector<std::string> keyColumns; // items that name a column: the key, checked below
    do {
        std::string column;
        auto value = parseValue(tokens, &column);
        if (!value)
            return std::nullopt;
        if (!column.empty())
            keyColumns.push_back(column);
        std::string alias;
        if (tokens.takeKeyword("as")) {
            if (tokens.peek().type != Token::Name)
                return std::nullopt;
            alias = tokens.take().text;
        } else if (tokens.peek().type == Token::Name && !isClauseWord(tokens)) {
            alias = tokens.take().text;
        } else if (tokens.peek().type == Token::Name && !tokens.isKeyword("from")) {
            return std::nullopt;
        }
        plan.values.push_back(*value);
        aliases.push_back(std::move(alias));
    } while (tokens.takePunct(','));
    plan.resultColumns = plan.values.size();

    if (!tokens.takeKeyword("from") || tokens.peek().type != Token::Name ||
        !sameName(tokens.take().text, "slices") || !tokens.takeKeyword("group") ||
        !tokens.takeKeyword("by") || tokens.peek().type != Token::Name)
        return std::nullopt;
    const auto key = keyNamed(tokens.take().text);
    if (!key)
        return std::nullopt;
    plan.key = *key;
    for (const std::string &column : keyColumns)
        if (keyNamed(column) != key)
            return std::nullopt; // a column that is not the key: one row's value per group

    if (tokens.takeKeyword("order")) {
        if (!tokens.takeKeyword("by"))
            return std::nullopt;
        do {
            PlanOrder term;
            if (tokens.peek().type == Token::Number) {
                const auto ordinal = parseCount(tokens);
                if (!ordinal || *ordinal < 1 || *ordinal > plan.resultColumns)
                    return std::nullopt;
                term.value = uint32_t(*ordinal - 1);
            } else {
                const bool bare = tokens.peek().type == Token::Name;
                const std::string word = bare ? tokens.peek().text : std::string();
                std::string column;
                auto value = parseValue(tokens, &column);
                if (!value)
                    return std::nullopt;
                size_t alias = aliases.size();
                if (!column.empty()) {
                    for (size_t k = 0; k < aliases.size() && alias == aliases.size(); ++k)
                        if (!aliases[k].empty() && sameName(aliases[k], word))
                            alias = k;
                    if (alias == aliases.size() && keyNamed(column) != key)
                        return std::nullopt;
                }
                if (alias < aliases.size()) {
                    term.value = uint32_t(alias);
                } else {
                    size_t k = 0;
                    while (k < plan.values.size() && !(plan.values[k] == *value))
                        ++k;
                    if (k == plan.values.size())
                        plan.values.push_back(*value);
                    term.value = uint32_t(k);
                }
            }
            if (tokens.takeKeyword("desc"))
                term.descending = true;
            else
                tokens.takeKeyword("asc");
            plan.order.push_back(term);
        } while (tokens.takePunct(','));
    }

    if (tokens.takeKeyword("limit")) {
        const auto first = parseCount(tokens);
        if (!first)
            return std::nullopt;
        plan.limit = first;
        if (tokens.takeKeyword("offset")) {
            const auto offset = parseCount(tokens);
            if (!offset)
                return std::nullopt;
            plan.offset = *offset;
        } else if (tokens.takePunct(',')) {
            // LIMIT offset, count
            const auto count = parseCount(tokens);
            if (!count)
                return std::nullopt;
            plan.offset = *first;
            plan.limit = count;
        }
    }
    while (tokens.takePunct(';')) {
    }
    if (tokens.peek().type != Token::End)
        return std::nullopt;
    return plan;
}

} // namespace tracedesk::core::sql
