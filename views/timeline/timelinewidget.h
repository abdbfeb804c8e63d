#pragma once

// TimelineWidget: the GPU timeline. It owns the shared TimelineState, a tool bar, the find bar
// and a canvas (OpenGL or QPainter, see timelinecanvas.h), and turns input into state changes:
// tools 1-4 (select, pan, zoom, timing), W/S zoom at the cursor, A/D pan (Shift: faster), the
// wheel scrolls tracks (Ctrl: zoom at the cursor, Shift: pan), click selects a slice, a select
// drag selects an area, f frames the selection, z or 0 shows the whole trace, m marks the
// selection, Esc clears the timing interval, Left/Right step along the selected slice's row,
// `/` or Ctrl+F opens the find bar (Enter there zooms to a match and gives the keys back;
// Enter / Shift+Enter here step on while it is open). A right click on a track offers Hide
// track and Pin to top / Unpin; on a section header, Collapse all, Expand all and Show hidden
// tracks. Hidden, pinned and collapsed tracks are remembered per trace (see TrackPrefs).
//
// Per frame it only runs the level-of-detail queries for the visible rows; anything that walks
// the store (the LOD index, search) runs on a worker.

#include "core/query/lodindex.h"
#include "core/query/selectionsummary.h"
#include "views/timeline/backgroundjob.h"
#include "views/timeline/categoryflows.h"
#include "views/timeline/timelinecanvas.h"
#include "views/timeline/timelinegeometry.h"
#include "views/timeline/timelinelayout.h"
#include "views/timeline/timelinestate.h"
#include "views/timeline/trackprefs.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <set>

class QActionGroup;
class QLabel;
class QScrollBar;
class QToolBar;
class QAction;
class QMenu;

namespace tracedesk::views {

class SearchBar;

class TimelineWidget : public QWidget, private FrameSource
{
    Q_OBJECT

public:
    explicit TimelineWidget(QWidget *parent = nullptr);
    ~TimelineWidget() override;

    void setTrace(core::TracePtr trace);
    const core::TracePtr &trace() const { return m_trace; }
    TimelineState *state() const { return m_state; }
    SearchBar *searchBar() const { return m_search; }
    QWidget *canvasWidget() const;
    bool usesOpenGL() const;
    const TimelineLayout &layout() const { return m_layout; }
    // The geometry of the last frame drawn.
    const TimelineGeometry &lastFrame() const { return m_geometry; }
    // The geometry for the current state at the canvas's size (what the next paint draws).
    const TimelineGeometry &currentFrame() { return frame(canvasWidget()->size()); }
    QString toolText() const;
    bool lodIndexReady() const { return m_index != nullptr; }

    // Canvas coordinates <-> time and tracks.
    double xOfTime(core::TimePs t) const;
    core::TimePs timeAtX(double canvasX) const;
    // Canvas y of the middle of a row, or -1 when hidden.
    double yOfRow(uint32_t track, uint32_t row) const;
    std::optional<core::SliceRef> sliceAt(QPointF canvasPos) const;
    QString toolTipAt(QPointF canvasPos) const;

    int scrollY() const;
    void setScrollY(int y);
    // `plane` may be kPinnedSection.
    void setPlaneCollapsed(uint32_t plane, bool collapsed);
    bool planeCollapsed(uint32_t plane) const { return m_tracks.collapsed.count(plane) > 0; }
    const TrackState &trackState() const { return m_tracks; }
    bool trackHidden(uint32_t track) const { return m_tracks.hidden.count(track) > 0; }
    bool trackPinned(uint32_t track) const;
    // The menu a right click at canvasPos opens (the caller owns it), or nullptr where there
    // is nothing to offer.
    QMenu *contextMenuAt(QPointF canvasPos);

