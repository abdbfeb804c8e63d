#pragma once

// OperatorTree: the per-thread call tree of a Kineto trace with host and device time per node
// (PYTORCH.md §2.1), the input of the operator and kernel views.
//
// Design note. Nodes are the CpuOp slices plus the UserAnnotation slices torch-tb-profiler keeps
// (ProfilerStep#N, DataLoader, Optimizer.step, nccl:/gloo: collectives); other annotations are
// transparent. Choices where the upstream rules drop data (documented, pinned by tests):
// - Nesting: per thread, nodes sorted by (start, -end) under a synthetic root "CallTreeRoot"; a
//   node is a child of the innermost open node it starts inside. One that ends after that parent
//   is kept there (upstream drops it), flagged `overflow`; time is charged to a parent only for
//   the part of a child inside the parent's span, so self times never go negative.
// - Runtimes attach by External id to the first tree node carrying that id, on any thread
//   (upstream's rule, so its numbers hold wherever it attaches a launch). A runtime the rule
//   leaves unattached (no External id, one that names no tree node, or ids that only mirror the
//   correlation, kinetoindex.h) belongs to the innermost CpuOp node enclosing it on its thread,
//   else to the innermost user annotation or Python frame enclosing it, which then becomes a
//   tree node of class Annotation (DeepEP and DeepGEMM launch from Python code under
//   annotations such as `dispatch(F)`; graph launches from Python in serving engines), else to
//   its thread's root. `ruleOfRuntime` says which rule placed each runtime and
//   `deviceTimeByRule` how much GPU time each attached.
// - GPU activities attach to their runtime by correlation (1:N). Activities whose runtime never
//   appears hang on a dummy runtime under the root of the first thread with ProfilerStep# ranges
//   (else the first thread with nodes), listed in `orphanActivities`.
// - Duplicate collapse: a CpuOp with exactly one child, a CpuOp of the same name, absorbs that
//   child's children and runtimes, repeatedly. Upstream replaces the parent's own runtimes by the
//   child's; here they are merged so no device time is lost. The absorbed node stays in `nodes`
//   with `mergedInto` set and is no longer reachable from its root.
// - Host self = host total - Σ children (clipped to the node) - Σ own runtimes on the same thread
//   (clipped). Device self = Σ GPU time (kernels, memcpy, memset) of own runtimes (and of the
//   orphans for their root); device total adds the children's device total.
// Not done: Module / backward-module nodes (§2.1.7), which need the Python tracer's module ids.
//
// Plain value; immutable once built, safe to share across threads. Invariants: a node's index
// is greater than its parent's, so reverse index order visits children before parents; children
// are in start order.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kinetoindex.h"

#include <array>
#include <memory>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

inline constexpr std::string_view kCallTreeRootName = "CallTreeRoot";

enum class OpNodeClass : uint8_t {
    Root,
    Operator,
    ProfilerStep,
    DataLoader,
    Optimizer,
    Collective,
    Annotation // a user annotation or Python frame that launched GPU work under no operator
};

// Which rule attached a runtime (and its GPU work) to its tree node.
enum class LaunchRule : uint8_t {
    ExternalId,          // the node carrying the runtime's External id
    EnclosingOperator,   // the innermost CpuOp around the launch on its thread
    EnclosingAnnotation, // the innermost annotation or Python frame around it
    ThreadRoot,          // nothing encloses it: the thread's root ("CallTreeRoot")
    Count
};
inline constexpr int kLaunchRuleCount = int(LaunchRule::Count);
// "External id", "enclosing operator", "enclosing annotation / Python", "no enclosing op".
const char *launchRuleName(LaunchRule rule);

struct OpNode
{
    uint32_t indexNode = kNoIndex;  // into KinetoIndex::nodes; kNoIndex for a root
    uint32_t thread = 0;            // into KinetoIndex::threads
    uint32_t parent = kNoIndex;     // tree node; kNoIndex for a root
    uint32_t mergedInto = kNoIndex; // set when a same-named parent absorbed this node
    std::vector<uint32_t> children; // tree nodes, by start
    std::vector<uint32_t> runtimes; // into KinetoIndex::runtimes, own (not the children's)
    StringId name = kEmptyString;   // the slice name; kEmptyString for a root
    OpNodeClass nodeClass = OpNodeClass::Root;
    SliceRole role = SliceRole::None;
    bool overflow = false;   // ends after its parent ends
    bool isOperator = false; // in the operator view set (§2.1.6)
    bool tensorCoreEligible = false;
    TimePs start = 0;
    TimePs end = 0;
    TimePs hostTotal = 0;
    TimePs hostSelf = 0;
    TimePs deviceTotal = 0;
    TimePs deviceSelf = 0;
    TimePs tensorCoreSelf = 0;  // tensor-core kernel time of own runtimes
    TimePs tensorCoreTotal = 0; // ... plus the children's
};

struct OperatorTree
{
    std::shared_ptr<const KinetoIndex> index;
    std::vector<OpNode> nodes;
    std::vector<uint32_t> roots;            // per KinetoIndex thread, its root node
    std::vector<uint32_t> nodeOfRuntime;    // per KinetoIndex runtime, the node holding it
    std::vector<uint32_t> nodeOfIndexNode;  // per KinetoIndex node, its tree node (after
                                            // collapse), kNoIndex when not a tree node
    std::vector<uint32_t> orphanActivities; // KinetoIndex activities without a runtime
    uint32_t orphanRoot = kNoIndex;         // the root holding them, kNoIndex if no thread
    uint32_t overflowCount = 0;
    uint32_t collapsedCount = 0;
    std::vector<LaunchRule> ruleOfRuntime; // per KinetoIndex runtime
    // GPU time (kernels, memcpy, memset) attached by each rule, and of the activities whose
    // launch the profiler did not record (hung on orphanRoot).
    std::array<TimePs, kLaunchRuleCount> deviceTimeByRule{};
    TimePs deviceTimeWithoutLaunch = 0;

    // The node an activity's time is charged to (its runtime's node, or orphanRoot), or kNoIndex.
    uint32_t nodeOfActivity(uint32_t activity) const;
    // The name shown for a node: its slice name, or "CallTreeRoot" for a root.
    std::string_view nodeName(const Trace &trace, uint32_t node) const;
};

// Kernel names that use tensor / matrix cores: the plugin's list of §2.7 and the newer
// families of kernelclass.h (one definition for every panel).
bool usesTensorCores(std::string_view kernelName);
// Operator names eligible for tensor cores (exact allowlist of §2.6).
bool isTensorCoreEligibleOpName(std::string_view opName);
// The node class a CpuOp / UserAnnotation name gets; UserAnnotation slices with other names are
// not tree nodes (std::nullopt is expressed as OpNodeClass::Root).
OpNodeClass classifyNode(SliceRole role, std::string_view name);

OperatorTree buildOperatorTree(const Trace &trace, std::shared_ptr<const KinetoIndex> index);
OperatorTree buildOperatorTree(const Trace &trace);
std::shared_ptr<const OperatorTree> operatorTree(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
