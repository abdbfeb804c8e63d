#pragma once

// BackgroundJob: runs one piece of work at a time on a worker thread and hands its result to a
// QObject's thread through a queued call tagged with a generation number.
//
// The GUI thread never waits for work. Starting a new run, stop() and destruction set the
// running work's cancel token, bump the generation and hand the worker thread to JobReaper,
// which joins it elsewhere; a result whose generation is no longer current is dropped, so a
// slow stale answer never replaces a newer one. Each run gets its own token: work that takes a
// core::CancelToken argument polls it (search, summaries, the LOD build), and all work runs in a
// core::CancelScope, so analyses that call core::checkCancelled() end early too and deliver
// nothing. The receiver may be destroyed while work runs: results are posted through a
// GuardedReceiver, closed when the job or the receiver is destroyed, and Qt drops calls queued
// for a destroyed receiver. Work must therefore own what it reads (copy the shared pointers to the
// trace or analysis cache into the lambda, never capture `this`); `deliver` runs on the
// receiver's thread and may use `this`.

#include "core/base/cancel.h"
#include "core/base/freedmemory.h"
#include "core/base/threadpriority.h"
#include "views/common/guardedreceiver.h"
#include "views/common/jobreaper.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

namespace tracedesk::views {

class BackgroundJob
{
public:
    BackgroundJob() = default;
    BackgroundJob(const BackgroundJob &) = delete;
    BackgroundJob &operator=(const BackgroundJob &) = delete;
    ~BackgroundJob()
    {
        stop();
        if (m_receiver)
            m_receiver->close();
    }

    uint64_t generation() const { return m_state->generation.load(); }

    // The token of the next run(), for work that captures it before calling run(); work that
    // takes a core::CancelToken argument gets the same pointer.
    core::CancelToken cancelFlag() const { return m_next.get(); }

    // work() or work(core::CancelToken) returns an R; deliver(R) runs on the receiver's thread
    // if this run is still the current one when the result arrives.
    template<typename R, typename Work, typename Deliver>
    void run(QObject *receiver, Work work, Deliver deliver)
    {
        stop();
        if (!m_receiver || m_receiverObject != receiver) {
            if (m_receiver)
                m_receiver->close();
            m_receiver = GuardedReceiver::create(receiver);
            m_receiverObject = receiver;
        }
        auto token = std::exchange(m_next, std::make_shared<std::atomic<bool>>(false));
        m_token = token;
        const uint64_t generation = m_state->generation.load();
        std::thread thread([state = m_state, box = m_receiver, token, generation,
                            release = m_releaseMemory, work = std::move(work),
                            deliver = std::move(deliver)]() mutable {
            core::lowerThisThreadPriority();
            std::optional<R> result = core::runCancellable(token.get(), [&]() -> R {
                if constexpr (std::is_invocable_v<Work &, core::CancelToken>)
                    return work(token.get());
                else
                    return work();
            });
            // The work's scratch (an analysis of a 100M-event trace frees gigabytes) stays in
            // this thread's malloc arena, which outlives the thread; hand it back to the system.
            if (release)
                core::releaseFreedMemory();
            if (!result || state->generation.load() != generation)
                return;
            auto value = std::make_shared<R>(std::move(*result));
            box->post([state, generation, value, deliver = std::move(deliver)]() mutable {
                if (state->generation.load() == generation)
                    deliver(std::move(*value));
            });
        });
        JobReaper::adopt(std::move(thread));
    }

    // Cancels the running work, if any, and drops its result; never waits.
    void stop()
    {
        if (m_token)
            m_token->store(true);
        m_token.reset();
        ++m_state->generation;
    }

    // True from run() until stop() or the next run(), whether or not the work has finished.
    bool active() const { return m_token != nullptr; }

    // After each run, give the memory its work freed back to the system (core/base/
    // freedmemory.h): for large, rare work such as an analysis panel's, not a search per key.
    void setReleaseMemoryAfterRun(bool release) { m_releaseMemory = release; }

private:
    struct State
    {
        std::atomic<uint64_t> generation{0};
    };

    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::shared_ptr<GuardedReceiver> m_receiver;
    QObject *m_receiverObject = nullptr;
    std::shared_ptr<std::atomic<bool>> m_token; // the running work's, null when stopped
    std::shared_ptr<std::atomic<bool>> m_next = std::make_shared<std::atomic<bool>>(false);
    bool m_releaseMemory = false;
};

} // namespace tracedesk::views
