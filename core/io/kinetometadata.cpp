#include "core/io/kinetometadata.h"

#include <simdjson.h>

#include <algorithm>

namespace tracedesk::core::kineto {

namespace {

int64_t intField(simdjson::dom::object o, std::string_view key, int64_t fallback)
{
    simdjson::dom::element e;
    if (o[key].get(e) != simdjson::SUCCESS)
        return fallback;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS)
        return i;
    if (e.get_uint64().get(u) == simdjson::SUCCESS)
        return int64_t(u > uint64_t(INT64_MAX) ? INT64_MAX : u);
    if (e.get_double().get(d) == simdjson::SUCCESS && d > -9e18 && d < 9e18)
        return int64_t(d);
    return fallback;
}

std::string stringField(simdjson::dom::object o, std::string_view key)
{
    std::string_view s;
    if (o[key].get_string().get(s) == simdjson::SUCCESS)
        return std::string(s);
    return {};
}

void readDevices(simdjson::dom::element value, RunMetadata *run)
{
    simdjson::dom::array devices;
    if (value.get_array().get(devices) != simdjson::SUCCESS)
        return;
    int64_t index = 0;
    for (simdjson::dom::element d : devices) {
        simdjson::dom::object o;
        if (d.get_object().get(o) != simdjson::SUCCESS) {
            ++index;
            continue;
        }
        GpuDeviceInfo info;
        info.id = intField(o, "id", index);
        info.name = stringField(o, "name");
        info.totalGlobalMemBytes = uint64_t(std::max<int64_t>(0, intField(o, "totalGlobalMem", 0)));
        info.computeMajor = intField(o, "computeMajor", -1);
        info.computeMinor = intField(o, "computeMinor", -1);
        info.numSms = intField(o, "numSms", 0);
        info.maxThreadsPerMultiprocessor = intField(o, "maxThreadsPerMultiprocessor", 0);
        info.warpSize = intField(o, "warpSize", 0);
        run->devices.push_back(std::move(info));
        ++index;
    }
}

void readDistributed(simdjson::dom::element value, RunMetadata *run)
{
    simdjson::dom::object o;
    if (value.get_object().get(o) != simdjson::SUCCESS)
        return;
    run->distributed.present = true;
    run->distributed.backend = stringField(o, "backend");
    run->distributed.rank = intField(o, "rank", -1);
    run->distributed.worldSize = intField(o, "world_size", 0);
}

// A scalar as display text; empty for objects and arrays.
std::string scalarText(simdjson::dom::element e)
{
    std::string_view s;
    if (e.get_string().get(s) == simdjson::SUCCESS)
        return std::string(s);
    if (e.is_object() || e.is_array())
        return {};
    return simdjson::minify(e);
}

} // namespace

bool readRunMetadata(const std::vector<std::pair<std::string, std::string>> &topLevel,
                     RunMetadata *run)
{
    bool kineto = false;
    simdjson::dom::parser parser;
    for (const auto &[key, text] : topLevel) {
        simdjson::dom::element value;
        if (parser.parse(text.data(), text.size()).get(value) != simdjson::SUCCESS)
            continue;
        if (key == "deviceProperties" || key == "computeProperties") {
            kineto = true;
            readDevices(value, run);
        } else if (key == "distributedInfo") {
            readDistributed(value, run);
        } else if (key == "schemaVersion") {
            kineto = true;
        } else if (key == "baseTimeNanoseconds") {
            int64_t base = 0;
            if (value.get_int64().get(base) == simdjson::SUCCESS)
                run->clockOriginNs += base;
        } else if (key != "traceName" && key != "displayTimeUnit") {
            std::string shown = scalarText(value);
            if (!shown.empty() && shown.size() < 256)
                run->properties.emplace_back(key, std::move(shown));
        }
    }
    return kineto;
}

} // namespace tracedesk::core::kineto
