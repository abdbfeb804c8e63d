#pragma once

// The rank a trace file's name gives, for runs whose traces do not say it themselves (Kineto
// traces without distributedInfo). Used by the rank-run loader and the distributed summary,
// so both label a file the same way.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracedesk::core {

// A rank number in a file name: `rank-3`, `rank_3`, `rank3`, `worker3`, `worker_3`, else a
// trailing `_3` / `-3` before the extension (`megatron_kineto_3.json.gz`). Case-insensitive.
std::optional<int64_t> rankFromFileName(std::string_view path);

} // namespace tracedesk::core
