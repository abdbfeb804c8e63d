#include "app/gui/startup.h"

#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "core/base/version.h"

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
    const QCommandLineOption compareOption(
        QStringLiteral("compare"),
        QCoreApplication::translate("tracedesk",
                                    "Compare the first FILE|DIR (A) with this profile (B), side "
                                    "by side."),
        QStringLiteral("B"));
    parser.addOption(compareOption);
    const QCommandLineOption alignOption(
        QStringLiteral("align-step"),
        QCoreApplication::translate("tracedesk",
                                    "For a run of rank traces whose clocks disagree: move each "
                                    "rank so its ProfilerStep#N starts with the others'."),
        QStringLiteral("N"));
    parser.addOption(alignOption);
    parser.addPositionalArgument(
        QStringLiteral("paths"),
        QCoreApplication::translate("tracedesk",
                                    "Profile files, run folders or logdirs to open, each in a "
                                    "window of its own."),
        QStringLiteral("[FILE|DIR...]"));

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
        options.message = QStringLiteral("TraceDesk %1\n").arg(QLatin1String(core::kVersion));
        return options;
    }
    options.paths = parser.positionalArguments();
    options.screenshotPath = parser.value(screenshotOption);
    options.comparePath = parser.value(compareOption);
    options.alignStep = parser.value(alignOption);
    if (!options.comparePath.isEmpty() && options.paths.size() != 1) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = QCoreApplication::translate(
            "tracedesk", "--compare B needs exactly one FILE or DIR to compare it with.\n");
        return options;
    }
    if (!options.screenshotPath.isEmpty() && options.paths.size() > 1) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = QCoreApplication::translate(
            "tracedesk", "--screenshot takes at most one FILE or DIR.\n");
        return options;
    }
    return options;
}

void applyStartupOptions(MainWindow &window, const StartupOptions &options)
{
    if (!options.alignStep.isEmpty()) {
        core::LoadOptions load = window.loadController()->options();
        load.alignStep = options.alignStep.toStdString();
        window.loadController()->setOptions(load);
    }
    if (!options.screenshotPath.isEmpty()) {
        // A scripted run must never block on a message box.
        window.setInteractiveErrors(false);
        window.setScreenshotOnLoad(options.screenshotPath);
    }
    // A and B load at the same time, each with its own progress.
    if (!options.comparePath.isEmpty())
        window.compareWith(options.comparePath);
    for (qsizetype i = 0; i < options.paths.size(); ++i) {
        if (i == 0)
            window.openPath(options.paths[i]);
        else
            MainWindow::openInNewWindow(options.paths[i]);
    }
}

} // namespace tracedesk::app
