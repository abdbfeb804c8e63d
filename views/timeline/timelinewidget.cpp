#include "views/timeline/timelinewidget.h"

#include "core/query/search.h"

#include "views/common/qtconvert.h"
#include "views/timeline/bookmarks.h"
#include "views/timeline/flowlookup.h"
#include "views/timeline/searchbar.h"

#include <QAction>
#include <QActionGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

// The category whose flows are all shown (a StringId), or kNoValue for the selection's flows;
// kept on the tool bar so the widget's declaration need not change.
int64_t flowCategory(const QToolBar *bar)
{
    const QVariant v = bar->property("flowCategory");
    return v.isValid() ? v.toLongLong() : core::kNoValue;
}

void setFlowCategory(QToolBar *bar, int64_t category)
{
    bar->setProperty("flowCategory", qlonglong(category));
}

// Flow categories with their counts, in order of first appearance.
std::vector<std::pair<core::StringId, size_t>> flowCategories(const core::Trace &trace)
{
    std::vector<std::pair<core::StringId, size_t>> out;
    trace.flows.column(core::FlowTable::Category).visit([&](auto categories) {
        for (size_t i = 0, n = trace.flows.size(); i < n; ++i) {
            const auto category = core::StringId(categories[i]);
            auto it = std::find_if(out.begin(), out.end(),
                                   [&](const auto &c) { return c.first == category; });
            if (it == out.end())
                out.push_back({category, 1});
            else
                ++it->second;
        }
    });
    return out;
}

// At most this many flows of a category are drawn per frame.
constexpr size_t kMaxFlowsPerFrame = 5000;

// A flag on the ruler and a thin line down the tracks per visible bookmark.
void addBookmarkOverlays(const Bookmarks &marks, const core::Viewport &view, float height,
                         TimelineGeometry &out)
{
    const double psPerPx = view.psPerPx();
    for (size_t i = 0; i < marks.items().size(); ++i) {
        const core::TimePs t = marks.items()[i].range.t0;
        if (t < view.t0 || t > view.t1)
            continue;
        const float x = float(double(t - view.t0) / psPerPx);
        out.overlays.push_back({GeoOverlay::Marked, x, 0, 1.5f, height,
                                kBookmarkFlag + QString::number(i + 1)});
    }
}

} // namespace

TimelineWidget::TimelineWidget(QWidget *parent)
    : QWidget(parent), m_state(new TimelineState(this))
{
    setObjectName(QStringLiteral("Timeline"));
    setFocusPolicy(Qt::StrongFocus);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    createToolBar();
    layout->addWidget(m_toolBar);
    m_search = new SearchBar;
    m_search->hide();
    layout->addWidget(m_search);
    auto *body = new QHBoxLayout;
    body->setSpacing(0);
    m_canvas = createTimelineCanvas(this, nullptr);
    m_canvas->widget()->installEventFilter(this);
    body->addWidget(m_canvas->widget(), 1);
    m_scroll = new QScrollBar(Qt::Vertical);
    m_scroll->setObjectName(QStringLiteral("TimelineScroll"));
    m_scroll->setSingleStep(TimelineLayout::kRowHeight);
    body->addWidget(m_scroll);
    layout->addLayout(body, 1);

    connect(m_scroll, &QScrollBar::valueChanged, this, &TimelineWidget::requestFrame);
    connect(m_state, &TimelineState::viewportChanged, this, &TimelineWidget::requestFrame);
    connect(m_state, &TimelineState::overlaysChanged, this, [this] {
        requestFrame();
        updateToolLabel();
    });
    connect(m_state, &TimelineState::selectionChanged, this, &TimelineWidget::onSelectionChanged);
    connect(m_state, &TimelineState::toolChanged, this, [this](TimelineTool tool) {
        for (QAction *a : m_tools->actions())
            a->setChecked(a->data().toInt() == int(tool));
        updateToolLabel();
    });
    setFocusProxy(m_canvas->widget());
    connectSearch();
    updateToolLabel();
}

TimelineWidget::~TimelineWidget()
{
    m_indexJob.stop();
    m_flowJob.stop();
}

