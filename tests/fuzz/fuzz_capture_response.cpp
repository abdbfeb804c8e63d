// Fuzz target for extractXSpace: a serialized ProfileResponse as a server might send it, split
// into several pieces the way gRPC hands a message over in slices.
//
// Input layout: byte 0 gives the number of cuts (0-7), the next bytes give each cut's position
// as a fraction of the rest, and the rest is the response. Besides not crashing, the reader must
// give the same answer and the same XSpace bytes however the response is cut, and stop cleanly
// when its sink refuses or the cancel flag is set.

#include "core/capture/responsereader.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace tracedesk::core;
using namespace tracedesk::core::capture;

namespace {

struct Outcome
{
    bool ok = false;
    bool cancelled = false;
    std::string xspace;
    ResponseSummary summary;
};

Outcome extract(const std::vector<std::string_view> &pieces, const std::atomic<bool> *cancel,
                size_t refuseAfter = SIZE_MAX)
{
    Outcome out;
    Result<ResponseSummary> r = extractXSpace(
        pieces,
        [&](const char *data, size_t size) {
            if (out.xspace.size() + size > refuseAfter)
                return false;
            out.xspace.append(data, size);
            return true;
        },
        cancel);
    out.ok = r.ok();
    out.cancelled = !r.ok() && r.isCancelled();
    if (r.ok())
        out.summary = r.value();
    return out;
}

void check(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const size_t cuts = std::min<size_t>(data[0] % 8, size - 1);
    const uint8_t *positions = data + 1;
    const std::string_view response(reinterpret_cast<const char *>(data + 1 + cuts),
                                    size - 1 - cuts);

    std::vector<size_t> at;
    for (size_t i = 0; i < cuts; ++i)
        at.push_back(response.size() * positions[i] / 256);
    std::sort(at.begin(), at.end());
    // Each piece is its own allocation, as separate gRPC slices are, so ASan sees a read that
    // runs past a piece's end instead of into the next one.
    std::vector<std::string> storage;
    size_t from = 0;
    for (size_t cut : at) {
        storage.emplace_back(response.substr(from, cut - from));   // empty pieces included
        from = cut;
    }
    storage.emplace_back(response.substr(from));
    std::vector<std::string_view> pieces(storage.begin(), storage.end());

    const Outcome whole = extract({response}, nullptr);
    const Outcome split = extract(pieces, nullptr);
    check(whole.ok == split.ok);
    if (whole.ok) {
        check(whole.xspace == split.xspace);
        check(whole.summary.xspaceBytes == whole.xspace.size());
        check(whole.summary.responseBytes == response.size());
        check(whole.summary.emptyTrace == split.summary.emptyTrace);
        check(whole.summary.hasXSpace == split.summary.hasXSpace);
        check(whole.summary.fromToolData == split.summary.fromToolData);
        check(whole.summary.toolNames == split.summary.toolNames);
        check(whole.summary.hasXSpace || whole.xspace.empty());
        check(whole.xspace.size() <= response.size());
    }

    // A sink that gives up half way and a cancel already requested both end in an error.
    if (whole.ok && whole.xspace.size() > 1) {
        const Outcome refused = extract(pieces, nullptr, whole.xspace.size() / 2);
        check(!refused.ok && !refused.cancelled);
    }
    const std::atomic<bool> cancel{true};
    const Outcome cancelled = extract(pieces, &cancel);
    if (whole.ok && !whole.xspace.empty())
        check(!cancelled.ok && cancelled.cancelled);
    return 0;
}
