#pragma once

// Background threads yield the CPU to the GUI thread.
//
// On a machine with few cores the analyses, the level-of-detail build and a load can keep every
// core busy; at equal priority the GUI thread (and the driver threads that draw its frames) then
// queue behind them and the window stutters. Work threads therefore lower their own priority
// once (Linux: a nice value of kBackgroundNice for the calling thread, which the threads it
// starts inherit). Failure is harmless and ignored.

namespace tracedesk::core {

inline constexpr int kBackgroundNice = 10;

// Lowers the calling thread's scheduling priority; never raises it.
void lowerThisThreadPriority();

} // namespace tracedesk::core
