#include "core/analysis/distributed/collectiveargs.h"

#include "core/analysis/distributed/communicationkernels.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace tracedesk::core::analysis::distributed {

using namespace core::analysis::pytorch;

namespace {

// How far the walk back from a launch call looks for the nodes enclosing it: far enough for any
// real nesting (a handful of nodes), bounded so a pathological thread costs little.
constexpr uint32_t kMaxWalk = 4096;
constexpr uint32_t kMaxEnclosing = 16;

std::string_view argText(const Trace &trace, const ArgValue &v)
{
    switch (v.type) {
    case ArgType::String:
    case ArgType::Bytes:
        return v.s;
    case ArgType::StringRef:
        return trace.string(v.str);
    default:
        return {};
    }
}

// The explicit collective fields of `ref`'s args.
void readCollectiveFields(const Trace &trace, SliceRef ref, CollectiveRecord *out)
{
    trace.forEachArg(ref, [&](const ArgValue &v) {
        const std::string_view key = trace.string(v.key);
        if (key == "Collective name") {
            if (const std::string_view text = argText(trace, v); !text.empty() && out->kind.empty())
                out->kind = std::string(text);
        } else if (key == "In msg nelems" && out->inElements < 0) {
            if (const int64_t n = v.asInt(); n != kNoValue && n >= 0)
                out->inElements = n;
        } else if (key == "Out msg nelems" && out->outElements < 0) {
            if (const int64_t n = v.asInt(); n != kNoValue && n >= 0)
                out->outElements = n;
        } else if (key == "dtype" && out->dtype.empty()) {
            out->dtype = std::string(argText(trace, v));
        }
    });
}

// The CPU op a kernel's External id names: record_param_comms first (it carries the
// collective's args), else any node with that id.
const KinetoNode *externalIdNode(const Trace &trace, const KinetoIndex &index, int64_t externalId)
{
    if (externalId == kNoValue)
        return nullptr;
    const KinetoNode *any = nullptr;
    for (uint32_t n : index.nodesForExternalId(externalId)) {
        const KinetoNode &node = index.nodes[n];
        if (trace.name(node.ref) == "record_param_comms")
            return &node;
        if (!any)
            any = &node;
    }
    return any;
}

bool recordsCollective(std::string_view name)
{
    return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("gloo:");
}

// The nodes recording a collective that enclose runtime `r` on its thread, innermost first.
// Nodes are sorted by (start, -end), so walking back from the last one starting at or before
// the call meets the enclosing ones innermost first; the walk stops at the first enclosing
// node past the collective ones (c10d::allreduce_ and its callers).
std::vector<const KinetoNode *> enclosingCollectiveNodes(const Trace &trace,
                                                         const KinetoIndex &index, uint32_t r)
{
    std::vector<const KinetoNode *> out;
    const KinetoRuntime &rt = index.runtimes[r];
    const KinetoThread &thread = index.threads[rt.thread];
    const auto begin = index.nodes.begin() + thread.nodeBegin;
    const auto end = index.nodes.begin() + thread.nodeEnd;
    auto it = std::upper_bound(begin, end, rt.start,
                               [](TimePs t, const KinetoNode &n) { return t < n.start; });
    uint32_t walked = 0, enclosing = 0;
    while (it != begin && walked++ < kMaxWalk && enclosing < kMaxEnclosing) {
        --it;
        if (it->end < rt.end || it->role == SliceRole::PythonFunction)
            continue; // ended before the call (not an ancestor), or a Python frame
        ++enclosing;
        if (recordsCollective(trace.name(it->ref)))
            out.push_back(&*it);
        else if (!out.empty())
            break;
    }
    return out;
}

std::optional<InputSize> nodeInputSize(const Trace &trace, SliceRef ref)
{
    std::string_view dims, types;
    trace.forEachArg(ref, [&](const ArgValue &v) {
        const std::string_view key = trace.string(v.key);
        if (key == "Input Dims" || key == "Input dims")
            dims = argText(trace, v);
        else if (key == "Input type")
            types = argText(trace, v);
    });
    if (dims.empty()) {
        if (const int64_t id = trace.side(ref, SideColumn::InputShapes); id != kNoValue)
            dims = trace.string(StringId(id));
    }
    return inputSize(dims, types);
}

// A small reader of the JSON lists Kineto writes for "Input Dims" and "Input type".
class ListReader
{
public:
    explicit ListReader(std::string_view text) : m_text(text) {}

    bool consume(char c)
    {
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    bool peek(char c)
    {
        skipSpace();
        return m_at < m_text.size() && m_text[m_at] == c;
    }
    std::optional<int64_t> integer()
    {
        skipSpace();
        int64_t v = 0;
        const auto r = std::from_chars(m_text.data() + m_at, m_text.data() + m_text.size(), v);
        if (r.ec != std::errc())
            return std::nullopt;
        m_at = size_t(r.ptr - m_text.data());
        return v;
    }
    std::optional<std::string_view> string()
    {
        if (!consume('"'))
            return std::nullopt;
        const size_t from = m_at;
        while (m_at < m_text.size() && m_text[m_at] != '"')
            m_at += m_text[m_at] == '\\' ? 2 : 1;
        if (m_at >= m_text.size())
            return std::nullopt;
        return m_text.substr(from, m_at++ - from);
    }
    // Skips one value of any nesting (a TensorList's list of shapes).
    bool skipValue()
    {
        skipSpace();
        if (peek('"'))
            return bool(string());
        if (!consume('['))
            return bool(integer());
        if (consume(']'))
            return true;
        do {
            if (!skipValue())
                return false;
        } while (consume(','));
        return consume(']');
    }

private:
    void skipSpace()
    {
        while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\n'
                                        || m_text[m_at] == '\t' || m_text[m_at] == '\r'))
            ++m_at;
    }
    std::string_view m_text;
    size_t m_at = 0;
};

