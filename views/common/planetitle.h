#pragma once

// What a plane is called on screen: its name, and its id (XSpace) or pid (processes) when another plane of the same host
// has the same name (several Chrome processes named "python", several "/host:CPU" of merged
// files), so sections and tree rows that would read alike are told apart. withHost appends the
// host ("name  ·  host") for the timeline's section headers, where hosts are not a tree level.

#include "core/model/trace.h"

#include <QString>

namespace tracedesk::views {

QString planeTitle(const core::Trace &trace, uint32_t plane, bool withHost = false);

} // namespace tracedesk::views
