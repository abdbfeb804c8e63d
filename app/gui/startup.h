#pragma once

// The command line of `tracedesk [FILE|DIR]`: parsed once in main(), applied to the window. Tests
// call the same two functions.

#include <QList>
#include <QString>
#include <QStringList>

namespace tracedesk::app {

class MainWindow;

struct StartupOptions
{
    QStringList paths;        // files or folders to open, one window each
    QString comparePath;      // --compare B: compared with the first path
    QString capturePath;      // --capture: the graph capture the first path replays
    QString screenshotPath;   // grab the window there after the load, then quit
    QString measurePath;      // measure the load, timeline and panels, write JSON, then quit
    QString alignStep;        // --align-step N: rank runs aligned at ProfilerStep#N
    QList<qint64> ranks;      // --ranks LIST: the ranks of the first path's run on the timeline
    quint64 memoryLimitBytes = 0; // --memory-limit BYTES: the memory a load may take
    bool exitNow = false;     // --help / --version / a usage error was handled
    int exitCode = 0;
    QString message;          // what to print when exiting now
};

// `arguments` includes the program name, like QCoreApplication::arguments().
StartupOptions parseCommandLine(const QStringList &arguments);
// Opens the first path in `window` and each further one in a window of its own, and arms the
// screenshot (on `window`).
void applyStartupOptions(MainWindow &window, const StartupOptions &options);

} // namespace tracedesk::app
