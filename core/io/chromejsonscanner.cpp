#include "core/io/chromejsonscanner.h"

#include <array>
#include <cstring>

namespace tracedesk::core {

namespace {

constexpr size_t kNpos = std::string_view::npos;

// 1: a byte that changes nesting or opens a string; everything else is skipped in bulk.
constexpr std::array<uint8_t, 256> makeInteresting()
{
    std::array<uint8_t, 256> t{};
    t[uint8_t('"')] = 1;
    t[uint8_t('{')] = 1;
    t[uint8_t('[')] = 1;
    t[uint8_t('}')] = 1;
    t[uint8_t(']')] = 1;
    return t;
}
constexpr std::array<uint8_t, 256> kInteresting = makeInteresting();

bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool endsScalar(char c)
{
    return c == ',' || c == '}' || c == ']' || c == ':' || isSpace(c);
}

} // namespace

size_t ChromeJsonScanner::skipString(std::string_view text, size_t pos)
{
    const char *d = text.data();
    const size_t n = text.size();
    size_t i = pos + 1;
    while (i < n) {
        const void *q = std::memchr(d + i, '"', n - i);
        if (!q)
            return kNpos;
        const size_t j = size_t(static_cast<const char *>(q) - d);
        // A quote preceded by an odd number of backslashes is escaped.
        size_t k = j;
        while (k > pos + 1 && d[k - 1] == '\\')
            --k;
        if (((j - k) & 1) == 0)
            return j + 1;
        i = j + 1;
    }
    return kNpos;
}

size_t ChromeJsonScanner::skipValue(std::string_view text, size_t pos)
{
    const char *d = text.data();
    const size_t n = text.size();
    if (pos >= n)
        return kNpos;
    const char first = d[pos];
    if (first == '"')
        return skipString(text, pos);
    if (first == '{' || first == '[') {
        size_t depth = 0;
        size_t i = pos;
        while (i < n) {
            const char c = d[i];
            if (!kInteresting[uint8_t(c)]) {
                ++i;
                continue;
            }
            if (c == '"') {
                i = skipString(text, i);
                if (i == kNpos)
                    return kNpos;
                continue;
            }
            if (c == '{' || c == '[') {
                ++depth;
            } else if (--depth == 0) {
                return i + 1;
            }
            ++i;
        }
        return kNpos;
    }
    size_t i = pos;
    while (i < n && !endsScalar(d[i]))
        ++i;
    // A stray terminator is consumed as a one-byte element so scanning always advances.
    return i == pos ? pos + 1 : i;
}

size_t ChromeJsonScanner::skipSpace(size_t pos) const
{
    while (pos < m_text.size() && isSpace(m_text[pos]))
        ++pos;
    return pos;
}

bool ChromeJsonScanner::readKey(std::string_view *key)
{
    size_t i = skipSpace(m_pos);
    while (i < m_text.size() && m_text[i] == ',')
        i = skipSpace(i + 1);
    m_pos = i;
    if (i >= m_text.size() || m_text[i] != '"')
        return false;
    const size_t e = skipString(m_text, i);
    if (e == kNpos)
        return false;
    *key = m_text.substr(i + 1, e - i - 2);
    const size_t colon = skipSpace(e);
    if (colon >= m_text.size() || m_text[colon] != ':')
        return false;
    m_pos = skipSpace(colon + 1);
    return true;
}

void ChromeJsonScanner::noteTopLevelValue(std::string_view key, size_t begin, size_t end)
{
    if (key == "displayTimeUnit" && end - begin >= 2 && m_text[begin] == '"')
        m_displayTimeUnit = std::string(m_text.substr(begin + 1, end - begin - 2));
    constexpr size_t kMaxValue = size_t(1) << 20;
    if (end - begin <= kMaxValue && m_topLevel.size() < 4096)
        m_topLevel.emplace_back(std::string(key), std::string(m_text.substr(begin, end - begin)));
}

bool ChromeJsonScanner::start(std::string *problem)
{
    size_t i = 0;
    if (m_text.size() >= 3 && m_text.substr(0, 3) == "\xEF\xBB\xBF")
        i = 3; // UTF-8 byte order mark
    i = skipSpace(i);
    if (i >= m_text.size()) {
        *problem = "is empty (no JSON value)";
        return false;
    }
    if (m_text[i] == '[') {
        m_form = Form::Array;
        m_pos = i + 1;
        return true;
    }
    if (m_text[i] != '{') {
        *problem = "is not Chrome trace JSON (expected an object with \"traceEvents\" or an array "
                   "of events)";
        return false;
    }
    m_form = Form::Object;
    m_pos = i + 1;
    std::string_view key;
    for (;;) {
        if (!readKey(&key)) {
            const bool closed = m_pos < m_text.size() && m_text[m_pos] == '}';
            *problem = closed || m_pos >= m_text.size()
                           ? "has no \"traceEvents\" array"
                           : "is not valid JSON (malformed top-level object)";
            return false;
        }
        const size_t begin = m_pos;
        if (key == "traceEvents") {
            if (begin < m_text.size() && m_text[begin] == '[') {
                m_pos = begin + 1;
                return true;
            }
            *problem = "has a \"traceEvents\" value that is not an array";
            return false;
        }
        const size_t end = skipValue(m_text, begin);
        if (end == kNpos) {
            *problem = "ends before its \"traceEvents\" array";
            return false;
        }
        noteTopLevelValue(key, begin, end);
        m_pos = end;
    }
}

ChromeJsonScanner::Step ChromeJsonScanner::next(std::string_view *element)
{
    size_t i = skipSpace(m_pos);
    while (i < m_text.size() && m_text[i] == ',')
        i = skipSpace(i + 1);
    if (i >= m_text.size()) {
        m_pos = m_text.size();
        return Step::End; // a missing ']' is accepted
    }
    if (m_text[i] == ']') {
        m_pos = i + 1;
        m_arrayClosed = true;
        return Step::End;
    }
    const size_t e = skipValue(m_text, i);
    if (e == kNpos) {
        m_pos = m_text.size();
        return Step::Truncated;
    }
    *element = m_text.substr(i, e - i);
    m_pos = e;
    return Step::Element;
}

void ChromeJsonScanner::finishTopLevel()
{
    if (m_form != Form::Object)
        return;
    std::string_view key;
    while (readKey(&key)) {
        const size_t begin = m_pos;
        const size_t end = skipValue(m_text, begin);
        if (end == kNpos)
            return;
        noteTopLevelValue(key, begin, end);
        m_pos = end;
    }
    m_objectClosed = m_pos < m_text.size() && m_text[m_pos] == '}';
}

} // namespace tracedesk::core
