#include "core/capture/captureoptions.h"

#include "profiler_service.pb.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace tracedesk::core::capture {

namespace {

// Tools requested from servers old enough to convert on their side (TF 2.2-2.3 answer with
// tool_data, including the serialized XSpace as "xplane.pb"); newer servers ignore the list.
const char *const kLegacyTools[] = {"trace_viewer",  "op_profile",    "input_pipeline",
                                    "kernel_stats",  "memory_viewer", "memory_profile",
                                    "overview_page", "pod_viewer",    "tensorflow_stats",
                                    "xplane.pb"};
constexpr uint64_t kMaxEvents = 1000000;
constexpr uint64_t kGraceMs = 60000;

std::string trim(const std::string &s)
{
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

bool parseUInt(const std::string &text, uint64_t *out)
{
    if (text.empty())
        return false;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && p == text.data() + text.size();
}

bool parseInt(const std::string &text, int64_t *out)
{
    if (text.empty())
        return false;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && p == text.data() + text.size();
}

bool parseBool(const std::string &text, bool *out)
{
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "true") {
        *out = true;
        return true;
    }
    if (t == "false") {
        *out = false;
        return true;
    }
    return false;
}

Error optionError(const AdvancedOption &o, const std::string &expected)
{
    return Error{"option " + o.key + "=" + o.value + ": expected " + expected};
}

// Applies one option to the request's ProfileOptions. Standard names set their field; anything
// else goes to advanced_configuration as a bool, an integer or a string, in that order of
// preference, as XProf's capture dialog does.
Result<bool> applyOption(const AdvancedOption &o, tensorflow::ProfileOptions *opts)
{
    uint64_t u = 0;
    bool b = false;
    auto level = [&](uint32_t max, auto setter) -> Result<bool> {
        if (!parseUInt(o.value, &u) || u > max)
            return optionError(o, "a level from 0 to " + std::to_string(max));
        setter(uint32_t(u));
        return true;
    };
    auto flag = [&](auto setter) -> Result<bool> {
        if (!parseBool(o.value, &b))
            return optionError(o, "true or false");
        setter(b);
        return true;
    };
    if (o.key == "host_tracer_level")
        return level(3, [&](uint32_t v) { opts->set_host_tracer_level(v); });
    if (o.key == "device_tracer_level")
        return level(1, [&](uint32_t v) { opts->set_device_tracer_level(v); });
    if (o.key == "python_tracer_level")
        return level(1, [&](uint32_t v) { opts->set_python_tracer_level(v); });
    if (o.key == "include_dataset_ops")
        return flag([&](bool v) { opts->set_include_dataset_ops(v); });
    if (o.key == "enable_hlo_proto")
        return flag([&](bool v) { opts->set_enable_hlo_proto(v); });
    if (o.key == "raise_error_on_start_failure")
        return flag([&](bool v) { opts->set_raise_error_on_start_failure(v); });
    if (o.key == "host_traceme_filter_mask") {
        if (!parseUInt(o.value, &u))
            return optionError(o, "an unsigned integer");
        opts->mutable_trace_options()->set_host_traceme_filter_mask(u);
        return true;
    }
    if (o.key == "device_type") {
        static const std::pair<const char *, tensorflow::ProfileOptions::DeviceType> kTypes[] = {
            {"unspecified", tensorflow::ProfileOptions::UNSPECIFIED},
            {"cpu", tensorflow::ProfileOptions::CPU},
            {"gpu", tensorflow::ProfileOptions::GPU},
            {"tpu", tensorflow::ProfileOptions::TPU},
            {"pluggable_device", tensorflow::ProfileOptions::PLUGGABLE_DEVICE}};
        std::string v = o.value;
        std::transform(v.begin(), v.end(), v.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        for (const auto &[name, type] : kTypes) {
            if (v == name) {
                opts->set_device_type(type);
                return true;
            }
        }
        return optionError(o, "cpu, gpu, tpu or pluggable_device");
    }
    if (o.key == "override_hostname") {
        // Servers read either place depending on their version.
        opts->set_override_hostname(o.value);
        (*opts->mutable_advanced_configuration())[o.key].set_string_value(o.value);
        return true;
    }
    auto &value = (*opts->mutable_advanced_configuration())[o.key];
    int64_t i = 0;
    if (parseBool(o.value, &b))
        value.set_bool_value(b);
    else if (parseInt(o.value, &i))
        value.set_int64_value(i);
    else
        value.set_string_value(o.value);
    return true;
}

} // namespace

Result<std::string> parseAddress(const std::string &text)
{
    std::string a = trim(text);
    if (a.rfind("grpc://", 0) == 0)
        a = a.substr(7);
    const std::string quoted = "'" + a + "'";
    if (a.empty())
        return Error{"empty service address (expected host:port, e.g. localhost:6000)"};
    const auto colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return Error{"service address " + quoted + " has no port (expected host:port, e.g. "
                     "localhost:6000)"};
    const std::string host = a.substr(0, colon);
    uint64_t port = 0;
    if (!parseUInt(a.substr(colon + 1), &port) || port == 0 || port > 65535)
        return Error{"service address " + quoted + ": the port must be a number from 1 to 65535"};
    const bool bracketed = host.front() == '[' && host.back() == ']' && host.size() > 2;
    if (!bracketed && host.find(':') != std::string::npos)
        return Error{"service address " + quoted + ": write IPv6 addresses as [addr]:port"};
    for (char c : host) {
        if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == ',')
            return Error{"service address " + quoted + " is not a valid host name"};
    }
    return a;
}

