#pragma once

// BackgroundJob: runs one piece of work at a time on a worker thread and hands its result to a
// QObject's thread through a queued call tagged with a generation number. Starting a new run
// cancels (through cancelFlag()) and joins the previous one, and a result whose generation is
// no longer current is dropped, so a slow stale answer never replaces a newer one. Destroying
// the job cancels and joins; keep it a member of the receiving object so queued results die
// with it.

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace tracedesk::views {

class BackgroundJob
{
public:
    BackgroundJob() = default;
    BackgroundJob(const BackgroundJob &) = delete;
    BackgroundJob &operator=(const BackgroundJob &) = delete;
    ~BackgroundJob() { stop(); }

    // Polled by cancellable work.
    const std::atomic<bool> *cancelFlag() const { return &m_cancel; }
    uint64_t generation() const { return m_generation; }

    template<typename R>
    void run(QObject *receiver, std::function<R()> work, std::function<void(R)> deliver)
    {
        stop();
        const uint64_t generation = ++m_generation;
        m_thread = std::thread([this, receiver, generation, work = std::move(work),
                                deliver = std::move(deliver)] {
            auto result = std::make_shared<R>(work());
            QMetaObject::invokeMethod(
                receiver,
                [this, generation, result, deliver] {
                    if (generation == m_generation)
                        deliver(std::move(*result));
                },
                Qt::QueuedConnection);
        });
    }

    // Cancels and joins the running work; its result, if already posted, is dropped.
    void stop()
    {
        if (!m_thread.joinable())
            return;
        m_cancel = true;
        m_thread.join();
        m_cancel = false;
        ++m_generation;
    }

private:
    std::thread m_thread;
    std::atomic<bool> m_cancel{false};
    uint64_t m_generation = 0;
};

} // namespace tracedesk::views
