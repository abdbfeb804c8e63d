#include "views/common/jobreaper.h"

#include <QCoreApplication>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

namespace tracedesk::views {

namespace {

class Reaper
{
public:
    ~Reaper() { joinAll(); }

    void adopt(std::thread thread)
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(thread));
        ++m_pending;
        if (!m_reaper.joinable()) {
            m_quit = std::make_shared<bool>(false);
            m_reaper = std::thread([this, quit = m_quit] { loop(*quit); });
        }
        m_wake.notify_one();
    }

    void joinAll()
    {
        std::thread reaper;
        {
            std::lock_guard lock(m_mutex);
            if (m_quit)
                *m_quit = true;
            reaper = std::move(m_reaper);
        }
        m_wake.notify_all();
        if (reaper.joinable())
            reaper.join();
    }

    int pending()
    {
        std::lock_guard lock(m_mutex);
        return m_pending;
    }

private:
    // Joins in adoption order; a finished thread behind a slow one only keeps its handle.
    // `quit` belongs to this reaper: one started after joinAll() has its own.
    void loop(const bool &quit)
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return quit || !m_queue.empty(); });
            if (m_queue.empty())
                return; // quitting with nothing left
            std::thread next = std::move(m_queue.front());
            m_queue.pop_front();
            lock.unlock();
            next.join();
            lock.lock();
            --m_pending;
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::thread> m_queue;
    std::thread m_reaper;
    std::shared_ptr<bool> m_quit;
    int m_pending = 0;
};

Reaper &reaper()
{
    static Reaper instance;
    static const bool registered = [] {
        // Runs in ~QCoreApplication: the windows are gone, the statics still alive.
        qAddPostRoutine([] { instance.joinAll(); });
        return true;
    }();
    (void)registered;
    return instance;
}

} // namespace

void JobReaper::adopt(std::thread thread)
{
    if (thread.joinable())
        reaper().adopt(std::move(thread));
}

void JobReaper::joinAll() { reaper().joinAll(); }

int JobReaper::pending() { return reaper().pending(); }

} // namespace tracedesk::views
