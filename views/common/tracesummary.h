#pragma once

// One-line descriptions of a loaded trace for the status bar and the placeholder panel.

#include "core/model/trace.h"

#include <QString>

namespace tracedesk::views {

// "<events> events · <tracks> tracks · span <duration> · loaded in <s> s", then " (cached)"
// when it came from the store cache and " · <n> warnings" when the reader reported any.
QString traceStatusText(const core::Trace &trace);

// "span <duration> · <events> events", for headings.
QString traceSpanText(const core::Trace &trace);

} // namespace tracedesk::views
