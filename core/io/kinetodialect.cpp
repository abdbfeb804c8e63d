#include "core/io/kinetodialect.h"

#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace tracedesk::core::kineto {

namespace {

bool equalsCi(std::string_view a, std::string_view lower)
{
    if (a.size() != lower.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(uint8_t(a[i])) != lower[i])
            return false;
    }
    return true;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

SliceRole roleOf(std::string_view cat, std::string_view name)
{
    if (cat.empty())
        return name == "[memory]" ? SliceRole::MemoryEvent : SliceRole::None;
    static constexpr std::array<std::pair<std::string_view, SliceRole>, 18> kRoles{{
        {"cpu_op", SliceRole::CpuOp},
        {"operator", SliceRole::CpuOp},
        {"user_annotation", SliceRole::UserAnnotation},
        {"gpu_user_annotation", SliceRole::GpuAnnotation},
        {"python_function", SliceRole::PythonFunction},
        {"python", SliceRole::PythonFunction},
        {"cuda_runtime", SliceRole::Runtime},
        {"runtime", SliceRole::Runtime},
        {"cuda_driver", SliceRole::Runtime},
        {"kernel", SliceRole::Kernel},
        {"mtia_ccp_events", SliceRole::Kernel},
        {"gpu_memcpy", SliceRole::Memcpy},
        {"memcpy", SliceRole::Memcpy},
        {"gpu_memset", SliceRole::Memset},
        {"memset", SliceRole::Memset},
        {"cuda_sync", SliceRole::Sync},
        {"cpu_instant_event", SliceRole::None},
        {"trace", SliceRole::Marker},
    }};
    for (const auto &[c, role] : kRoles) {
        if (equalsCi(cat, c)) {
            if (role == SliceRole::None && name == "[memory]")
                return SliceRole::MemoryEvent;
            return role;
        }
    }
    // mtia_runtime, xpu_runtime, privateuse1_runtime, glow_runtime, xpu_driver, ...
    std::string_view lowerTail = cat;
    if (endsWith(lowerTail, "_runtime") || endsWith(lowerTail, "_driver"))
        return SliceRole::Runtime;
    return name == "[memory]" ? SliceRole::MemoryEvent : SliceRole::None;
}

bool isLaunchFlow(std::string_view cat, std::string_view name)
{
    return equalsCi(cat, "ac2g") || equalsCi(cat, "async_gpu") || equalsCi(cat, "async_cpu_to_gpu")
           || (equalsCi(cat, "async") && name == "launch");
}

std::optional<SideColumn> sideColumnOf(std::string_view key)
{
    static constexpr std::array<std::pair<std::string_view, SideColumn>, 16> kColumns{{
        {"correlation", SideColumn::CorrelationId},
        {"External id", SideColumn::ExternalId},
        {"external id", SideColumn::ExternalId},
        {"stream", SideColumn::Stream},
        {"device", SideColumn::Device},
        {"blocks per SM", SideColumn::BlocksPerSm},
        {"warps per SM", SideColumn::WarpsPerSm},
        {"est. achieved occupancy %", SideColumn::Occupancy},
        {"registers per thread", SideColumn::Registers},
        {"shared memory", SideColumn::SharedMemory},
        {"grid", SideColumn::Grid},
        {"block", SideColumn::Block},
        {"bytes", SideColumn::Bytes},
        {"Bytes", SideColumn::Bytes},
        {"Input Dims", SideColumn::InputShapes},
        {"Call stack", SideColumn::CallStack},
    }};
    for (const auto &[k, column] : kColumns) {
        if (k == key)
            return column;
    }
    if (key == "Input dims")
        return SideColumn::InputShapes;
    return std::nullopt;
}

std::optional<int64_t> parseDim3(std::string_view json)
{
    int64_t dims[3] = {1, 1, 1};
    int n = 0;
    size_t i = 0;
    auto skip = [&] {
        while (i < json.size() && (json[i] == ' ' || json[i] == '\n' || json[i] == '\t'))
            ++i;
    };
    skip();
    if (i >= json.size() || json[i] != '[')
        return std::nullopt;
    ++i;
    for (;;) {
        skip();
        if (i < json.size() && json[i] == ']')
            break;
        if (n == 3)
            return std::nullopt;
        int64_t v = 0;
        auto r = std::from_chars(json.data() + i, json.data() + json.size(), v);
        if (r.ec != std::errc() || v < 0)
            return std::nullopt;
        dims[n++] = v;
        i = size_t(r.ptr - json.data());
        skip();
        if (i < json.size() && json[i] == ',')
            ++i;
        else if (i >= json.size() || json[i] != ']')
            return std::nullopt;
    }
    if (n == 0)
        return std::nullopt;
    return packDim3(dims[0], dims[1], dims[2]);
}

std::optional<int64_t> canonicalInteger(std::string_view text)
{
    if (text.empty() || text.size() > 20)
        return std::nullopt;
    const bool negative = text[0] == '-';
    const std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || (digits[0] == '0' && (digits.size() > 1 || negative)))
        return std::nullopt;
    int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        return std::nullopt;
    return v;
}

} // namespace tracedesk::core::kineto
