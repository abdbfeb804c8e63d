#pragma once

// LoadControl: shared between a loading worker and whoever watches it (a GUI
// progress dialog, the CLI). The worker adds bytes as it consumes them and
// polls `cancelRequested()` once per chunk; the watcher reads progress and may
// request cancellation from any thread. All members are atomics.

#include <atomic>
#include <algorithm>
#include <cstdint>

namespace tracedesk::core {

class LoadControl
{
public:
    void requestCancel() { m_cancel.store(true, std::memory_order_relaxed); }
    bool cancelRequested() const { return m_cancel.load(std::memory_order_relaxed); }

    void addTotal(uint64_t bytes) { m_total.fetch_add(bytes, std::memory_order_relaxed); }
    void addDone(uint64_t bytes) { m_done.fetch_add(bytes, std::memory_order_relaxed); }
    uint64_t total() const { return m_total.load(std::memory_order_relaxed); }
    uint64_t done() const { return m_done.load(std::memory_order_relaxed); }

    // 0..1, or 0 while the total is still unknown.
    double fraction() const
    {
        const uint64_t t = total();
        return t == 0 ? 0.0 : std::min(1.0, double(done()) / double(t));
    }

private:
    std::atomic<bool> m_cancel{false};
    std::atomic<uint64_t> m_total{0};
    std::atomic<uint64_t> m_done{0};
};

} // namespace tracedesk::core
