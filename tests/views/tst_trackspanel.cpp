// The Tracks dock: planes without events are hidden until "Show empty planes" is ticked; the
// filter box keeps the tracks whose name (or whose plane's / host's name) matches, with their
// ancestors; a click on a track emits trackActivated, and revealTrack scrolls the timeline to
// a track far down (opening its collapsed section, showing it if hidden). Section and tree
// names of same-named planes carry their ids.

#include "core/model/tracebuilder.h"
#include "views/common/planetitle.h"
#include "views/timeline/timelinewidget.h"
#include "views/timeline/trackreveal.h"
#include "views/tracktree/trackfilterproxy.h"
#include "views/tracktree/trackspanel.h"
#include "views/tracktree/tracktreemodel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTreeView>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::views;

namespace {

constexpr int kBusyPlanes = 30;

// hostA: kBusyPlanes planes "/device:GPU:N" with two tracks each ("Stream 1" with one slice,
// "Compute conv N" with one slice), two empty planes ("/host:metadata" with no tracks,
// "/device:TPU:9" with one track and no events), and two planes both named "python".
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("op");
    const uint32_t op = b.addKind(kind);
    for (int p = 0; p < kBusyPlanes; ++p) {
        const uint32_t plane = b.addPlane("/device:GPU:" + std::to_string(p), "hostA", 10 + p,
                                          core::PlaneKind::Device);
        b.trace().planes[plane].sortIndex = p;
        const uint32_t stream = b.addTrack(plane, "Stream 1", 1);
        b.trackBuilder(stream).addSlice(0, 1000, op);
        const uint32_t conv = b.addTrack(plane, "Compute conv " + std::to_string(p), 2);
        b.trackBuilder(conv).addSlice(500, 1000, op);
    }
    b.addPlane("/host:metadata", "hostA", 1, core::PlaneKind::Metadata);
    const uint32_t tpu = b.addPlane("/device:TPU:9", "hostA", 2, core::PlaneKind::Device);
    b.addTrack(tpu, "idle", 1);
    for (int id : {4001, 4002}) {
        const uint32_t py = b.addPlane("python", "hostA", id, core::PlaneKind::Host);
        b.trace().planes[py].sortIndex = 100 + id;
        const uint32_t t = b.addTrack(py, "MainThread", 1);
        b.trackBuilder(t).addSlice(0, 10, op);
    }
    return b.build();
}

QStringList names(const QAbstractItemModel &m, const QModelIndex &parent)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r)
        out << m.index(r, 0, parent).data().toString();
    return out;
}

// All names under `parent`, depth first.
QStringList allNames(const QAbstractItemModel &m, const QModelIndex &parent = {})
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        out << i.data().toString() << allNames(m, i);
    }
    return out;
}

} // namespace

class TestTracksPanel : public QObject
{
    Q_OBJECT

private slots:
    void emptyPlanesHiddenByDefault();
    void filterKeepsMatchesAndAncestors();
    void clickRevealsTrack();
    void repeatedNamesCarryIds();
};

