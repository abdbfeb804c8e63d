#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"
#include "core/query/lodindex.h"
#include "views/timeline/timelinegeometry.h"
#include "views/timeline/timelinelayout.h"

#include <QFile>
#include <QtTest>

using namespace tracedesk;
using views::GeometryOptions;
using views::LayoutHit;
using views::LayoutItem;
using views::TimelineGeometry;
using views::TimelineGeometryBuilder;
using views::TimelineLayout;
using views::TrackState;

namespace {

constexpr int kTiny = 1000;

// A host plane added before a device plane (the layout must still put the device first).
// Device "XLA Ops": conv 1.0-1.5 us with matmul 1.1-1.2 us nested below it, then 1000 slices
// of 5 ps every 10 ps from 2 us. Device counter "power": 3 samples. Host "main": one 4 us slice.
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    auto kind = [&](const char *name) {
        core::EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    };
    const uint32_t matmul = kind("matmul");
    const uint32_t conv = kind("conv");
    const uint32_t tiny = kind("tiny");
    const uint32_t host = b.addPlane("/host:CPU", "node1", 1, core::PlaneKind::Host);
    const uint32_t device = b.addPlane("/device:TPU:0", "node1", 2, core::PlaneKind::Device);
    const uint32_t main = b.addTrack(host, "main", 1);
    b.trackBuilder(main).addSlice(0, 4'000'000, matmul);
    const uint32_t ops = b.addTrack(device, "XLA Ops", 1);
    b.trackBuilder(ops).addSlice(1'000'000, 500'000, conv);
    b.trackBuilder(ops).addSlice(1'100'000, 100'000, matmul);
    for (int i = 0; i < kTiny; ++i)
        b.trackBuilder(ops).addSlice(2'000'000 + i * 10, 5, tiny);
    const uint32_t power = b.addTrack(device, "power", 2, core::TrackType::Counter);
    b.trackBuilder(power).addCounterSample(0, 1.0);
    b.trackBuilder(power).addCounterSample(2'000'000, 3.0);
    b.trackBuilder(power).addCounterSample(3'000'000, 2.0);
    return b.build();
}

} // namespace

class TstTimelineGeometry : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { m_trace = buildTrace(); }
    void layoutOrderAndHeights();
    void layoutHitTest();
    void layoutCollapsed();
    void layoutHiddenTracks();
    void layoutPinnedTracks();
    void layoutPinnedCollapsedAndHidden();
    void launchQueueUnderItsStream();
    void sliceRectsAtTheirTime();
    void foldsNarrowSlices();
    void labelsOnlyWhereTheyFit();
    void onlyVisibleRows();
    void counterLine();
    void overlaysAndFlows();
    void coloursAreStable();
    void rulerTicks();
    void precisionAtDeepZoom();

private:
    TimelineGeometry build(const core::Viewport &view, float scrollY = 0, float height = 400,
                           const views::GeometryOverlays &overlays = {}, bool flows = true);
    core::TracePtr m_trace;
};

TimelineGeometry TstTimelineGeometry::build(const core::Viewport &view, float scrollY,
                                            float height, const views::GeometryOverlays &overlays,
                                            bool flows)
{
    TimelineLayout layout(*m_trace);
    TimelineGeometryBuilder builder;
    core::TraceLodIndex index(*m_trace, 1);
    builder.setTrace(m_trace.get(), &index);
    GeometryOptions options;
    options.width = float(view.widthPx());
    options.height = height;
    options.scrollY = scrollY;
    options.flows = flows;
    TimelineGeometry g;
    builder.build(view, layout, options, overlays, g);
    return g;
}