void TimelineWidget::createToolBar()
{
    m_toolBar = new QToolBar;
    m_toolBar->setObjectName(QStringLiteral("TimelineTools"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_tools = new QActionGroup(this);
    m_tools->setExclusive(true);
    const struct
    {
        TimelineTool tool;
        const char *text;
        const char *tip;
    } tools[] = {
        {TimelineTool::Select, QT_TR_NOOP("1 Select"), QT_TR_NOOP("Click a slice, drag an area")},
        {TimelineTool::Pan, QT_TR_NOOP("2 Pan"), QT_TR_NOOP("Drag to move through time")},
        {TimelineTool::Zoom, QT_TR_NOOP("3 Zoom"), QT_TR_NOOP("Drag a range or click to zoom")},
        {TimelineTool::Timing, QT_TR_NOOP("4 Timing"), QT_TR_NOOP("Drag to measure a duration")},
    };
    for (const auto &t : tools) {
        QAction *a = m_toolBar->addAction(tr(t.text));
        a->setToolTip(tr(t.tip));
        a->setCheckable(true);
        a->setData(int(t.tool));
        a->setChecked(t.tool == TimelineTool::Select);
        m_tools->addAction(a);
        connect(a, &QAction::triggered, this, [this, tool = t.tool] { m_state->setTool(tool); });
    }
    m_toolBar->addSeparator();
    m_flowsAction = m_toolBar->addAction(tr("Flows"));
    m_flowsAction->setCheckable(true);
    m_flowsAction->setChecked(true);
    m_flowsAction->setToolTip(tr("Show flow arrows of the selected slice"));
    connect(m_flowsAction, &QAction::toggled, this, &TimelineWidget::requestFrame);
    // All flows of one category on demand, not only the selected slice's.
    auto *flowMenu = new QMenu(this);
    auto *flowButton = new QToolButton(m_toolBar);
    flowButton->setObjectName(QStringLiteral("FlowCategoryButton"));
    flowButton->setText(tr("Flow category"));
    flowButton->setToolTip(tr("Show every flow of one category, or only the selected slice's"));
    flowButton->setPopupMode(QToolButton::InstantPopup);
    flowButton->setMenu(flowMenu);
    m_toolBar->addWidget(flowButton);
    connect(flowMenu, &QMenu::aboutToShow, this, [this, flowMenu] {
        flowMenu->clear();
        const int64_t current = flowCategory(m_toolBar);
        QAction *own = flowMenu->addAction(tr("Selected slice's flows"));
        own->setCheckable(true);
        own->setChecked(current == core::kNoValue);
        connect(own, &QAction::triggered, this, [this] {
            setFlowCategory(m_toolBar, core::kNoValue);
            m_categoryFlows.clear();
            onSelectionChanged();
        });
        if (!m_trace)
            return;
        flowMenu->addSeparator();
        for (const auto &entry : flowCategories(*m_trace)) {
            // Not a structured binding: clang 14 cannot capture one in a lambda.
            const auto category = entry.first;
            const auto count = entry.second;
            const QString name = category == core::kEmptyString
                                     ? tr("(no category)")
                                     : toQString(m_trace->string(category));
            QAction *a = flowMenu->addAction(tr("All \"%1\" flows (%2)").arg(name).arg(count));
            a->setCheckable(true);
            a->setChecked(current == int64_t(category));
            connect(a, &QAction::triggered, this, [this, category] {
                setFlowCategory(m_toolBar, int64_t(category));
                m_flowsAction->setChecked(true);
                m_selectedFlows.clear();
                m_categoryFlows.assign(*m_trace, category);
                requestFrame();
            });
        }
    });

    // Bookmarks (`m`): a list to jump between them.
    auto *bookmarkMenu = new QMenu(this);
    auto *bookmarkButton = new QToolButton(m_toolBar);
    bookmarkButton->setObjectName(QStringLiteral("BookmarksButton"));
    bookmarkButton->setText(tr("Bookmarks"));
    bookmarkButton->setToolTip(tr("Jump to a bookmark (m adds one at the selection or cursor)"));
    bookmarkButton->setPopupMode(QToolButton::InstantPopup);
    bookmarkButton->setMenu(bookmarkMenu);
    m_toolBar->addWidget(bookmarkButton);
    connect(Bookmarks::of(m_state), &Bookmarks::changed, this, [this, bookmarkButton] {
        const int n = int(Bookmarks::of(m_state)->items().size());
        bookmarkButton->setText(n ? tr("Bookmarks (%1)").arg(n) : tr("Bookmarks"));
        requestFrame();
    });
    connect(bookmarkMenu, &QMenu::aboutToShow, this, [this, bookmarkMenu] {
        bookmarkMenu->clear();
        Bookmarks *marks = Bookmarks::of(m_state);
        if (marks->items().empty()) {
            bookmarkMenu->addAction(tr("No bookmarks: press m on the timeline"))->setEnabled(false);
            return;
        }
        const core::TimePs origin = m_trace ? m_trace->begin : 0;
        for (int i = 0; i < int(marks->items().size()); ++i) {
            connect(bookmarkMenu->addAction(marks->label(i, origin)), &QAction::triggered, this,
                    [this, i] {
                        const auto &items = Bookmarks::of(m_state)->items();
                        if (i >= int(items.size()))
                            return;
                        const TimeRange r = items[size_t(i)].range;
                        if (items[size_t(i)].point()) {   // same zoom, centred on it
                            const core::TimePs half = (m_state->t1() - m_state->t0()) / 2;
                            setWindowClamped(r.t0 - half, r.t0 + half);
                        } else {
                            const core::TimePs pad = std::max<core::TimePs>(r.duration() / 10, 5);
                            setWindowClamped(r.t0 - pad, r.t1 + pad);
                        }
                    });
        }
        bookmarkMenu->addSeparator();
        connect(bookmarkMenu->addAction(tr("Clear bookmarks")), &QAction::triggered, this,
                [this] { Bookmarks::of(m_state)->clear(); });
    });
    QAction *find = m_toolBar->addAction(tr("Find"));
    find->setToolTip(tr("Search slices by name (/ or Ctrl+F)"));
    connect(find, &QAction::triggered, this, &TimelineWidget::openSearch);
    m_toolBar->addSeparator();
    m_toolLabel = new QLabel;
    m_toolLabel->setObjectName(QStringLiteral("TimelineToolLabel"));
    m_toolBar->addWidget(m_toolLabel);
}

QWidget *TimelineWidget::canvasWidget() const
{
    return m_canvas->widget();
}

bool TimelineWidget::usesOpenGL() const
{
    return m_canvas->usesOpenGL();
}

QString TimelineWidget::toolText() const
{
    return m_toolLabel->text();
}

void TimelineWidget::updateToolLabel()
{
    QString text;
    for (QAction *a : m_tools->actions()) {
        if (a->isChecked())
            text = a->text().mid(2);
    }
    const TimeRange &timing = m_state->timing();
    if (timing.valid())
        text += tr("  ·  timing %1 (Esc clears)").arg(durationText(timing.duration()));
    const TimeRange &marked = m_state->marked();
    if (marked.valid())
        text += tr("  ·  marked %1").arg(durationText(marked.duration()));
    m_toolLabel->setText(text);
}

void TimelineWidget::setTrace(core::TracePtr trace)
{
    m_indexJob.stop();
    m_flowJob.stop();
    m_opJob.stop();
    m_trace = std::move(trace);
    m_index.reset();
    m_builder.setTrace(m_trace.get(), nullptr);
    m_prefs = m_trace ? TrackPrefs(*m_trace) : TrackPrefs();
    m_tracks = m_prefs.load();
    m_selectedFlows.clear();
    m_categoryFlows.clear();
    m_search->setTrace(m_trace);
    m_state->setTiming({});
    m_state->setMarked({});
    Bookmarks::of(m_state)->clear();
    setFlowCategory(m_toolBar, core::kNoValue);
    m_state->clearHighlights();
    m_state->clearSelection();
    rebuildLayout();
    m_scroll->setValue(0);
    resetZoom();
    if (!m_trace)
        return;
    // The pyramids read every row once, the flow index sorts every flow: a worker's job, never
    // the GUI thread's. The pyramids come first, on their own: until they exist each frame
    // shows only what it can count quickly (timelinegeometry.h).
    core::TracePtr target = m_trace;
    m_indexJob.run<std::shared_ptr<const core::TraceLodIndex>>(
        this,
        [target](core::CancelToken cancel) { return core::TraceLodIndex::build(*target, cancel); },
        [this, target](std::shared_ptr<const core::TraceLodIndex> index) {
            if (target != m_trace || !index)
                return;
            m_index = std::move(index);
            m_builder.setTrace(m_trace.get(), m_index.get());
            requestFrame();
            emit lodIndexBuilt();
            m_flowJob.run<bool>(
                this,
                [target](core::CancelToken cancel) { return FlowLookup::prepare(target, cancel); },
                [](bool) {});
        });
}

void TimelineWidget::rebuildLayout()
{
    m_layout = m_trace ? TimelineLayout(*m_trace, m_tracks) : TimelineLayout();
    updateScrollBar();
    requestFrame();
}

void TimelineWidget::updateScrollBar()
{
    const int visible = std::max(0, m_canvas->widget()->height() - kRulerHeight);
    m_scroll->setPageStep(std::max(visible, 1));
    m_scroll->setRange(0, std::max(0, m_layout.totalHeight() - visible));
}

void TimelineWidget::requestFrame()
{
    m_dirty = true;
    m_canvas->widget()->update();
}

const TimelineGeometry &TimelineWidget::frame(QSize canvasSize)
{
    if (!m_dirty && canvasSize == m_frameSize)
        return m_geometry;
    m_dirty = false;
    m_frameSize = canvasSize;
    GeometryOptions options;
    options.width = float(std::max(1, canvasSize.width() - kGutterWidth));
    options.height = float(std::max(0, canvasSize.height() - kRulerHeight));
    options.scrollY = float(m_scroll->value());
    options.charWidth = float(QFontMetricsF(m_canvas->widget()->font()).averageCharWidth());
    options.flows = m_flowsAction->isChecked();
    GeometryOverlays overlays;
    overlays.slice = m_state->selectedSlice();
    overlays.area = m_drag == Drag::Area ? m_areaPreview : m_state->area();
    overlays.timing = m_state->timing();
    overlays.marked = m_state->marked();
    if (flowCategory(m_toolBar) != core::kNoValue && m_trace)
        overlays.flows = m_categoryFlows.inView(m_state->t0(), m_state->t1(), kMaxFlowsPerFrame);
    else
        overlays.flows = m_selectedFlows;
    overlays.highlights = m_state->highlights().refs;
    overlays.links = m_state->highlights().links;
    m_builder.build(m_state->viewport(), m_layout, options, overlays, m_geometry);
    addBookmarkOverlays(*Bookmarks::of(m_state), m_state->viewport(), options.height,
                        m_geometry);
    return m_geometry;
}

void TimelineWidget::onSelectionChanged()
{
    // "All flows of a category" stays until the menu goes back to the selection's flows.
    if (flowCategory(m_toolBar) != core::kNoValue) {
        requestFrame();
        return;
    }
    m_selectedFlows.clear();
    const auto &slice = m_state->selectedSlice();
    if (m_trace && slice)
        m_selectedFlows = FlowLookup::flowsOf(m_trace, *slice);   // per click, not per frame
    requestFrame();
}

double TimelineWidget::xOfTime(core::TimePs t) const
{
    return kGutterWidth + double(t - m_state->t0()) / m_state->viewport().psPerPx();
}

core::TimePs TimelineWidget::timeAtX(double canvasX) const
{
    return m_state->t0() + core::TimePs(std::llround((canvasX - kGutterWidth)
                                                     * m_state->viewport().psPerPx()));
}

double TimelineWidget::yOfRow(uint32_t track, uint32_t row) const
{
    const int top = m_layout.rowTop(track, row);
    if (top < 0)
        return -1;
    return kRulerHeight + top - m_scroll->value() + TimelineLayout::kRowHeight / 2.0;
}

int TimelineWidget::scrollY() const
{
    return m_scroll->value();
}

void TimelineWidget::setScrollY(int y)
{
    m_scroll->setValue(y);
}

void TimelineWidget::setWindowClamped(core::TimePs t0, core::TimePs t1)
{
    if (!m_trace)
        return;
    const core::TimePs traceSpan = std::max<core::TimePs>(m_trace->end - m_trace->begin, 1);
    const core::TimePs minSpan = std::max<core::TimePs>(m_state->widthPx() / 4, 10);
    const core::TimePs maxSpan = std::max(traceSpan * 2, minSpan);
    core::TimePs span = std::clamp(t1 - t0, minSpan, maxSpan);
    const core::TimePs mid = t0 + (t1 - t0) / 2;
    t0 = mid - span / 2;
    // Keep some of the trace in view.
    t0 = std::clamp(t0, m_trace->begin - span / 2 - span / 4,
                    std::max(m_trace->begin, m_trace->end - span / 4));
    m_state->setWindow(t0, t0 + span);
}

void TimelineWidget::zoomBy(double factor, double anchorCanvasX)
{
    const core::TimePs anchor = timeAtX(anchorCanvasX);
    const double left = double(anchor - m_state->t0()) * factor;
    const double right = double(m_state->t1() - anchor) * factor;
    core::TimePs t0 = anchor - core::TimePs(std::llround(left));
    core::TimePs t1 = anchor + core::TimePs(std::llround(right));
    const core::TimePs minSpan = std::max<core::TimePs>(m_state->widthPx() / 4, 10);
    if (t1 - t0 < minSpan)
        return;
    if (m_trace && t1 - t0 > 2 * std::max<core::TimePs>(m_trace->end - m_trace->begin, 1))
        return resetZoom();
    m_state->setWindow(t0, t1);
}

void TimelineWidget::panByPixels(double dx)
{
    const core::TimePs shift = core::TimePs(std::llround(dx * m_state->viewport().psPerPx()));
    setWindowClamped(m_state->t0() + shift, m_state->t1() + shift);
}

void TimelineWidget::resetZoom()
{
    if (!m_trace || m_trace->end <= m_trace->begin) {
        m_state->setWindow(0, 1'000'000);
        return;
    }
    const core::TimePs span = m_trace->end - m_trace->begin;
    const core::TimePs pad = std::max<core::TimePs>(span / 100, 1);
    m_state->setWindow(m_trace->begin - pad, m_trace->end + pad);
}

void TimelineWidget::frameSelection()
{
    TimeRange range;
    if (const auto &s = m_state->selectedSlice(); s && m_trace && m_trace->valid(*s))
        range = {m_trace->start(*s), m_trace->start(*s) + m_trace->duration(*s)};
    else if (m_state->area().valid())
        range = m_state->area().time;
    else if (m_state->timing().valid())
        range = m_state->timing();
    else if (m_state->marked().valid())
        range = m_state->marked();
    else
        return;
    const core::TimePs pad = std::max<core::TimePs>(range.duration() / 10, 5);
    setWindowClamped(range.t0 - pad, range.t1 + pad);
}

void TimelineWidget::markSelection()
{
    // A bookmark at what is selected (slice, area, timing interval), else at the cursor's time
    // (the middle of the view when the cursor is elsewhere). The latest range stays shaded.
    TimeRange range;
    if (const auto &s = m_state->selectedSlice(); s && m_trace && m_trace->valid(*s))
        range = {m_trace->start(*s), m_trace->start(*s) + m_trace->duration(*s)};
    else if (m_state->area().valid())
        range = m_state->area().time;
    else if (m_state->timing().valid())
        range = m_state->timing();
    if (range.valid()) {
        m_state->setMarked(range);
    } else {
        const QWidget *canvas = m_canvas->widget();
        const bool overTime = m_lastMouse.x() >= kGutterWidth && m_lastMouse.x() < canvas->width()
                              && m_lastMouse.y() >= 0 && m_lastMouse.y() < canvas->height();
        const core::TimePs t = overTime ? timeAtX(m_lastMouse.x())
                                        : m_state->t0() + (m_state->t1() - m_state->t0()) / 2;
        range = {t, t};
    }
    Bookmarks::of(m_state)->add({range});
}

void TimelineWidget::stepSelection(core::Direction direction)
{
    const auto &s = m_state->selectedSlice();
    if (!m_trace || !s)
        return;
    if (auto next = core::neighbourSlice(*m_trace, *s, direction))
        revealSlice(*next);
}

void TimelineWidget::revealSlice(core::SliceRef slice)
{
    if (!m_trace || !m_trace->valid(slice))
        return;
    showTrackOf(slice);
    m_state->selectSlice(slice);
    centreOn(slice);
}

void TimelineWidget::showTrackOf(core::SliceRef slice)
{
    // Wherever the track lives (a hidden track comes back: the user asked to go there).
    if (trackHidden(slice.track))
        setTrackHidden(slice.track, false);
    const uint32_t section = trackPinned(slice.track) ? kPinnedSection
                                                      : m_trace->tracks[slice.track].plane;
    if (planeCollapsed(section))
        setPlaneCollapsed(section, false);
}

void TimelineWidget::showOpOccurrences(const QString &op, const QStringList &alsoOps)
{
    if (!m_trace)
        return;
    core::TracePtr trace = m_trace;
    struct Found
    {
        QString op;
        std::vector<core::SliceRef> refs;
        uint64_t total = 0;
    };
    m_opJob.run<Found>(
        this,
        [trace, op, alsoOps](core::CancelToken cancel) {
            core::SearchOptions options;
            options.mode = core::SearchMode::Op;
            for (const QString &also : alsoOps)
                options.alsoOps.push_back(also.toStdString());
            options.cap = kMaxOpOccurrences;
            options.cancel = cancel;
            Found found{op, {}, 0};
            auto result = core::searchSlices(*trace, op.toStdString(), options);
            if (result) {
                found.refs = std::move(result.value().refs);
                found.total = result.value().total;
            }
            return found;
        },
        [this](Found found) {
            TimelineState::Highlights h;
            h.label = found.op;
            h.total = found.total;
            h.refs = std::make_shared<const std::vector<core::SliceRef>>(std::move(found.refs));
            const std::optional<core::SliceRef> first =
                h.refs->empty() ? std::nullopt : std::optional(h.refs->front());
            m_state->setHighlights(std::move(h));
            if (first)
                centreOn(*first);
            emit opOccurrencesShown(found.op, found.total);
        });
}

void TimelineWidget::centreOn(core::SliceRef slice)
{
    if (!m_trace || !m_trace->valid(slice))
        return;
    const core::TimePs start = m_trace->start(slice);
    const core::TimePs end = start + m_trace->duration(slice);
    const core::TimePs span = m_state->t1() - m_state->t0();
    if (end - start > span * 9 / 10) {
        const core::TimePs pad = std::max<core::TimePs>((end - start) / 10, 1);
        setWindowClamped(start - pad, end + pad);
    } else {
        const core::TimePs mid = start + (end - start) / 2;
        m_state->setWindow(mid - span / 2, mid - span / 2 + span);
    }
    scrollToSlice(slice);
}

void TimelineWidget::scrollToSlice(core::SliceRef slice)
{
    if (!m_trace || !m_trace->valid(slice))
        return;
    showTrackOf(slice);
    const int top = m_layout.rowTop(slice.track, slice.row);
    const int visible = std::max(0, m_canvas->widget()->height() - kRulerHeight);
    if (top >= 0 && (top < scrollY() || top + TimelineLayout::kRowHeight > scrollY() + visible))
        setScrollY(top - visible / 3);
}

void TimelineWidget::openSearch()
{
    m_search->activate();
    // Reopened on the same query: its matches are marked again without searching again.
    if (!m_searchMarks && !m_search->searching())
        markSearchResults();
}

} // namespace tracedesk::views
