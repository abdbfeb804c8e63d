// The GUI thread never waits on background work: a user opens a 10M-event profile, raises every
// analysis panel, drags area selections, clicks slices and ticks "Selection only" while the
// load, the level-of-detail index and the analyses run on workers. A 5 ms timer on the GUI
// thread measures every gap in the event loop; none may reach 100 ms.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "core/io/generator.h"
#include "views/timeline/timelinestate.h"
#include "views/timeline/timelinewidget.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace tracedesk;
using app::MainWindow;

namespace {

constexpr qint64 kStallLimitMs = 100;

// Records the longest gap between ticks of a fast timer, and what the test was doing then.
class StallMonitor : public QObject
{
public:
    StallMonitor()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(5);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 gap = m_clock.restart();
            if (gap >= kStallLimitMs / 2)
                m_long << QStringLiteral("%1 ms while %2").arg(gap).arg(m_phase);
            if (gap > m_max) {
                m_max = gap;
                m_maxPhase = m_phase;
            }
        });
    }
    void start()
    {
        m_clock.start();
        m_timer.start();
    }
    void stop() { m_timer.stop(); }
    void setPhase(const QString &phase)
    {
        m_phase = phase;
        m_clock.restart(); // the test's own setup between phases is not the app's stall
    }
    qint64 maxGap() const { return m_max; }
    QString report() const
    {
        return QStringLiteral("longest gap %1 ms (%2); gaps >= %3 ms: %4")
            .arg(m_max)
            .arg(m_maxPhase)
            .arg(kStallLimitMs / 2)
            .arg(m_long.isEmpty() ? QStringLiteral("none") : m_long.join(QStringLiteral("; ")));
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    QString m_phase = QStringLiteral("starting");
    QString m_maxPhase;
    QStringList m_long;
    qint64 m_max = 0;
};

} // namespace

class TstResponsiveness : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tenMillionEventsNeverStallTheEventLoop();

private:
    QTemporaryDir m_temp;
};

void TstResponsiveness::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QSettings().clear();
    QVERIFY(m_temp.isValid());
}

void TstResponsiveness::tenMillionEventsNeverStallTheEventLoop()
{
    const QString file = m_temp.filePath(QStringLiteral("big.xplane.pb"));
    core::GeneratorOptions generate;
    generate.events = 10'000'000;
    const auto generated = core::generateTrace(generate, file.toStdString());
    QVERIFY2(generated, generated ? "" : generated.error().message.c_str());

    MainWindow window;
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    StallMonitor monitor;
    monitor.start();

    monitor.setPhase(QStringLiteral("loading"));
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QSignalSpy failed(&window, &MainWindow::errorShown);
    window.openPath(file);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() > 0, 240000);
    QVERIFY2(failed.isEmpty(), qPrintable(window.lastError()));
    QCOMPARE(window.trace()->eventCount(), generated.value().events);

    // Every panel raised in turn while its analysis (and the others) compute.
    app::AnalysisDocks *docks = window.analysisDocks();
    for (QDockWidget *dock : docks->docks()) {
        monitor.setPhase(QStringLiteral("raising %1").arg(dock->objectName()));
        dock->show();
        dock->raise();
        QTest::qWait(150);
    }

    // Area selections dragged across the timeline, a slice clicked, "Selection only" ticked.
    views::TimelineWidget *timeline = window.timeline();
    QWidget *canvas = timeline->canvasWidget();
    const QRect r = canvas->rect();
    auto drag = [&](double x0, double x1) {
        const QPoint from(int(r.width() * x0), r.height() / 3);
        const QPoint to(int(r.width() * x1), r.height() * 2 / 3);
        QTest::mousePress(canvas, Qt::LeftButton, {}, from);
        QTest::mouseMove(canvas, from + QPoint(10, 4));
        QTest::mouseMove(canvas, to);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
    };
    monitor.setPhase(QStringLiteral("dragging an area selection"));
    drag(0.2, 0.6);
    QVERIFY(timeline->state()->area().valid());
    QTest::qWait(200);
    monitor.setPhase(QStringLiteral("ticking Selection only"));
    int ticked = 0;
    for (QCheckBox *box : window.findChildren<QCheckBox *>()) {
        if (box->text() == QStringLiteral("Selection only") && box->isEnabled()) {
            box->setChecked(true);
            ++ticked;
            QTest::qWait(50);
        }
    }
    QVERIFY(ticked > 0);
    monitor.setPhase(QStringLiteral("dragging a second area"));
    drag(0.1, 0.9);
    QTest::qWait(200);
    monitor.setPhase(QStringLiteral("clicking a slice"));
    QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(r.width() / 2, r.height() / 4));
    QTest::qWait(200);
    monitor.setPhase(QStringLiteral("dragging a third area"));
    drag(0.4, 0.5);
    for (QDockWidget *dock : docks->docks()) {
        monitor.setPhase(QStringLiteral("raising %1 again").arg(dock->objectName()));
        dock->raise();
        QTest::qWait(50);
    }

    monitor.setPhase(QStringLiteral("waiting for the panels"));
    QTRY_VERIFY_WITH_TIMEOUT(!docks->visiblePanelComputing(), 240000);
    QTest::qWait(300);
    monitor.stop();
    QVERIFY2(monitor.maxGap() < kStallLimitMs, qPrintable(monitor.report()));
    qInfo().noquote() << monitor.report();
}

QTEST_MAIN(TstResponsiveness)
#include "tst_responsiveness.moc"
