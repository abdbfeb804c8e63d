#pragma once

// GuardedReceiver: lets worker threads queue calls to a QObject that may be destroyed meanwhile.
//
// A worker cannot test a raw QObject pointer (or a QPointer) from its own thread without racing
// the object's destruction. The receiver's owner holds a GuardedReceiver (shared with the
// workers) and closes it before the receiver dies; post() checks and queues under one lock, so
// a call is either queued while the receiver is alive (and then dropped by Qt with the
// receiver's pending events if it dies first) or not queued at all. create() also closes it
// when the receiver is destroyed, so the owner may outlive the receiver.
//
// Thread rules: post() from any thread; create() and close() on the receiver's thread.

#include <QMetaObject>
#include <QObject>

#include <memory>
#include <mutex>
#include <utility>

namespace tracedesk::views {

class GuardedReceiver
{
public:
    explicit GuardedReceiver(QObject *receiver) : m_receiver(receiver) {}
    GuardedReceiver(const GuardedReceiver &) = delete;
    GuardedReceiver &operator=(const GuardedReceiver &) = delete;

    // A receiver closed by the receiver's destroyed() signal at the latest.
    static std::shared_ptr<GuardedReceiver> create(QObject *receiver)
    {
        auto guarded = std::make_shared<GuardedReceiver>(receiver);
        if (receiver) {
            QObject::connect(receiver, &QObject::destroyed,
                             [weak = std::weak_ptr<GuardedReceiver>(guarded)] {
                                 if (auto g = weak.lock())
                                     g->close();
                             });
        }
        return guarded;
    }

    // Queues call() on the receiver's thread; false when closed.
    template<typename Call>
    bool post(Call &&call)
    {
        std::lock_guard lock(m_mutex);
        if (!m_receiver)
            return false;
        QMetaObject::invokeMethod(m_receiver, std::forward<Call>(call), Qt::QueuedConnection);
        return true;
    }

    // After close(), post() queues nothing and isOpen() is false.
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_receiver = nullptr;
    }

    bool isOpen()
    {
        std::lock_guard lock(m_mutex);
        return m_receiver != nullptr;
    }

private:
    std::mutex m_mutex;
    QObject *m_receiver;
};

} // namespace tracedesk::views
