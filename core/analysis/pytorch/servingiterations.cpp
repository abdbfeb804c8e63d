#include "core/analysis/pytorch/servingiterations.h"

#include <charconv>

namespace tracedesk::core::analysis::pytorch {

namespace {

// The decimal number at the start of `s`, advancing past it; nullopt when there is none.
std::optional<int64_t> takeNumber(std::string_view &s)
{
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end == s.data())
        return std::nullopt;
    s.remove_prefix(size_t(end - s.data()));
    return v;
}

// The number after `key` anywhere in `s` ("bs=" in "step[DECODE bs=16]").
int64_t numberAfter(std::string_view s, std::string_view key)
{
    const size_t at = s.find(key);
    if (at == std::string_view::npos)
        return -1;
    std::string_view rest = s.substr(at + key.size());
    return takeNumber(rest).value_or(-1);
}

std::optional<IterationName> parseSglang(std::string_view name)
{
    if (!name.starts_with("step[") || !name.ends_with("]"))
        return std::nullopt;
    const std::string_view body = name.substr(5, name.size() - 6);
    IterationName it;
    it.engine = IterationEngine::SGLang;
    if (body.starts_with("DECODE"))
        it.kind = IterationKind::Decode;
    else if (body.starts_with("EXTEND") || body.starts_with("PREFILL"))
        it.kind = IterationKind::Prefill;
    else if (body.starts_with("MIXED"))
        it.kind = IterationKind::Mixed;
    it.batchSize = numberAfter(body, "bs=");
    it.tokens = numberAfter(body, "toks=");
    return it;
}

// Skips a balanced "(...)" if `s` starts with one.
void skipParenthesised(std::string_view &s)
{
    if (!s.starts_with("("))
        return;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0) {
            s.remove_prefix(i + 1);
            return;
        }
    }
    s = {};
}

std::optional<IterationName> parseVllm(std::string_view name)
{
    constexpr std::string_view prefix = "execute_";
    if (!name.starts_with(prefix))
        return std::nullopt;
    std::string_view s = name.substr(prefix.size());
    const auto tokens = takeNumber(s);
    if (!tokens || !s.starts_with("_context_"))
        return std::nullopt;
    s.remove_prefix(9);
    const auto context = takeNumber(s);
    if (!context)
        return std::nullopt;
    skipParenthesised(s);
    if (!s.starts_with("_generation_"))
        return std::nullopt;
    s.remove_prefix(12);
    const auto generation = takeNumber(s);
    if (!generation)
        return std::nullopt;
    IterationName it;
    it.engine = IterationEngine::Vllm;
    it.kind = *context > 0 && *generation > 0 ? IterationKind::Mixed
              : *context > 0                  ? IterationKind::Prefill
              : *generation > 0               ? IterationKind::Decode
                                              : IterationKind::Unknown;
    it.batchSize = *context + *generation;
    it.tokens = *tokens;
    return it;
}

} // namespace

const char *iterationKindName(IterationKind kind)
{
    switch (kind) {
    case IterationKind::Prefill:
        return "prefill";
    case IterationKind::Decode:
        return "decode";
    case IterationKind::Mixed:
        return "mixed";
    case IterationKind::Unknown:
        break;
    }
    return "";
}

std::optional<IterationName> parseIterationName(std::string_view name)
{
    if (auto it = parseSglang(name))
        return it;
    return parseVllm(name);
}

} // namespace tracedesk::core::analysis::pytorch
