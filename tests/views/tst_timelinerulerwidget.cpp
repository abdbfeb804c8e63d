#include "core/io/traceloader.h"
#include "views/timeline/timelinewidget.h"

#include <QtTest>

#include <filesystem>
#include <set>

using namespace tracedesk;
namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace"
                          / "xprof_GPU-multi-worker" / "34.83.195.179_6003.xplane.pb";

} // namespace

// The ruler of a real widget on the GPU multi-worker fixture, zoomed in step by step around
// 1.79 s after the trace's start (where labels used to repeat): every frame's tick labels are
// distinct. TRACEDESK_SHOTS=DIR keeps a picture of each zoom.
class TstTimelineRulerWidget : public QObject
{
    Q_OBJECT

private slots:
    void labelsDistinctWhenZoomingIn();
};

void TstTimelineRulerWidget::labelsDistinctWhenZoomingIn()
{
    if (!fs::exists(kFixture))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(kFixture.string(), nullptr, options);
    QVERIFY(loaded.ok());
    const core::TracePtr trace = loaded.value();
    views::TimelineWidget widget;
    widget.resize(1600, 700);
    widget.setTrace(trace);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    const core::TimePs centre = trace->begin + 1'790'000'000'000;
    const QByteArray dir = qgetenv("TRACEDESK_SHOTS");
    int shot = 0;
    for (core::TimePs span : {core::TimePs(100'000'000'000), core::TimePs(1'000'000'000),
                              core::TimePs(20'000'000), core::TimePs(300'000)}) {
        widget.state()->setWindow(centre - span / 2, centre + span / 2);
        const views::TimelineGeometry &g = widget.currentFrame();
        QVERIFY(g.ticks.size() >= 3);
        std::set<QString> seen;
        for (const views::GeoTick &t : g.ticks)
            QVERIFY2(seen.insert(t.text).second, qPrintable(t.text));
        qInfo().noquote() << "span" << span << "offset" << g.rulerOffset << "ticks"
                          << g.ticks.front().text << g.ticks[1].text << g.ticks.back().text;
        if (!dir.isEmpty()) {
            QTest::qWait(100);
            widget.grab().save(QStringLiteral("%1/ruler-%2.png")
                                   .arg(QString::fromLocal8Bit(dir))
                                   .arg(shot++));
        }
    }
}

QTEST_MAIN(TstTimelineRulerWidget)
#include "tst_timelinerulerwidget.moc"
