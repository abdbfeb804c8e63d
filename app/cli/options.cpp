#include "options.h"

#include <cstdio>
#include <limits>

namespace tracedesk::cli {

std::string ParsedArgs::value(const std::string &name, const std::string &fallback) const
{
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
}

core::LoadOptions loadOptionsFrom(const ParsedArgs &args)
{
    core::LoadOptions options;
    options.runName = args.value("run");
    options.useCache = !args.has("no-cache");
    return options;
}

bool parseArgs(int argc, char **argv, int first, const std::vector<OptionSpec> &specs,
               ParsedArgs *out, std::string *error)
{
    bool optionsDone = false;
    for (int i = first; i < argc; ++i) {
        const std::string arg = argv[i];
        if (optionsDone || arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
            if (!optionsDone && arg.size() > 1 && arg[0] == '-' && arg != "-") {
                *error = "unknown option '" + arg + "'";
                return false;
            }
            out->positional.push_back(arg);
            continue;
        }
        if (arg == "--") {
            optionsDone = true;
            continue;
        }
        std::string name = arg.substr(2);
        std::string value;
        bool inlineValue = false;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            inlineValue = true;
        }
        const OptionSpec *spec = nullptr;
        for (const OptionSpec &s : specs) {
            if (s.name == name)
                spec = &s;
        }
        if (!spec) {
            *error = "unknown option '--" + name + "'";
            return false;
        }
        if (spec->takesValue && !inlineValue) {
            if (i + 1 >= argc) {
                *error = "option '--" + name + "' needs a value";
                return false;
            }
            value = argv[++i];
        } else if (!spec->takesValue && inlineValue) {
            *error = "option '--" + name + "' takes no value";
            return false;
        }
        out->values[name] = value;
    }
    return true;
}

bool parseCount(const std::string &text, unsigned long long *out)
{
    if (text.empty())
        return false;
    unsigned long long v = 0;
    size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const unsigned digit = unsigned(text[i] - '0');
        if (v > (std::numeric_limits<unsigned long long>::max() - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    if (i == 0)
        return false;
    unsigned long long scale = 1;
    if (i + 1 == text.size()) {
        const char suffix = text[i];
        if (suffix == 'k' || suffix == 'K')
            scale = 1000;
        else if (suffix == 'M' || suffix == 'm')
            scale = 1000000;
        else
            return false;
    } else if (i != text.size()) {
        return false;
    }
    if (v > std::numeric_limits<unsigned long long>::max() / scale)
        return false;
    *out = v * scale;
    return true;
}

int fail(const std::string &message, int code)
{
    std::fprintf(stderr, "tracedesk-cli: %s\n", message.c_str());
    return code;
}

} // namespace tracedesk::cli
