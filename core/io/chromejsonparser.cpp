#include "core/io/chromejsonparser.h"

#include "core/io/chromejsonscanner.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace tracedesk::core {

namespace od = simdjson::ondemand;

namespace {

const char kBadJson[] = "not valid JSON";
const char kNotObject[] = "not a JSON object";
const char kBadPh[] = "\"ph\" is not a string";
const char kBadName[] = "\"name\" or \"cat\" is not a string";
const char kBadTime[] = "\"ts\" or \"dur\" is not a finite number";
// |µs| that still fits int64 picoseconds with room for a duration.
constexpr int64_t kMaxMicros = 9000000000000;
// Timestamps this far from 0 are epoch-based (Kineto): they are kept relative to the first one.
constexpr int64_t kRebaseMicros = 1000000000000;

const char kRepairedUtf8[] = "invalid UTF-8 in a name or an arg, shown as '?'";
const char kBadPid[] = "\"pid\" or \"tid\" is neither a number nor a string";

std::string_view trimRight(std::string_view t)
{
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

bool parseInteger(std::string_view t, int64_t *out)
{
    t = trimRight(t);
    const auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
    if (r.ec == std::errc() && r.ptr == t.data() + t.size())
        return true;
    double v = 0;
    const auto rd = std::from_chars(t.data(), t.data() + t.size(), v);
    if (rd.ec != std::errc() || rd.ptr != t.data() + t.size() || !std::isfinite(v) || std::fabs(v) > 9.2e18)
        return false;
    *out = int64_t(v);
    return true;
}

// The raw text of the string value `token` starts with; `needsUnescape` when it has escapes.
bool rawString(std::string_view token, std::string_view *out, bool *needsUnescape)
{
    if (token.empty() || token[0] != '"')
        return false;
    const size_t end = ChromeJsonScanner::skipString(token, 0);
    if (end == std::string_view::npos)
        return false;
    *out = token.substr(1, end - 2);
    *needsUnescape = std::memchr(out->data(), '\\', out->size()) != nullptr;
    return true;
}

bool readString(od::value &v, std::string_view *out)
{
    bool escaped = false;
    if (!rawString(v.raw_json_token(), out, &escaped))
        return false;
    if (escaped)
        return v.get_string().get(*out) == simdjson::SUCCESS;
    return true;
}

bool readId(od::value &v, JsonId *out)
{
    const std::string_view token = v.raw_json_token();
    if (token.empty())
        return false;
    if (token[0] == '"') {
        if (!readString(v, &out->text))
            return false;
        out->kind = JsonId::Kind::String;
        return true;
    }
    if (token[0] == '{') {
        // id2: {"local": ...} or {"global": ...}; the first value is the id.
        od::object o;
        if (v.get_object().get(o))
            return false;
        for (auto f : o) {
            od::field field;
            if (std::move(f).get(field))
                return false;
            od::value inner = field.value();
            return readId(inner, out);
        }
        return false;
    }
    if (!parseInteger(token, &out->number))
        return false;
    out->kind = JsonId::Kind::Number;
    return true;
}

// Length of the well-formed UTF-8 sequence at p[0..n) (RFC 3629: no overlongs, no surrogates,
// nothing past U+10FFFF), or 0 when it is not one.
size_t utf8Sequence(const unsigned char *p, size_t n)
{
    const unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t k = 2; k < len; ++k) {
        if (p[k] < 0x80 || p[k] > 0xbf)
            return 0;
    }
    return len;
}

// Replaces every byte that is not part of well-formed UTF-8 with '?', in place; the length (and
// so every offset into the text) stays the same. Returns how many bytes were replaced.
size_t repairUtf8(char *text, size_t size)
{
    auto *p = reinterpret_cast<unsigned char *>(text);
    size_t replaced = 0;
    for (size_t i = 0; i < size;) {
        const size_t len = utf8Sequence(p + i, size - i);
        if (len == 0) {
            p[i++] = '?';
            ++replaced;
        } else {
            i += len;
        }
    }
    return replaced;
}

bool keyIs(const char *key, std::string_view literal)
{
    return std::memcmp(key, literal.data(), literal.size()) == 0 && key[literal.size()] == '"';
}

} // namespace

