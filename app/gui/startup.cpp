#include "app/gui/startup.h"

#include "app/gui/mainwindow.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace tracedesk::app {

StartupOptions parseCommandLine(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("tracedesk", "Explore ML performance profiles: XSpace "
                                                 "(.xplane.pb) and Chrome trace JSON."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QCoreApplication::translate("tracedesk",
                                    "After PATH has loaded, save a PNG of the window to FILE "
                                    "and quit."),
        QStringLiteral("FILE"));
    parser.addOption(screenshotOption);
    parser.addPositionalArgument(
        QStringLiteral("path"),
        QCoreApplication::translate("tracedesk", "Profile file, run folder or logdir to open."),
        QStringLiteral("[FILE|DIR]"));

    StartupOptions options;
    if (!parser.parse(arguments)) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = parser.errorText() + QLatin1Char('\n');
        return options;
    }
    if (parser.isSet(helpOption)) {
        options.exitNow = true;
        options.message = parser.helpText();
        return options;
    }
    if (parser.isSet(versionOption)) {
        options.exitNow = true;
        options.message = QCoreApplication::applicationName() + QLatin1Char(' ')
                          + QCoreApplication::applicationVersion() + QLatin1Char('\n');
        return options;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = QCoreApplication::translate("tracedesk",
                                                      "Give at most one FILE or DIR.\n");
        return options;
    }
    if (!positional.isEmpty())
        options.path = positional.front();
    options.screenshotPath = parser.value(screenshotOption);
    return options;
}

void applyStartupOptions(MainWindow &window, const StartupOptions &options)
{
    if (!options.screenshotPath.isEmpty()) {
        // A scripted run must never block on a message box.
        window.setInteractiveErrors(false);
        window.setScreenshotOnLoad(options.screenshotPath);
    }
    if (!options.path.isEmpty())
        window.openPath(options.path);
}

} // namespace tracedesk::app
