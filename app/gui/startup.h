#pragma once

// The command line of `tracedesk [FILE|DIR]`: parsed once in main(), applied to the window. Tests
// call the same two functions.

#include <QString>
#include <QStringList>

namespace tracedesk::app {

class MainWindow;

struct StartupOptions
{
    QString path;             // file or folder to open, empty for none
    QString screenshotPath;   // grab the window there after the load, then quit
    bool exitNow = false;     // --help / --version / a usage error was handled
    int exitCode = 0;
    QString message;          // what to print when exiting now
};

// `arguments` includes the program name, like QCoreApplication::arguments().
StartupOptions parseCommandLine(const QStringList &arguments);
// Opens the path (if any) and arms the screenshot.
void applyStartupOptions(MainWindow &window, const StartupOptions &options);

} // namespace tracedesk::app
