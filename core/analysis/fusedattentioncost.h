#pragma once

// FLOPs of one fused attention custom call, from the attributes the call records: Transformer
// Engine's JAX FFI calls (`te_fused_attn_forward_ffi`, `te_fused_attn_backward_ffi`), whose
// backend config is an attribute dictionary (`{attn_heads = 16 : i64, input_batch = 2 : i64,
// q_max_seqlen = 2048 : i64, kv_max_seqlen = 2048 : i64, qk_head_dim = 128 : i64,
// v_head_dim = 128 : i64, mask_type = 2 : i64, window_size_left = -1 : i64, ...}`).
//
// The count is the matrix products' multiply-adds over the query-key pairs the mask keeps
// (softmax and dropout are not counted, as in FlashAttention's own accounting):
// - pairs: every (query, key) pair; a causal mask (mask_type 2, 3: top-left; 4, 5:
//   bottom-right, i.e. the last query sees every key) keeps query i's keys up to i (top-left)
//   or i + kv - q (bottom-right); a sliding window (window_size_left >= 0) keeps at most
//   left + 1 + right keys per query;
// - forward: Q K^T and P V, 2 x batch x heads x pairs x (qk_head_dim + v_head_dim);
// - backward: Q K^T again, dV, dP, dQ and dK, 2 x batch x heads x pairs x
//   (3 x qk_head_dim + 2 x v_head_dim).
// nullopt for any other call, or when the dictionary lacks the batch, heads, lengths or head
// size. Pure function; any thread.

#include <optional>
#include <string_view>

namespace tracedesk::core::analysis {

std::optional<double> fusedAttentionFlops(std::string_view target, std::string_view backendConfig);

} // namespace tracedesk::core::analysis
