#pragma once

// A small command-line parser: positional arguments plus --name / --name value / --name=value
// options declared per command. No Qt (tracedesk-cli links the core library only).

#include "core/io/loadoptions.h"

#include <map>
#include <string>
#include <vector>

namespace tracedesk::cli {

struct OptionSpec
{
    std::string name;       // without the leading dashes
    bool takesValue = false;
};

struct ParsedArgs
{
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;   // flags map to ""

    bool has(const std::string &name) const { return values.count(name) != 0; }
    std::string value(const std::string &name, const std::string &fallback = {}) const;
};

// Parses argv[first..argc). On a usage problem returns false and sets *error.
bool parseArgs(int argc, char **argv, int first, const std::vector<OptionSpec> &specs,
               ParsedArgs *out, std::string *error);

// Strict unsigned integer (digits only, optional k/M suffix as in 10M).
bool parseCount(const std::string &text, unsigned long long *out);

// The load options a profile-reading command takes: --run NAME and --no-cache.
core::LoadOptions loadOptionsFrom(const ParsedArgs &args);

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// Prints "tracedesk-cli: <message>" to stderr and returns `code`.
int fail(const std::string &message, int code = kExitError);

} // namespace tracedesk::cli
