#pragma once

// What the XLA tools (HLO Op Stats, Roofline Model, Graph Viewer) share: the category and
// bound-by choices that filter their ops, and why they have nothing for a capture without XLA
// ops.

#include "core/model/trace.h"

#include <QString>

#include <set>

class QComboBox;

namespace tracedesk::views {

// "Any bound", then "Bound by Compute / HBM / Unknown"; item data is the bound-by text.
void addBoundByChoices(QComboBox *box);
// "All categories" and `categories`, keeping the current choice when it is still one of them;
// item data is the category (empty: all). Emits no change signal.
void setCategoryChoices(QComboBox *box, const std::set<QString> &categories);
// Why `tool` (e.g. "HLO Op Stats lists XLA (HLO) ops") has nothing for `trace`, or empty.
QString xlaToolReason(const core::Trace &trace, const QString &tool);

} // namespace tracedesk::views
