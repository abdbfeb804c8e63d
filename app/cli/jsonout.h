#pragma once

// JsonOut: builds one JSON document for --json output (objects, arrays, scalars), with commas
// placed automatically. Not a general library: just enough for the CLI's reports.

#include "core/io/chromejsonwriter.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::cli {

class JsonOut
{
public:
    JsonOut &beginObject(std::string_view key = {}) { return open(key, '{'); }
    JsonOut &endObject() { return close('}'); }
    JsonOut &beginArray(std::string_view key = {}) { return open(key, '['); }
    JsonOut &endArray() { return close(']'); }

    JsonOut &value(std::string_view key, std::string_view v)
    {
        prefix(key);
        core::appendJsonString(m_text, v);
        return *this;
    }
    JsonOut &value(std::string_view key, const char *v) { return value(key, std::string_view(v)); }
    JsonOut &value(std::string_view key, const std::string &v) { return value(key, std::string_view(v)); }
    JsonOut &value(std::string_view key, bool v)
    {
        prefix(key);
        m_text += v ? "true" : "false";
        return *this;
    }
    JsonOut &value(std::string_view key, int64_t v) { return number(key, v); }
    JsonOut &value(std::string_view key, uint64_t v) { return number(key, v); }
    JsonOut &value(std::string_view key, int v) { return number(key, int64_t(v)); }
    JsonOut &value(std::string_view key, double v)
    {
        if (!std::isfinite(v)) {
            prefix(key);
            m_text += "null";
            return *this;
        }
        return number(key, v);
    }

    JsonOut &null(std::string_view key)
    {
        prefix(key);
        m_text += "null";
        return *this;
    }

    const std::string &text() const { return m_text; }

private:
    template<typename T>
    JsonOut &number(std::string_view key, T v)
    {
        prefix(key);
        char buf[40];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_text.append(buf, r.ptr);
        return *this;
    }
    void prefix(std::string_view key)
    {
        if (!m_first.empty()) {
            if (!m_first.back())
                m_text.push_back(',');
            m_first.back() = false;
        }
        if (!key.empty()) {
            core::appendJsonString(m_text, key);
            m_text.push_back(':');
        }
    }
    JsonOut &open(std::string_view key, char bracket)
    {
        prefix(key);
        m_text.push_back(bracket);
        m_first.push_back(true);
        return *this;
    }
    JsonOut &close(char bracket)
    {
        m_text.push_back(bracket);
        m_first.pop_back();
        return *this;
    }

    std::string m_text;
    std::vector<bool> m_first;
};

} // namespace tracedesk::cli