void TestTracksPanel::emptyPlanesHiddenByDefault()
{
    TrackTreeModel model;
    model.setTrace(buildTrace());
    TracksPanel panel(&model);
    QAbstractItemModelTester tester(panel.proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QAbstractItemModel &m = *panel.treeView()->model();
    const QModelIndex host = m.index(0, 0);
    // Counted from the fixture: kBusyPlanes GPU planes + 2 python planes have events.
    QCOMPARE(m.rowCount(host), kBusyPlanes + 2);
    QVERIFY(!names(m, host).contains("/host:metadata"));
    QVERIFY(!names(m, host).contains("/device:TPU:9"));
    QVERIFY(!panel.showEmptyBox()->isChecked());
    panel.showEmptyBox()->setChecked(true);
    QCOMPARE(m.rowCount(host), kBusyPlanes + 4);
    QVERIFY(names(m, host).contains("/host:metadata"));
    QVERIFY(names(m, host).contains("/device:TPU:9"));
}

void TestTracksPanel::filterKeepsMatchesAndAncestors()
{
    TrackTreeModel model;
    model.setTrace(buildTrace());
    TracksPanel panel(&model);
    QAbstractItemModelTester tester(panel.proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QAbstractItemModel &m = *panel.treeView()->model();
    QTest::keyClicks(panel.filterEdit(), "CONV 1");   // case-insensitive
    // "Compute conv 1" and "Compute conv 10".."19": 11 tracks, each under its own plane.
    const QModelIndex host = m.index(0, 0);
    QCOMPARE(m.rowCount(host), 11);
    for (int r = 0; r < m.rowCount(host); ++r) {
        const QModelIndex plane = m.index(r, 0, host);
        QCOMPARE(m.rowCount(plane), 1);
        QVERIFY(m.index(0, 0, plane).data().toString().startsWith("Compute conv 1"));
    }
    QVERIFY(!allNames(m).contains("Stream 1"));
    // A plane's name matching keeps all its tracks.
    panel.filterEdit()->setText("GPU:7");
    QCOMPARE(m.rowCount(m.index(0, 0)), 1);
    QCOMPARE(names(m, m.index(0, 0, m.index(0, 0))),
             (QStringList{"Stream 1", "Compute conv 7"}));
    panel.filterEdit()->clear();
    QCOMPARE(m.rowCount(m.index(0, 0)), kBusyPlanes + 2);
}

void TestTracksPanel::clickRevealsTrack()
{
    const core::TracePtr trace = buildTrace();
    TrackTreeModel model;
    model.setTrace(trace);
    TimelineWidget timeline;
    timeline.resize(1200, 400);   // room for a few sections: the last ones are out of view
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    timeline.setTrace(trace);
    TracksPanel panel(&model);
    panel.resize(400, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QObject::connect(&panel, &TracksPanel::trackActivated, &timeline,
                     [&timeline](uint32_t t) { revealTrack(&timeline, t); });
    QSignalSpy spy(&panel, &TracksPanel::trackActivated);

    // The last GPU plane's conv track: far below the first screen.
    uint32_t target = 0;
    for (uint32_t t = 0; t < trace->tracks.size(); ++t) {
        if (trace->string(trace->tracks[t].name) == "Compute conv 29")
            target = t;
    }
    const uint32_t plane = trace->tracks[target].plane;
    timeline.setPlaneCollapsed(plane, true);
    QCOMPARE(timeline.scrollY(), 0);
    panel.filterEdit()->setText("conv 29");
    QTreeView *view = panel.treeView();
    const QModelIndex host = view->model()->index(0, 0);
    const QModelIndex track = view->model()->index(0, 0, view->model()->index(0, 0, host));
    QCOMPARE(track.data().toString(), QStringLiteral("Compute conv 29"));
    view->scrollTo(track);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(track).center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).value<uint32_t>(), target);
    QVERIFY(!timeline.planeCollapsed(plane));
    const int item = timeline.layout().itemOfTrack(target);
    QVERIFY(item >= 0);
    const int y = timeline.layout().items()[size_t(item)].y;
    QVERIFY(timeline.scrollY() > 0);
    // The track's top is inside the visible part of the track area.
    QVERIFY(y >= timeline.scrollY());
    const int visible = timeline.canvasWidget()->height() - kRulerHeight;
    QVERIFY2(y + TimelineLayout::kRowHeight <= timeline.scrollY() + visible,
             qPrintable(QStringLiteral("y %1 scroll %2 visible %3")
                            .arg(y).arg(timeline.scrollY()).arg(visible)));
    // A hidden track comes back.
    timeline.setScrollY(0);
    timeline.setTrackHidden(target, true);
    QVERIFY(revealTrack(&timeline, target));
    QVERIFY(!timeline.trackHidden(target));
    QVERIFY(timeline.scrollY() > 0);
}

void TestTracksPanel::repeatedNamesCarryIds()
{
    const core::TracePtr trace = buildTrace();
    QStringList python;
    for (uint32_t p = 0; p < trace->planes.size(); ++p) {
        if (trace->string(trace->planes[p].name) == "python")
            python << planeTitle(*trace, p, true);
    }
    QCOMPARE(python, (QStringList{"python (pid 4001)  ·  hostA", "python (pid 4002)  ·  hostA"}));
    QCOMPARE(planeTitle(*trace, 0), QStringLiteral("/device:GPU:0"));   // unique: no id
}

QTEST_MAIN(TestTracksPanel)
#include "tst_trackspanel.moc"
