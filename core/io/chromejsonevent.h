#pragma once

// ChromeEvent: one trace event as the parser hands it to the assembler. Plain views into the
// parser's current batch, valid only during the callback that receives it; nothing is owned.

#include "core/model/argsarena.h"
#include "core/model/types.h"

#include <cstddef>
#include <string_view>

namespace tracedesk::core {

// pid, tid, id, id2 and bind_id: a JSON number or a string.
struct JsonId
{
    enum class Kind : uint8_t { None, Number, String };
    Kind kind = Kind::None;
    int64_t number = 0;
    std::string_view text;

    bool present() const { return kind != Kind::None; }
};

struct ChromeArg
{
    std::string_view key;
    ArgType type = ArgType::Int;   // Int, UInt, Double, Bool or String
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    std::string_view s;           // String: unescaped text, or raw JSON of an object/array
};

struct ChromeEvent
{
    std::string_view ph;
    std::string_view name;
    std::string_view cat;
    JsonId pid;
    JsonId tid;
    JsonId id;
    JsonId bindId;
    TimePs ts = 0;
    TimePs dur = 0;
    bool hasTs = false;
    bool hasDur = false;
    bool flowIn = false;
    bool flowOut = false;
    char scope = 0;   // "s" of instants
    char bp = 0;      // "bp" of flows
    int fieldCount = 0;
    const ChromeArg *args = nullptr;
    size_t argCount = 0;

    bool isSentinel() const { return fieldCount == 0; }
};

// Microseconds as JSON number text -> picoseconds. Plain decimals convert exactly (digits past
// the sixth fractional one round half away from zero); exponents go through a double. False on
// anything that is not a finite number in range.
bool parseMicrosToPs(std::string_view text, TimePs *out);

} // namespace tracedesk::core
