#include "views/timeline/flowlookup.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace tracedesk::views {

namespace {

// One entry per store with a built index; an entry whose store is gone is dropped on the next
// visit, so an index never outlives its store by more than one lookup.
struct Entry
{
    std::weak_ptr<const core::Trace> trace;
    const core::Trace *key = nullptr;
    std::shared_ptr<const core::FlowIndex> index;
};

std::mutex g_mutex;
std::vector<Entry> g_entries;

std::shared_ptr<const core::FlowIndex> find(const core::Trace *trace)
{
    std::lock_guard lock(g_mutex);
    std::erase_if(g_entries, [](const Entry &e) { return e.trace.expired(); });
    for (const Entry &e : g_entries) {
        if (e.key == trace)
            return e.index;
    }
    return nullptr;
}

} // namespace

bool FlowLookup::prepare(const core::TracePtr &trace, core::CancelToken cancel)
{
    if (!trace || find(trace.get()))
        return true;
    auto index = core::FlowIndex::build(*trace, cancel);
    if (!index)
        return false;
    std::lock_guard lock(g_mutex);
    const bool known = std::any_of(g_entries.begin(), g_entries.end(),
                                   [&](const Entry &e) { return e.key == trace.get(); });
    if (!known)
        g_entries.push_back({trace, trace.get(), std::move(index)});
    return true;
}

bool FlowLookup::ready(const core::TracePtr &trace)
{
    return trace && find(trace.get()) != nullptr;
}

std::vector<core::Flow> FlowLookup::flowsOf(const core::TracePtr &trace, core::SliceRef slice)
{
    if (!trace)
        return {};
    if (auto index = find(trace.get()))
        return index->flowsOf(*trace, slice);
    return trace->flows.touching(slice);
}

} // namespace tracedesk::views
