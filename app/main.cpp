#include "app/gui/mainwindow.h"
#include "app/gui/measurerun.h"
#include "app/gui/startup.h"
#include "core/base/version.h"

#include <QApplication>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace {

// --help and --version must work without a display, so they need no QApplication.
bool onlyPrints(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v"
            || arg == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> app(onlyPrints(argc, argv)
                                              ? new QCoreApplication(argc, argv)
                                              : new QApplication(argc, argv));
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(tracedesk::core::kVersion));

    const tracedesk::app::StartupOptions options =
        tracedesk::app::parseCommandLine(QCoreApplication::arguments());
    if (options.exitNow) {
        std::fputs(qPrintable(options.message), options.exitCode == 0 ? stdout : stderr);
        return options.exitCode;
    }

    QGuiApplication::setDesktopFileName(QStringLiteral("tracedesk"));
    tracedesk::app::MainWindow window;
    QObject::connect(&window, &tracedesk::app::MainWindow::screenshotFinished, app.get(),
                     [](bool ok) { QCoreApplication::exit(ok ? 0 : 1); });
    window.show();
    if (!options.measurePath.isEmpty()) {
        auto *measure = new tracedesk::app::MeasureRun(&window, options.measurePath);
        QObject::connect(measure, &tracedesk::app::MeasureRun::finished, app.get(),
                         [](bool ok) { QCoreApplication::exit(ok ? 0 : 1); });
        measure->start();
    }
    tracedesk::app::applyStartupOptions(window, options);
    // A screenshot without a path to load shows the empty window.
    if (!options.screenshotPath.isEmpty() && options.paths.isEmpty())
        QTimer::singleShot(0, &window, &tracedesk::app::MainWindow::takeScreenshot);
    return QCoreApplication::exec();
}