void TstTimelineGeometry::layoutOrderAndHeights()
{
    TimelineLayout layout(*m_trace);
    const auto &items = layout.items();
    QCOMPARE(items.size(), size_t(5));
    QCOMPARE(items[0].kind, LayoutItem::Header);
    QCOMPARE(items[0].plane, 1u);   // the device plane first
    QCOMPARE(items[1].kind, LayoutItem::SliceTrack);
    QCOMPARE(items[1].track, 1u);
    QCOMPARE(items[1].y, 22);
    QCOMPARE(items[1].rows, 2);
    QCOMPARE(items[1].height, 36);
    QCOMPARE(items[2].kind, LayoutItem::CounterTrack);
    QCOMPARE(items[2].y, 22 + 36 + 3);
    QCOMPARE(items[2].height, 40);
    QCOMPARE(items[3].kind, LayoutItem::Header);
    QCOMPARE(items[3].plane, 0u);
    QCOMPARE(items[3].y, 61 + 40 + 3);
    QCOMPARE(items[4].y, 104 + 22);
    QCOMPARE(layout.totalHeight(), 126 + 18 + 3);
    QCOMPARE(layout.rowTop(1, 1), 22 + 18);
    QCOMPARE(layout.rowTop(1, 2), -1);
}

void TstTimelineGeometry::layoutHitTest()
{
    TimelineLayout layout(*m_trace);
    QCOMPARE(layout.hitTest(5).kind, LayoutHit::Header);
    LayoutHit hit = layout.hitTest(22 + 18 + 4);
    QCOMPARE(hit.kind, LayoutHit::Row);
    QCOMPARE(hit.track, 1u);
    QCOMPARE(hit.row, 1u);
    QCOMPARE(layout.hitTest(22 + 36 + 1).kind, LayoutHit::None);   // the gap
    hit = layout.hitTest(70);
    QCOMPARE(hit.kind, LayoutHit::Counter);
    QCOMPARE(hit.track, 2u);
    hit = layout.hitTest(130);
    QCOMPARE(hit.kind, LayoutHit::Row);
    QCOMPARE(hit.track, 0u);
    QCOMPARE(hit.row, 0u);
    QCOMPARE(layout.hitTest(1000).kind, LayoutHit::None);
    QCOMPARE(layout.hitTest(-3).kind, LayoutHit::None);
}

void TstTimelineGeometry::layoutCollapsed()
{
    TimelineLayout layout(*m_trace, {1});
    QCOMPARE(layout.items().size(), size_t(3));
    QCOMPARE(layout.items()[1].kind, LayoutItem::Header);
    QCOMPARE(layout.items()[1].y, 22);
    QCOMPARE(layout.itemOfTrack(1), -1);
    QCOMPARE(layout.rowTop(0, 0), 44);
}

void TstTimelineGeometry::layoutHiddenTracks()
{
    // Tracks: 0 host "main", 1 device "XLA Ops" (2 rows), 2 device counter "power".
    TrackState state;
    state.hidden = {1};
    TimelineLayout layout(*m_trace, state);
    const auto &items = layout.items();
    QCOMPARE(items.size(), size_t(4));
    QCOMPARE(items[0].kind, LayoutItem::Header);
    QCOMPARE(items[0].plane, 1u);
    QCOMPARE(items[0].hidden, 1);
    QCOMPARE(items[1].kind, LayoutItem::CounterTrack);
    QCOMPARE(items[1].y, 22);
    QCOMPARE(items[2].y, 22 + 40 + 3);
    QCOMPARE(items[2].hidden, 0);
    QCOMPARE(items[3].track, 0u);
    QCOMPARE(items[3].y, 65 + 22);
    QCOMPARE(layout.totalHeight(), 87 + 18 + 3);
    QCOMPARE(layout.itemOfTrack(1), -1);
    QCOMPARE(layout.rowTop(1, 0), -1);
    QCOMPARE(layout.hitTest(30).kind, LayoutHit::Counter);   // where XLA Ops used to be
    QCOMPARE(layout.hitTest(30).track, 2u);

    // Every device track hidden: the header stays (to bring them back), with nothing below.
    state.hidden = {1, 2};
    TimelineLayout empty(*m_trace, state);
    QCOMPARE(empty.items().size(), size_t(3));
    QCOMPARE(empty.items()[0].hidden, 2);
    QCOMPARE(empty.items()[1].kind, LayoutItem::Header);
    QCOMPARE(empty.items()[1].y, 22);
    QCOMPARE(empty.totalHeight(), 22 + 22 + 18 + 3);
    // Hidden indices that are no tracks change nothing.
    state.hidden = {17};
    QCOMPARE(TimelineLayout(*m_trace, state).totalHeight(), 126 + 18 + 3);
}

