#pragma once

// `tracedesk --measure OUT.json PATH`: what a user waits for and what the window holds in
// memory on a real profile, measured in the running application and written as JSON, then
// the application quits.
//
// From the start of the load: the load (until the trace is shown), the first paint of the
// timeline, the timeline's level-of-detail index; then 20 zoom steps (ten in by 2x about the
// centre, ten back out), each one frame built and painted; then every analysis dock raised in
// turn, timed until its panel has its result (at most two minutes each); RSS after the load,
// after each panel and at the end (steady), and the process's peak, beside the store's size.
// A failed load writes nothing and exits 1. Paints are synchronous repaints on the GUI thread,
// as a user's frame is; panels compute on their workers as always.

#include <QElapsedTimer>
#include <QJsonArray>
#include <QObject>
#include <QString>

namespace tracedesk::app {

class MainWindow;

class MeasureRun : public QObject
{
    Q_OBJECT

public:
    static constexpr int kZoomSteps = 20;
    static constexpr int kPanelTimeoutMs = 120000;

    MeasureRun(MainWindow *window, const QString &outPath);

    // Arms the measurement; call before the load starts.
    void start();

signals:
    void finished(bool ok);

private:
    void onShown();
    void waitForIndex();
    void measureZooms();
    void measureNextPanel();
    void pollPanel();
    void finish();
    double paintMs();

    MainWindow *m_window;
    QString m_outPath;
    QElapsedTimer m_clock;
    QElapsedTimer m_panelClock;
    double m_loadMs = 0;
    double m_firstPaintMs = 0;
    double m_indexReadyMs = -1;
    quint64 m_rssAfterLoad = 0;
    quint64 m_rssAfterZooms = 0;   // the timeline's index built and its zooms painted
    quint64 m_peakAfterZooms = 0;
    QJsonArray m_zoomMs;
    QJsonArray m_panels;
    size_t m_nextDock = 0;
    QString m_dockMeasured;
    bool m_done = false;
};

} // namespace tracedesk::app
