#include "core/sql/aggregateplan.h"

#include "core/sql/sqltokens.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

namespace tracedesk::core::sql {

namespace {

using Token = SqlToken;
using Tokens = SqlTokens;

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

// The text columns: each one value per event kind.
std::optional<KindField> kindFieldNamed(std::string_view name)
{
    for (const auto &[n, field] : {std::pair{"name", KindField::Name},
                                   std::pair{"category", KindField::Category},
                                   std::pair{"role", KindField::Role}})
        if (sameName(name, n))
            return field;
    return std::nullopt;
}

// The text columns a statement may group by.
std::optional<GroupKey> keyNamed(std::string_view name)
{
    const auto field = kindFieldNamed(name);
    if (field == KindField::Name)
        return GroupKey::Name;
    if (field == KindField::Category)
        return GroupKey::Category;
    return std::nullopt;
}

SliceField sliceFieldNamed(std::string_view name)
{
    for (const auto &[n, field] : kFields)
        if (sameName(name, n))
            return field;
    return SliceField::None;
}

// The words that end an item or term where an alias could stand.
bool isClauseWord(const Tokens &tokens)
{
    for (std::string_view w : {"from", "where", "group", "order", "limit", "offset", "asc", "desc",
                               "as", "and", "or", "not", "in", "collate", "nulls", "having",
                               "window", "union", "except", "intersect"})
        if (tokens.isKeyword(w))
            return true;
    return false;
}

std::optional<uint64_t> parseCount(Tokens &tokens)
{
    if (tokens.peek().type != Token::Integer || tokens.peek().text.size() > 18)
        return std::nullopt;
    return std::stoull(tokens.take().text);
}

// A number that multiplies or divides: an integer, or a decimal that is a whole number below
// 2^53 (exact in every parser).
bool parseNumber(Tokens &tokens, PlanValue *value)
{
    if (tokens.peek().type == Token::Integer) {
        const auto n = parseCount(tokens);
        value->number = n ? int64_t(*n) : 0;
        return n.has_value();
    }
    if (tokens.peek().type != Token::Real)
        return false;
    const double d = std::strtod(tokens.take().text.c_str(), nullptr);
    if (!(d >= 0 && d < 9007199254740992.0) || d != std::floor(d))
        return false;
    value->number = int64_t(d);
    value->realNumber = true;
    return true;
}

// After a function's name and its '(': count(*) or f(column) and the ')', then an optional
// `/ number` or `* number`.
std::optional<PlanValue> parseCall(Tokens &tokens, AggregateFn fn)
{
    PlanValue value{fn, SliceField::None};
    if (fn == AggregateFn::Count && tokens.takePunct("*")) {
        if (!tokens.takePunct(")"))
            return std::nullopt;
    } else {
        if (tokens.peek().type != Token::Name)
            return std::nullopt;
        value.field = sliceFieldNamed(tokens.take().text);
        if (value.field == SliceField::None || !tokens.takePunct(")"))
            return std::nullopt;
    }
    if (tokens.isPunct("/") || tokens.isPunct("*")) {
        value.op = tokens.take().text[0];
        if (!parseNumber(tokens, &value) || (value.op == '/' && value.number == 0))
            return std::nullopt;
    }
    return value;
}

// A select item or ORDER BY term that starts with a name: an aggregate call, or a column
// (returned as Key with its name in *column for the caller to resolve).
std::optional<PlanValue> parseValue(Tokens &tokens, std::optional<std::string> *column)
{
    if (tokens.peek().type != Token::Name)
        return std::nullopt;
    const Token word = tokens.take();
    if (!tokens.takePunct("(")) {
        if (tokens.isPunct(".") || tokens.isPunct("/") || tokens.isPunct("*"))
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

std::optional<Compare> parseCompare(Tokens &tokens)
{
    static const std::pair<std::string_view, Compare> kOps[] = {
        {"=", Compare::Eq}, {"==", Compare::Eq}, {"!=", Compare::Ne}, {"<>", Compare::Ne},
        {"<", Compare::Lt}, {"<=", Compare::Le}, {">", Compare::Gt},  {">=", Compare::Ge}};
    for (const auto &[text, op] : kOps)
        if (tokens.takePunct(text))
            return op;
    return std::nullopt;
}

// One test of the WHERE clause, into the plan's slice or kind tests.
bool parseTest(Tokens &tokens, AggregatePlan *plan)
{
    if (tokens.peek().type != Token::Name)
        return false;
    const std::string column = tokens.take().text;
    if (tokens.isPunct("(") || tokens.isPunct("."))
        return false;
    if (const auto kind = kindFieldNamed(column)) {
        KindTest test{*kind, false, {}};
        test.negated = tokens.takeKeyword("not");
        if (tokens.takeKeyword("in")) {
            if (!tokens.takePunct("("))
                return false;
            do {
                if (tokens.peek().type != Token::String)
                    return false;
                test.values.push_back(tokens.take().text);
            } while (tokens.takePunct(","));
            if (!tokens.takePunct(")"))
                return false;
        } else {
            const auto op = test.negated ? std::nullopt : parseCompare(tokens);
            if (!op || (*op != Compare::Eq && *op != Compare::Ne) ||
                tokens.peek().type != Token::String)
                return false;
            test.negated = *op == Compare::Ne;
            test.values.push_back(tokens.take().text);
        }
        plan->kindTests.push_back(std::move(test));
        return true;
    }
    SliceTest test;
    test.field = sliceFieldNamed(column);
    const auto op = parseCompare(tokens);
    if (test.field == SliceField::None || !op)
        return false;
    test.op = *op;
    const bool negative = tokens.takePunct("-");
    const auto n = parseCount(tokens);
    if (!n)
        return false;
    test.value = negative ? -int64_t(*n) : int64_t(*n);
    plan->sliceTests.push_back(test);
    return true;
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
        std::optional<std::string> column;
        auto value = parseValue(tokens, &column);
        if (!value)
            return std::nullopt;
        if (column)
            keyColumns.push_back(*column);
        std::string alias;
        if (tokens.takeKeyword("as")) {
            if (tokens.peek().type != Token::Name)
                return std::nullopt;
            alias = tokens.take().text;
        } else if (tokens.peek().type == Token::Name && !isClauseWord(tokens)) {
            alias = tokens.take().text;
        }
        plan.values.push_back(*value);
        aliases.push_back(std::move(alias));
    } while (tokens.takePunct(","));
    plan.resultColumns = plan.values.size();

    if (!tokens.takeKeyword("from") || tokens.peek().type != Token::Name ||
        !sameName(tokens.take().text, "slices"))
        return std::nullopt;
    if (tokens.takeKeyword("where")) {
        do {
            if (!parseTest(tokens, &plan))
                return std::nullopt;
        } while (tokens.takeKeyword("and"));
    }
    if (!tokens.takeKeyword("group") || !tokens.takeKeyword("by") ||
        tokens.peek().type != Token::Name)
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
            if (tokens.peek().type == Token::Integer) {
                const auto ordinal = parseCount(tokens);
                if (!ordinal || *ordinal < 1 || *ordinal > plan.resultColumns)
                    return std::nullopt;
                term.value = uint32_t(*ordinal - 1);
            } else {
                std::optional<std::string> column;
                auto value = parseValue(tokens, &column);
                if (!value)
                    return std::nullopt;
                size_t alias = aliases.size();
                if (column) {
                    for (size_t k = 0; k < aliases.size() && alias == aliases.size(); ++k)
                        if (!aliases[k].empty() && sameName(aliases[k], *column))
                            alias = k;
                    if (alias == aliases.size() && keyNamed(*column) != key)
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
        } while (tokens.takePunct(","));
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
        } else if (tokens.takePunct(",")) {
            // LIMIT offset, count
            const auto count = parseCount(tokens);
            if (!count)
                return std::nullopt;
            plan.offset = *first;
            plan.limit = count;
        }
    }
    while (tokens.takePunct(";")) {
    }
    if (tokens.peek().type != Token::End)
        return std::nullopt;
    return plan;
}

} // namespace tracedesk::core::sql
