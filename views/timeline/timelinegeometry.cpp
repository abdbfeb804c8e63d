#include "views/timeline/timelinegeometry.h"

#include "views/common/planetitle.h"
#include "views/common/qtconvert.h"
#include "views/timeline/timelineruler.h"

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

// Muted, distinguishable hues that keep dark text readable.
constexpr QRgb kPalette[] = {
    0xff7aa6da, 0xffe59f6b, 0xff8cc78a, 0xffd98c8c, 0xffb59ad6, 0xffc9a77c, 0xffe6a3cf,
    0xff9fb0c1, 0xffcfd36d, 0xff6fc7c7, 0xff5e8fcf, 0xffd1774a, 0xff63ad63, 0xffc25f5f,
    0xff9274c0, 0xffa98357, 0xffd282b5, 0xff7f96ab, 0xffb7bc4b, 0xff4fabab,
};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr float kFar = 1.0e6f;   // clamp for things far off screen, still a sane float

float clampX(double x)
{
    return float(std::clamp(x, -double(kFar), double(kFar)));
}

} // namespace

void TimelineGeometry::clear()
{
    rects.clear();
    folded.clear();
    density.clear();
    labels.clear();
    bands.clear();
    counters.clear();
    flows.clear();
    overlays.clear();
    ticks.clear();
    rulerOffset.clear();
}

QRgb colourForName(std::string_view name)
{
    uint32_t h = 2166136261u;   // FNV-1a: stable across runs and machines
    for (unsigned char c : name)
        h = (h ^ c) * 16777619u;
    return kPalette[h % kPaletteSize];
}

std::vector<GeoTick> rulerTicks(const core::Viewport &view, float width, core::TimePs origin,
                                float minSpacingPx)
{
    std::vector<GeoTick> ticks;
    for (RulerTick &t : computeRuler(view, width, origin, minSpacingPx).ticks)
        ticks.push_back({t.x, std::move(t.text)});
    return ticks;
}

void TimelineGeometryBuilder::setTrace(const core::Trace *trace, const core::TraceLodIndex *index)
{
    m_trace = trace;
    m_index = index;
    m_kindColours.clear();
    m_kindLabels.clear();
    if (!trace)
        return;
    m_kindColours.reserve(trace->kinds.size());
    for (const core::EventKind &k : trace->kinds)
        m_kindColours.push_back(colourForName(trace->string(k.name)));
}

QRgb TimelineGeometryBuilder::kindColour(uint32_t kind) const
{
    return kind < m_kindColours.size() ? m_kindColours[kind] : kPalette[0];
}

QString TimelineGeometryBuilder::kindLabel(uint32_t kind) const
{
    if (!m_trace || kind >= m_trace->kinds.size())
        return {};
    const auto [it, added] = m_kindLabels.try_emplace(kind);
    if (added) {
        const core::EventKind &k = m_trace->kinds[kind];
        it->second = toQString(m_trace->string(k.displayName != core::kEmptyString ? k.displayName
                                                                                   : k.name));
    }
    return it->second;
}

float TimelineGeometryBuilder::xOf(core::TimePs t) const
{
    // The difference is exact in int64 (saturating) before it becomes a double.
    const __int128 d = __int128(t) - __int128(m_view.t0);
    return clampX(double(d) / m_psPerPx);
}

