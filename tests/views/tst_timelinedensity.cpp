#include "core/model/tracebuilder.h"
#include "core/query/lodindex.h"
#include "views/timeline/painterbackend.h"
#include "views/timeline/timelinegeometry.h"
#include "views/timeline/timelinelayout.h"
#include "views/timeline/timelinetheme.h"

#include <QtTest>

using namespace tracedesk;
using views::GeoDensity;
using views::TimelineGeometry;

namespace {

// One row at 100 ps per pixel (10 columns), every slice under 2 px (folded):
//   column 0: a 40 + b 10 -> 50 % a    column 1: a 30 + c 40 -> 70 % c
//   column 2: a 80        -> 80 % a    columns 3-5: idle (ends the first run)
//   column 6: b 90        -> 90 % b    column 7: idle (inside the second run)
//   column 8: b 60 + a 10 -> 70 % b    column 9: b 50 (a slice from column 8) -> 50 % b
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    uint32_t kinds[3];
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; ++i) {
        core::EventKind k;
        k.name = b.intern(names[i]);
        kinds[i] = b.addKind(k);
    }
    const uint32_t plane = b.addPlane("/device:GPU:0", "node1", 1, core::PlaneKind::Device);
    const uint32_t track = b.addTrack(plane, "Stream", 1);
    const std::tuple<core::TimePs, core::TimePs, int> slices[] = {
        {0, 40, 0},   {50, 10, 1},  {100, 30, 0}, {150, 40, 2}, {210, 80, 0},
        {600, 90, 1}, {810, 40, 1}, {860, 10, 0}, {880, 70, 1},
    };
    for (const auto &[start, duration, kind] : slices)
        b.trackBuilder(track).addSlice(start, duration, kinds[kind]);
    return b.build();
}

} // namespace

class TstTimelineDensity : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void geometryColumns();
    void quadsKeepTheGapAndTheColour();

private:
    core::TracePtr m_trace;
    TimelineGeometry m_geometry;
};

void TstTimelineDensity::initTestCase()
{
    m_trace = buildTrace();
    views::TimelineLayout layout(*m_trace);
    core::TraceLodIndex index(*m_trace, 1);
    views::TimelineGeometryBuilder builder;
    builder.setTrace(m_trace.get(), &index);
    views::GeometryOptions options;
    options.width = 10;
    options.height = 400;
    builder.build(core::Viewport::withWidth(0, 1000, 10), layout, options, {}, m_geometry);
}

void TstTimelineDensity::geometryColumns()
{
    const TimelineGeometry &g = m_geometry;
    QVERIFY(g.rects.empty());   // nothing is 2 px wide
    QCOMPARE(g.folded.size(), size_t(2));
    QCOMPARE(g.folded[0].count, 5u);   // the counts the tooltip shows
    QCOMPARE(g.folded[1].count, 4u);

    const QRgb a = views::colourForName("a"), b = views::colourForName("b"),
               c = views::colourForName("c");
    struct Want
    {
        float x, coverage;
        QRgb colour;
        uint32_t count, folded;
    };
    const Want want[] = {{0, 0.5f, a, 2, 0}, {1, 0.7f, c, 2, 0}, {2, 0.8f, a, 1, 0},
                         {6, 0.9f, b, 1, 1}, {8, 0.7f, b, 3, 1}, {9, 0.5f, b, 0, 1}};
    QCOMPARE(g.density.size(), std::size(want));
    for (size_t i = 0; i < std::size(want); ++i) {
        const GeoDensity &d = g.density[i];
        QCOMPARE(d.x, want[i].x);
        QCOMPARE(d.w, 1.0f);
        QVERIFY(qAbs(d.coverage - want[i].coverage) < 1e-6f);
        QCOMPARE(d.colour, want[i].colour);
        QCOMPARE(d.count, want[i].count);
        QCOMPARE(d.folded, want[i].folded);
    }
}

void TstTimelineDensity::quadsKeepTheGapAndTheColour()
{
    const TimelineGeometry &g = m_geometry;
    const views::TimelineTheme theme = views::TimelineTheme::light();
    std::vector<views::Quad> quads;
    views::collectQuads(g, QSize(views::kGutterWidth + 10, 300), theme, quads);
    const float gx = views::kGutterWidth;
    const float top = g.density.front().y + views::kRulerHeight;
    const float h = g.density.front().h;
    auto inColumn = [&](const views::Quad &q, int px) {
        return q.x < gx + px + 1 && q.x + q.w > gx + px && q.y < top + h && q.y + q.h > top;
    };
    const QRgb chrome[] = {theme.header, theme.line, theme.gutter, theme.ruler};
    for (int px : {3, 4, 5, 7}) {   // idle columns: nothing but the row's chrome
        for (const views::Quad &q : quads) {
            if (inColumn(q, px))
                QVERIFY2(std::find(std::begin(chrome), std::end(chrome), q.colour)
                             != std::end(chrome),
                         qPrintable(QStringLiteral("column %1 drawn").arg(px)));
        }
    }
    // Column 1: a bar of 70 % of the row in c's colour, from the bottom.
    bool found = false;
    for (const views::Quad &q : quads) {
        if (inColumn(q, 1) && q.colour == views::colourForName("c")) {
            QCOMPARE(q.h, std::round(0.7f * h));
            QCOMPARE(q.y + q.h, top + h);
            found = true;
        }
    }
    QVERIFY(found);
}

QTEST_MAIN(TstTimelineDensity)
#include "tst_timelinedensity.moc"
