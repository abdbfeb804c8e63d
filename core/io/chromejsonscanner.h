#pragma once

// ChromeJsonScanner: walks the top level of a Chrome trace JSON text without building anything,
// so the event array can be handed to the JSON parser in bounded batches (its index memory then
// stays proportional to a batch, not to the file).
//
// It understands only what the container needs: strings (with escapes), nesting and the
// object/array forms. It finds `traceEvents` in the object form (other top-level values are
// skipped; `displayTimeUnit` is remembered) or the bare array, then yields the exact extent of
// each element. A missing closing `]`, trailing or doubled commas are accepted as the catapult
// importer does. It never recurses, so arbitrarily deep input cannot overflow the stack.
// One thread; the text must outlive the scanner.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracedesk::core {

class ChromeJsonScanner
{
public:
    enum class Form { Object, Array };
    enum class Step { Element, End, Truncated };

    explicit ChromeJsonScanner(std::string_view text) : m_text(text) {}

    // Positions the scanner on the first event. Returns false with `problem` set when the text
    // is not an object with a traceEvents array nor a bare array.
    bool start(std::string *problem);
    // The next array element's text (an event object, or anything else the writer put there).
    Step next(std::string_view *element);
    // After End: reads the remaining top-level keys (object form only) for displayTimeUnit.
    void finishTopLevel();

    Form form() const { return m_form; }
    // After finishTopLevel(): whether the text closed what it opened (the event array and, in the
    // object form, the top-level object). A bare array may legitimately omit its ']'.
    bool closed() const { return m_form == Form::Array || (m_arrayClosed && m_objectClosed); }
    size_t position() const { return m_pos; }
    const std::string &displayTimeUnit() const { return m_displayTimeUnit; }
    // Every other top-level key with the raw JSON text of its value (values up to 1 MiB), in
    // file order: Kineto's deviceProperties, distributedInfo and run properties.
    const std::vector<std::pair<std::string, std::string>> &topLevel() const { return m_topLevel; }

    // End of the JSON value starting at `pos` (a string, object, array or scalar), or npos
    // when the text ends first.
    static size_t skipValue(std::string_view text, size_t pos);
    static size_t skipString(std::string_view text, size_t pos);

private:
    size_t skipSpace(size_t pos) const;
    // Reads "key": at m_pos in an object; false at '}' or on malformed input.
    bool readKey(std::string_view *key);
    void noteTopLevelValue(std::string_view key, size_t begin, size_t end);

    std::string_view m_text;
    size_t m_pos = 0;
    Form m_form = Form::Array;
    std::string m_displayTimeUnit;
    std::vector<std::pair<std::string, std::string>> m_topLevel;
    bool m_arrayClosed = false;
    bool m_objectClosed = false;
};

} // namespace tracedesk::core
