// The GUI thread never waits on background work: a user opens a 10M-event profile, raises every
// analysis panel, drags area selections, clicks slices and ticks "Selection only" while the
// load, the level-of-detail index and the analyses run on workers. A 5 ms timer on the GUI
// thread measures every gap in the event loop; none may reach 100 ms. Every event delivery on
// the GUI thread is timed too (wall and CPU), so a long gap names the handler that took it and
// whether it worked or waited.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "core/generate/generator.h"
#include "views/timeline/timelinestate.h"
#include "views/timeline/timelinewidget.h"

#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QtTest>

#include <ctime>

using namespace tracedesk;
using app::MainWindow;

namespace {

constexpr qint64 kStallLimitMs = 100;
constexpr qint64 kReportGapMs = 35;     // gaps listed in the report, with their slow events
constexpr qint64 kSlowDeliveryMs = 8;

// Times every event delivery on the GUI thread, so a stall names the handler that caused it
// (nested deliveries are indented under the one that dispatched them).
class TimedApplication : public QApplication
{
public:
    using QApplication::QApplication;

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        const QEvent::Type type = event->type(); // the handler may delete the event
        const QString who = describe(receiver);
        const int depth = m_depth++;
        const size_t before = m_slow.size();
        QElapsedTimer clock;
        clock.start();
        const double cpu0 = threadCpuMs();
        const bool handled = QApplication::notify(receiver, event);
        const qint64 ms = clock.elapsed();
        const double cpu = threadCpuMs() - cpu0;
        --m_depth;
        if (ms >= kSlowDeliveryMs) {
            const QString line = QStringLiteral("%1%2 %3: %4 ms (%5 ms on the CPU)")
                                     .arg(QString(depth * 2, QLatin1Char(' ')), who)
                                     .arg(int(type))
                                     .arg(ms)
                                     .arg(cpu, 0, 'f', 0);
            m_slow.insert(m_slow.begin() + std::ptrdiff_t(before), line);
        }
        return handled;
    }
    QStringList takeSlow()
    {
        QStringList out(m_slow.begin(), m_slow.end());
        m_slow.clear();
        return out;
    }

private:
    // Time the GUI thread ran, to tell work done from time waiting for a core.
    static double threadCpuMs()
    {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
    }
    static QString describe(QObject *o)
    {
        QString name = QString::fromLatin1(o->metaObject()->className());
        if (!o->objectName().isEmpty())
            return name + QLatin1Char('#') + o->objectName();
        for (QObject *up = o->parent(); up; up = up->parent()) {
            if (!up->objectName().isEmpty() && !up->objectName().startsWith(QLatin1String("qt_")))
                return name + QStringLiteral(" in #") + up->objectName();
        }
        return name;
    }

    int m_depth = 0;
    std::vector<QString> m_slow;
};

TimedApplication *timedApp()
{
    return static_cast<TimedApplication *>(QCoreApplication::instance());
}

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
            const QStringList slow = timedApp()->takeSlow();
            if (gap >= kReportGapMs) {
                m_long << QStringLiteral("%1 ms while %2").arg(gap).arg(m_phase);
                m_slowEvents << QStringLiteral("%1 ms gap while %2:").arg(gap).arg(m_phase)
                             << slow;
            }
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
    QString slowEvents() const { return m_slowEvents.join(QLatin1Char('\n')); }
    QString report() const
    {
        return QStringLiteral("longest gap %1 ms (%2); gaps >= %3 ms: %4")
            .arg(m_max)
            .arg(m_maxPhase)
            .arg(kReportGapMs)
            .arg(m_long.isEmpty() ? QStringLiteral("none") : m_long.join(QStringLiteral("; ")));
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    QString m_phase = QStringLiteral("starting");
    QString m_maxPhase;
    QStringList m_long;
    QStringList m_slowEvents;
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
    app::RecentFiles::flush();   // a list still being written would land after the clear
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
    if (!monitor.slowEvents().isEmpty()) {
        qInfo().noquote() << "Event deliveries of" << kSlowDeliveryMs
                          << "ms or more in long gaps:\n"
                          << monitor.slowEvents();
    }
    QVERIFY2(monitor.maxGap() < kStallLimitMs, qPrintable(monitor.report()));
    qInfo().noquote() << monitor.report();
}

int main(int argc, char **argv)
{
    TimedApplication app(argc, argv);
    TstResponsiveness test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_responsiveness.moc"