void TstTimelineGeometry::layoutPinnedTracks()
{
    // Pin "main" then "power": a pinned section first, in pin order, then what is left.
    TrackState state;
    state.pinned = {0, 2, 0, 42};   // the duplicate and the unknown index are ignored
    TimelineLayout layout(*m_trace, state);
    const auto &items = layout.items();
    QCOMPARE(items.size(), size_t(5));
    QCOMPARE(items[0].kind, LayoutItem::Header);
    QCOMPARE(items[0].plane, views::kPinnedSection);
    QCOMPARE(items[1].track, 0u);
    QCOMPARE(items[1].plane, 0u);
    QVERIFY(items[1].pinned);
    QCOMPARE(items[1].y, 22);
    QCOMPARE(items[1].height, 18);
    QCOMPARE(items[2].track, 2u);
    QCOMPARE(items[2].kind, LayoutItem::CounterTrack);
    QCOMPARE(items[2].y, 22 + 18 + 3);
    QCOMPARE(items[3].kind, LayoutItem::Header);   // the device plane, only XLA Ops left
    QCOMPARE(items[3].plane, 1u);
    QCOMPARE(items[3].y, 43 + 40 + 3);
    QCOMPARE(items[4].track, 1u);
    QVERIFY(!items[4].pinned);
    QCOMPARE(items[4].y, 86 + 22);
    // The host plane lost its only track to the pinned section: no header for it.
    QCOMPARE(layout.totalHeight(), 108 + 36 + 3);
    const LayoutHit header = layout.hitTest(3);
    QCOMPARE(header.kind, LayoutHit::Header);
    QCOMPARE(header.plane, views::kPinnedSection);
    QCOMPARE(layout.hitTest(25).track, 0u);
    QCOMPARE(layout.rowTop(1, 1), 108 + 18);

    // Pin order is display order.
    state.pinned = {2, 0};
    TimelineLayout reversed(*m_trace, state);
    QCOMPARE(reversed.items()[1].track, 2u);
    QCOMPARE(reversed.items()[2].track, 0u);
    QCOMPARE(reversed.items()[2].y, 22 + 40 + 3);
}

void TstTimelineGeometry::layoutPinnedCollapsedAndHidden()
{
    TrackState state;
    state.pinned = {0, 2};
    state.hidden = {2};
    state.collapsed = {views::kPinnedSection, 1};
    TimelineLayout layout(*m_trace, state);
    const auto &items = layout.items();
    // Pinned header (collapsed, one hidden), device header (collapsed): XLA Ops is all it has.
    QCOMPARE(items.size(), size_t(2));
    QCOMPARE(items[0].plane, views::kPinnedSection);
    QVERIFY(items[0].collapsed);
    QCOMPARE(items[0].hidden, 1);
    QCOMPARE(items[1].plane, 1u);
    QVERIFY(items[1].collapsed);
    QCOMPARE(items[1].y, 22);
    QCOMPARE(layout.totalHeight(), 44);
    QCOMPARE(layout.itemOfTrack(0), -1);

    // Expanded: only main is pinned and visible; power stays hidden (hiding wins).
    state.collapsed.clear();
    TimelineLayout open(*m_trace, state);
    QCOMPARE(open.items().size(), size_t(4));
    QCOMPARE(open.items()[1].track, 0u);
    QCOMPARE(open.itemOfTrack(2), -1);

    // A pinned section whose tracks are all hidden disappears; the bands say so in the header.
    state.hidden = {0, 2};
    TimelineLayout none(*m_trace, state);
    QCOMPARE(none.items().front().plane, 1u);
    TimelineGeometryBuilder builder;
    builder.setTrace(m_trace.get());
    GeometryOptions options;
    options.width = 1000;
    options.height = 400;
    TimelineGeometry g;
    state.hidden = {1};
    state.pinned = {2};
    builder.build(core::Viewport::withWidth(0, 4'000'000, 1000), TimelineLayout(*m_trace, state),
                  options, {}, g);
    QCOMPARE(g.bands.size(), size_t(5));
    QCOMPARE(g.bands[0].text, QStringLiteral("Pinned"));
    QCOMPARE(g.bands[1].text, QStringLiteral("power  ·  /device:TPU:0"));
    QCOMPARE(g.bands[2].text, QStringLiteral("/device:TPU:0  ·  node1  ·  1 hidden"));
    QVERIFY(g.bands[2].collapsed);   // nothing left to show below it
    QVERIFY(!g.bands[3].collapsed);
    QCOMPARE(g.counters.size(), size_t(1));
    QCOMPARE(g.counters.front().y, 22.0f);
    QCOMPARE(g.folded.size(), size_t(0));   // XLA Ops is hidden
}