// Per input of "Input Dims": the element count of a flat list of dims, nullopt for anything
// else (a nested TensorList). Empty when the text is not a list.
std::optional<std::vector<std::optional<int64_t>>> readDims(std::string_view text)
{
    ListReader in(text);
    std::vector<std::optional<int64_t>> out;
    if (!in.consume('['))
        return std::nullopt;
    if (in.consume(']'))
        return out;
    do {
        if (!in.peek('[')) {
            if (!in.skipValue())
                return std::nullopt;
            out.push_back(std::nullopt);
            continue;
        }
        in.consume('[');
        std::optional<int64_t> count = 1;
        if (!in.consume(']')) {
            do {
                if (in.peek('[')) {
                    if (!in.skipValue())
                        return std::nullopt;
                    count.reset();
                    continue;
                }
                const std::optional<int64_t> d = in.integer();
                if (!d)
                    return std::nullopt;
                if (count && (*d < 0 || __builtin_mul_overflow(*count, *d, &*count)))
                    count.reset();
            } while (in.consume(','));
            if (!in.consume(']'))
                return std::nullopt;
        }
        out.push_back(count);
    } while (in.consume(','));
    if (!in.consume(']'))
        return std::nullopt;
    return out;
}

std::optional<std::vector<std::string_view>> readTypes(std::string_view text)
{
    ListReader in(text);
    std::vector<std::string_view> out;
    if (!in.consume('['))
        return std::nullopt;
    if (in.consume(']'))
        return out;
    do {
        const std::optional<std::string_view> s = in.string();
        if (!s)
            return std::nullopt;
        out.push_back(*s);
    } while (in.consume(','));
    if (!in.consume(']'))
        return std::nullopt;
    return out;
}

} // namespace

int64_t elementBytes(std::string_view type)
{
    if (const int64_t bytes = dtypeBytes(type); bytes > 0)
        return bytes;
    static constexpr std::array<std::pair<std::string_view, int64_t>, 20> kSizes = {{
        {"double", 8},          {"long int", 8},        {"long", 8},
        {"long long", 8},       {"int64_t", 8},         {"c10::complex<float>", 8},
        {"c10::complex<double>", 16}, {"float", 4},     {"int", 4},
        {"unsigned int", 4},    {"c10::Half", 2},       {"c10::BFloat16", 2},
        {"short int", 2},       {"short", 2},           {"unsigned char", 1},
        {"signed char", 1},     {"bool", 1},            {"c10::Float8_e4m3fn", 1},
        {"c10::Float8_e5m2", 1}, {"char", 1},
    }};
    for (const auto &[name, bytes] : kSizes) {
        if (type == name)
            return bytes;
    }
    return 0;
}

std::optional<InputSize> inputSize(std::string_view dims, std::string_view types)
{
    const auto counts = readDims(dims);
    const auto names = readTypes(types);
    if (!counts || !names)
        return std::nullopt;
    InputSize size;
    for (size_t i = 0; i < counts->size() && i < names->size(); ++i) {
        const int64_t element = elementBytes((*names)[i]);
        const std::optional<int64_t> n = (*counts)[i];
        int64_t bytes = 0;
        if (!n || element == 0 || __builtin_mul_overflow(*n, element, &bytes)
            || __builtin_add_overflow(size.bytes, bytes, &size.bytes))
            continue;
        size.elements += *n;
        if (size.type.empty())
            size.type = (*names)[i];
    }
    if (size.bytes <= 0)
        return std::nullopt;
    return size;
}

void describeCollective(const Trace &trace, const KinetoIndex &index,
                        const KinetoActivity &activity, CollectiveRecord *out)
{
    CollectiveRecord &c = *out;
    readCollectiveFields(trace, activity.ref, &c);
    int64_t externalId = activity.externalId;
    if (externalId == kNoValue && activity.runtime != kNoIndex)
        externalId = index.runtimes[activity.runtime].externalId;
    if (const KinetoNode *node = externalIdNode(trace, index, externalId))
        readCollectiveFields(trace, node->ref, &c);
    std::vector<const KinetoNode *> enclosing;
    if (activity.runtime != kNoIndex)
        enclosing = enclosingCollectiveNodes(trace, index, activity.runtime);
    for (const KinetoNode *node : enclosing)
        readCollectiveFields(trace, node->ref, &c);
    if (c.kind.empty())
        c.kind = collectiveKindFromName(trace.name(activity.ref));

    const int64_t element = elementBytes(c.dtype);
    if (element > 0 && c.inElements >= 0
        && !__builtin_mul_overflow(c.inElements, element, &c.bytes))
        return;
    c.bytes = -1;
    for (const KinetoNode *node : enclosing) {
        if (const std::optional<InputSize> size = nodeInputSize(trace, node->ref)) {
            c.bytes = size->bytes;
            c.inElements = size->elements;
            c.dtype = std::string(size->type);
            return;
        }
    }
}

} // namespace tracedesk::core::analysis::distributed
