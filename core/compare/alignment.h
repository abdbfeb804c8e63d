#pragma once

// TraceAlignment: how two traces share one time axis. Step N of A and step N of B (N counted
// from each trace's first complete step, so pair N is the same in both) are put at the same x: a time tA of A shows at the x of
// tB = tA + offset() in B. By default each trace is anchored at its first complete step, so a
// profile that starts mid-step lines up with one that does not. When either trace has no
// steps, the trace begins are aligned instead.
//
// A step is complete when it lies strictly inside the captured span: a step that starts at the
// first recorded event or ends at the last one was probably cut by the capture window.
//
// Plain value; pure functions.

#include "core/analysis/steps.h"

#include <optional>

namespace tracedesk::core::compare {

struct TraceAlignment
{
    bool byStep = false;      // false: the trace begins are aligned
    int stepA = -1;           // index into the StepDb steps of the anchors (-1 without steps)
    int stepB = -1;
    TimePs anchorA = 0;       // the times that share an x
    TimePs anchorB = 0;

    TimePs offset() const { return anchorB - anchorA; }
    TimePs toB(TimePs tA) const { return tA + offset(); }
    TimePs toA(TimePs tB) const { return tB - offset(); }
};

// Index of the first complete step, the first step when none is complete, -1 without steps.
int firstCompleteStep(const Trace &trace, const analysis::StepDb &steps);

// Number of step pairs: steps from each trace's first complete step on, paired in order.
int stepPairCount(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                  const analysis::StepDb &stepsB);

// step: the pair N to align (clamped to the pairs); nullopt is pair 0, the first complete step
// of each.
TraceAlignment alignTraces(const Trace &a, const analysis::StepDb &stepsA, const Trace &b,
                           const analysis::StepDb &stepsB, std::optional<int> step = std::nullopt);

} // namespace tracedesk::core::compare
