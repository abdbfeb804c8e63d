#include "views/panels/pytorch/pytorchoplinks.h"

#include "core/analysis/pytorch/operatortree.h"
#include "core/query/search.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <algorithm>
#include <tuple>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::pytorch;

OpOccurrences pytorchOpOccurrences(AnalysisCache &cache, std::string_view name, size_t cap,
                                   const std::atomic<bool> *cancel)
{
    const core::Trace &trace = cache.trace();
    OpOccurrences out;
    core::SearchOptions options;
    options.mode = core::SearchMode::Op;
    options.cap = cap;
    options.cancel = cancel;
    if (auto found = core::searchSlices(trace, name, options)) {
        out.refs = std::move(found.value().refs);
        out.total = found.value().total;
    }
    if (!isPyTorchTrace(trace) || (cancel && cancel->load()))
        return out;

    const std::shared_ptr<const OperatorTree> tree = operatorTree(cache);
    const KinetoIndex &index = *tree->index;
    std::vector<uint32_t> pending;
    for (uint32_t n = 0; n < tree->nodes.size(); ++n) {
        const OpNode &node = tree->nodes[n];
        if (node.parent != kNoIndex && node.mergedInto == kNoIndex &&
            tree->nodeName(trace, n) == name)
            pending.push_back(n);
    }
    std::vector<bool> seen(tree->nodes.size(), false);
    std::vector<core::SliceRef> launched;
    while (!pending.empty()) {
        const uint32_t n = pending.back();
        pending.pop_back();
        if (seen[n])
            continue;   // a node under another node of the same name
        seen[n] = true;
        const OpNode &node = tree->nodes[n];
        for (uint32_t r : node.runtimes) {
            for (uint32_t a : index.activitiesOf(r))
                launched.push_back(index.activities[a].ref);
        }
        pending.insert(pending.end(), node.children.begin(), node.children.end());
    }
    if (launched.empty())
        return out;

    const auto key = [&trace](const core::SliceRef &s) {
        return std::make_tuple(trace.start(s), s.track, s.row, s.index);
    };
    const auto before = [&key](const core::SliceRef &a, const core::SliceRef &b) {
        return key(a) < key(b);
    };
    std::sort(launched.begin(), launched.end(), before);
    // The search may already have found a launched kernel (a kernel name): count it once.
    std::vector<core::SliceRef> extra;
    std::set_difference(launched.begin(), launched.end(), out.refs.begin(), out.refs.end(),
                        std::back_inserter(extra), before);
    extra.erase(std::unique(extra.begin(), extra.end(),
                            [&key](const auto &a, const auto &b) { return key(a) == key(b); }),
                extra.end());
    out.launched = extra.size();
    out.total += extra.size();
    std::vector<core::SliceRef> merged;
    merged.reserve(out.refs.size() + extra.size());
    std::merge(out.refs.begin(), out.refs.end(), extra.begin(), extra.end(),
               std::back_inserter(merged), before);
    if (merged.size() > cap)
        merged.resize(cap);
    out.refs = std::move(merged);
    return out;
}

void PyTorchOpLinker::show(AnalysisCachePtr cache, const QString &name, size_t cap)
{
    if (!cache || name.isEmpty())
        return;
    m_compute.start([cache, name, cap](core::CancelToken cancel) {
        return Found{name, pytorchOpOccurrences(*cache, name.toStdString(), cap, cancel)};
    });
}

void PyTorchOpLinker::deliver(Found found)
{
    TimelineState::Highlights h;
    h.label = found.name;
    h.total = found.occurrences.total;
    h.refs = std::make_shared<const std::vector<core::SliceRef>>(
        std::move(found.occurrences.refs));
    emit this->found(h);
}

} // namespace tracedesk::views
