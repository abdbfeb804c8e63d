#pragma once

// AnalysisCache: the analyses of one immutable trace, each computed at most once and shared.
//
// Analyses are pure functions of the store, so a result can be kept for as long as the trace is
// shown. A result type is its own key: get<StepTable>(make) runs `make(cache)` the first time
// and hands every later caller the same shared result. An analysis may ask the cache for the
// analyses it builds on (the overview asks for the steps and the op metrics); cycles deadlock
// and are a programming error.
//
// Thread rules: get() may be called from any thread at the same time. Callers asking for a
// result that is being computed wait for it; different results compute in parallel. The lock
// is never held while an analysis runs.

#include "core/model/trace.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <typeindex>

namespace tracedesk::core::analysis {

class AnalysisCache
{
public:
    explicit AnalysisCache(TracePtr trace) : m_trace(std::move(trace)) {}
    AnalysisCache(const AnalysisCache &) = delete;
    AnalysisCache &operator=(const AnalysisCache &) = delete;

    const Trace &trace() const { return *m_trace; }
    const TracePtr &tracePtr() const { return m_trace; }

    // `make` is called as make(*this) and returns a T. If it throws (a cancelled computation
    // throws core::Cancelled), nothing is kept and the next caller computes T again.
    template<typename T, typename Make>
    std::shared_ptr<const T> get(Make &&make)
    {
        const std::shared_ptr<Entry> entry = entryFor<T>();
        {
            std::unique_lock lock(entry->mutex);
            entry->done.wait(lock, [&] { return entry->value || !entry->computing; });
            if (entry->value)
                return std::static_pointer_cast<const T>(entry->value);
            entry->computing = true;
        }
        // Not std::call_once: a maker that throws must leave the entry free for the next
        // caller, which call_once does not do reliably (it hangs under some runtimes).
        std::shared_ptr<const T> result;
        try {
            result = std::make_shared<const T>(make(*this));
        } catch (...) {
            finish(*entry, nullptr);
            throw;
        }
        finish(*entry, result);
        return result;
    }

    // Stores a result made elsewhere (e.g. read from a tool file) as T, so later get<T>() calls
    // return it without computing. Safe from any thread; a T that is already computed or being
    // computed wins and `value` is dropped, because callers may already hold the first result.
    template<typename T>
    void put(std::shared_ptr<const T> value)
    {
        if (!value)
            return;
        const std::shared_ptr<Entry> entry = entryFor<T>();
        {
            std::lock_guard lock(entry->mutex);
            if (entry->value || entry->computing)
                return;
            entry->value = std::move(value);
            entry->ready.store(true, std::memory_order_release);
        }
        entry->done.notify_all();
    }

    // True once get<T>() has finished computing T (or put<T>() stored it).
    template<typename T>
    bool has() const
    {
        std::lock_guard lock(m_mutex);
        auto it = m_entries.find(std::type_index(typeid(T)));
        return it != m_entries.end() && it->second->ready.load(std::memory_order_acquire);
    }

private:
    struct Entry
    {
        std::mutex mutex;
        std::condition_variable done;   // computing went false
        bool computing = false;
        std::shared_ptr<const void> value;
        std::atomic<bool> ready{false};
    };

    template<typename T>
    std::shared_ptr<Entry> entryFor()
    {
        std::lock_guard lock(m_mutex);
        auto &slot = m_entries[std::type_index(typeid(T))];
        if (!slot)
            slot = std::make_shared<Entry>();
        return slot;
    }

    static void finish(Entry &entry, std::shared_ptr<const void> value)
    {
        {
            std::lock_guard lock(entry.mutex);
            entry.computing = false;
            if (value) {
                entry.value = std::move(value);
                entry.ready.store(true, std::memory_order_release);
            }
        }
        entry.done.notify_all();
    }

    TracePtr m_trace;
    mutable std::mutex m_mutex;
    std::map<std::type_index, std::shared_ptr<Entry>> m_entries;
};

using AnalysisCachePtr = std::shared_ptr<AnalysisCache>;

} // namespace tracedesk::core::analysis
