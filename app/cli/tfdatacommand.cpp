#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/analysis/tfdata.h"
#include "core/io/traceloader.h"
#include "core/model/timeformat.h"

#include <cstdio>

namespace tracedesk::cli {

const char *const kTfDataUsage =
    "  tfdata FILE|DIR [--json]\n"
    "      tf.data bottleneck analysis: per host and input pipeline the execution statistics\n"
    "      (calls, slow calls over 50 us, min/avg/max latency), ranked by the slowest\n"
    "      execution; the slowest execution's iterator graph with its critical path and\n"
    "      bottleneck; and a recommendation for each host pipeline's bottleneck.";

namespace {

using namespace core::analysis;

void writeJson(const TfDataAnalysis &a)
{
    JsonOut json;
    json.beginObject()
        .value("is_input_bound", a.inputBound)
        .value("summary", a.summary)
        .value("iterator_events", a.iteratorEvents)
        .beginArray("pipelines");
    for (const TfDataPipeline &p : a.pipelines) {
        json.beginObject()
            .value("host", p.host)
            .value("name", p.name)
            .value("id", p.id)
            .value("type", p.device ? "DEVICE" : "HOST")
            .value("calls", p.calls)
            .value("slow_calls", p.slowCalls)
            .value("min_latency_ps", p.minLatency)
            .value("avg_latency_ps", p.avgLatency)
            .value("max_latency_ps", p.maxLatency)
            .beginArray("executions");
        for (const TfDataExecution &x : p.executions) {
            json.beginObject()
                .value("start_ps", x.start)
                .value("duration_ps", x.duration)
                .value("bottleneck_iterator_id", x.bottleneckId)
                .value("bottleneck_iterator_latency_ps", x.bottleneckLatency)
                .beginArray("iterators");
            for (const TfDataIteratorStat &s : x.iterators) {
                json.beginObject()
                    .value("id", s.id)
                    .value("parent_id", s.parentId)
                    .value("name", s.name())
                    .value("long_name", s.longName)
                    .value("start_time_ps", s.start)
                    .value("duration_ps", s.duration)
                    .value("self_time_ps", s.selfTime)
                    .value("num_calls", s.calls)
                    .value("is_blocking", s.blocking)
                    .endObject();
            }
            json.endArray().endObject();
        }
        json.endArray().endObject();
    }
    json.endArray().beginArray("bottleneck_analysis");
    for (const TfDataBottleneckRow &r : a.bottlenecks) {
        json.beginObject()
            .value("host", r.host)
            .value("input_pipeline", r.pipeline)
            .value("max_latency_ps", r.maxLatency)
            .value("iterator_name", r.iteratorName)
            .value("iterator_long_name", r.iteratorLongName)
            .value("iterator_latency_ps", r.iteratorLatency)
            .value("bottleneck_type", tfDataBottleneckTypeName(r.type))
            .value("suggestion", r.suggestion)
            .endObject();
    }
    json.endArray().endObject();
    std::printf("%s\n", json.text().c_str());
}

void writeText(const TfDataAnalysis &a)
{
    std::printf("%s\n", a.summary.c_str());
    if (a.pipelines.empty())
        return;
    std::printf("\n%-28s %-10s %-6s %7s %6s %12s %12s %12s\n", "Host", "Pipeline", "Type", "Calls",
                "Slow", "Min", "Avg", "Max");
    for (const TfDataPipeline &p : a.pipelines) {
        std::printf("%-28s %-10s %-6s %7lld %6lld %12s %12s %12s\n", p.host.c_str(),
                    p.name.c_str(), p.device ? "DEVICE" : "HOST", (long long)p.calls,
                    (long long)p.slowCalls, core::formatDuration(p.minLatency).c_str(),
                    core::formatDuration(p.avgLatency).c_str(),
                    core::formatDuration(p.maxLatency).c_str());
    }
    for (const TfDataPipeline &p : a.pipelines) {
        const TfDataExecution &x = p.executions.front();
        std::printf("\n%s %s, slowest execution (%s):\n", p.host.c_str(), p.name.c_str(),
                    core::formatDuration(x.duration).c_str());
        for (const TfDataIteratorStat &s : x.iterators) {
            const char *mark = s.id == x.bottleneckId ? "  <- bottleneck"
                               : s.blocking           ? "  (critical path)"
                                                      : "";
            std::printf("  %-50.*s total %12s self %12s calls %lld%s\n", int(s.longName.size()),
                        s.longName.data(),
                        core::formatDuration(s.duration).c_str(),
                        core::formatDuration(s.selfTime).c_str(), (long long)s.calls, mark);
        }
    }
    for (const TfDataBottleneckRow &r : a.bottlenecks) {
        std::printf("\nBottleneck of %s %s: %s (%s, %s)\n%s\n", r.host.c_str(),
                    r.pipeline.c_str(), r.iteratorLongName.c_str(),
                    std::string(tfDataBottleneckTypeName(r.type)).c_str(),
                    core::formatDuration(r.iteratorLatency).c_str(), r.suggestion.c_str());
    }
}

} // namespace

int runTfData(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2, {{"json", false}}, &args, &error) || args.positional.size() != 1)
        return fail(error.empty() ? "tfdata: expected one FILE or DIR" : error, kExitUsage);
    auto trace = core::loadTrace(args.positional[0]);
    if (!trace.ok())
        return fail(trace.message());
    const TfDataAnalysis analysis = computeTfData(*trace.value());
    if (args.has("json"))
        writeJson(analysis);
    else
        writeText(analysis);
    return kExitOk;
}

} // namespace tracedesk::cli
