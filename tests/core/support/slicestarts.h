#pragma once

// Where every slice of a given name starts, over the whole trace: what a test compares across
// ranks (the same step on every rank) without going through the code under test.

#include "core/model/trace.h"

#include <string_view>
#include <vector>

namespace testsupport {

inline std::vector<tracedesk::core::TimePs> sliceStarts(const tracedesk::core::Trace &trace,
                                                        std::string_view name)
{
    std::vector<tracedesk::core::TimePs> starts;
    for (const tracedesk::core::Track &track : trace.tracks) {
        for (const tracedesk::core::Row &row : track.rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                if (trace.string(trace.kinds[row.kind[i]].name) == name)
                    starts.push_back(row.start[i]);
            }
        }
    }
    return starts;
}

} // namespace testsupport
