#pragma once

// ASCII lower case of a name, a path or a message: the one case folding the readers and the
// name rules use (file suffixes, kernel and domain names, step words). Bytes outside A-Z are
// kept as they are, whatever the process's locale, so UTF-8 text passes through unchanged.

#include <string>
#include <string_view>

namespace tracedesk::core {

inline std::string asciiLower(std::string_view text)
{
    std::string out(text);
    for (char &c : out) {
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    }
    return out;
}

} // namespace tracedesk::core
