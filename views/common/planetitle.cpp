#include "views/common/planetitle.h"

#include "views/common/qtconvert.h"

namespace tracedesk::views {

QString planeTitle(const core::Trace &trace, uint32_t plane, bool withHost)
{
    const core::Plane &p = trace.planes[plane];
    QString text = p.name != core::kEmptyString
                       ? toQString(trace.string(p.name))
                       : QStringLiteral("Plane %1").arg(p.id);
    if (p.name != core::kEmptyString) {
        // Interned names compare as ids; a trace has tens of planes, so the scan is cheap.
        for (uint32_t other = 0; other < trace.planes.size(); ++other) {
            const core::Plane &o = trace.planes[other];
            if (other != plane && o.name == p.name && o.host == p.host) {
                // XSpace planes carry an XPlane id; other formats' planes are processes.
                text += (trace.info.format == "xspace" ? QStringLiteral(" (id %1)")
                                                       : QStringLiteral(" (pid %1)"))
                            .arg(p.id);
                break;
            }
        }
    }
    if (withHost && p.host != core::kEmptyString)
        text += QStringLiteral("  ·  ") + toQString(trace.string(p.host));
    return text;
}

} // namespace tracedesk::views
