#pragma once

// JobReaper: joins the threads of background work nobody waits for any more.
//
// Cancelled or superseded work keeps running until it next looks at its cancel token; the GUI
// thread must not wait for that. A job hands its thread over here instead, and one reaper
// thread joins the adopted threads in turn. At exit, joinAll() (run automatically when the
// QCoreApplication is destroyed, after the windows and before static destruction) waits for
// every adopted thread, so no worker outlives main(). The work itself holds shared ownership of
// whatever it reads (the store, the analysis cache), so the last reader may be a worker.
//
// Thread rules: adopt() and joinAll() may be called from any thread but not from an adopted
// thread.

#include <thread>

namespace tracedesk::views {

class JobReaper
{
public:
    // Takes `thread` (joinable) and joins it off the calling thread.
    static void adopt(std::thread thread);
    // Blocks until every adopted thread has ended. Later adopt() calls start a new reaper.
    static void joinAll();
    // Threads adopted and not joined yet (for tests).
    static int pending();
};

} // namespace tracedesk::views
