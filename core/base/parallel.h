#pragma once

// parallelFor: the one work-sharing loop of core/. Items are handed out one at a time from an
// atomic counter (so uneven items balance themselves) to `threads` workers, the calling thread
// being one of them. job(worker, i) returns false to stop handing out further items.

#include <algorithm>
#include <atomic>
#include <cstddef>
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
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    auto loop = [&](unsigned worker) {
        for (size_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < count;) {
            if (!job(worker, i))
                stop.store(true, std::memory_order_relaxed);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w)
        pool.emplace_back(loop, w);
    loop(0);
    for (auto &t : pool)
        t.join();
}

} // namespace tracedesk::core
