#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/analysis/podviewer.h"
#include "core/io/traceloader.h"

#include <cstdio>

namespace tracedesk::cli {

using namespace core::analysis;

const char *const kPodUsage =
    "  pod FILE|DIR [--run NAME] [--json] [--no-cache]\n"
    "      Pod viewer: per step common to all hosts, the step time of every worker (or TPU\n"
    "      core) broken down by category, with the multi-host step alignment. FILE may also be\n"
    "      a legacy *.pod_viewer.json.";

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size()
           && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void printJson(const PodViewerData &d)
{
    JsonOut j;
    j.beginObject()
        .value("device_type", d.deviceType)
        .value("legacy", d.legacy)
        .value("tpu", d.tpu)
        .value("empty_intersection", d.emptyIntersection);
    j.beginArray("series");
    for (const auto &s : d.series)
        j.value({}, s);
    j.endArray();
    j.beginArray("hosts");
    for (const PodHostAlignment &h : d.hosts) {
        j.beginObject().value("host", h.host).value("chief", h.chief)
            .value("coordinator", h.coordinator).value("step_count", h.stepCount)
            .value("total_ps", int64_t(h.totalPs)).value("begin_host", h.beginHost)
            .value("begin_chief", h.beginChief).value("count", h.count).endObject();
    }
    j.endArray();
    j.beginArray("steps");
    for (const PodStep &s : d.steps) {
        j.beginObject().value("step_num", s.stepNum).beginArray("records");
        for (const PodRecord &r : s.records) {
            j.beginObject().value("host", d.hostOf(r)).value("core_id", int64_t(r.coreId))
                .value("chip_id", r.chipId).value("node_id", r.nodeId)
                .value("host_step", r.hostStep).value("total_us", r.totalUs)
                .value("bottleneck", d.bottleneckOf(r)).beginObject("breakdown_us");
            for (size_t i = 0; i < d.series.size() && i < r.valuesUs.size(); ++i)
                j.value(d.series[i], r.valuesUs[i]);
            j.endObject().endObject();
        }
        j.endArray().endObject();
    }
    j.endArray();
    j.beginObject("diagnostics");
    for (auto [key, list] : {std::pair{"info", &d.diagnostics.info},
                             {"warnings", &d.diagnostics.warnings},
                             {"errors", &d.diagnostics.errors}}) {
        j.beginArray(key);
        for (const auto &m : *list)
            j.value({}, m);
        j.endArray();
    }
    j.endObject().endObject();
    std::printf("%s\n", j.text().c_str());
}

void printText(const PodViewerData &d)
{
    std::printf("Pod viewer: %s, %zu step(s), %zu series%s\n",
                d.deviceType.empty() ? "unknown device" : d.deviceType.c_str(), d.steps.size(),
                d.series.size(), d.legacy ? " (legacy file)" : "");
    for (const PodHostAlignment &h : d.hosts) {
        std::printf("  host %s: %d step(s)%s%s, aligned steps %d..%d -> chief %d..%d\n",
                    h.host.c_str(), h.stepCount, h.chief ? ", chief" : "",
                    h.coordinator ? ", coordinator" : "", h.beginHost, h.beginHost + h.count - 1,
                    h.beginChief, h.beginChief + h.count - 1);
    }
    for (const PodStep &s : d.steps) {
        std::printf("Step %lld\n", (long long)s.stepNum);
        for (const PodRecord &r : s.records) {
            std::printf("  %-24s core %-6u total %12.3f us  bottleneck %s\n",
                        podColumnLabel(d, r).c_str(), r.coreId, r.totalUs,
                        d.bottleneckOf(r).c_str());
            for (size_t i = 0; i < d.series.size() && i < r.valuesUs.size(); ++i) {
                if (r.valuesUs[i] > 0)
                    std::printf("      %-34s %12.3f us\n", d.series[i].c_str(), r.valuesUs[i]);
            }
        }
    }
    for (const auto &m : d.diagnostics.errors)
        std::printf("error: %s\n", m.c_str());
    for (const auto &m : d.diagnostics.warnings)
        std::printf("warning: %s\n", m.c_str());
    for (const auto &m : d.diagnostics.info)
        std::printf("info: %s\n", m.c_str());
}

} // namespace

int runPod(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {
        {"run", true}, {"json", false}, {"no-cache", false}, {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("pod: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("%s\n", kPodUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("pod: expected exactly one FILE or DIR", kExitUsage);
    const std::string &path = args.positional.front();
    std::shared_ptr<const PodViewerData> data;
    if (endsWith(path, ".pod_viewer.json")) {
        auto read = readPodViewerJsonFile(path);
        if (!read)
            return fail(read.message());
        data = std::make_shared<const PodViewerData>(std::move(read).value());
    } else {
        auto trace = core::loadTrace(path, nullptr, loadOptionsFrom(args));
        if (!trace)
            return fail(trace.message());
        AnalysisCache cache(trace.value());
        data = podViewer(cache);
    }
    if (args.has("json"))
        printJson(*data);
    else
        printText(*data);
    return kExitOk;
}

} // namespace tracedesk::cli
