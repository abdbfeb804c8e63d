#include "app/gui/measurerun.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "core/io/memoryusage.h"
#include "views/timeline/timelinewidget.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace tracedesk::app {

namespace {

constexpr int kPollMs = 10;
constexpr int kIndexTimeoutMs = 120000;

double median(const QJsonArray &values)
{
    std::vector<double> v;
    for (const QJsonValue &x : values)
        v.push_back(x.toDouble());
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

MeasureRun::MeasureRun(MainWindow *window, const QString &outPath)
    : QObject(window)
    , m_window(window)
    , m_outPath(outPath)
{}

void MeasureRun::start()
{
    m_window->setInteractiveErrors(false);
    connect(m_window, &MainWindow::traceShown, this, &MeasureRun::onShown,
            Qt::SingleShotConnection);
    connect(m_window, &MainWindow::errorShown, this, [this](const QString &message) {
        if (m_done)
            return;
        m_done = true;
        std::fprintf(stderr, "tracedesk: --measure: %s\n", qPrintable(message));
        emit finished(false);
    });
    m_clock.start();
}

double MeasureRun::paintMs()
{
    QElapsedTimer t;
    t.start();
    m_window->timeline()->canvasWidget()->repaint();
    return double(t.nsecsElapsed()) / 1e6;
}

void MeasureRun::onShown()
{
    m_loadMs = double(m_clock.nsecsElapsed()) / 1e6;
    m_rssAfterLoad = core::currentRssBytes();
    // The window lays the trace out in this event; paint once that is done.
    QTimer::singleShot(0, this, [this] {
        m_firstPaintMs = paintMs();
        waitForIndex();
    });
}

void MeasureRun::waitForIndex()
{
    views::TimelineWidget *timeline = m_window->timeline();
    if (timeline->lodIndexReady() || m_clock.elapsed() - qint64(m_loadMs) > kIndexTimeoutMs) {
        if (timeline->lodIndexReady())
            m_indexReadyMs = double(m_clock.nsecsElapsed()) / 1e6 - m_loadMs;
        measureZooms();
        return;
    }
    QTimer::singleShot(kPollMs, this, &MeasureRun::waitForIndex);
}

void MeasureRun::measureZooms()
{
    views::TimelineWidget *timeline = m_window->timeline();
    const double centre = timeline->canvasWidget()->width() / 2.0;
    for (int step = 0; step < kZoomSteps; ++step) {
        timeline->zoomBy(step < kZoomSteps / 2 ? 0.5 : 2.0, centre);
        m_zoomMs.append(paintMs());
    }
    m_rssAfterZooms = core::currentRssBytes();
    m_peakAfterZooms = core::peakRssBytes();
    measureNextPanel();
}

void MeasureRun::measureNextPanel()
{
    const auto &docks = m_window->analysisDocks()->docks();
    if (m_nextDock >= docks.size()) {
        // Steady: what the window keeps once every panel has its result.
        QTimer::singleShot(1000, this, &MeasureRun::finish);
        return;
    }
    QDockWidget *dock = docks[m_nextDock++];
    m_dockMeasured = dock->objectName();
    m_panelClock.start();
    m_window->analysisDocks()->raiseDock(m_dockMeasured);
    QTimer::singleShot(0, this, &MeasureRun::pollPanel);
}

void MeasureRun::pollPanel()
{
    const bool computing = m_window->analysisDocks()->visiblePanelComputing();
    const bool timedOut = m_panelClock.elapsed() > kPanelTimeoutMs;
    if (computing && !timedOut) {
        QTimer::singleShot(kPollMs, this, &MeasureRun::pollPanel);
        return;
    }
    const auto &docks = m_window->analysisDocks()->docks();
    QDockWidget *dock = docks[m_nextDock - 1];
    QJsonObject panel;
    panel.insert(QStringLiteral("dock"), m_dockMeasured);
    panel.insert(QStringLiteral("title"), dock->windowTitle());
    panel.insert(QStringLiteral("applies"),
                 m_window->analysisDocks()->notApplicableReason(dock).isEmpty());
    panel.insert(QStringLiteral("ms"), double(m_panelClock.nsecsElapsed()) / 1e6);
    panel.insert(QStringLiteral("timed_out"), computing);
    panel.insert(QStringLiteral("rss_bytes"), double(core::currentRssBytes()));
    panel.insert(QStringLiteral("heap_in_use_bytes"), double(core::heapInUseBytes()));
    // The peak so far: where it rises is the panel (or the work before it) that set it.
    panel.insert(QStringLiteral("rss_peak_bytes"), double(core::peakRssBytes()));
    m_panels.append(panel);
    measureNextPanel();
}

void MeasureRun::finish()
{
    if (m_done)
        return;
    m_done = true;
    const core::TracePtr &trace = m_window->trace();
    const double store = trace ? double(trace->memoryBytes()) : 0;
    const double steady = double(core::currentRssBytes());
    const double peak = double(core::peakRssBytes());
    double zoomMax = 0;
    for (const QJsonValue &v : m_zoomMs)
        zoomMax = std::max(zoomMax, v.toDouble());
    QJsonObject o;
    o.insert(QStringLiteral("events"), trace ? double(trace->eventCount()) : 0);
    o.insert(QStringLiteral("store_bytes"), store);
    o.insert(QStringLiteral("load_ms"), m_loadMs);
    o.insert(QStringLiteral("from_cache"), trace && trace->info.fromCache);
    o.insert(QStringLiteral("first_paint_ms"), m_firstPaintMs);
    o.insert(QStringLiteral("lod_index_ready_ms"), m_indexReadyMs);
    o.insert(QStringLiteral("zoom_paint_ms"), m_zoomMs);
    o.insert(QStringLiteral("zoom_paint_ms_median"), median(m_zoomMs));
    o.insert(QStringLiteral("zoom_paint_ms_max"), zoomMax);
    o.insert(QStringLiteral("panels"), m_panels);
    o.insert(QStringLiteral("rss_after_load_bytes"), double(m_rssAfterLoad));
    o.insert(QStringLiteral("rss_after_zooms_bytes"), double(m_rssAfterZooms));
    o.insert(QStringLiteral("rss_peak_after_zooms_bytes"), double(m_peakAfterZooms));
    o.insert(QStringLiteral("rss_steady_bytes"), steady);
    // Where the steady RSS is: file mappings, the allocator's live blocks, and the rest (freed
    // but kept by the allocator, thread stacks, graphics buffers).
    o.insert(QStringLiteral("rss_steady_file_bytes"), double(core::fileRssBytes()));
    o.insert(QStringLiteral("heap_in_use_bytes"), double(core::heapInUseBytes()));
    o.insert(QStringLiteral("rss_peak_bytes"), peak);
    o.insert(QStringLiteral("rss_steady_over_store"), store > 0 ? steady / store : 0);
    o.insert(QStringLiteral("rss_peak_over_store"), store > 0 ? peak / store : 0);
    QFile out(m_outPath);
    const QByteArray json = QJsonDocument(o).toJson(QJsonDocument::Indented);
    const bool ok = out.open(QIODevice::WriteOnly | QIODevice::Truncate)
                    && out.write(json) == json.size() && out.flush();
    if (!ok)
        std::fprintf(stderr, "tracedesk: --measure: cannot write %s\n", qPrintable(m_outPath));
    emit finished(ok);
}

} // namespace tracedesk::app
