#pragma once

// TimelineState: the viewport, the selection and the active tool, shared by the timeline and
// the panels that observe it (details, search). GUI thread only. The viewport is kept as a time
// window plus the width of the time area in pixels; the exact scale comes from
// core::Viewport::withWidth().

#include "core/model/trace.h"
#include "core/query/viewport.h"

#include <QObject>
#include <QString>

#include <memory>

#include <optional>
#include <vector>

namespace tracedesk::views {

enum class TimelineTool : uint8_t { Select = 1, Pan = 2, Zoom = 3, Timing = 4 };

struct TimeRange
{
    core::TimePs t0 = 0;
    core::TimePs t1 = 0;
    bool valid() const { return t1 > t0; }
    core::TimePs duration() const { return t1 - t0; }
    friend bool operator==(const TimeRange &, const TimeRange &) = default;
};

struct AreaRange
{
    TimeRange time;
    std::vector<uint32_t> tracks;
    bool valid() const { return time.valid() && !tracks.empty(); }
    friend bool operator==(const AreaRange &, const AreaRange &) = default;
};

class TimelineState : public QObject
{
    Q_OBJECT

public:
    explicit TimelineState(QObject *parent = nullptr) : QObject(parent) {}

    core::TimePs t0() const { return m_t0; }
    core::TimePs t1() const { return m_t1; }
    int widthPx() const { return m_widthPx; }
    core::Viewport viewport() const
    {
        return core::Viewport::withWidth(m_t0, std::max(m_t1, m_t0 + 1), std::max(m_widthPx, 1));
    }
    void setWindow(core::TimePs t0, core::TimePs t1)
    {
        if (t1 <= t0)
            t1 = t0 + 1;
        if (t0 == m_t0 && t1 == m_t1)
            return;
        m_t0 = t0;
        m_t1 = t1;
        emit viewportChanged();
    }
    void setWidthPx(int width)
    {
        if (width == m_widthPx)
            return;
        m_widthPx = width;
        emit viewportChanged();
    }

    const std::optional<core::SliceRef> &selectedSlice() const { return m_slice; }
    const AreaRange &area() const { return m_area; }
    // Selecting a slice clears an area and the other way round.
    void selectSlice(std::optional<core::SliceRef> slice)
    {
        m_slice = slice;
        m_area = {};
        emit selectionChanged();
    }
    void selectArea(AreaRange area)
    {
        m_slice.reset();
        m_area = std::move(area);
        emit selectionChanged();
    }
    void clearSelection() { selectSlice(std::nullopt); }

    const TimeRange &timing() const { return m_timing; }
    void setTiming(TimeRange range)
    {
        m_timing = range;
        emit overlaysChanged();
    }
    const TimeRange &marked() const { return m_marked; }
    void setMarked(TimeRange range)
    {
        m_marked = range;
        emit overlaysChanged();
    }

    // Every occurrence of one op, outlined on the timeline and listed by the details pane (set
    // when a panel row is activated). Sorted by start; `total` counts matches past the list.
    // `links` chain some of them (a critical path's hops between tracks), drawn as arrows.
    struct Highlights
    {
        QString label;
        std::shared_ptr<const std::vector<core::SliceRef>> refs;
        uint64_t total = 0;
        std::shared_ptr<const std::vector<core::Flow>> links;
        bool empty() const { return !refs || refs->empty(); }
    };
    const Highlights &highlights() const { return m_highlights; }
    void setHighlights(Highlights highlights)
    {
        m_highlights = std::move(highlights);
        emit highlightsChanged();
        emit overlaysChanged();
    }
    void clearHighlights()
    {
        if (m_highlights.label.isEmpty() && m_highlights.empty())
            return;
        setHighlights({});
    }

    TimelineTool tool() const { return m_tool; }
    void setTool(TimelineTool tool)
    {
        if (tool == m_tool)
            return;
        m_tool = tool;
        emit toolChanged(tool);
    }

signals:
    void viewportChanged();
    void selectionChanged();
    void overlaysChanged();
    void highlightsChanged();
    void toolChanged(tracedesk::views::TimelineTool tool);

private:
    core::TimePs m_t0 = 0;
    core::TimePs m_t1 = 1;
    int m_widthPx = 1;
    std::optional<core::SliceRef> m_slice;
    AreaRange m_area;
    TimeRange m_timing;
    TimeRange m_marked;
    Highlights m_highlights;
    TimelineTool m_tool = TimelineTool::Select;
};

} // namespace tracedesk::views