    void zoomBy(double factor, double anchorCanvasX);
    void panByPixels(double dx);
    void resetZoom();
    void frameSelection();
    void markSelection();
    void stepSelection(core::Direction direction);
    // Selects the slice, keeps the zoom but centres it (framing it when wider than the view),
    // and scrolls its row into view.
    void revealSlice(core::SliceRef slice);
    // Brings the slice into view like revealSlice() without selecting it.
    void centreOn(core::SliceRef slice);
    // Scrolls the slice's row into view (expanding its plane), leaving the time window as is.
    void scrollToSlice(core::SliceRef slice);
    // Finds every occurrence of an op (core::SearchMode::Op) on a worker, outlines them
    // (TimelineState::setHighlights) and brings the first into view; then emits
    // opOccurrencesShown().
    // `alsoOps` are further names that stand for the same op (see core::SearchOptions::alsoOps).
    void showOpOccurrences(const QString &op, const QStringList &alsoOps = {});
    static constexpr size_t kMaxOpOccurrences = 100'000;
    void openSearch();
    // Selects a search match, zooms to it (searchMatchWindow(): a few times its duration,
    // inside the trace) and scrolls its row into view. See timelinesearch.cpp.
    void revealMatch(core::SliceRef slice);
    // Expands the sections of `host` (Plane::host), collapses the other hosts' and scrolls to
    // its first section. Returns false when no plane belongs to that host.
    bool focusHost(const QString &host);

public slots:
    void setTrackHidden(uint32_t track, bool hidden);
    // Pinned tracks go to the end of the pinned section.
    void setTrackPinned(uint32_t track, bool pinned);
    void collapseAll();
    void expandAll();
    // Shows the hidden tracks of a plane, or of the pinned section for kPinnedSection.
    void showHiddenTracks(uint32_t section);

signals:
    void lodIndexBuilt();
    void opOccurrencesShown(const QString &op, quint64 total);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    // Unhides the slice's track and expands its section.
    void showTrackOf(core::SliceRef slice);
    const TimelineGeometry &frame(QSize canvasSize) override;
    void createToolBar();
    void connectSearch();
    void markSearchResults();
    void rebuildLayout();
    void setTrackState(TrackState state);
    void updateScrollBar();
    void requestFrame();
    void onSelectionChanged();
    bool handleKey(QKeyEvent *event);
    bool handleMouse(QEvent *event);
    bool handleWheel(QWheelEvent *event);
    double anchorX() const;
    AreaRange areaBetween(QPointF a, QPointF b) const;
    void setWindowClamped(core::TimePs t0, core::TimePs t1);
    void updateToolLabel();

    core::TracePtr m_trace;
    std::shared_ptr<const core::TraceLodIndex> m_index;
    TimelineState *m_state = nullptr;
    TimelineCanvas *m_canvas = nullptr;
    QScrollBar *m_scroll = nullptr;
    QToolBar *m_toolBar = nullptr;
    QActionGroup *m_tools = nullptr;
    QAction *m_flowsAction = nullptr;
    QLabel *m_toolLabel = nullptr;
    SearchBar *m_search = nullptr;
    // The matches of the find bar as outlined (TimelineState::highlights), so closing the bar
    // clears only its own marks, never those a panel set since.
    std::shared_ptr<const std::vector<core::SliceRef>> m_searchMarks;
    TimelineLayout m_layout;
    TrackState m_tracks;
    TrackPrefs m_prefs;
    TimelineGeometryBuilder m_builder;
    TimelineGeometry m_geometry;
    std::vector<core::Flow> m_selectedFlows;
    CategoryFlows m_categoryFlows;     // every flow of the "Flow category" chosen, by time
    QSize m_frameSize;
    bool m_dirty = true;

    enum class Drag : uint8_t { None, Pending, Area, Pan, Zoom, Timing };
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    core::TimePs m_pressTime = 0;
    core::TimePs m_pressT0 = 0;
    core::TimePs m_pressT1 = 0;
    int m_pressScroll = 0;
    AreaRange m_areaPreview;     // the area being dragged, committed on release
    QPointF m_lastMouse{-1, -1};
    BackgroundJob m_indexJob;
    BackgroundJob m_flowJob;
    BackgroundJob m_opJob;
};

} // namespace tracedesk::views
