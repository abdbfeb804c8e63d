#include "core/analysis/pytorch/operatortree.h"

#include "core/analysis/kernels/kernelclasses.h"

#include <algorithm>
#include <iterator>

namespace tracedesk::core::analysis::pytorch {

namespace {

constexpr std::string_view kTensorCoreEligibleOps[] = {
    "aten::_convolution",
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::conv_tbc",
    "aten::conv_transpose1d",
    "aten::conv_transpose2d",
    "aten::conv_transpose3d",
    "aten::convolution",
    "aten::cudnn_convolution",
    "aten::cudnn_convolution_transpose",
    "aten::prelu",
    "aten::addmm",
    "aten::addmv",
    "aten::addr",
    "aten::matmul",
    "aten::mm",
    "aten::mv",
    "aten::linear",
    "aten::addbmm",
    "aten::baddbmm",
    "aten::bmm",
    "aten::chain_matmul",
    "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell",
    "aten::_thnn_fused_gru_cell",
    "aten::lstm_cell",
    "aten::gru_cell",
    "aten::rnn_tanh_cell",
    "aten::rnn_relu_cell",
    "CudnnConvolutionBackward",
    "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward",
    "CudnnConvolutionTransposeBackward",
    "MmBackward",
    "aten::cudnn_convolution_backward_weight",
    "aten::addmm_",
    "AddmvBackward",
    "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward",
    "aten::cudnn_convolution_backward_input",
    "AddbmmBackward",
    "aten::cudnn_convolution_backward"};

constexpr std::string_view kCollectiveOps[] = {"broadcast", "reduce", "all_reduce", "all_gather",
                                               "reduce_scatter"};

bool isCollectiveName(std::string_view name)
{
    for (std::string_view prefix : {std::string_view("nccl:"), std::string_view("gloo:")}) {
        if (name.starts_with(prefix)) {
            const std::string_view op = name.substr(prefix.size());
            return std::find(std::begin(kCollectiveOps), std::end(kCollectiveOps), op) !=
                   std::end(kCollectiveOps);
        }
    }
    return false;
}

TimePs overlap(TimePs aStart, TimePs aEnd, TimePs bStart, TimePs bEnd)
{
    return std::max<TimePs>(0, std::min(aEnd, bEnd) - std::max(aStart, bStart));
}

} // namespace

bool usesTensorCores(std::string_view kernelName)
{
    return usesTensorOrMatrixCores(kernelName);
}

bool isTensorCoreEligibleOpName(std::string_view opName)
{
    return std::find(std::begin(kTensorCoreEligibleOps), std::end(kTensorCoreEligibleOps),
                     opName) != std::end(kTensorCoreEligibleOps);
}

OpNodeClass classifyNode(SliceRole role, std::string_view name)
{
    if (role != SliceRole::CpuOp && role != SliceRole::UserAnnotation)
        return OpNodeClass::Root;
    if (isProfilerStepName(name))
        return OpNodeClass::ProfilerStep;
    if ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
        name.starts_with("enumerate(DataPipe)#"))
        return OpNodeClass::DataLoader;
    if (name.starts_with("Optimizer.step"))
        return OpNodeClass::Optimizer;
    if (role == SliceRole::CpuOp)
        return OpNodeClass::Operator;
    return isCollectiveName(name) ? OpNodeClass::Collective : OpNodeClass::Root;
}

const char *launchRuleName(LaunchRule rule)
{
    static const char *const names[kLaunchRuleCount] = {
        "External id", "enclosing operator", "enclosing annotation / Python", "no enclosing op"};
    return int(rule) < kLaunchRuleCount ? names[int(rule)] : "";
}

uint32_t OperatorTree::nodeOfActivity(uint32_t activity) const
{
    const uint32_t runtime = index->activities[activity].runtime;
    if (runtime != kNoIndex)
        return nodeOfRuntime[runtime];
    return orphanRoot;
}

std::string_view OperatorTree::nodeName(const Trace &trace, uint32_t node) const
{
    return nodes[node].nodeClass == OpNodeClass::Root ? kCallTreeRootName
                                                      : trace.string(nodes[node].name);
}

