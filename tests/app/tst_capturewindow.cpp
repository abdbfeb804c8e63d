// File > Capture from the main window: the dialog captures from a profiler server (the test
// server, on an ephemeral local port) and the window opens the run it saved.

#include "app/gui/mainwindow.h"
#include "core/capture/recordedprofilerserver.h"
#include "core/generate/generator.h"
#include "views/capture/capturedialog.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

class TstCaptureWindow : public QObject
{
    Q_OBJECT

private slots:
    void captureOpensTheNewRun();
};

void TstCaptureWindow::captureOpensTheNewRun()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("capture"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString served = dir.filePath(QStringLiteral("served.xplane.pb"));
    core::GeneratorOptions g;
    g.events = 3000;
    QVERIFY(core::generateTrace(g, served.toStdString()).ok());
    core::capture::ServeOptions serve;
    serve.xspacePath = served.toStdString();
    core::capture::RecordedProfilerServer server(serve);
    QVERIFY(server.start().ok());

    app::MainWindow window;
    window.setInteractiveErrors(false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction *captureAction = nullptr;
    for (QAction *menu : window.menuBar()->actions()) {
        if (!menu->menu())
            continue;
        for (QAction *a : menu->menu()->actions()) {
            if (a->text().startsWith(QStringLiteral("&Capture")))
                captureAction = a;
        }
    }
    QVERIFY(captureAction);
    captureAction->trigger();
    auto *dialog = window.findChild<views::CaptureDialog *>();
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());

    const QString logdir = dir.filePath(QStringLiteral("logs"));
    dialog->findChild<QLineEdit *>(QStringLiteral("addresses"))
        ->setText(QString::fromStdString(server.address()));
    dialog->findChild<QSpinBox *>(QStringLiteral("durationMs"))->setValue(200);
    dialog->findChild<QSpinBox *>(QStringLiteral("delayMs"))->setValue(0);
    dialog->findChild<QSpinBox *>(QStringLiteral("retries"))->setValue(0);
    dialog->findChild<QLineEdit *>(QStringLiteral("logdir"))->setText(logdir);
    QSignalSpy saved(dialog, &views::CaptureDialog::captureSaved);
    QSignalSpy shown(&window, &app::MainWindow::traceShown);
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("capture")),
                      Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 30000);
    const QString runDir = saved.front().front().toString();
    QCOMPARE(QFileInfo(runDir).path(), logdir + QStringLiteral("/plugins/profile"));

    // The window was empty, so the run opens in it.
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QVERIFY(window.trace());
    QCOMPARE(window.lastError(), QString());
    QVERIFY(window.trace()->eventCount() > 0);
    QVERIFY2(window.windowTitle().contains(QFileInfo(runDir).fileName()),
             qPrintable(window.windowTitle()));
    dialog->close();
}

QTEST_MAIN(TstCaptureWindow)
#include "tst_capturewindow.moc"
