#include "core/analysis/opprofile.h"

#include <algorithm>
#include <map>

namespace tracedesk::core::analysis {

namespace {

using Node = OpProfileNode;

const std::string kMainProgram = "main";

struct Peaks
{
    double gflops = 0;
    double hbmGBs = 0;
};

void computeRates(OpProfileMetrics &m, TimePs rootTime, const Peaks &peaks)
{
    const double ns = double(m.timePs) / 1000.0;
    m.timeFraction = rootTime > 0 ? double(m.timePs) / double(rootTime) : 0.0;
    m.gflopsPerSecond = ns > 0 ? m.flops / ns : 0.0;
    m.gigabytesPerSecond = ns > 0 ? m.bytesAccessed / ns : 0.0;
    m.flopsUtilization = peaks.gflops > 0 ? m.gflopsPerSecond / peaks.gflops : 0.0;
    m.hbmUtilization = peaks.hbmGBs > 0 ? std::min(1.0, m.gigabytesPerSecond / peaks.hbmGBs)
                                        : 0.0;
    m.wastedFraction = m.timeFraction
                       * (1.0 - std::max(std::min(1.0, m.flopsUtilization), m.hbmUtilization));
}

Node opNode(const OpMetrics &op)
{
    Node n;
    n.type = Node::Type::Op;
    n.name = op.name;
    n.category = op.category;
    n.expression = op.longName;
    n.provenance = op.provenance;
    n.layout = op.layout;
    n.deduplicatedName = op.deduplicatedName;
    n.programId = op.hloModuleId;
    n.isIdle = op.isIdle();
    n.metrics.timePs = op.timePs;
    n.metrics.selfTimePs = op.selfTimePs;
    n.metrics.occurrences = op.occurrences;
    n.metrics.flops = op.modelFlops > 0 ? op.modelFlops : op.flops;
    n.metrics.bytesAccessed = op.bytesAccessed;
    for (const OpMetrics &child : op.children) {
        Node c = opNode(child);
        c.type = Node::Type::FusionChild;
        n.children.push_back(std::move(c));
    }
    return n;
}

// Sums children into a group node (fusion children carry no time of their own).
void sumChildren(Node &n)
{
    if (n.type == Node::Type::Op || n.type == Node::Type::FusionChild)
        return;
    OpProfileMetrics sum;
    for (Node &c : n.children) {
        sumChildren(c);
        sum.timePs += c.metrics.timePs;
        sum.selfTimePs += c.metrics.selfTimePs;
        sum.occurrences += c.metrics.occurrences;
        sum.flops += c.metrics.flops;
        sum.bytesAccessed += c.metrics.bytesAccessed;
    }
    n.metrics = sum;
}

void finishTree(Node &n, TimePs rootTime, const Peaks &peaks, const OpProfileOptions &o)
{
    computeRates(n.metrics, rootTime, peaks);
    for (Node &c : n.children)
        finishTree(c, rootTime, peaks, o);
    n.numChildren = int(n.children.size());
    const bool byWaste = o.sort == OpProfileSort::WastedTime;
    std::stable_sort(n.children.begin(), n.children.end(), [&](const Node &a, const Node &b) {
        if (a.type == Node::Type::FusionChild)
            return a.metrics.flops > b.metrics.flops;
        return byWaste ? a.metrics.wastedFraction > b.metrics.wastedFraction
                       : a.metrics.timePs > b.metrics.timePs;
    });
    if (o.maxChildren > 0 && int(n.children.size()) > o.maxChildren)
        n.children.resize(size_t(o.maxChildren));
}

// Groups ops sharing a deduplicated name under one node, inside one category.
std::vector<Node> withDuplicates(std::vector<const OpMetrics *> ops)
{
    std::map<std::string, std::vector<const OpMetrics *>> byDedup;
    std::vector<Node> out;
    for (const OpMetrics *op : ops) {
        if (op->deduplicatedName.empty())
            out.push_back(opNode(*op));
        else
            byDedup[op->deduplicatedName].push_back(op);
    }
    for (auto &[name, members] : byDedup) {
        if (members.size() == 1) {
            out.push_back(opNode(*members.front()));
            continue;
        }
        Node group;
        group.type = Node::Type::Duplicates;
        group.name = name + " and its duplicate(s)";
        for (const OpMetrics *op : members)
            group.children.push_back(opNode(*op));
        out.push_back(std::move(group));
    }
    return out;
}

std::vector<Node> byCategory(const std::vector<const OpMetrics *> &ops)
{
    std::map<std::string, std::vector<const OpMetrics *>> groups;
    for (const OpMetrics *op : ops)
        groups[op->category].push_back(op);
    std::vector<Node> out;
    for (auto &[category, members] : groups) {
        Node n;
        n.type = Node::Type::Category;
        n.name = category.empty() ? std::string("unknown") : category;
        n.children = withDuplicates(members);
        out.push_back(std::move(n));
    }
    return out;
}

} // namespace

OpProfile buildOpProfile(const OpMetricsDb &db, const PerfEnv &env, const OpProfileOptions &options,
                         const std::string &deviceType)
{
    OpProfile profile;
    profile.deviceType = deviceType;
    profile.peakGigaFlopsPerSecond = env.peakTeraFlopsPerSecond * 1000.0;
    profile.peakHbmGigaBytesPerSecond = env.peakHbmBwGigaBytesPerSecond;
    std::vector<const OpMetrics *> ops;
    for (const OpMetrics &op : db.metrics) {
        if (op.isIdle() && !options.includeIdle)
            continue;
        // Region computations are bodies of other ops, not ops of their own.
        if (op.name.starts_with("region"))
            continue;
        ops.push_back(&op);
    }
    Node &root = profile.root;
    root.type = Node::Type::Root;
    root.name = "All";
    switch (options.grouping) {
    case OpProfileGrouping::ByCategory:
        root.children = byCategory(ops);
        break;
    case OpProfileGrouping::ByProgram: {
        std::map<std::pair<std::string, int64_t>, std::vector<const OpMetrics *>> programs;
        for (const OpMetrics *op : ops) {
            if (op->isIdle()) {
                root.children.push_back(opNode(*op));
                continue;
            }
            const std::string &name = op->hloModule.empty() ? kMainProgram : op->hloModule;
            programs[{name, op->hloModuleId}].push_back(op);
        }
        for (auto &[key, members] : programs) {
            Node n;
            n.type = Node::Type::Program;
            n.programId = key.second;
            // Program ids are uint64 on the wire.
            n.name = key.second == 0 ? key.first
                                     : key.first + "(" + std::to_string(uint64_t(key.second)) + ")";
            n.children = byCategory(members);
            root.children.push_back(std::move(n));
        }
        break;
    }
    case OpProfileGrouping::ByProvenance: {
        std::map<std::string, std::vector<const OpMetrics *>> groups;
        for (const OpMetrics *op : ops)
            groups[op->provenance.empty() ? op->name : op->provenance].push_back(op);
        for (auto &[name, members] : groups) {
            Node n;
            n.type = Node::Type::Provenance;
            n.name = name;
            for (const OpMetrics *op : members)
                n.children.push_back(opNode(*op));
            root.children.push_back(std::move(n));
        }
        break;
    }
    }
    sumChildren(root);
    finishTree(root, root.metrics.timePs, {profile.peakGigaFlopsPerSecond,
                                           profile.peakHbmGigaBytesPerSecond}, options);
    return profile;
}

OpProfile buildOpProfile(AnalysisCache &cache, const OpProfileOptions &options)
{
    const auto stats = opStats(cache);
    return buildOpProfile(stats->device, stats->perfEnv, options,
                          stats->runEnvironment.deviceType);
}

} // namespace tracedesk::core::analysis