static bool parseMicros(std::string_view text, int64_t *wholeMicros, int64_t *fracPs)
{
    const std::string_view t = trimRight(text);
    size_t i = 0;
    const bool negative = i < t.size() && t[i] == '-';
    if (negative)
        ++i;
    uint64_t whole = 0;
    int wholeDigits = 0;
    bool slow = false;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (++wholeDigits > 18)
            slow = true;
        whole = whole * 10 + uint64_t(t[i] - '0');
        ++i;
    }
    if (wholeDigits == 0)
        return false;
    uint64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < t.size() && t[i] == '.') {
        ++i;
        const size_t first = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            if (fracDigits < 6) {
                frac = frac * 10 + uint64_t(t[i] - '0');
                ++fracDigits;
            } else if (i - first == 6) {
                roundUp = t[i] >= '5';
            }
            ++i;
        }
        if (i == first)
            return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E'))
        slow = true;
    else if (i != t.size())
        return false;
    if (!slow) {
        for (; fracDigits < 6; ++fracDigits)
            frac *= 10;
        frac += roundUp ? 1 : 0;
        if (frac == 1000000) {
            frac = 0;
            ++whole;
        }
        // Negative values keep a non-negative fraction: -2.5 us = -3 us + 500000 ps.
        int64_t w = int64_t(whole);
        int64_t f = int64_t(frac);
        if (negative) {
            w = -w;
            if (f > 0) {
                w -= 1;
                f = 1000000 - f;
            }
        }
        *wholeMicros = w;
        *fracPs = f;
        return true;
    }
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v) || std::fabs(v) > 9e18)
        return false;
    double w = std::floor(v);
    double f = std::round((v - w) * 1e6);
    if (f >= 1e6) {
        w += 1;
        f = 0;
    }
    *wholeMicros = int64_t(w);
    *fracPs = int64_t(f);
    return true;
}

bool parseMicrosToPs(std::string_view text, TimePs *out)
{
    int64_t whole = 0;
    int64_t frac = 0;
    if (!parseMicros(text, &whole, &frac) || whole > kMaxMicros || whole < -kMaxMicros)
        return false;
    *out = whole * 1000000 + frac;
    return true;
}

struct ChromeJsonParser::Impl
{
    od::parser parser;
    std::vector<char> buffer;       // "[e0,e1,...]" plus padding
    std::vector<size_t> offsets;    // where each element starts in `buffer`
    std::vector<ChromeArg> args;
    std::string_view text;          // the document being parsed
    bool haveOrigin = false;
    int64_t originMicros = 0;

    // Makes event->ts relative to the origin once the phase is known (metadata events often
    // carry ts 0 and must not pick the origin, nor fail for being far from it).
    bool resolveTimestamp(ChromeEvent *event, int64_t whole, int64_t frac)
    {
        const bool meta = event->ph == "M";
        if (!haveOrigin && !meta) {
            haveOrigin = true;
            originMicros = whole >= kRebaseMicros || whole <= -kRebaseMicros ? whole : 0;
        }
        int64_t rel = 0;
        if (__builtin_sub_overflow(whole, originMicros, &rel) || rel > kMaxMicros
            || rel < -kMaxMicros) {
            event->ts = 0;
            return meta;
        }
        event->ts = rel * 1000000 + frac;
        return true;
    }

    void load(const std::vector<std::string_view> &elements, size_t from, size_t to, bool array);
    bool readArgs(od::value &v, ChromeEvent *event);
    // Returns nullptr on success, else the problem. JSON errors return kBadJson.
    const char *extract(od::object &o, ChromeEvent *event);
    void parseOne(std::string_view element, Sink &sink);
};

void ChromeJsonParser::Impl::load(const std::vector<std::string_view> &elements, size_t from,
                                  size_t to, bool array)
{
    size_t bytes = 2 + simdjson::SIMDJSON_PADDING;
    for (size_t k = from; k < to; ++k)
        bytes += elements[k].size() + 1;
    buffer.resize(bytes);
    char *p = buffer.data();
    offsets.clear();
    if (array)
        *p++ = '[';
    for (size_t k = from; k < to; ++k) {
        if (k > from)
            *p++ = ',';
        offsets.push_back(size_t(p - buffer.data()));
        std::memcpy(p, elements[k].data(), elements[k].size());
        p += elements[k].size();
    }
    if (array)
        *p++ = ']';
    text = std::string_view(buffer.data(), size_t(p - buffer.data()));
    std::memset(p, ' ', simdjson::SIMDJSON_PADDING);
}