void TimelineGeometryBuilder::build(const core::Viewport &view, const TimelineLayout &layout,
                                    const GeometryOptions &options,
                                    const GeometryOverlays &overlays, TimelineGeometry &out)
{
    out.clear();
    out.width = options.width;
    out.height = options.height;
    if (!m_trace || !view.valid())
        return;
    m_view = view;
    m_options = options;
    m_psPerPx = view.psPerPx();
    m_exactBudget = kExactSlicesPerFrame;
    Ruler ruler = computeRuler(view, options.width, m_trace->begin);
    out.ticks.reserve(ruler.ticks.size());
    for (RulerTick &t : ruler.ticks)
        out.ticks.push_back({t.x, std::move(t.text)});
    out.rulerOffset = std::move(ruler.offset);

    const int top = int(std::floor(options.scrollY));
    const int bottom = int(std::ceil(options.scrollY + options.height));
    const auto &items = layout.items();
    for (size_t i = layout.firstItemBelow(top); i < items.size() && items[i].y < bottom; ++i) {
        const LayoutItem &item = items[i];
        const float y = float(item.y) - options.scrollY;
        if (item.kind == LayoutItem::Header) {
            QString text;
            if (item.plane == kPinnedSection) {
                text = QStringLiteral("Pinned");
            } else {
                text = planeTitle(*m_trace, item.plane, true);
            }
            if (item.hidden > 0)
                text += QStringLiteral("  ·  %1 hidden").arg(item.hidden);
            // A section whose tracks are all hidden shows as closed too.
            const bool collapsed = item.collapsed || i + 1 >= items.size()
                                   || items[i + 1].kind == LayoutItem::Header;
            out.bands.push_back({y, float(item.height), text, true, collapsed});
            continue;
        }
        QString name = toQString(m_trace->string(m_trace->tracks[item.track].name));
        if (item.pinned)   // away from its plane, the name alone may be ambiguous
            name += QStringLiteral("  ·  ")
                    + toQString(m_trace->string(m_trace->planes[item.plane].name));
        out.bands.push_back({y, float(item.height), name, false, false});
        if (item.kind == LayoutItem::CounterTrack) {
            addCounter(item.track, y, float(item.height), out);
            continue;
        }
        const int firstRow = std::max(0, (top - item.y) / TimelineLayout::kRowHeight);
        for (int r = firstRow; r < item.rows; ++r) {
            const int rowY = item.y + r * TimelineLayout::kRowHeight;
            if (rowY >= bottom)
                break;
            addSliceRow(item.track, uint32_t(r), float(rowY) - options.scrollY, out);
        }
    }
    addOverlays(layout, overlays, out);
}

void TimelineGeometryBuilder::addSliceRow(uint32_t track, uint32_t row, float y,
                                          TimelineGeometry &out)
{
    const core::Row &data = m_trace->tracks[track].rows[row];
    const core::RowIndex *index = m_index ? m_index->row(track, row) : nullptr;
    core::queryRow(data, m_view, m_items, core::kFoldPx, index);
    core::densityColumns(data, m_view, m_items, m_columns, index ? &index->density() : nullptr,
                         &m_exactBudget);
    const float h = float(TimelineLayout::kRowHeight - 1);
    // Item n of m_items is folded entry foldedBase + (folded items before n).
    std::vector<uint32_t> &foldedOf = m_foldedOf;
    foldedOf.assign(m_items.size(), 0);
    for (size_t n = 0; n < m_items.size(); ++n) {
        const core::VisibleItem &it = m_items[n];
        const float x0 = xOf(it.start);
        const float x1 = xOf(it.end());
        // Narrow slices stay visible: at least one pixel wide.
        const float w = std::max(x1 - x0, 1.0f);
        if (it.folded()) {
            foldedOf[n] = uint32_t(out.folded.size());
            out.folded.push_back({x0, y, std::max(w, float(core::kFoldPx)), h, it.count, track,
                                  row, it.first});
            continue;
        }
        out.rects.push_back({x0, y, w, h, kindColour(it.kind)});
        const float visibleX0 = std::max(x0, 0.0f);
        const float visibleW = std::min(x0 + w, m_options.width) - visibleX0;
        if (visibleW < m_options.minLabelWidth)
            continue;
        QString text = kindLabel(it.kind);
        const int fits = int((visibleW - 4) / m_options.charWidth);
        if (fits < 3)   // two characters and an ellipsis, or nothing
            continue;
        if (text.size() > fits)
            text = text.left(fits - 1) + QChar(0x2026);
        out.labels.push_back({visibleX0 + 2, y, visibleW - 4, h, text});
    }
    for (const core::DensityColumn &c : m_columns) {
        out.density.push_back({float(c.px), y, 1.0f, h, c.coverage, kindColour(c.kind), c.kind,
                               c.count, foldedOf[c.item]});
    }
}

void TimelineGeometryBuilder::addCounter(uint32_t track, float y, float h, TimelineGeometry &out)
{
    const core::Track &data = m_trace->tracks[track];
    core::queryCounter(data.counter, m_view, m_points, m_index ? m_index->counter(track) : nullptr);
    if (m_points.empty())
        return;
    GeoCounter c{y, h, colourForName(m_trace->string(data.name)), {}, 0, 0};
    c.minValue = c.maxValue = m_points.front().value;
    for (const core::CounterPoint &p : m_points) {
        if (std::isfinite(p.value)) {
            c.minValue = std::min(c.minValue, p.value);
            c.maxValue = std::max(c.maxValue, p.value);
        }
    }
    const double span = c.maxValue > c.minValue ? c.maxValue - c.minValue : 1.0;
    const float inner = h - 4;
    float lastY = 0;
    c.points.reserve(m_points.size() * 2);
    for (const core::CounterPoint &p : m_points) {
        const float x = xOf(p.time);
        const double v = std::isfinite(p.value) ? p.value : c.minValue;
        const float py = y + 2 + inner - float((v - c.minValue) / span) * inner;
        if (!c.points.empty())
            c.points.emplace_back(x, lastY);   // a step: hold the value until the next sample
        c.points.emplace_back(x, py);
        lastY = py;
    }
    c.points.emplace_back(std::max(float(c.points.back().x()), m_options.width + 2), lastY);
    out.counters.push_back(std::move(c));
}

