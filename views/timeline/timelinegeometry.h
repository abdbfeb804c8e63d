#pragma once

// Backend-neutral geometry of one timeline frame: the second of the timeline's three stages
// (store query -> geometry -> backend). For the rows visible at the current scroll position it
// asks core/query for what shows at this zoom and turns the answer into rects, folded markers,
// labels that fit, counter lines, flow arrows and selection overlays.
//
// Coordinates: x from the left edge of the time area (x = 0 is the viewport's t0), y from the
// top of the visible track area (the layout's y minus the scroll offset). Positions are
// computed from exact integer time differences before they become floats, so they hold at any
// zoom. Anything far outside the view is clamped to a few pixels past its edges.
//
// Pure: no widget, no GPU; safe to build on the GUI thread each frame because each visible row
// costs O(min(visible slices, pixels) * log n) through the level-of-detail queries.

#include "core/query/densityquery.h"
#include "core/query/lodindex.h"
#include "core/query/viewportquery.h"
#include "views/timeline/timelinelayout.h"
#include "views/timeline/timelinestate.h"

#include <QPointF>
#include <QRgb>
#include <QString>

#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tracedesk::views {

struct GeoRect
{
    float x, y, w, h;
    QRgb colour;
};

// A run of slices too narrow to draw one by one. Not drawn itself: its GeoDensity columns
// are; kept for hit testing and the tooltip (count, span).
struct GeoFolded
{
    float x, y, w, h;
    uint32_t count;
    uint32_t track, row, first;
};

// One pixel column of a folded run: how busy it is and what dominates it
// (core::DensityColumn in view coordinates). Backends draw a faint tint of the colour over the
// row's height and a bar of coverage * h from the bottom. Columns without slices have none.
struct GeoDensity
{
    float x, y, w, h;
    float coverage;     // [0, 1]
    QRgb colour;        // the dominant kind's colour
    uint32_t kind;      // the dominant kind
    uint32_t count;     // slices starting in the column
    uint32_t folded;    // index into TimelineGeometry::folded
};

struct GeoLabel
{
    float x, y, w, h;
    QString text;     // already shortened to about the width; backends elide exactly
};

struct GeoBand       // section headers and track names, drawn across the gutter
{
    float y, h;
    QString text;
    bool header;
    bool collapsed;
};

struct GeoCounter
{
    float y, h;
    QRgb colour;
    std::vector<QPointF> points;   // a step line; y already mapped into the band
    double minValue, maxValue;
};

struct GeoFlow
{
    QPointF from, to;
};

struct GeoOverlay
{
    enum Kind : uint8_t { SelectedSlice, Area, Timing, Marked, Highlight };
    Kind kind;
    float x, y, w, h;
    QString text;
};

struct GeoTick
{
    float x;
    QString text;
};

struct TimelineGeometry
{
    std::vector<GeoRect> rects;
    std::vector<GeoFolded> folded;
    std::vector<GeoDensity> density;
    std::vector<GeoLabel> labels;
    std::vector<GeoBand> bands;
    std::vector<GeoCounter> counters;
    std::vector<GeoFlow> flows;
    std::vector<GeoOverlay> overlays;
    std::vector<GeoTick> ticks;
    QString rulerOffset;   // empty, or the time the ruler's "+" labels count from
    float width = 0;
    float height = 0;

    void clear();
};

struct GeometryOptions
{
    float width = 0;          // time area, pixels
    float height = 0;         // visible track area, pixels
    float scrollY = 0;        // layout y shown at the top
    float charWidth = 7.0f;   // average glyph width, to decide whether a label fits
    float minLabelWidth = 20.0f;
    bool flows = true;
};

// What to highlight; plain values copied from TimelineState.
struct GeometryOverlays
{
    std::optional<core::SliceRef> slice;
    AreaRange area;
    TimeRange timing;
    TimeRange marked;
    std::vector<core::Flow> flows;   // drawn as arrows when GeometryOptions::flows is set
    std::shared_ptr<const std::vector<core::SliceRef>> highlights;   // sorted by start
    std::shared_ptr<const std::vector<core::Flow>> links; // arrows between highlights, always drawn
};

// Most highlighted slices outlined in one frame; past it the view is too dense to tell them
// apart anyway, and the frame time stays bounded.
inline constexpr size_t kMaxHighlightsPerFrame = 20'000;

// Stable colour of a name: a hash of its bytes picks one entry of a fixed palette.
QRgb colourForName(std::string_view name);
inline constexpr QRgb kFoldedColour = 0xff8c96a8;
inline constexpr QRgb kBackgroundColour = 0xfffbfbfc;

// Ruler ticks at 1, 2 or 5 x 10^k ps, at least minSpacingPx apart, labelled relative to origin
// (timelineruler.h; the offset, when the labels need one, is dropped here).
std::vector<GeoTick> rulerTicks(const core::Viewport &view, float width, core::TimePs origin,
                                float minSpacingPx = 90.0f);

class TimelineGeometryBuilder
{
public:
    // The trace and index must outlive the builder's use of them (or be replaced first).
    void setTrace(const core::Trace *trace, const core::TraceLodIndex *index = nullptr);

    void build(const core::Viewport &view, const TimelineLayout &layout,
               const GeometryOptions &options, const GeometryOverlays &overlays,
               TimelineGeometry &out);

    QRgb kindColour(uint32_t kind) const;
    QString kindLabel(uint32_t kind) const;

private:
    float xOf(core::TimePs t) const;
    void addSliceRow(uint32_t track, uint32_t row, float y, TimelineGeometry &out);
    void addCounter(uint32_t track, float y, float h, TimelineGeometry &out);
    void addOverlays(const TimelineLayout &layout, const GeometryOverlays &overlays,
                     TimelineGeometry &out);

    const core::Trace *m_trace = nullptr;
    const core::TraceLodIndex *m_index = nullptr;
    std::vector<QRgb> m_kindColours;
    // Labels of the kinds drawn so far: a few hundred, where a trace can have a million kinds.
    mutable std::unordered_map<uint32_t, QString> m_kindLabels;
    std::vector<core::VisibleItem> m_items;
    std::vector<core::DensityColumn> m_columns;
    std::vector<uint32_t> m_foldedOf;
    std::vector<core::CounterPoint> m_points;
    core::Viewport m_view;
    GeometryOptions m_options;
    double m_psPerPx = 1;
    // Slices one frame may walk for exact density before the LOD index exists: a few ms on
    // the GUI thread. Longer runs show their start counts until the index arrives.
    static constexpr size_t kExactSlicesPerFrame = 400'000;
    size_t m_exactBudget = 0;
};

} // namespace tracedesk::views