bool ChromeJsonParser::Impl::readArgs(od::value &v, ChromeEvent *event)
{
    const std::string_view token = v.raw_json_token();
    if (token.empty() || token[0] != '{')
        return true; // args that are not an object carry nothing we can show
    od::object o;
    if (v.get_object().get(o))
        return false;
    const size_t first = args.size();
    for (auto f : o) {
        od::field field;
        if (std::move(f).get(field))
            return false;
        ChromeArg arg;
        const char *rawKey = reinterpret_cast<const char *>(field.key().raw());
        const size_t keyAt = size_t(rawKey - text.data()) - 1;
        const size_t keyEnd = ChromeJsonScanner::skipString(text, keyAt);
        if (keyEnd == std::string_view::npos)
            return false;
        arg.key = text.substr(keyAt + 1, keyEnd - keyAt - 2);
        if (std::memchr(arg.key.data(), '\\', arg.key.size())
            && field.unescaped_key().get(arg.key))
            return false;
        od::value value = field.value();
        const std::string_view vt = value.raw_json_token();
        if (vt.empty())
            return false;
        switch (vt[0]) {
        case '"':
            arg.type = ArgType::String;
            if (!readString(value, &arg.s))
                return false;
            break;
        case '{':
        case '[': {
            const size_t at = size_t(vt.data() - text.data());
            const size_t end = ChromeJsonScanner::skipValue(text, at);
            if (end == std::string_view::npos)
                return false;
            arg.type = ArgType::String;
            arg.s = text.substr(at, end - at);
            break;
        }
        case 't':
        case 'f': {
            bool b = false;
            if (value.get_bool().get(b))
                return false;
            arg.type = ArgType::Bool;
            arg.i = b ? 1 : 0;
            break;
        }
        case 'n':
            continue; // null: nothing to keep
        default: {
            od::number_type nt;
            if (value.get_number_type().get(nt))
                return false;
            if (nt == od::number_type::signed_integer) {
                arg.type = ArgType::Int;
                if (value.get_int64().get(arg.i))
                    return false;
            } else if (nt == od::number_type::unsigned_integer) {
                arg.type = ArgType::UInt;
                if (value.get_uint64().get(arg.u))
                    return false;
            } else {
                arg.type = ArgType::Double;
                if (value.get_double().get(arg.d))
                    return false;
            }
            break;
        }
        }
        args.push_back(arg);
    }
    event->args = args.data() + first; // fixed up after the event is complete
    event->argCount = args.size() - first;
    return true;
}