// A Kineto trace's launch-queue counter tracks are made after the streams the metadata sorts;
// each must still sit right under its own stream. SGLang's decode trace has two streams, sorted
// against their order of appearance.
void TstTimelineGeometry::launchQueueUnderItsStream()
{
    const QString path = QString(TRACEDESK_SHARED_FIXTURES)
                         + "/chrome_json/tracelens__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz";
    if (!QFile::exists(path)) {
        const QString why = "real fixture not found: " + path + " (../shared/fixtures/real)";
        if (qEnvironmentVariableIsSet("CI"))
            QFAIL(qPrintable(why));
        QSKIP(qPrintable(why));
    }
    const auto loaded = core::loadTrace(path.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const core::Trace &trace = *loaded.value();
    const TimelineLayout layout(trace);
    const auto &items = layout.items();
    int queues = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].kind != LayoutItem::CounterTrack)
            continue;
        const std::string name(trace.string(trace.tracks[items[i].track].name));
        const std::string suffix = " launch queue";
        if (!name.ends_with(suffix))
            continue;
        ++queues;
        QVERIFY2(i > 0 && items[i - 1].kind == LayoutItem::SliceTrack, name.c_str());
        const std::string above(trace.string(trace.tracks[items[i - 1].track].name));
        QCOMPARE(above + suffix, name);
    }
    QCOMPARE(queues, 2);
}

