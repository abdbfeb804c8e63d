#pragma once

// Serving-engine iterations: the annotations inference engines write around each scheduler
// iteration, read as steps when a trace has no ProfilerStep#N (a serving trace is otherwise
// "1 step"). Known names:
//   SGLang   `step[DECODE bs=16]`, `step[EXTEND bs=15 toks=15360]` (EXTEND / PREFILL = prefill,
//            MIXED = mixed), batch size `bs=`, tokens `toks=`;
//   vLLM     `execute_<tokens>_context_<n>(...)_generation_<m>(...)`: <n> prefill and <m> decode
//            requests (both > 0: mixed), batch size n + m, <tokens> scheduled tokens.
// When a trace holds both (SGLang writes its own inside vLLM-style ranges), SGLang's wins: it
// is the engine's own iteration. Without either, the top-level user annotation that repeats
// (on one host thread, enclosed by no other annotation or operator, at least twice) is the
// iteration, of unknown kind: the rule for engines (TensorRT-LLM, custom loops) whose names
// are not listed here.
//
// Pure functions, no state; safe from any thread.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracedesk::core::analysis::pytorch {

enum class IterationKind : uint8_t { Unknown, Prefill, Decode, Mixed };
// "prefill", "decode", "mixed"; "" for Unknown.
const char *iterationKindName(IterationKind kind);

enum class IterationEngine : uint8_t { SGLang, Vllm, Repeated };

struct IterationName
{
    IterationEngine engine = IterationEngine::Repeated;
    IterationKind kind = IterationKind::Unknown;
    int64_t batchSize = -1; // -1 when the name does not state it
    int64_t tokens = -1;
};

// The iteration a listed engine's annotation names, or nullopt.
std::optional<IterationName> parseIterationName(std::string_view name);

} // namespace tracedesk::core::analysis::pytorch
