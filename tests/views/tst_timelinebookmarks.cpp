// Bookmarks: `m` with nothing selected adds a bookmark at the cursor's time, so pressing it at
// two places gives two; both show as flags on the ruler (bookmark overlays); choosing one in
// the Bookmarks menu moves the view onto it, at the same zoom. With a slice selected, `m`
// bookmarks the slice's range. The Flow category menu shows every flow of a category.

#include "core/model/tracebuilder.h"
#include "views/timeline/bookmarks.h"
#include "views/timeline/timelinewidget.h"

#include <QMenu>
#include <QToolButton>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::views;

namespace {

constexpr core::TimePs kUs = 1'000'000;

// One track, 100 slices of 5 us every 10 us (0..1000 us), and 20 flows of category "fwd"
// linking slice i to slice i + 1 (i = 0..19) plus 5 of category "bwd".
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("op");
    const uint32_t op = b.addKind(kind);
    const uint32_t plane = b.addPlane("/device:GPU:0", "host", 1, core::PlaneKind::Device);
    const uint32_t track = b.addTrack(plane, "Stream 1", 1);
    for (int i = 0; i < 100; ++i)
        b.trackBuilder(track).addSlice(i * 10 * kUs, 5 * kUs, op);
    core::TracePtr trace = b.build();
    std::vector<core::Flow> flows;
    const core::StringId fwd = 1, bwd = 2;   // any two distinct ids: only compared
    for (uint32_t i = 0; i < 25; ++i)
        flows.push_back({{track, 0, i}, {track, 0, i + 1}, i, i < 20 ? fwd : bwd});
    const_cast<core::Trace &>(*trace).flows = flows;   // freshly built, not shared yet
    return trace;
}

QToolButton *button(TimelineWidget &w, const char *name)
{
    return w.findChild<QToolButton *>(QString::fromLatin1(name));
}

// The menu's actions after it was filled (as when it opens).
QList<QAction *> menuActions(QToolButton *b)
{
    QMetaObject::invokeMethod(b->menu(), "aboutToShow");
    return b->menu()->actions();
}

} // namespace

class TestTimelineBookmarks : public QObject
{
    Q_OBJECT

private slots:
    void twoPlacesTwoBookmarks();
    void flowsOfACategory();
};

void TestTimelineBookmarks::twoPlacesTwoBookmarks()
{
    TimelineWidget w;
    w.resize(1400, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTrace(buildTrace());
    QWidget *canvas = w.canvasWidget();
    TimelineState *state = w.state();

    // The pointer's moves are sent, not warped: a warped X pointer reports its move
    // asynchronously, and a key pressed before it lands marks the middle of the view.
    auto hover = [canvas](QPoint at) {
        QMouseEvent move(QEvent::MouseMove, at, canvas->mapToGlobal(at), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(canvas, &move);
    };
    const QPoint first(500, 60), second(900, 60);
    const core::TimePs t1 = w.timeAtX(first.x()), t2 = w.timeAtX(second.x());
    QVERIFY(t2 > t1);
    hover(first);
    QTest::keyClick(canvas, Qt::Key_M);
    hover(second);
    QTest::keyClick(canvas, Qt::Key_M);
    Bookmarks *marks = Bookmarks::of(state);
    QCOMPARE(int(marks->items().size()), 2);
    QCOMPARE(marks->items()[0].range.t0, t1);
    QCOMPARE(marks->items()[1].range.t0, t2);
    QVERIFY(marks->items()[0].point());

    // Both drawn as flags (the whole trace is in view).
    int flags = 0;
    for (const GeoOverlay &o : w.currentFrame().overlays)
        flags += isBookmarkOverlay(o) ? 1 : 0;
    QCOMPARE(flags, 2);
    QVERIFY(button(w, "BookmarksButton")->text().contains("2"));

    // Zoom in far from both, then choose the first: same span, centred on it.
    state->setWindow(50 * kUs, 60 * kUs);
    const core::TimePs span = state->t1() - state->t0();
    QList<QAction *> actions = menuActions(button(w, "BookmarksButton"));
    QVERIFY(actions.size() >= 2);
    QVERIFY(actions[0]->text().startsWith("1"));
    actions[0]->trigger();
    QCOMPARE(state->t1() - state->t0(), span);
    QVERIFY(std::abs((state->t0() + state->t1()) / 2 - t1) <= 1);
    menuActions(button(w, "BookmarksButton"))[1]->trigger();
    QVERIFY(std::abs((state->t0() + state->t1()) / 2 - t2) <= 1);

    // A selected slice is bookmarked by its range; a new trace clears the list.
    state->selectSlice(core::SliceRef{0, 0, 3});
    QTest::keyClick(canvas, Qt::Key_M);
    QCOMPARE(int(marks->items().size()), 3);
    QCOMPARE(marks->items()[2].range, (TimeRange{30 * kUs, 35 * kUs}));
    w.setTrace(buildTrace());
    QVERIFY(Bookmarks::of(state)->items().empty());
}

void TestTimelineBookmarks::flowsOfACategory()
{
    TimelineWidget w;
    w.resize(1400, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTrace(buildTrace());
    QCOMPARE(int(w.currentFrame().flows.size()), 0);   // nothing selected
    QList<QAction *> actions = menuActions(button(w, "FlowCategoryButton"));
    QAction *fwd = nullptr;
    for (QAction *a : actions)
        fwd = a->text().contains("(20)") ? a : fwd;
    QVERIFY(fwd);
    fwd->trigger();
    // Counted from the fixture: 20 "fwd" flows, all in view at full zoom.
    QCOMPARE(int(w.currentFrame().flows.size()), 20);
    // A selection does not replace them; going back to the selection's flows does.
    w.state()->selectSlice(core::SliceRef{0, 0, 22});
    QCOMPARE(int(w.currentFrame().flows.size()), 20);
    menuActions(button(w, "FlowCategoryButton"))[0]->trigger();
    // Slice 22: the "bwd" flows 21->22 and 22->23.
    QCOMPARE(int(w.currentFrame().flows.size()), 2);
}

QTEST_MAIN(TestTimelineBookmarks)
#include "tst_timelinebookmarks.moc"
