#include "commands.h"
#include "jsonout.h"
#include "options.h"
#include "pytorchcommands.h"

#include "core/analysis/gputime/criticalpath.h"
#include "core/analysis/gputime/stepwindows.h"
#include "core/io/traceloader.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tracedesk::cli {

const char *const kCriticalPathUsage =
    "  critical-path FILE|DIR [--rank N] [--step N | --annotation TEXT [--instance K]]\n"
    "                [--speedup NAME=FACTOR] [--json]\n"
    "      The critical path of a step (GPU profiles), by HolisticTraceAnalysis's lightweight\n"
    "      rules: CPU operators, launches, kernels, stream order and synchronisations as one\n"
    "      dependency graph; its longest path, how much of it is CPU, GPU, launch delay and\n"
    "      kernel-to-kernel wait, and its segments in order. --step N: ProfilerStep#N, else\n"
    "      XProf's step N (an XSpace); a window of more than 2M events is refused;\n"
    "      --annotation: the K-th (0-based) operator or annotation whose name holds TEXT.\n"
    "      --speedup: every event named NAME (an operator with what runs under it) FACTOR\n"
    "      times faster, and the path searched again.";

namespace {

using namespace core::analysis::gputime;

double us(core::TimePs ps)
{
    return double(ps) / 1e6;
}

struct WhatIf
{
    SpeedUp speedUp;
    CriticalPath path;
};

void writeJson(const core::Trace &trace, const CriticalPathGraph &graph, const CriticalPath &p,
               const std::optional<WhatIf> &whatIf, int64_t rank)
{
    JsonOut j;
    j.beginObject()
        .value("framework", "pytorch")
        .value("rank", rank)
        .value("window", graph.window.name)
        .value("window_start_us", us(graph.window.start - trace.begin))
        .value("window_us", us(graph.window.end - graph.window.start))
        .value("sync_events", graph.syncEvents)
        .value("length_us", us(p.length))
        .value("cpu_us", us(p.cpu))
        .value("gpu_us", us(p.gpu))
        .value("launch_us", us(p.launch))
        .value("wait_us", us(p.wait))
        .value("sync_us", us(p.sync))
        .value("cpu_pct", p.percentOf(p.cpu))
        .value("gpu_pct", p.percentOf(p.gpu))
        .value("launch_pct", p.percentOf(p.launch))
        .value("wait_pct", p.percentOf(p.wait))
        .value("sync_pct", p.percentOf(p.sync))
        .value("kernel_kernel_threshold_us", kKernelKernelDelayThresholdUs)
        .beginArray("segments");
    for (const PathSegment &s : p.segments) {
        j.beginObject()
            .value("name", s.name)
            .value("kind", s.kind)
            .value("bound_by", s.boundBy)
            .value("start_us", us(s.start - trace.begin))
            .value("dur_us", us(s.weight))
            .endObject();
    }
    j.endArray();
    if (whatIf) {
        j.beginObject("what_if")
            .value("name", whatIf->speedUp.name)
            .value("factor", whatIf->speedUp.factor)
            .value("events", int64_t(whatIf->path.affectedEvents))
            .value("length_us", us(whatIf->path.length))
            .value("change_us", us(whatIf->path.length - p.length))
            .endObject();
    }
    j.endObject();
    std::printf("%s\n", j.text().c_str());
}

void writeText(const CriticalPathGraph &graph, const CriticalPath &p,
               const std::optional<WhatIf> &whatIf)
{
    std::printf("Critical path (%s), by HolisticTraceAnalysis's lightweight rules.\n",
                graph.window.name.c_str());
    if (!graph.syncEvents)
        std::printf(
            "The trace recorded no CUDA synchronisation events: waits of the CPU on the GPU "
            "are not seen: blocking calls keep their time as 'sync' segments.\n");
    std::printf("\nLength %.1f us of a %.1f us window: CPU %.1f%%, GPU %.1f%%, launch %.1f%%, "
                "kernel-to-kernel wait %.1f%%, blocked on the GPU (sync not recorded) %.1f%%\n",
                us(p.length), us(graph.window.end - graph.window.start), p.percentOf(p.cpu),
                p.percentOf(p.gpu), p.percentOf(p.launch), p.percentOf(p.wait),
                p.percentOf(p.sync));
    std::vector<const PathSegment *> longest;
    for (const PathSegment &s : p.segments)
        longest.push_back(&s);
    std::stable_sort(longest.begin(), longest.end(),
                     [](const auto *a, const auto *b) { return a->weight > b->weight; });
    std::printf("\nLongest segments (%zu in all):\n", p.segments.size());
    for (size_t i = 0; i < longest.size() && i < 15; ++i)
        std::printf("  %12.1f us  %-6s  %s\n", us(longest[i]->weight), longest[i]->kind.c_str(),
                    longest[i]->name.c_str());
    if (whatIf) {
        std::printf("\nWhat if %s were %gx faster (%zu events): %.1f us (%+.1f us)\n",
                    whatIf->speedUp.name.c_str(), whatIf->speedUp.factor,
                    whatIf->path.affectedEvents, us(whatIf->path.length),
                    us(whatIf->path.length - p.length));
    }
}

bool parseSpeedUp(const std::string &text, SpeedUp *out)
{
    const size_t eq = text.rfind('=');
    if (eq == std::string::npos || eq == 0)
        return false;
    char *end = nullptr;
    const std::string factor = text.substr(eq + 1);
    const double f = std::strtod(factor.c_str(), &end);
    if (factor.empty() || *end != '\0' || !(f > 0) || f > 1e9)
        return false;
    out->name = text.substr(0, eq);
    out->factor = f;
    return true;
}

} // namespace

