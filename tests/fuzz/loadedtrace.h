#pragma once

// What every reader's fuzz target asks of its result: a refusal names the input,
// and whatever loads keeps the store's invariants (slices inside their rows, in start order and
// not overlapping within a row, of a known kind; args readable; the slice count right; flows
// between valid slices). Aborts, for the fuzzer to report, when one does not hold.

#include "core/model/trace.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace fuzzsupport {

template<typename LoadResult>
void checkLoaded(const LoadResult &result, const std::string &input)
{
    using namespace tracedesk::core;
    if (!result) {
        if (result.message().rfind(input + ": ", 0) != 0)
            std::abort();
        return;
    }
    const Trace &trace = *result.value();
    uint64_t slices = 0;
    for (size_t t = 0; t < trace.tracks.size(); ++t) {
        const Track &track = trace.tracks[t];
        for (size_t r = 0; r < track.rows.size(); ++r) {
            const Row &row = track.rows[r];
            for (size_t i = 0; i < row.start.size(); ++i) {
                if (row.duration[i] < 0 || uint64_t(row.kind[i]) >= trace.kinds.size()
                    || row.start[i] > INT64_MAX - row.duration[i]
                    || (i > 0 && row.start[i] < row.start[i - 1] + row.duration[i - 1]))
                    std::abort();
                trace.forEachArg(SliceRef{uint32_t(t), uint32_t(r), uint32_t(i)},
                                 [](const ArgValue &) {});
                ++slices;
            }
        }
    }
    if (slices != trace.sliceCount())
        std::abort();
    for (const Flow &f : trace.flows) {
        if (!trace.valid(f.from) || !trace.valid(f.to))
            std::abort();
    }
}

} // namespace fuzzsupport
