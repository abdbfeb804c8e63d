#include "app/gui/startup.h"

#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "core/base/version.h"
#include "core/io/runranks.h"

#include <QCommandLineParser>
#include <QCoreApplication>

namespace tracedesk::app {

StartupOptions parseCommandLine(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("tracedesk", "Explore ML performance profiles: XSpace "
                                                 "(.xplane.pb), Chrome trace JSON, Nsight "
                                                 "Systems SQLite exports and rocprofv3 "
                                                 "results (JSON, CSV)."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QCoreApplication::translate("tracedesk",
                                    "After PATH has loaded, save a PNG of the window to FILE "
                                    "and quit."),
        QStringLiteral("FILE"));
    parser.addOption(screenshotOption);
    const QCommandLineOption measureOption(
        QStringLiteral("measure"),
        QCoreApplication::translate("tracedesk",
                                    "Open PATH, then measure the load, the timeline's first "
                                    "paint and 20 zooms, every panel's time to its result and "
                                    "the memory held; write them to FILE as JSON and quit."),
        QStringLiteral("FILE"));
    parser.addOption(measureOption);
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
    const QCommandLineOption ranksOption(
        QStringLiteral("ranks"),
        QCoreApplication::translate("tracedesk",
                                    "For a run of several ranks or hosts: show only these ranks "
                                    "on the timeline (e.g. 0-3,17); the Distributed panel still "
                                    "summarises every rank."),
        QStringLiteral("LIST"));
    parser.addOption(ranksOption);
    const QCommandLineOption memoryOption(
        QStringLiteral("memory-limit"),
        QCoreApplication::translate("tracedesk",
                                    "The memory a load may take (BYTES may end in k, M or G); a "
                                    "run that needs more opens its first ranks that fit. "
                                    "Default: what the machine has available."),
        QStringLiteral("BYTES"));
    parser.addOption(memoryOption);
    const QCommandLineOption captureOption(
        QStringLiteral("capture"),
        QCoreApplication::translate("tracedesk",
                                    "The trace of the CUDA / HIP graph capture FILE|DIR replays: "
                                    "replayed kernels are attributed to the operators that "
                                    "recorded them."),
        QStringLiteral("CAPTURE"));
    parser.addOption(captureOption);
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
    options.measurePath = parser.value(measureOption);
    options.comparePath = parser.value(compareOption);
    options.alignStep = parser.value(alignOption);
    options.capturePath = parser.value(captureOption);
    auto usage = [&options](const QString &message) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = message + QLatin1Char('\n');
        return options;
    };
    if (parser.isSet(ranksOption)) {
        const auto ranks = core::parseRankList(parser.value(ranksOption).toStdString());
        if (!ranks)
            return usage(QStringLiteral("--ranks: ") + QString::fromStdString(ranks.message()));
        for (int64_t r : ranks.value())
            options.ranks << qint64(r);
    }
    if (parser.isSet(memoryOption)) {
        QString text = parser.value(memoryOption).trimmed();
        quint64 scale = 1;
        const QChar unit = text.isEmpty() ? QChar() : text.back().toUpper();
        if (unit == QLatin1Char('K') || unit == QLatin1Char('M') || unit == QLatin1Char('G')) {
            scale = unit == QLatin1Char('K') ? 1000 : unit == QLatin1Char('M') ? 1000000
                                                                                : 1000000000;
            text.chop(1);
        }
        bool ok = false;
        const quint64 value = text.toULongLong(&ok);
        if (!ok || value == 0 || value > UINT64_MAX / scale)
            return usage(QCoreApplication::translate(
                "tracedesk", "--memory-limit wants a byte count, e.g. 512M or 4G."));
        options.memoryLimitBytes = value * scale;
    }
    if (!options.capturePath.isEmpty() && options.paths.size() != 1)
        return usage(QCoreApplication::translate(
            "tracedesk", "--capture needs exactly one FILE or DIR, the replay."));
    if (!options.ranks.isEmpty() && options.paths.size() != 1)
        return usage(QCoreApplication::translate("tracedesk",
                                                 "--ranks needs exactly one FILE or DIR."));
    if (!options.comparePath.isEmpty() && options.paths.size() != 1) {
        options.exitNow = true;
        options.exitCode = 2;
        options.message = QCoreApplication::translate(
            "tracedesk", "--compare B needs exactly one FILE or DIR to compare it with.\n");
        return options;
    }
    if (!options.measurePath.isEmpty()
        && (options.paths.size() != 1 || !options.screenshotPath.isEmpty()
            || !options.comparePath.isEmpty()))
        return usage(QCoreApplication::translate(
            "tracedesk", "--measure needs exactly one FILE or DIR, and no --screenshot or "
                         "--compare."));
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
    if (!options.alignStep.isEmpty() || options.memoryLimitBytes != 0) {
        core::LoadOptions load = window.loadController()->options();
        if (!options.alignStep.isEmpty())
            load.alignStep = options.alignStep.toStdString();
        if (options.memoryLimitBytes != 0)
            load.memoryLimitBytes = options.memoryLimitBytes;
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
        if (i == 0 && !options.capturePath.isEmpty())
            window.openWithGraphCapture(options.paths[i], options.capturePath);
        else if (i == 0)
            window.openRunRanks(options.paths[i], options.ranks);
        else
            MainWindow::openInNewWindow(options.paths[i]);
    }
}

} // namespace tracedesk::app
