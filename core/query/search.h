#pragma once

// Search over the whole trace for slices by name.
//
// Design note: names live on EventKinds, and a trace has few kinds next to its millions of
// slices. So the query is matched once per kind (case-insensitive substring of the kind's name
// or display name), giving a byte table over kind ids; then every Row's kind column is scanned
// against that table in a tight loop. Rows are the units of work, shared by std::threads through
// an atomic counter (largest rows first, so one huge row does not finish last). Each row keeps
// at most `cap` indices (they are in start order already); the matches of all rows are merged
// by (start, track, row, index) and the merge stops at the cap, while `total` counts them all.
//
// Thread rules: searchSlices() reads the immutable store from its own worker threads and joins
// them before returning; call it from any thread. Cancellation is polled every few thousand
// slices; a cancelled search returns Result::cancelled() and nothing partial.

#include "core/base/result.h"
#include "core/model/trace.h"

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace tracedesk::core {

enum class SearchMode : uint8_t {
    Substring,   // the kind's name or display name contains the query, any case
    Op,          // the slice belongs to the op named exactly by the query (see matchesOp)
};

struct SearchOptions
{
    SearchMode mode = SearchMode::Substring;
    // Op mode: further op names whose slices count as the query's (e.g. the HLO ops a
    // framework op was compiled into, when only the HLO names appear on the events).
    std::vector<std::string> alsoOps;
    size_t cap = 1'000'000;                      // most refs returned
    unsigned threads = 0;                        // 0: hardware concurrency
    const std::atomic<bool> *cancel = nullptr;   // set to true to stop early
};

struct SearchResult
{
    std::vector<SliceRef> refs;   // sorted by start (then track, row, index), at most cap
    uint64_t total = 0;           // every match, even past the cap
    bool truncated() const { return total > refs.size(); }
};

// ASCII case-insensitive substring test; an empty needle is contained in everything.
bool containsIgnoringCase(std::string_view haystack, std::string_view needle);

// Per kind id: 1 when the kind's name or display name contains `query`. An empty query
// matches no kind.
std::vector<uint8_t> matchingKinds(const Trace &trace, std::string_view query);

// Op mode: a name belongs to op `op` when it equals it or is `op:<type>` (a framework op's full
// name). A slice belongs to the op when its kind's name or display name does, or its HLO op or
// framework op (the hlo_op / tf_op stats, per slice or per kind) does. So an HLO op finds the
// GPU kernels that implement it, and a framework op its host events and its kernels.
bool matchesOp(std::string_view name, std::string_view op);

Result<SearchResult> searchSlices(const Trace &trace, std::string_view query,
                                  const SearchOptions &options = {});

} // namespace tracedesk::core
