#pragma once

// EventForest: XProf's event graph for step grouping (FORMATS.md 2.1), over the slices of a
// Trace.
//
// Every slice is a node, except on TPU planes (XProf groups those by their own lines) and
// metadata planes. Edges, parent to child:
//  * nesting on one line: a slice is the child of the nearest open slice that contains it
//    (begin and end inclusive), slices taken by start, longer first; async slices (`_a`) take no
//    part in nesting;
//  * producer/consumer contexts: every slice with (`_pt`, `_p`) = (type, id) is a parent of every
//    slice with (`_ct`, `_c`) = (type, id), unless both sides have 64 members or more (or the
//    context alone would make over a million links: only a damaged file does that);
//  * fixed pairs: a host launch (a host slice with a correlation id and no typed name) is the
//    parent of the device slices with that correlation id; `ExecutorState::Process` is the parent
//    of `IteratorGetNext(AsOptional)Op::DoCompute` with the same (`id`, `iter_num`);
//  * TF loops: the executor slices of one loop iteration (same `id`, several `iter_num`) hang
//    off the iteration's first slice, which becomes a loop root.
// Stats are read from the slice's own args (or side columns), then from its kind's stats.
//
// Built once on one thread; read-only afterwards. Node ids are dense, in (track, row, index)
// order; node() and slice() convert.

#include "core/model/trace.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis {

class EventForest
{
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    explicit EventForest(const Trace &trace);

    // True when the trace holds TF loop ops (XProf then does no grouping at all).
    bool hasLoopOps() const { return m_loopOps; }
    uint32_t size() const { return uint32_t(m_slices.size()); }
    SliceRef slice(uint32_t node) const { return m_slices[node]; }
    // kNone when the slice is not a node (a TPU or metadata plane).
    uint32_t node(SliceRef s) const;

    std::span<const uint32_t> children(uint32_t node) const
    {
        return {m_children.data() + m_childBegin[node], m_children.data() + m_childBegin[node + 1]};
    }
    std::span<const uint32_t> parents(uint32_t node) const
    {
        return {m_parents.data() + m_parentBegin[node], m_parents.data() + m_parentBegin[node + 1]};
    }

    // Root candidates with their `_r` level (TraceContext without `_r`: 1), in node order.
    const std::vector<std::pair<uint32_t, int64_t>> &roots() const { return m_roots; }
    // First slice of each TF loop iteration, by time; empty when the trace has no TF loop.
    const std::vector<uint32_t> &loopRoots() const { return m_loopRoots; }
    // `id` values of tf.data captured-function runs: roots with such a step id are skipped.
    bool isTfDataStep(int64_t stepId) const;

    // The node's own value of an integer stat (args, then side column for side-only stats, then
    // its kind's stats); kNoValue when absent.
    int64_t intStat(uint32_t node, std::string_view name) const;
    // Nearest value on the node or its ancestors (breadth-first), as XProf's GetContextStat.
    int64_t contextInt(uint32_t node, std::string_view name) const;
    std::string contextString(uint32_t node, std::string_view name, bool *found) const;

private:
    struct Edge
    {
        uint32_t parent;
        uint32_t child;
    };
    void addNodes();
    void nestLines(std::vector<uint32_t> &nestParent);
    void linkContexts(std::vector<Edge> &edges);
    void linkFixedPairs(std::vector<Edge> &edges);
    void findLoops(std::vector<Edge> &edges);
    void buildAdjacency(const std::vector<uint32_t> &nestParent, const std::vector<Edge> &edges);
    bool findArg(uint32_t node, std::string_view name, ArgValue *out) const;
    template<typename F>
    void forAncestors(uint32_t node, F &&f) const;

    const Trace &m_trace;
    bool m_loopOps = false;
    std::vector<SliceRef> m_slices;
    std::vector<std::vector<uint32_t>> m_rowBase;   // per track, per row: first node id
    std::vector<uint32_t> m_childBegin, m_children, m_parentBegin, m_parents;
    std::vector<std::pair<uint32_t, int64_t>> m_roots;
    std::vector<uint32_t> m_loopRoots;
    std::vector<int64_t> m_tfDataSteps;             // sorted
};

} // namespace tracedesk::core::analysis
