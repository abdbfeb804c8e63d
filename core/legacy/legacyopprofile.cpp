// The JSON form of op_profile.Profile written by older plugins (`<host>.op_profile.json`):
// camelCase keys, metrics as fractions of the root's time ("time") and utilisations scaled by
// that fraction ("flops", "memoryBandwidth"), as the old UI expected.
#include "core/legacy/legacytools.h"

#include <simdjson.h>

#include <algorithm>
#include <string>

namespace tracedesk::core::legacy {

using namespace analysis;

namespace {

// The old tree is at most a handful of levels deep; the bound only stops hostile input.
constexpr int kMaxDepth = 64;

std::string stringField(simdjson::dom::object o, std::string_view key)
{
    std::string_view v;
    return o[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

double numberField(simdjson::dom::object o, std::string_view key)
{
    simdjson::dom::element e;
    if (o[key].get(e) != simdjson::SUCCESS)
        return 0;
    double d = 0;
    if (e.get(d) == simdjson::SUCCESS)
        return d;
    int64_t i = 0;
    if (e.get(i) == simdjson::SUCCESS)
        return double(i);
    // proto3 JSON writes 64-bit integers as strings.
    std::string_view s;
    if (e.get(s) == simdjson::SUCCESS) {
        try {
            return std::stod(std::string(s));
        } catch (...) {
            return 0;
        }
    }
    return 0;
}

bool readNode(simdjson::dom::object o, OpProfileNode &out, OpProfileNode::Type type, int depth,
              std::string *problem)
{
    if (depth > kMaxDepth) {
        *problem = "op profile tree is nested deeper than " + std::to_string(kMaxDepth);
        return false;
    }
    out.type = type;
    out.name = stringField(o, "name");
    simdjson::dom::object metrics;
    if (o["metrics"].get(metrics) == simdjson::SUCCESS) {
        OpProfileMetrics &m = out.metrics;
        m.timeFraction = numberField(metrics, "time");
        const double flops = numberField(metrics, "flops");
        const double bandwidth = numberField(metrics, "memoryBandwidth");
        m.flopsUtilization = m.timeFraction > 0 ? flops / m.timeFraction : 0;
        m.hbmUtilization = m.timeFraction > 0 ? bandwidth / m.timeFraction : 0;
        m.timePs = TimePs(numberField(metrics, "rawTime"));
        m.flops = numberField(metrics, "rawFlops");
        m.occurrences = int64_t(numberField(metrics, "occurrences"));
        m.wastedFraction = m.timeFraction
                           * (1 - std::max(std::min(1.0, m.flopsUtilization), m.hbmUtilization));
    }
    simdjson::dom::object xla;
    if (o["xla"].get(xla) == simdjson::SUCCESS) {
        out.type = OpProfileNode::Type::Op;
        out.category = stringField(xla, "category");
        out.expression = stringField(xla, "expression");
        out.provenance = stringField(xla, "provenance");
    }
    simdjson::dom::array children;
    if (o["children"].get(children) == simdjson::SUCCESS) {
        for (simdjson::dom::element c : children) {
            simdjson::dom::object child;
            if (c.get(child) != simdjson::SUCCESS) {
                *problem = "a child of node '" + out.name + "' is not an object";
                return false;
            }
            OpProfileNode node;
            const auto childType = type == OpProfileNode::Type::Root
                                       ? OpProfileNode::Type::Category
                                       : OpProfileNode::Type::FusionChild;
            if (!readNode(child, node, childType, depth + 1, problem))
                return false;
            out.children.push_back(std::move(node));
        }
    }
    out.numChildren = int(numberField(o, "numChildren"));
    if (out.numChildren == 0)
        out.numChildren = int(out.children.size());
    return true;
}

} // namespace

Result<OpProfile> readOpProfileJsonFile(const std::string &path)
{
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (auto error = parser.load(path).get(doc); error != simdjson::SUCCESS)
        return fileError(path, std::string("is not valid JSON (") + simdjson::error_message(error)
                                   + ")");
    simdjson::dom::object top;
    if (doc.get(top) != simdjson::SUCCESS)
        return fileError(path, "is not an op profile: the top level is not a JSON object");
    OpProfile profile;
    profile.deviceType = stringField(top, "deviceType");
    // by_program first, as the panel's default grouping.
    for (const char *key : {"byProgram", "byCategory", "byProvenance"}) {
        simdjson::dom::object root;
        if (top[key].get(root) != simdjson::SUCCESS)
            continue;
        std::string problem;
        if (!readNode(root, profile.root, OpProfileNode::Type::Root, 0, &problem))
            return fileError(path, problem);
        return profile;
    }
    return fileError(path, "is not an op profile: no byProgram, byCategory or byProvenance tree");
}

} // namespace tracedesk::core::legacy
