#pragma once

// Small conversions between core types and Qt types, shared by every view.

#include "core/model/timeformat.h"
#include "core/model/trace.h"

#include <QString>

namespace tracedesk::views {

inline QString toQString(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

inline QString durationText(core::TimePs ps, int digits = 2)
{
    return QString::fromStdString(core::formatDuration(ps, digits));
}

} // namespace tracedesk::views
