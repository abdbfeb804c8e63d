#pragma once

// Numbered step ranges: the annotations a training loop writes around each step when it is
// profiled without the PyTorch profiler's `ProfilerStep#N`, above all NVTX ranges under Nsight
// Systems (`torch.cuda.nvtx.range_push(f"iteration{i}")`, Megatron / NeMo style `step 12`,
// `train_step_3`, `Batch 0`, `iter 12/100`, `global_step=100`). Each name is a step word and
// the step's number; the word may be preceded by `train` or `training`, followed by a
// separator (space, `_`, `-`, `#`, `:`, `=`) and the number, optionally `/ total` or `of
// total` after it. Matching ignores case and surrounding spaces; anything else in the name
// (`step[DECODE bs=16]`, `forward`, `iteration_time`) is not a numbered step.
//
// Pure functions, no state; safe from any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tracedesk::core::analysis::pytorch {

struct NumberedStepName
{
    std::string word;   // the step word as written, lower case: "iteration", "train_step", ...
    int64_t number = 0;
};

std::optional<NumberedStepName> parseNumberedStepName(std::string_view name);

} // namespace tracedesk::core::analysis::pytorch
