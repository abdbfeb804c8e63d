#pragma once

// The two ways an analysis panel links to the timeline, shared so every panel behaves alike:
// a row the user clicks (or activates with Enter) names an op, and a "Selection only" box makes
// the panel recompute whenever the timeline's selection changes.

#include "views/timeline/timelinestate.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QPointer>

#include <functional>

namespace tracedesk::views {

// Calls onIndex(index) for a clicked or activated row of `view`, in `context`'s lifetime.
inline void onRowActivated(QAbstractItemView *view, QObject *context,
                           std::function<void(const QModelIndex &)> onIndex)
{
    QObject::connect(view, &QAbstractItemView::clicked, context, onIndex);
    QObject::connect(view, &QAbstractItemView::activated, context, onIndex);
}

// Swaps the followed state in `*current` for `state`: disconnects `context` from the old one,
// enables `selectionOnly` only with a state, and re-runs `recompute` on each selection change
// while the box is checked.
inline void followSelection(QPointer<TimelineState> *current, TimelineState *state,
                            QCheckBox *selectionOnly, QObject *context,
                            std::function<void()> recompute)
{
    if (*current)
        QObject::disconnect(current->data(), nullptr, context, nullptr);
    *current = state;
    selectionOnly->setEnabled(state != nullptr);
    if (!state)
        return;
    QObject::connect(state, &TimelineState::selectionChanged, context,
                     [selectionOnly, recompute = std::move(recompute)] {
                         if (selectionOnly->isChecked())
                             recompute();
                     });
}

} // namespace tracedesk::views
