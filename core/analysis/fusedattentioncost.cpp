#include "core/analysis/fusedattentioncost.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace tracedesk::core::analysis {

namespace {

// The integer attribute `key = N : i64` of an attribute dictionary.
std::optional<int64_t> attribute(std::string_view dict, std::string_view key)
{
    for (size_t at = dict.find(key); at != std::string_view::npos; at = dict.find(key, at + 1)) {
        // A whole key: preceded by `{`, `,` or a space, followed by ` =`.
        const bool startsKey = at == 0 || dict[at - 1] == '{' || dict[at - 1] == ' '
                               || dict[at - 1] == ',';
        size_t p = at + key.size();
        while (p < dict.size() && dict[p] == ' ')
            ++p;
        if (!startsKey || p >= dict.size() || dict[p] != '=')
            continue;
        ++p;
        while (p < dict.size() && dict[p] == ' ')
            ++p;
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(dict.data() + p, dict.data() + dict.size(), value);
        if (ec == std::errc())
            return value;
    }
    return std::nullopt;
}

// Query-key pairs the mask keeps, summed over the queries.
double keptPairs(int64_t q, int64_t kv, int64_t mask, int64_t left, int64_t right)
{
    const bool causal = mask >= 2 && mask <= 5;
    const bool bottomRight = mask == 4 || mask == 5;
    double pairs = 0;
    for (int64_t i = 0; i < q; ++i) {
        // Keys [lo, hi] visible to query i.
        int64_t hi = kv - 1;
        if (causal)
            hi = std::min(hi, bottomRight ? i + kv - q : i);
        int64_t lo = 0;
        if (left >= 0) {
            const int64_t centre = bottomRight ? i + kv - q : i;
            lo = std::max<int64_t>(0, centre - left);
            if (!causal && right >= 0)
                hi = std::min(hi, centre + right);
        }
        if (hi >= lo)
            pairs += double(hi - lo + 1);
    }
    return pairs;
}

} // namespace

std::optional<double> fusedAttentionFlops(std::string_view target, std::string_view config)
{
    const bool forward = target == "te_fused_attn_forward_ffi";
    if (!forward && target != "te_fused_attn_backward_ffi")
        return std::nullopt;
    const auto batch = attribute(config, "input_batch");
    const auto heads = attribute(config, "attn_heads");
    const auto q = attribute(config, "q_max_seqlen");
    const auto kv = attribute(config, "kv_max_seqlen");
    auto qk = attribute(config, "qk_head_dim");
    if (!qk)
        qk = attribute(config, "head_dim");
    if (!batch || !heads || !q || !kv || !qk || *batch <= 0 || *heads <= 0 || *q <= 0
        || *kv <= 0 || *qk <= 0 || *q > (int64_t(1) << 24))
        return std::nullopt;
    const int64_t v = attribute(config, "v_head_dim").value_or(*qk);
    const double pairs = keptPairs(*q, *kv, attribute(config, "mask_type").value_or(0),
                                   attribute(config, "window_size_left").value_or(-1),
                                   attribute(config, "window_size_right").value_or(-1));
    const double perPair = forward ? double(*qk + v) : double(3 * *qk + 2 * v);
    return 2.0 * double(*batch) * double(*heads) * pairs * perPair;
}

} // namespace tracedesk::core::analysis