const char *ChromeJsonParser::Impl::extract(od::object &o, ChromeEvent *event)
{
    const char *problem = nullptr;
    auto fail = [&](const char *p) {
        if (!problem)
            problem = p;
    };
    args.clear();
    int64_t tsWhole = 0;
    int64_t tsFrac = 0;
    for (auto f : o) {
        od::field field;
        if (std::move(f).get(field))
            return kBadJson;
        ++event->fieldCount;
        const char *k = reinterpret_cast<const char *>(field.key().raw());
        od::value v = field.value();
        std::string_view s;
        switch (k[0]) {
        case 'p':
            if (keyIs(k, "ph")) {
                if (!readString(v, &event->ph))
                    fail(kBadPh);
            } else if (keyIs(k, "pid") && !readId(v, &event->pid)) {
                fail(kBadPid);
            }
            break;
        case 't':
            if (keyIs(k, "ts")) {
                event->hasTs = parseMicros(v.raw_json_token(), &tsWhole, &tsFrac);
                if (!event->hasTs)
                    fail(kBadTime);
            } else if (keyIs(k, "tid") && !readId(v, &event->tid)) {
                fail(kBadPid);
            }
            break;
        case 'd':
            if (keyIs(k, "dur")) {
                event->hasDur = parseMicrosToPs(v.raw_json_token(), &event->dur);
                if (!event->hasDur)
                    fail(kBadTime);
            }
            break;
        case 'n':
            if (keyIs(k, "name") && !readString(v, &event->name))
                fail(kBadName);
            break;
        case 'c':
            if (keyIs(k, "cat") && !readString(v, &event->cat))
                fail(kBadName);
            break;
        case 'a':
            if (keyIs(k, "args") && !readArgs(v, event))
                return kBadJson;
            break;
        case 'i':
            if ((keyIs(k, "id") || keyIs(k, "id2")) && !readId(v, &event->id))
                event->id = JsonId();
            break;
        case 's':
            if (keyIs(k, "s") && readString(v, &s) && !s.empty())
                event->scope = s[0];
            break;
        case 'b':
            if (keyIs(k, "bp")) {
                if (readString(v, &s) && !s.empty())
                    event->bp = s[0];
            } else if (keyIs(k, "bind_id") && !readId(v, &event->bindId)) {
                event->bindId = JsonId();
            }
            break;
        case 'f':
            if (keyIs(k, "flow_in")) {
                bool b = false;
                event->flowIn = v.get_bool().get(b) == simdjson::SUCCESS && b;
            } else if (keyIs(k, "flow_out")) {
                bool b = false;
                event->flowOut = v.get_bool().get(b) == simdjson::SUCCESS && b;
            }
            break;
        default:
            break;
        }
    }
    event->args = args.data();
    if (!problem && event->hasTs && !resolveTimestamp(event, tsWhole, tsFrac))
        problem = kBadTime;
    return problem;
}

void ChromeJsonParser::Impl::parseOne(std::string_view element, Sink &sink)
{
    if (element.empty() || element[0] != '{') {
        sink.malformed(kNotObject);
        return;
    }
    std::vector<std::string_view> one{element};
    load(one, 0, 1, false);
    od::document doc;
    od::object o;
    auto error = parser.iterate(text.data(), text.size(), buffer.size()).get(doc);
    bool repaired = false;
    if (error == simdjson::UTF8_ERROR) {
        // Names and args are shown, not interpreted: bad bytes become '?' and the event stays.
        repaired = repairUtf8(buffer.data(), text.size()) > 0;
        error = parser.iterate(text.data(), text.size(), buffer.size()).get(doc);
    }
    if (error || doc.get_object().get(o)) {
        sink.malformed(kBadJson);
        return;
    }
    ChromeEvent event;
    const char *problem = extract(o, &event);
    if (problem) {
        sink.malformed(problem);
        return;
    }
    if (repaired)
        sink.repaired(kRepairedUtf8);
    sink.event(event);
}

ChromeJsonParser::ChromeJsonParser() : d(std::make_unique<Impl>()) {}

ChromeJsonParser::~ChromeJsonParser() = default;

int64_t ChromeJsonParser::originMicros() const
{
    return d->originMicros;
}

void ChromeJsonParser::parseBatch(const std::vector<std::string_view> &elements, Sink &sink)
{
    if (elements.empty())
        return;
    d->load(elements, 0, elements.size(), true);
    size_t index = 0;
    bool failed = false;
    od::document doc;
    od::array array;
    if (d->parser.iterate(d->text.data(), d->text.size(), d->buffer.size()).get(doc)
        || doc.get_array().get(array)) {
        failed = true;
    } else {
        for (auto element : array) {
            od::value v;
            if (element.get(v)) {
                failed = true;
                break;
            }
            if (elements[index].empty() || elements[index][0] != '{') {
                sink.malformed(kNotObject);
                ++index;
                continue;
            }
            od::object o;
            if (v.get_object().get(o)) {
                failed = true;
                break;
            }
            ChromeEvent event;
            const char *problem = d->extract(o, &event);
            if (problem == kBadJson) {
                failed = true;
                break;
            }
            if (problem)
                sink.malformed(problem);
            else
                sink.event(event);
            ++index;
        }
    }
    if (!failed)
        return;
    for (size_t k = index; k < elements.size(); ++k)
        d->parseOne(elements[k], sink);
}

} // namespace tracedesk::core
