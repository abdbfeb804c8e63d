// hlo-graph: the HLO graph around one op, as the Graph Viewer draws it, written as DOT, SVG or
// JSON (nodes and edges) for other tools.

#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/analysis/hlodot.h"
#include "core/analysis/hlograph.h"
#include "core/analysis/hlostats.h"
#include "core/graph/graphvizlayout.h"
#include "core/io/traceloader.h"

#include <cstdio>
#include <map>

namespace tracedesk::cli {

using namespace core::analysis;

const char *const kHloGraphUsage =
    "  hlo-graph FILE --op NAME [--program ID] [--depth N] [--expand-fusions]\n"
    "            [--format dot|svg|json]\n"
    "      The HLO graph around op NAME (default depth 2: operands and users two edges\n"
    "      away), from the HLO modules the profile embeds; --program picks the module when\n"
    "      several hold an op of that name (default: the first). Nodes are filled by their\n"
    "      share of the device's op self time. dot (default) and svg are Graphviz's.";

int runHloGraph(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2,
                   {{"help", false}, {"op", true}, {"program", true}, {"depth", true},
                    {"expand-fusions", false}, {"format", true}},
                   &args, &error))
        return fail("hlo-graph: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kHloGraphUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1 || !args.has("op"))
        return fail("hlo-graph: expected FILE and --op NAME (try hlo-graph --help)", kExitUsage);
    const std::string format = args.value("format", "dot");
    if (format != "dot" && format != "svg" && format != "json")
        return fail("hlo-graph: --format must be dot, svg or json", kExitUsage);
    HloGraphOptions options;
    unsigned long long n = 0;
    if (args.has("depth")) {
        if (!parseCount(args.value("depth"), &n) || n > 64)
            return fail("hlo-graph: --depth must be a whole number up to 64", kExitUsage);
        options.depth = int(n);
    }
    unsigned long long program = 0;
    if (args.has("program") && !parseCount(args.value("program"), &program))
        return fail("hlo-graph: --program must be a program id", kExitUsage);
    options.expandFusions = args.has("expand-fusions");

    auto trace = core::loadTrace(args.positional.front());
    if (!trace)
        return fail(trace.message());
    AnalysisCache cache(trace.value());
    const auto modules = traceHloModules(cache);
    auto graph = hloNeighbourhood(*modules->index, program, args.value("op"), options);
    if (!graph)
        return fail(args.positional.front() + ": " + graph.message());
    const std::map<std::string, double> share =
        hloTimeShares(*hloStats(cache), graph.value().module);
    const std::string dot = hloGraphDot(graph.value(), share);
    if (format == "dot") {
        std::fputs(dot.c_str(), stdout);
        return kExitOk;
    }
    if (format == "svg") {
        auto svg = core::graph::renderDot(dot, "svg");
        if (!svg)
            return fail("hlo-graph: " + svg.message());
        std::fputs(svg.value().c_str(), stdout);
        return kExitOk;
    }
    const HloGraph &g = graph.value();
    JsonOut j;
    j.beginObject();
    j.value("module", g.module).value("computation", g.computation);
    j.value("truncated", g.truncated);
    j.beginArray("nodes");
    for (const HloGraphNode &node : g.nodes) {
        const auto s = share.find(node.name);
        j.beginObject();
        j.value("name", node.name).value("opcode", node.opcode).value("shape", node.shape);
        j.value("category", node.category).value("source", node.source);
        j.value("fusion", node.fusion).value("distance", node.distance);
        j.value("is_op", node.isCentre);
        j.value("time_share", s == share.end() ? 0.0 : s->second);
        j.endObject();
    }
    j.endArray().beginArray("edges");
    for (const HloGraphEdge &e : g.edges) {
        j.beginObject();
        j.value("from", g.nodes[e.from].name).value("to", g.nodes[e.to].name);
        j.value("shape", e.shape);
        j.endObject();
    }
    j.endArray().endObject();
    std::printf("%s\n", j.text().c_str());
    return kExitOk;
}

} // namespace tracedesk::cli
