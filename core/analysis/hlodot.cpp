// DOT text of an HLO neighbourhood; rules in hlodot.h.

#include "core/analysis/hlodot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tracedesk::core::analysis {

namespace {

// A DOT double-quoted string: quotes and backslashes escaped, newlines as DOT line breaks.
std::string quoted(std::string_view text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string elided(const std::string &text, size_t max)
{
    return text.size() <= max ? text : text.substr(0, max - 3) + "...";
}

} // namespace

std::map<std::string, double> hloTimeShares(const HloStats &stats, const std::string &module)
{
    double total = 0;
    for (const HloStatsRow &r : stats.rows)
        total += r.totalSelfTimeUs;
    std::map<std::string, double> out;
    if (total <= 0)
        return out;
    for (const HloStatsRow &r : stats.rows) {
        if (module.ends_with("(" + r.programId + ")"))
            out[r.hloOpName] += r.totalSelfTimeUs / total;
    }
    return out;
}

std::string hloShareColour(double share)
{
    // Square root: a few percent of the time is already visible.
    const double s = std::sqrt(std::clamp(share, 0.0, 1.0));
    auto mix = [&](int to) { return int(std::lround(255 + (to - 255) * s)); };
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", mix(0xd6), mix(0x27), mix(0x28));
    return buf;
}

std::string hloGraphDot(const HloGraph &graph, const std::map<std::string, double> &timeShare)
{
    std::string dot = "digraph " + quoted(graph.module) + " {\n";
    dot += "  rankdir=TB;\n  nodesep=0.25;\n  ranksep=0.45;\n";
    dot += "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", "
           "fontsize=10, margin=\"0.12,0.05\"];\n";
    dot += "  edge [fontname=\"DejaVu Sans\", fontsize=8, color=\"#666666\"];\n";
    auto node = [&](size_t i) {
        const HloGraphNode &n = graph.nodes[i];
        const auto share = timeShare.find(n.name);
        const double s = share == timeShare.end() ? 0.0 : share->second;
        std::string label = n.name + "\n" + n.opcode + "  " + elided(n.shape, 48);
        if (s > 0) {
            char pct[32];
            std::snprintf(pct, sizeof pct, "\n%.1f %% of op time", 100.0 * s);
            label += pct;
        }
        std::string line = "  n" + std::to_string(i) + " [label=" + quoted(label)
                           + ", fillcolor=" + quoted(hloShareColour(s))
                           + ", tooltip=" + quoted(n.shape);
        if (n.isCentre)
            line += ", penwidth=3, color=\"#1f77b4\"";
        return line + "];\n";
    };
    std::map<std::string, std::vector<size_t>> members;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].fusion.empty())
            dot += node(i);
        else
            members[graph.nodes[i].fusion].push_back(i);
    }
    size_t cluster = 0;
    for (const auto &[fusion, nodes] : members) {
        dot += "  subgraph cluster_" + std::to_string(cluster++) + " {\n";
        dot += "    label=" + quoted(fusion) + ";\n    style=dashed;\n    color=\"#888888\";\n";
        for (size_t i : nodes)
            dot += "  " + node(i);
        dot += "  }\n";
    }
    for (const HloGraphEdge &e : graph.edges) {
        dot += "  n" + std::to_string(e.from) + " -> n" + std::to_string(e.to)
               + " [label=" + quoted(elided(e.shape, 32)) + "];\n";
    }
    return dot + "}\n";
}

} // namespace tracedesk::core::analysis
