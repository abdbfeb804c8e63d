#include "views/common/tracesummary.h"

#include "views/common/qtconvert.h"

namespace tracedesk::views {

QString traceStatusText(const core::Trace &trace)
{
    QString text = QStringLiteral("%1 events · %2 tracks · span %3 · loaded in %4 s")
                       .arg(countText(trace.eventCount()), countText(trace.tracks.size()),
                            durationText(trace.end - trace.begin),
                            QString::number(trace.info.loadSeconds, 'f', 2));
    if (trace.info.fromCache)
        text += QStringLiteral(" (cached)");
    const quint64 warnings = trace.info.warningCount;
    if (warnings == 1)
        text += QStringLiteral(" · 1 warning");
    else if (warnings > 1)
        text += QStringLiteral(" · %1 warnings").arg(countText(warnings));
    return text;
}

QString traceSpanText(const core::Trace &trace)
{
    return QStringLiteral("span %1 · %2 events")
        .arg(durationText(trace.end - trace.begin), countText(trace.eventCount()));
}

} // namespace tracedesk::views