void TstTimelineGeometry::sliceRectsAtTheirTime()
{
    // 4000 ps per pixel.
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const TimelineGeometry g = build(view);
    auto find = [&](float y, float x) -> const views::GeoRect * {
        for (const auto &r : g.rects) {
            if (qAbs(r.y - y) < 0.01f && qAbs(r.x - x) <= 0.5f)
                return &r;
        }
        return nullptr;
    };
    const views::GeoRect *conv = find(22, 1'000'000 / 4000.0f);
    QVERIFY(conv);
    QVERIFY(qAbs(conv->w - 125.0f) <= 0.5f);
    QCOMPARE(conv->h, 17.0f);
    const views::GeoRect *matmul = find(40, 1'100'000 / 4000.0f);
    QVERIFY(matmul);
    QVERIFY(qAbs(matmul->w - 25.0f) <= 0.5f);
    const views::GeoRect *main = find(126, 0);
    QVERIFY(main);
    QVERIFY(qAbs(main->w - 1000.0f) <= 0.5f);
    QCOMPARE(g.rects.size(), size_t(3));

    // Panned: x is relative to the new t0.
    const auto panned = core::Viewport::withWidth(900'000, 1'300'000, 400);   // 1000 ps/px
    const TimelineGeometry p = build(panned);
    bool seen = false;
    for (const auto &r : p.rects)
        seen = seen || (r.y == 22 && qAbs(r.x - 100.0f) <= 0.5f && qAbs(r.w - 500.0f) <= 0.5f);
    QVERIFY(seen);
}

void TstTimelineGeometry::foldsNarrowSlices()
{
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const TimelineGeometry g = build(view);
    QCOMPARE(g.folded.size(), size_t(1));
    const views::GeoFolded &f = g.folded.front();
    QCOMPARE(f.count, uint32_t(kTiny));
    QCOMPARE(f.track, 1u);
    QCOMPARE(f.row, 0u);
    QCOMPARE(f.first, 1u);
    QVERIFY(qAbs(f.x - 500.0f) <= 0.5f);
    QVERIFY(f.w >= 2.0f);

    // At 1 ps/px every tiny slice is 5 px wide: nothing folds.
    const auto close = core::Viewport::withWidth(2'000'000, 2'000'100, 100);
    const TimelineGeometry c = build(close);
    QCOMPARE(c.folded.size(), size_t(0));
    int tinyRects = 0;
    for (const auto &r : c.rects)
        tinyRects += r.y == 22 ? 1 : 0;
    QCOMPARE(tinyRects, 10);
}

void TstTimelineGeometry::labelsOnlyWhereTheyFit()
{
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const TimelineGeometry g = build(view);
    QStringList texts;
    for (const auto &l : g.labels)
        texts << l.text;
    // conv (125 px) and main (1000 px) and matmul (25 px: "ma…") fit; the folded run never does.
    QVERIFY(texts.contains(QStringLiteral("conv")));
    QVERIFY(texts.contains(QStringLiteral("matmul")));
    QCOMPARE(texts.size(), 3);
    for (const auto &l : g.labels)
        QVERIFY(l.w >= 0 && l.text.size() * 7.0f <= l.w + 7.0f);

    const auto wide = core::Viewport::withWidth(0, 40'000'000, 1000);   // conv is 12.5 px
    const TimelineGeometry w = build(wide);
    for (const auto &l : w.labels)
        QVERIFY(l.text != QStringLiteral("conv"));
}

void TstTimelineGeometry::onlyVisibleRows()
{
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    // Scrolled so that only the host plane shows.
    const TimelineGeometry g = build(view, 104, 60);
    QCOMPARE(g.rects.size(), size_t(1));
    QCOMPARE(g.rects.front().y, 126.0f - 104.0f);
    QCOMPARE(g.folded.size(), size_t(0));
    QCOMPARE(g.counters.size(), size_t(0));
    QCOMPARE(g.bands.size(), size_t(2));
    QVERIFY(g.bands.front().header);
}

void TstTimelineGeometry::counterLine()
{
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const TimelineGeometry g = build(view);
    QCOMPARE(g.counters.size(), size_t(1));
    const views::GeoCounter &c = g.counters.front();
    QCOMPARE(c.minValue, 1.0);
    QCOMPARE(c.maxValue, 3.0);
    QCOMPARE(c.y, 61.0f);
    // Sample at 2 us is the maximum: top of the band (y + 2); the step starts at x = 500.
    bool top = false;
    for (const QPointF &p : c.points)
        top = top || (qAbs(p.x() - 500) <= 0.5 && qAbs(p.y() - 63) <= 0.5);
    QVERIFY(top);
    for (const QPointF &p : c.points)
        QVERIFY(p.y() >= 61 && p.y() <= 101);
}

void TstTimelineGeometry::overlaysAndFlows()
{
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    views::GeometryOverlays o;
    o.slice = core::SliceRef{1, 1, 0};
    o.timing = {400'000, 800'000};
    o.area = {{0, 2'000'000}, {1, 2}};
    o.flows.push_back({core::SliceRef{1, 1, 0}, core::SliceRef{0, 0, 0}, 7, 0});
    const TimelineGeometry g = build(view, 0, 400, o);
    QCOMPARE(g.overlays.size(), size_t(3));
    const auto &sel = g.overlays[0];
    QCOMPARE(sel.kind, views::GeoOverlay::SelectedSlice);
    QVERIFY(qAbs(sel.x - 275.0f) <= 0.5f && sel.y == 40.0f);
    const auto &area = g.overlays[1];
    QCOMPARE(area.kind, views::GeoOverlay::Area);
    QCOMPARE(area.y, 22.0f);
    QCOMPARE(area.h, 61.0f + 40.0f - 22.0f);
    QVERIFY(qAbs(area.w - 500.0f) <= 0.5f);
    const auto &timing = g.overlays[2];
    QCOMPARE(timing.kind, views::GeoOverlay::Timing);
    QVERIFY(qAbs(timing.x - 100.0f) <= 0.5f && qAbs(timing.w - 100.0f) <= 0.5f);
    QCOMPARE(timing.text, QStringLiteral("400.00 ns"));
    QCOMPARE(g.flows.size(), size_t(1));
    QVERIFY(qAbs(g.flows[0].from.x() - 300.0) <= 0.5 && g.flows[0].from.y() == 49.0);
    QVERIFY(qAbs(g.flows[0].to.x()) <= 0.5 && g.flows[0].to.y() == 135.0);

    // With flow arrows switched off, the selection's flows go but a highlighted chain's links
    // (a critical path's hops) stay: they are what the user asked to see.
    o.links = std::make_shared<const std::vector<core::Flow>>(
        std::vector<core::Flow>{{core::SliceRef{0, 0, 0}, core::SliceRef{1, 1, 0}, 0, 0}});
    const TimelineGeometry off = build(view, 0, 400, o, false);
    QCOMPARE(off.flows.size(), size_t(1));
    QVERIFY(qAbs(off.flows[0].to.x() - 275.0) <= 0.5 && off.flows[0].to.y() == 49.0);
    QCOMPARE(build(view, 0, 400, o, true).flows.size(), size_t(2));
}

void TstTimelineGeometry::coloursAreStable()
{
    QCOMPARE(views::colourForName("matmul"), views::colourForName("matmul"));
    QVERIFY(views::colourForName("matmul") != views::colourForName("conv"));
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const TimelineGeometry g = build(view);
    for (const auto &r : g.rects) {
        if (r.y == 126)
            QCOMPARE(r.colour, views::colourForName("matmul"));
        if (r.y == 22)
            QCOMPARE(r.colour, views::colourForName("conv"));
    }
}

void TstTimelineGeometry::rulerTicks()
{
    // 4000 ps/px and at least 90 px apart: 360000 ps -> steps of 500 ns.
    const auto view = core::Viewport::withWidth(0, 4'000'000, 1000);
    const auto ticks = views::rulerTicks(view, 1000, 0);
    QCOMPARE(ticks.size(), size_t(9));   // 0 to 4 us inclusive
    QCOMPARE(ticks[1].x, 125.0f);
    QCOMPARE(ticks[1].text, QStringLiteral("0.5 us"));   // exact labels (timelineruler.h)
    // Relative to the origin: a window starting at 1.2 us, origin 0 -> first tick at 1.5 us.
    const auto panned = core::Viewport::withWidth(1'200'000, 5'200'000, 1000);
    const auto p = views::rulerTicks(panned, 1000, 0);
    QVERIFY(qAbs(p.front().x - 75.0f) < 0.01f);
    QCOMPARE(p.front().text, QStringLiteral("1.5 us"));
}

void TstTimelineGeometry::precisionAtDeepZoom()
{
    // 1 ps per pixel around 2 us: float positions still land on the exact pixel.
    const auto view = core::Viewport::withPsPerPx(2'000'000 - 7, 2'000'000 + 993, int64_t(1));
    const TimelineGeometry g = build(view);
    bool found = false;
    for (const auto &r : g.rects)
        found = found || (r.y == 22 && r.x == 7.0f && r.w == 5.0f);
    QVERIFY(found);
}

QTEST_MAIN(TstTimelineGeometry)
#include "tst_timelinegeometry.moc"