Result<std::vector<std::string>> parseAddresses(const std::string &text)
{
    std::vector<std::string> out;
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string piece = trim(text.substr(start, comma - start));
        start = comma + 1;
        if (piece.empty())
            continue;
        Result<std::string> a = parseAddress(piece);
        if (!a)
            return a.error();
        if (!seen.insert(a.value()).second)
            return Error{"service address '" + a.value() + "' is listed twice"};
        out.push_back(a.value());
    }
    if (out.empty())
        return Error{"no service address given (expected host:port, e.g. localhost:6000)"};
    return out;
}

Result<AdvancedOption> parseAdvancedOption(const std::string &text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos)
        return Error{"option '" + text + "': expected key=value"};
    AdvancedOption o{trim(text.substr(0, eq)), trim(text.substr(eq + 1))};
    if (o.key.empty())
        return Error{"option '" + text + "': the key is empty"};
    return o;
}

Result<bool> validateOptions(const CaptureOptions &options)
{
    if (options.addresses.empty())
        return Error{"no service address given (expected host:port, e.g. localhost:6000)"};
    for (const std::string &a : options.addresses) {
        Result<std::string> ok = parseAddress(a);
        if (!ok)
            return ok.error();
    }
    if (options.durationMs == 0)
        return Error{"the duration must be at least 1 ms"};
    if (options.hostTracerLevel > 3)
        return Error{"the host tracer level must be 0 to 3"};
    if (options.deviceTracerLevel > 1 || options.pythonTracerLevel > 1)
        return Error{"the device and Python tracer levels must be 0 or 1"};
    if (options.retries < 0)
        return Error{"the number of retries cannot be negative"};
    if (options.logdir.empty())
        return Error{"no destination logdir given"};
    if (options.maxParallelHosts < 0)
        return Error{"the number of hosts captured at once cannot be negative"};
    tensorflow::ProfileOptions scratch;
    for (const AdvancedOption &o : options.advanced) {
        Result<bool> ok = applyOption(o, &scratch);
        if (!ok)
            return ok;
    }
    return true;
}

uint64_t sessionDeadlineMs(const CaptureOptions &options)
{
    if (options.deadlineMs > 0)
        return options.deadlineMs;
    return std::max(kGraceMs, 2 * options.durationMs) + options.delayMs;
}

size_t parallelHosts(const CaptureOptions &options)
{
    const size_t limit = options.maxParallelHosts > 0 ? size_t(options.maxParallelHosts)
                                                      : size_t(kDefaultParallelHosts);
    return std::max<size_t>(1, std::min(options.addresses.size(), limit));
}

uint64_t memoryBudgetBytes(const CaptureOptions &options, uint64_t availableBytes)
{
    return options.memoryLimitBytes > 0 ? options.memoryLimitBytes : availableBytes / 4 * 3;
}

uint64_t responseLimitBytes(const CaptureOptions &options, uint64_t availableBytes)
{
    if (options.maxResponseBytes > 0)
        return std::min(options.maxResponseBytes, kMaxGrpcMessageBytes);
    const uint64_t budget = memoryBudgetBytes(options, availableBytes);
    if (budget == 0)
        return kMaxGrpcMessageBytes;
    const uint64_t share = budget / parallelHosts(options);
    return std::clamp<uint64_t>(share, 1, kMaxGrpcMessageBytes);
}

std::string runNameForTime(std::time_t time)
{
    std::tm local{};
    localtime_r(&time, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y_%m_%d_%H_%M_%S", &local);
    return text;
}

std::string hostFileStem(const CaptureOptions &options, const std::string &address)
{
    std::string stem = address;
    for (const AdvancedOption &o : options.advanced) {
        if (o.key == "override_hostname" && !o.value.empty())
            stem = o.value;
    }
    for (char &c : stem) {
        if (c == ':' || c == '/' || c == '\\' || c == '[' || c == ']' || c == '\0')
            c = '_';
    }
    if (stem.empty() || stem == "." || stem == "..")
        stem = "host";
    return stem;
}

Result<bool> buildProfileRequest(const CaptureOptions &options, const std::string &address,
                                 const std::string &sessionId, const std::string &repositoryRoot,
                                 uint64_t startNs, tensorflow::ProfileRequest *request)
{
    request->Clear();
    // Old servers read the top-level duration; modern ones read opts.duration_ms.
    request->set_duration_ms(options.durationMs);
    request->set_max_events(kMaxEvents);
    for (const char *tool : kLegacyTools)
        request->add_tools(tool);
    request->set_repository_root(repositoryRoot);
    request->set_session_id(sessionId);
    request->set_host_name(address);
    request->set_emit_xspace(true);

    tensorflow::ProfileOptions *opts = request->mutable_opts();
    opts->set_version(1);
    opts->set_include_dataset_ops(true);
    opts->set_enable_hlo_proto(true);
    opts->set_host_tracer_level(options.hostTracerLevel);
    opts->set_device_tracer_level(options.deviceTracerLevel);
    opts->set_python_tracer_level(options.pythonTracerLevel);
    opts->set_duration_ms(options.durationMs);
    opts->set_start_timestamp_ns(startNs);
    for (const AdvancedOption &o : options.advanced) {
        Result<bool> ok = applyOption(o, opts);
        if (!ok)
            return ok;
    }
    return true;
}

} // namespace tracedesk::core::capture
