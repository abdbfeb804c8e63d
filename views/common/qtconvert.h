#pragma once

// Small conversions between core types and Qt types, shared by every view.

#include "core/model/timeformat.h"
#include "core/model/trace.h"

#include <QLocale>
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

// A time from the trace's start, to the nanosecond ("1.795 421 300 s").
inline QString timestampText(core::TimePs ps)
{
    return QString::fromStdString(core::formatTimestamp(ps));
}

// Counts with thousands separators ("1,234,567"), the same on every machine so that status
// texts and tests do not depend on the user's locale.
inline QString countText(quint64 n)
{
    return QLocale(QLocale::English).toString(qulonglong(n));
}

// A count with its noun, singular or plural as the count needs ("1 step", "2,048 steps").
inline QString countOf(quint64 n, const char *singular, const char *plural)
{
    return countText(n) + QLatin1Char(' ')
           + QString::fromLatin1(n == 1 ? singular : plural);
}

} // namespace tracedesk::views