void TimelineGeometryBuilder::addOverlays(const TimelineLayout &layout,
                                          const GeometryOverlays &overlays, TimelineGeometry &out)
{
    const float scroll = m_options.scrollY;
    if (overlays.slice && m_trace->valid(*overlays.slice)) {
        const core::SliceRef s = *overlays.slice;
        const int top = layout.rowTop(s.track, s.row);
        if (top >= 0) {
            const float x0 = xOf(m_trace->start(s));
            const float x1 = xOf(m_trace->start(s) + m_trace->duration(s));
            out.overlays.push_back({GeoOverlay::SelectedSlice, x0, float(top) - scroll,
                                    std::max(x1 - x0, 1.0f),
                                    float(TimelineLayout::kRowHeight - 1), {}});
        }
    }
    if (overlays.area.valid()) {
        int top = -1;
        int bottom = -1;
        for (uint32_t t : overlays.area.tracks) {
            const int i = layout.itemOfTrack(t);
            if (i < 0)
                continue;
            const LayoutItem &item = layout.items()[size_t(i)];
            top = top < 0 ? item.y : std::min(top, item.y);
            bottom = std::max(bottom, item.y + item.height);
        }
        if (top >= 0) {
            const float x0 = xOf(overlays.area.time.t0);
            out.overlays.push_back({GeoOverlay::Area, x0, float(top) - scroll,
                                    xOf(overlays.area.time.t1) - x0, float(bottom - top),
                                    durationText(overlays.area.time.duration())});
        }
    }
    for (const auto &[range, kind] : {std::pair{overlays.marked, GeoOverlay::Marked},
                                      std::pair{overlays.timing, GeoOverlay::Timing}}) {
        if (!range.valid())
            continue;
        const float x0 = xOf(range.t0);
        out.overlays.push_back({kind, x0, 0, std::max(xOf(range.t1) - x0, 1.0f),
                                m_options.height, durationText(range.duration())});
    }
    if (overlays.highlights) {
        const std::vector<core::SliceRef> &refs = *overlays.highlights;
        // Sorted by start: stop at the first one that starts after the view.
        size_t drawn = 0;
        for (const core::SliceRef s : refs) {
            if (!m_trace->valid(s))
                continue;
            const core::TimePs start = m_trace->start(s);
            if (start > m_view.t1 || drawn >= kMaxHighlightsPerFrame)
                break;
            if (start + m_trace->duration(s) < m_view.t0)
                continue;
            // The selected slice keeps its own outline (e.g. the current search match among
            // all the marked ones).
            if (overlays.slice && *overlays.slice == s)
                continue;
            const int top = layout.rowTop(s.track, s.row);
            if (top < 0 || float(top) - scroll > m_options.height
                || float(top + TimelineLayout::kRowHeight) < scroll)
                continue;
            const float x0 = xOf(start);
            const float x1 = xOf(start + m_trace->duration(s));
            out.overlays.push_back({GeoOverlay::Highlight, x0, float(top) - scroll,
                                    std::max(x1 - x0, 1.0f),
                                    float(TimelineLayout::kRowHeight - 1), {}});
            ++drawn;
        }
    }
    const float mid = float(TimelineLayout::kRowHeight) / 2;
    auto addArrow = [&](const core::Flow &f) {
        if (!m_trace->valid(f.from) || !m_trace->valid(f.to))
            return;
        const int fromTop = layout.rowTop(f.from.track, f.from.row);
        const int toTop = layout.rowTop(f.to.track, f.to.row);
        if (fromTop < 0 || toTop < 0)
            return;
        out.flows.push_back({QPointF(xOf(m_trace->start(f.from) + m_trace->duration(f.from)),
                                     fromTop - scroll + mid),
                             QPointF(xOf(m_trace->start(f.to)), toTop - scroll + mid)});
    };
    if (overlays.links) {
        for (const core::Flow &f : *overlays.links)
            addArrow(f);
    }
    if (!m_options.flows)
        return;
    for (const core::Flow &f : overlays.flows)
        addArrow(f);
}

} // namespace tracedesk::views