namespace {

// Parents before children: nest each thread's nodes with a stack of open nodes.
void nestThread(const Trace &trace, OperatorTree &tree, uint32_t threadIndex,
                const std::vector<char> &annotationTarget)
{
    const KinetoIndex &index = *tree.index;
    const KinetoThread &thread = index.threads[threadIndex];
    const auto rootIndex = uint32_t(tree.nodes.size());
    tree.roots[threadIndex] = rootIndex;
    OpNode root;
    root.thread = threadIndex;
    tree.nodes.push_back(root);

    std::vector<uint32_t> stack{rootIndex};
    for (uint32_t n = thread.nodeBegin; n < thread.nodeEnd; ++n) {
        const KinetoNode &k = index.nodes[n];
        const EventKind &kind = trace.kind(k.ref);
        OpNodeClass nodeClass = classifyNode(k.role, trace.string(kind.name));
        if (nodeClass == OpNodeClass::Root && annotationTarget[n])
            nodeClass = OpNodeClass::Annotation;
        if (nodeClass == OpNodeClass::Root)
            continue;
        while (stack.size() > 1 && k.start >= tree.nodes[stack.back()].end)
            stack.pop_back();
        OpNode node;
        node.indexNode = n;
        node.thread = threadIndex;
        node.parent = stack.back();
        node.name = kind.name;
        node.nodeClass = nodeClass;
        node.role = k.role;
        node.start = k.start;
        node.end = k.end;
        node.overflow = stack.size() > 1 && k.end > tree.nodes[stack.back()].end;
        tree.overflowCount += node.overflow ? 1 : 0;
        const auto id = uint32_t(tree.nodes.size());
        tree.nodes[stack.back()].children.push_back(id);
        tree.nodeOfIndexNode[n] = id;
        tree.nodes.push_back(std::move(node));
        stack.push_back(id);
    }
}

// The nodes a launch the External id rule leaves unattached falls back to (kinetoindex nodes).
struct Enclosing
{
    uint32_t op = kNoIndex;         // innermost enclosing CpuOp of class Operator
    uint32_t annotation = kNoIndex; // innermost enclosing annotation or Python frame
};

bool isAnnotationRole(SliceRole role)
{
    return role == SliceRole::UserAnnotation || role == SliceRole::PythonFunction ||
           role == SliceRole::CpuOp;
}

// One sweep per thread: nodes come parent-first, runtimes by start, so a stack of the nodes
// open at each launch holds its ancestors; the walk down from the top meets the innermost first.
void findEnclosing(const Trace &trace, const KinetoIndex &index, uint32_t threadIndex,
                   const std::vector<char> &wanted, std::vector<Enclosing> &out)
{
    const KinetoThread &thread = index.threads[threadIndex];
    std::vector<uint32_t> stack;
    uint32_t next = thread.nodeBegin;
    for (uint32_t r = thread.runtimeBegin; r < thread.runtimeEnd; ++r) {
        if (!wanted[r])
            continue;
        const KinetoRuntime &rt = index.runtimes[r];
        for (; next < thread.nodeEnd && index.nodes[next].start <= rt.start; ++next) {
            while (!stack.empty() && index.nodes[stack.back()].end <= index.nodes[next].start)
                stack.pop_back();
            stack.push_back(next);
        }
        while (!stack.empty() && index.nodes[stack.back()].end <= rt.start)
            stack.pop_back();
        Enclosing e;
        for (size_t i = stack.size(); i-- > 0;) {
            const KinetoNode &node = index.nodes[stack[i]];
            if (node.start > rt.start || node.end < rt.end)
                continue; // an ill-nested neighbour, not an ancestor
            const OpNodeClass c = classifyNode(node.role, trace.name(node.ref));
            if (c == OpNodeClass::Operator) {
                e.op = stack[i];
                break;
            }
            if (e.annotation == kNoIndex && isAnnotationRole(node.role))
                e.annotation = stack[i];
        }
        out[r] = e;
    }
}

// Whether the External id rule attaches runtime r: its id names a node that is a tree node.
bool attachedByExternalId(const Trace &trace, const KinetoIndex &index, uint32_t r)
{
    const int64_t id = index.runtimes[r].externalId;
    if (id == kNoValue)
        return false;
    for (uint32_t n : index.nodesForExternalId(id)) {
        const KinetoNode &node = index.nodes[n];
        if (classifyNode(node.role, trace.name(node.ref)) != OpNodeClass::Root)
            return true;
    }
    return false;
}

void collapseDuplicates(const Trace &trace, OperatorTree &tree)
{
    for (uint32_t id = 0; id < tree.nodes.size(); ++id) {
        if (tree.nodes[id].mergedInto != kNoIndex || tree.nodes[id].role != SliceRole::CpuOp)
            continue;
        for (;;) {
            OpNode &node = tree.nodes[id];
            if (node.children.size() != 1)
                break;
            const uint32_t childId = node.children.front();
            OpNode &child = tree.nodes[childId];
            if (child.role != SliceRole::CpuOp || child.name != node.name)
                break;
            child.mergedInto = id;
            node.children = std::move(child.children);
            child.children.clear();
            for (uint32_t c : node.children)
                tree.nodes[c].parent = id;
            node.runtimes.insert(node.runtimes.end(), child.runtimes.begin(), child.runtimes.end());
            child.runtimes.clear();
            ++tree.collapsedCount;
        }
    }
    for (uint32_t &n : tree.nodeOfIndexNode) {
        while (n != kNoIndex && tree.nodes[n].mergedInto != kNoIndex)
            n = tree.nodes[n].mergedInto;
    }
    (void)trace;
}

void computeTimes(const Trace &trace, OperatorTree &tree)
{
    const KinetoIndex &index = *tree.index;
    KernelClasses classes(trace);
    // Adds an activity's time; true when it is a tensor-core kernel.
    auto activityTimes = [&](uint32_t a, TimePs &device, TimePs &tensorCore) {
        const KinetoActivity &act = index.activities[a];
        const TimePs d = act.end - act.start;
        device += d;
        const bool tc = act.role == SliceRole::Kernel && classes.of(act.ref).tensorCore;
        tensorCore += tc ? d : 0;
        return tc;
    };
    for (uint32_t id = uint32_t(tree.nodes.size()); id-- > 0;) {
        OpNode &node = tree.nodes[id];
        if (node.mergedInto != kNoIndex)
            continue;
        const bool root = node.nodeClass == OpNodeClass::Root;
        if (root) {
            // A root spans what it holds.
            bool any = false;
            auto widen = [&](TimePs s, TimePs e) {
                node.start = any ? std::min(node.start, s) : s;
                node.end = any ? std::max(node.end, e) : e;
                any = true;
            };
            for (uint32_t c : node.children)
                widen(tree.nodes[c].start, tree.nodes[c].end);
            for (uint32_t r : node.runtimes) {
                if (index.runtimes[r].thread == node.thread)
                    widen(index.runtimes[r].start, index.runtimes[r].end);
            }
        }
        node.hostTotal = node.end - node.start;
        TimePs childHost = 0;
        bool childEligible = false;
        for (uint32_t c : node.children) {
            const OpNode &child = tree.nodes[c];
            childHost += overlap(child.start, child.end, node.start, node.end);
            node.deviceTotal += child.deviceTotal;
            node.tensorCoreTotal += child.tensorCoreTotal;
            childEligible = childEligible || child.tensorCoreEligible;
        }
        TimePs runtimeHost = 0;
        bool launchedTensorCore = false;
        for (uint32_t r : node.runtimes) {
            const KinetoRuntime &rt = index.runtimes[r];
            if (rt.thread == node.thread)
                runtimeHost += overlap(rt.start, rt.end, node.start, node.end);
            for (uint32_t a : index.activitiesOf(r))
                launchedTensorCore =
                    activityTimes(a, node.deviceSelf, node.tensorCoreSelf) || launchedTensorCore;
        }
        if (id == tree.orphanRoot) {
            for (uint32_t a : tree.orphanActivities)
                activityTimes(a, node.deviceSelf, node.tensorCoreSelf);
        }
        node.hostSelf = std::max<TimePs>(0, node.hostTotal - childHost - runtimeHost);
        node.deviceTotal += node.deviceSelf;
        node.tensorCoreTotal += node.tensorCoreSelf;
        if (!root) {
            node.tensorCoreEligible = isTensorCoreEligibleOpName(trace.string(node.name)) ||
                                      (node.role == SliceRole::CpuOp && childEligible) ||
                                      launchedTensorCore;
            node.isOperator =
                node.nodeClass == OpNodeClass::Operator && node.role == SliceRole::CpuOp;
            if (node.isOperator) {
                const std::string_view name = trace.string(node.name);
                node.isOperator = name != "DataParallel.forward" &&
                                  name != "DistributedDataParallel.forward" &&
                                  !name.starts_with("Optimizer.");
            }
        }
    }
}

} // namespace

