#pragma once

// PanelCompute<R>: how a panel computes. One core computation at a time runs on a worker (a
// BackgroundJob) and its result of type R reaches a member function of the panel on the GUI
// thread, unless a later start() or cancel() made it stale (generation id) or the panel is gone.
//
//     PanelCompute<std::shared_ptr<const OverviewPage>> m_compute{this, &OverviewPanel::show};
//     m_compute.start([cache] { return overviewPage(*cache); });
//
// The computation gets a cancel token if it takes a core::CancelToken and runs inside a
// core::CancelScope either way, so analyses stop at their next checkpoint once superseded. It
// must own what it reads (copy the cache or trace pointer in), never use the panel.
// busy() is what panels report as "computing": true from start() until the result is handed
// over or cancel() runs.

#include "views/timeline/backgroundjob.h"

#include <QObject>

#include <functional>
#include <utility>

namespace tracedesk::views {

template<typename R>
class PanelCompute
{
public:
    template<typename Owner>
    PanelCompute(Owner *owner, void (Owner::*onResult)(R))
        : m_owner(owner), m_onResult([owner, onResult](R r) { (owner->*onResult)(std::move(r)); })
    {
        // An analysis over the whole trace frees large scratch: return it once it is done.
        m_job.setReleaseMemoryAfterRun(true);
    }
    PanelCompute(const PanelCompute &) = delete;
    PanelCompute &operator=(const PanelCompute &) = delete;

    // Cancels the running computation, if any, and starts compute() (or compute(token)).
    template<typename Compute>
    void start(Compute compute)
    {
        m_busy = true;
        m_job.template run<R>(m_owner, std::move(compute), [this](R result) {
            m_busy = false;
            m_onResult(std::move(result));
        });
    }

    // Cancels the running computation; its result is never handed over. Never waits.
    void cancel()
    {
        m_job.stop();
        m_busy = false;
    }

    bool busy() const { return m_busy; }
    uint64_t generation() const { return m_job.generation(); }

private:
    QObject *m_owner;
    std::function<void(R)> m_onResult;
    BackgroundJob m_job;
    bool m_busy = false;
};

} // namespace tracedesk::views
