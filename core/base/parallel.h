#pragma once

// parallelFor: the one work-sharing loop of core/. Items are handed out one at a time from an
// atomic counter (so uneven items balance themselves) to `threads` workers, the calling thread
// being one of them. job(worker, i) returns false to stop handing out further items.
//
// Exceptions: a job that throws (in any worker, the caller's share included) stops the handing
// out; every started thread is joined, then the first exception is rethrown on the calling
// thread. No thread outlives the call. If a thread cannot be started, the threads already
// running and the caller share the items.
// Cancellation: the caller's current cancel token (cancel.h) is current in every worker too, so
// checkCancelled() inside a job ends the whole loop with Cancelled on the calling thread.

#include "core/base/cancel.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tracedesk::core {

// threads == 0 means one per hardware thread; never more threads than items.
inline unsigned workerCount(size_t items, unsigned threads = 0)
{
    if (threads == 0)
        threads = std::thread::hardware_concurrency();
    return unsigned(std::clamp<size_t>(threads, 1, std::max<size_t>(items, 1)));
}

template<typename Job>
void parallelFor(size_t count, unsigned threads, Job &&job)
{
    const unsigned workers = workerCount(count, threads);
    const CancelToken cancel = currentCancelToken();
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::exception_ptr error;
    auto loop = [&](unsigned worker) {
        try {
            for (size_t i; !stop.load(std::memory_order_relaxed)
                           && (i = next.fetch_add(1)) < count;) {
                if (!job(worker, i))
                    stop.store(true, std::memory_order_relaxed);
            }
        } catch (...) {
            stop.store(true, std::memory_order_relaxed);
            std::lock_guard lock(errorMutex);
            if (!error)
                error = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    try {
        pool.reserve(workers - 1);
        for (unsigned w = 1; w < workers; ++w) {
            pool.emplace_back([&loop, cancel, w] {
                CancelScope scope(cancel);
                loop(w);
            });
        }
    } catch (...) {
        // Out of threads or memory: the workers already started and this thread do the items.
    }
    loop(0);
    for (auto &t : pool)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

} // namespace tracedesk::core
