// Reading `*.pod_viewer.json` (FORMATS.md 2.15): the current PodViewerDatabase JSON, whose
// records carry stepBreakdownUs, and the legacy files, whose records carry TPU duration fields
// drawn as the 2020 UI's eight series.

#include "core/analysis/podviewer.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <map>

namespace tracedesk::core::analysis {

const char *const kLegacyPodSeriesNames[8] = {
    "High flops compute", "Low flops compute", "Host infeed",  "Host outfeed",
    "AllReduce compute",  "AllReduce sync",    "Send",         "Recv"};

namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// Numbers may be printed as JSON numbers or, for 64-bit fields, as strings.
bool numberOf(element e, double *out)
{
    double d;
    int64_t i;
    uint64_t u;
    std::string_view s;
    if (e.get(d) == simdjson::SUCCESS)
        *out = d;
    else if (e.get(i) == simdjson::SUCCESS)
        *out = double(i);
    else if (e.get(u) == simdjson::SUCCESS)
        *out = double(u);
    else if (e.get(s) == simdjson::SUCCESS) {
        char *endp = nullptr;
        const std::string text(s);
        *out = std::strtod(text.c_str(), &endp);
        return !text.empty() && endp && *endp == '\0';
    } else
        return false;
    return true;
}

double numberField(object o, std::string_view key)
{
    element e;
    double v = 0;
    if (o[key].get(e) == simdjson::SUCCESS && numberOf(e, &v))
        return v;
    return 0;
}

std::string stringField(object o, std::string_view key)
{
    std::string_view v;
    return o[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

void readStrings(object o, std::string_view key, std::vector<std::string> *out)
{
    simdjson::dom::array a;
    if (o[key].get(a) != simdjson::SUCCESS)
        return;
    for (element e : a) {
        std::string_view s;
        if (e.get(s) == simdjson::SUCCESS)
            out->emplace_back(s);
    }
}

constexpr const char *kLegacyOthers[] = {"hostInfeedDurationUs",       "hostOutfeedDurationUs",
                                         "allReduceComputeDurationUs", "allReduceSyncDurationUs",
                                         "sendDurationUs",             "recvDurationUs"};

} // namespace

Result<PodViewerData> readPodViewerJsonFile(const std::string &path)
{
    simdjson::dom::parser parser;
    element doc;
    if (auto error = parser.load(path).get(doc); error == simdjson::IO_ERROR)
        return fileError(path, "cannot be read");
    else if (error != simdjson::SUCCESS)
        return fileError(path, std::string("is not valid JSON (") + simdjson::error_message(error)
                                   + ")");
    object top;
    if (doc.get(top) != simdjson::SUCCESS)
        return fileError(path, "is not a pod viewer file: the top level is not a JSON object");
    simdjson::dom::array maps;
    const bool hasMaps = top["podStatsSequence"]["podStatsMap"].get(maps) == simdjson::SUCCESS;
    if (!hasMaps) {
        object seq;
        if (top["podStatsSequence"].get(seq) != simdjson::SUCCESS)
            return fileError(path, "is not a pod viewer file: no podStatsSequence");
        // An empty sequence may omit the list.
    }
    PodViewerData data;
    data.source = path;
    data.deviceType = stringField(top, "deviceType");
    object env;
    if (data.deviceType.empty() && top["runEnvironment"].get(env) == simdjson::SUCCESS)
        data.deviceType = stringField(env, "tpuType");
    std::map<int, size_t> seriesById;
    simdjson::dom::array events;
    if (top["stepBreakdownEvents"].get(events) == simdjson::SUCCESS) {
        for (element e : events) {
            object ev;
            if (e.get(ev) != simdjson::SUCCESS)
                return fileError(path, "stepBreakdownEvents holds a non-object entry");
            seriesById[int(numberField(ev, "id"))] = data.series.size();
            data.series.push_back(stringField(ev, "name"));
        }
        // XProf writes its nine categories; a record holds at most that many values.
        if (data.series.size() > PodValues::kMax)
            return fileError(path, "stepBreakdownEvents lists " +
                                       std::to_string(data.series.size()) +
                                       " series; the pod viewer reads at most " +
                                       std::to_string(PodValues::kMax));
    }
    object diag;
    if (top["diagnostics"].get(diag) == simdjson::SUCCESS) {
        readStrings(diag, "info", &data.diagnostics.info);
        readStrings(diag, "warnings", &data.diagnostics.warnings);
        readStrings(diag, "errors", &data.diagnostics.errors);
    }
    bool sawCurrent = false, sawLegacy = false;
    if (hasMaps) {
        for (element m : maps) {
            object map;
            if (m.get(map) != simdjson::SUCCESS)
                return fileError(path, "podStatsMap holds a non-object entry");
            PodStep step;
            step.stepNum = int64_t(numberField(map, "stepNum"));
            object perCore;
            if (map["podStatsPerCore"].get(perCore) == simdjson::SUCCESS) {
                for (auto [key, value] : perCore) {
                    object rec;
                    if (value.get(rec) != simdjson::SUCCESS)
                        return fileError(path, "podStatsPerCore[" + std::string(key)
                                                   + "] is not an object");
                    PodRecord r;
                    char *endp = nullptr;
                    const std::string id(key);
                    r.coreId = uint32_t(std::strtoul(id.c_str(), &endp, 10));
                    if (id.empty() || *endp != '\0')
                        return fileError(path, "core id \"" + id + "\" is not a number");
                    r.host = data.textIndex(stringField(rec, "hostName"));
                    r.chipId = int32_t(numberField(rec, "chipId"));
                    r.nodeId = int32_t(numberField(rec, "nodeId"));
                    r.stepNum = int64_t(numberField(rec, "stepNum"));
                    r.hostStep = r.stepNum;
                    r.totalUs = numberField(rec, "totalDurationUs");
                    r.bottleneck = data.textIndex(stringField(rec, "bottleneck"));
                    object breakdown;
                    if (rec["stepBreakdownUs"].get(breakdown) == simdjson::SUCCESS) {
                        sawCurrent = true;
                        if (data.series.empty()) {
                            for (int i = 0; i < 9; ++i) {
                                seriesById[i + 1] = size_t(i);
                                data.series.push_back(kPodCategoryNames[i]);
                            }
                        }
                        r.valuesUs.assign(data.series.size(), 0.0);
                        for (auto [k, v] : breakdown) {
                            double us = 0;
                            auto it = seriesById.find(std::atoi(std::string(k).c_str()));
                            if (it != seriesById.end() && numberOf(v, &us))
                                r.valuesUs[it->second] = us;
                        }
                    } else {
                        sawLegacy = true;
                        const double high = numberField(rec, "highFlopsComputeUs");
                        double others = high;
                        r.valuesUs.assign(8, 0.0);
                        r.valuesUs[0] = high;
                        for (size_t i = 0; i < 6; ++i) {
                            r.valuesUs[i + 2] = numberField(rec, kLegacyOthers[i]);
                            others += r.valuesUs[i + 2];
                        }
                        r.valuesUs[1] = std::max(0.0, r.totalUs - others);
                    }
                    step.records.push_back(std::move(r));
                }
            }
            std::sort(step.records.begin(), step.records.end(),
                      [](const PodRecord &x, const PodRecord &y) { return x.coreId < y.coreId; });
            data.steps.push_back(std::move(step));
        }
    }
    if (sawCurrent && sawLegacy)
        return fileError(path, "mixes current (stepBreakdownUs) and legacy pod records");
    if (sawLegacy) {
        data.legacy = true;
        data.series.assign(std::begin(kLegacyPodSeriesNames), std::end(kLegacyPodSeriesNames));
    }
    if (data.series.empty())
        data.series.assign(std::begin(kPodCategoryNames), std::end(kPodCategoryNames));
    const std::string &d = data.deviceType;
    data.tpu = data.legacy || (d.find("GPU") == std::string::npos && d != "CPU" && !d.empty());
    return data;
}

} // namespace tracedesk::core::analysis
