#pragma once

// How an operator activated in a panel shows on the timeline of a PyTorch trace: its CPU slices
// (every slice the op search finds for the name, as for any trace) plus the GPU work it
// launched — the kernels, copies and sets of the runtimes under each operator-tree node of that
// name, its callees included, as the device total time counts them. A kernel name finds its
// launches the same way (it names no operator).
//
// pytorchOpOccurrences() walks the store and the operator tree: call it on a worker.
// PyTorchOpLinker runs it there and hands the result to the GUI thread; a newer request drops an
// older one's result.

#include "core/analysis/analysiscache.h"
#include "views/panels/common/panelcompute.h"
#include "views/timeline/timelinestate.h"

#include <QObject>

#include <atomic>
#include <string_view>
#include <vector>

namespace tracedesk::views {

struct OpOccurrences
{
    std::vector<core::SliceRef> refs;   // by start, then track, row, index; at most the cap
    uint64_t total = 0;                 // all matches, even past the cap
    uint64_t launched = 0;              // of which GPU activities found through the tree
};

OpOccurrences pytorchOpOccurrences(core::analysis::AnalysisCache &cache, std::string_view name,
                                   size_t cap, const std::atomic<bool> *cancel = nullptr);

class PyTorchOpLinker : public QObject
{
    Q_OBJECT

public:
    explicit PyTorchOpLinker(QObject *parent = nullptr) : QObject(parent) {}

    void show(core::analysis::AnalysisCachePtr cache, const QString &name, size_t cap);
    // Drops the pending request (e.g. when another trace is shown).
    void cancel() { m_compute.cancel(); }

signals:
    // Ready to hand to TimelineState::setHighlights().
    void found(const tracedesk::views::TimelineState::Highlights &highlights);

private:
    struct Found
    {
        QString name;
        OpOccurrences occurrences;
    };
    void deliver(Found found);

    PanelCompute<Found> m_compute{this, &PyTorchOpLinker::deliver};
};

} // namespace tracedesk::views