int runCriticalPath(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {
        {"json", false},      {"rank", true},      {"step", true},
        {"annotation", true}, {"instance", true},  {"speedup", true},
        {"run", true},        {"no-cache", false}, {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("critical-path: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kCriticalPathUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("critical-path: expected exactly one FILE or DIR", kExitUsage);
    unsigned long long step = 0;
    unsigned long long instance = 0;
    if (args.has("step") && !parseCount(args.value("step"), &step))
        return fail("critical-path: --step takes a step number, e.g. --step 6", kExitUsage);
    if (args.has("instance") && !parseCount(args.value("instance"), &instance))
        return fail("critical-path: --instance takes a number, e.g. --instance 1", kExitUsage);
    if (args.has("step") && args.has("annotation"))
        return fail("critical-path: give --step or --annotation, not both", kExitUsage);
    std::optional<WhatIf> whatIf;
    if (args.has("speedup")) {
        whatIf.emplace();
        if (!parseSpeedUp(args.value("speedup"), &whatIf->speedUp))
            return fail("critical-path: --speedup takes NAME=FACTOR with a factor above 0, e.g. "
                        "--speedup aten::addmm=2",
                        kExitUsage);
    }
    const bool json = args.has("json");
    auto trace = core::loadTrace(args.positional.front(), nullptr, loadOptionsFrom(args));
    if (!trace)
        return fail(trace.message());
    if (!core::analysis::hasGpuActivityRoles(*trace.value()))
        return fail("critical-path: " + args.positional.front() +
                    " has no GPU kernels with their launches; the critical path reads PyTorch "
                    "profiler traces");
    auto cache = std::make_shared<core::analysis::AnalysisCache>(trace.value());
    int code = kExitError;
    const auto ranked = pytorchRankAnalyses(cache, "critical-path", rankOption(args), json, &code);
    if (!ranked)
        return code;
    const core::Trace &t = ranked->trace();
    const auto index = core::analysis::pytorch::kinetoIndex(*ranked);
    std::optional<TimeWindow> window;
    if (args.has("step")) {
        window = stepWindow(*ranked, *index, int64_t(step));
        if (!window)
            return fail("critical-path: " + args.positional.front() + " has no ProfilerStep#" +
                        std::to_string(step) + ", numbered step range " + std::to_string(step)
                        + " nor XProf step " + std::to_string(step));
    } else if (args.has("annotation")) {
        window = annotationWindow(t, *index, args.value("annotation"), size_t(instance));
        if (!window)
            return fail("critical-path: " + args.positional.front() + " has no instance " +
                        std::to_string(instance) + " of an operator or annotation named like '" +
                        args.value("annotation") + "'");
    }
    const CriticalPathGraph graph = buildCriticalPathGraph(t, *index, window);
    const CriticalPath path = criticalPath(t, graph);
    if (!path.error.empty())
        return fail("critical-path: " + args.positional.front() + ": " + path.error);
    if (graph.events.empty())
        return fail("critical-path: " + args.positional.front() +
                    " has no operators, calls or "
                    "kernels in " +
                    graph.window.name);
    if (whatIf) {
        whatIf->path = criticalPath(t, graph, {whatIf->speedUp});
        if (whatIf->path.affectedEvents == 0)
            return fail("critical-path: no operator or kernel named '" + whatIf->speedUp.name +
                        "' in " + graph.window.name);
    }
    if (json)
        writeJson(t, graph, path, whatIf,
                  index->scope.wholeTrace ? 0 : int64_t(index->scope.section));
    else
        writeText(graph, path, whatIf);
    return kExitOk;
}

} // namespace tracedesk::cli