OperatorTree buildOperatorTree(const Trace &trace, std::shared_ptr<const KinetoIndex> indexPtr)
{
    OperatorTree tree;
    tree.index = std::move(indexPtr);
    const KinetoIndex &index = *tree.index;

    // Which launches the External id rule leaves to the enclosing-node rules, and which
    // annotations / Python frames those make tree nodes.
    std::vector<char> byExternalId(index.runtimes.size(), 0);
    std::vector<char> fallback(index.runtimes.size(), 0);
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        byExternalId[r] = attachedByExternalId(trace, index, r) ? 1 : 0;
        fallback[r] = byExternalId[r] ? 0 : 1;
    }
    std::vector<Enclosing> enclosing(index.runtimes.size());
    for (uint32_t t = 0; t < index.threads.size(); ++t)
        findEnclosing(trace, index, t, fallback, enclosing);
    std::vector<char> annotationTarget(index.nodes.size(), 0);
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        if (fallback[r] && enclosing[r].op == kNoIndex && enclosing[r].annotation != kNoIndex)
            annotationTarget[enclosing[r].annotation] = 1;
    }

    tree.roots.assign(index.threads.size(), kNoIndex);
    tree.nodeOfIndexNode.assign(index.nodes.size(), kNoIndex);
    tree.nodes.reserve(index.nodes.size() + index.threads.size());
    for (uint32_t t = 0; t < index.threads.size(); ++t)
        nestThread(trace, tree, t, annotationTarget);

    tree.nodeOfRuntime.assign(index.runtimes.size(), kNoIndex);
    tree.ruleOfRuntime.assign(index.runtimes.size(), LaunchRule::ThreadRoot);
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        const KinetoRuntime &rt = index.runtimes[r];
        uint32_t target = tree.roots[rt.thread];
        LaunchRule rule = LaunchRule::ThreadRoot;
        if (byExternalId[r]) {
            for (uint32_t n : index.nodesForExternalId(rt.externalId)) {
                if (tree.nodeOfIndexNode[n] != kNoIndex) {
                    target = tree.nodeOfIndexNode[n];
                    rule = LaunchRule::ExternalId;
                    break;
                }
            }
        } else if (enclosing[r].op != kNoIndex &&
                   tree.nodeOfIndexNode[enclosing[r].op] != kNoIndex) {
            target = tree.nodeOfIndexNode[enclosing[r].op];
            rule = LaunchRule::EnclosingOperator;
        } else if (enclosing[r].annotation != kNoIndex &&
                   tree.nodeOfIndexNode[enclosing[r].annotation] != kNoIndex) {
            target = tree.nodeOfIndexNode[enclosing[r].annotation];
            rule = LaunchRule::EnclosingAnnotation;
        }
        tree.ruleOfRuntime[r] = rule;
        tree.nodes[target].runtimes.push_back(r);
    }

    // Orphan GPU work: the root of the first thread with steps, else of the first with nodes.
    for (uint32_t a = 0; a < index.activities.size(); ++a) {
        if (index.activities[a].runtime == kNoIndex)
            tree.orphanActivities.push_back(a);
    }
    for (uint32_t t = 0; t < index.threads.size() && tree.orphanRoot == kNoIndex; ++t) {
        if (index.threads[t].hasProfilerStep)
            tree.orphanRoot = tree.roots[t];
    }
    for (uint32_t t = 0; t < index.threads.size() && tree.orphanRoot == kNoIndex; ++t) {
        if (index.threads[t].nodeEnd > index.threads[t].nodeBegin)
            tree.orphanRoot = tree.roots[t];
    }

    for (const KinetoActivity &a : index.activities) {
        const TimePs d = a.end - a.start;
        if (a.runtime == kNoIndex)
            tree.deviceTimeWithoutLaunch += d;
        else
            tree.deviceTimeByRule[size_t(tree.ruleOfRuntime[a.runtime])] += d;
    }

    collapseDuplicates(trace, tree);
    for (uint32_t id = 0; id < tree.nodes.size(); ++id) {
        if (tree.nodes[id].mergedInto != kNoIndex)
            continue;
        for (uint32_t r : tree.nodes[id].runtimes)
            tree.nodeOfRuntime[r] = id;
    }
    computeTimes(trace, tree);
    return tree;
}

OperatorTree buildOperatorTree(const Trace &trace)
{
    return buildOperatorTree(trace, std::make_shared<const KinetoIndex>(buildKinetoIndex(trace)));
}

std::shared_ptr<const OperatorTree> operatorTree(AnalysisCache &cache)
{
    return cache.get<OperatorTree>(
        [](AnalysisCache &c) { return buildOperatorTree(c.trace(), kinetoIndex(c)); });
}

} // namespace tracedesk::core::analysis::pytorch
