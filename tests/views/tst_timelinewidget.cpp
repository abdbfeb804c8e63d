#include "core/model/tracebuilder.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/searchbar.h"
#include "views/timeline/summarytablemodel.h"
#include "views/timeline/timelinetheme.h"
#include "views/timeline/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using views::TimelineWidget;

namespace {

constexpr int kTiny = 500;

// Device "/device:GPU:0", track "Stream 1": kernelA 0-1 us (args flops=123, op=fusion.1),
// kernelB 2-3 us with "inner" 2.1-2.4 us below it, kernelA 4-5 us, 500 "tiny" slices of 10 ps
// every 20 ps from 6 us, kernelC 9-10 us. Host "/host:CPU", track "main": step 0-10 us with
// launch 1.5-1.7 us below it; a flow goes from launch to kernelB. `source` names the file it
// stands for (track state is only remembered for traces read from files).
core::TracePtr buildTrace(const char *source = nullptr)
{
    core::TraceBuilder b;
    if (source)
        b.info().sources.push_back(source);
    auto kind = [&](const char *name) {
        core::EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    };
    const uint32_t kernelA = kind("kernelA");
    const uint32_t kernelB = kind("kernelB");
    const uint32_t kernelC = kind("kernelC");
    const uint32_t inner = kind("inner");
    const uint32_t tiny = kind("tiny");
    const uint32_t step = kind("step");
    const uint32_t launch = kind("launch");
    const uint32_t host = b.addPlane("/host:CPU", "node1", 1, core::PlaneKind::Host);
    const uint32_t device = b.addPlane("/device:GPU:0", "node1", 2, core::PlaneKind::Device);
    const uint32_t stream = b.addTrack(device, "Stream 1", 1);
    core::TrackBuilder &s = b.trackBuilder(stream);
    core::ArgsArena::Writer w(s.args());
    w.addInt(b.intern("flops"), 123);
    w.addStringRef(b.intern("op"), b.intern("fusion.1"));
    s.addSlice(0, 1'000'000, kernelA, w.finish());
    const uint32_t stagedB = s.addSlice(2'000'000, 1'000'000, kernelB);
    s.addSlice(2'100'000, 300'000, inner);
    s.addSlice(4'000'000, 1'000'000, kernelA);
    for (int i = 0; i < kTiny; ++i)
        s.addSlice(6'000'000 + i * 20, 10, tiny);
    s.addSlice(9'000'000, 1'000'000, kernelC);
    const uint32_t main = b.addTrack(host, "main", 1);
    b.trackBuilder(main).addSlice(0, 10'000'000, step);
    const uint32_t stagedLaunch = b.trackBuilder(main).addSlice(1'500'000, 200'000, launch);
    b.addFlowOnSlice(main, stagedLaunch, 1'500'000, 1, 0, core::FlowPhase::Start);
    b.addFlowOnSlice(stream, stagedB, 2'000'000, 1, 0, core::FlowPhase::End);
    return b.build();
}

constexpr uint32_t kStream = 0;
constexpr uint32_t kMain = 1;

// Triggers the action named `name` of the context menu at pos; false when it is not offered.
bool triggerMenu(TimelineWidget *widget, QPoint pos, const char *name)
{
    std::unique_ptr<QMenu> menu(widget->contextMenuAt(pos));
    if (!menu)
        return false;
    for (QAction *a : menu->actions()) {
        if (a->objectName() == QLatin1String(name) && a->isEnabled()) {
            a->trigger();
            return true;
        }
    }
    return false;
}

bool near(QRgb a, QRgb b, int tolerance = 3)
{
    return qAbs(qRed(a) - qRed(b)) <= tolerance && qAbs(qGreen(a) - qGreen(b)) <= tolerance
           && qAbs(qBlue(a) - qBlue(b)) <= tolerance;
}

} // namespace

class TstTimelineWidget : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();
    void backendAndLayout();
    void zoomAndPanKeys();
    void clickSelectsAndShowsDetails();
    void headerClickCollapses();
    void hideTrackFromMenu();
    void pinTrackFromMenu();
    void collapseAllFromMenu();
    void trackStateRestored();
    void areaSelectionSummary();
    void timingTool();
    void searchSteps();
    void foldedTooltip();
    void pixels();
    void questionMarkListsShortcuts();
    void opOccurrencesAreOutlinedAndListed();
    void focusHostCollapsesTheOthers();

private:
    QPoint at(core::TimePs t, uint32_t track, uint32_t row = 0) const;

    core::TracePtr m_trace;
    std::unique_ptr<TimelineWidget> m_widget;
    std::unique_ptr<views::DetailsPane> m_details;
};

void TstTimelineWidget::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDeskTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_timelinewidget"));
    QSettings().remove(QStringLiteral("TimelineTracks"));
    // The app prefers QPainter on a software rasterizer (Xvfb has only llvmpipe): this test
    // exercises the OpenGL canvas wherever a context works, unless told to use QPainter.
    if (qEnvironmentVariableIsEmpty("TRACEDESK_TIMELINE_BACKEND"))
        qputenv("TRACEDESK_TIMELINE_BACKEND", "gl");
}

void TstTimelineWidget::cleanupTestCase()
{
    QSettings().remove(QStringLiteral("TimelineTracks"));
}

void TstTimelineWidget::init()
{
    m_trace = buildTrace();
    m_widget = std::make_unique<TimelineWidget>();
    m_widget->resize(1000, 500);
    m_widget->setTrace(m_trace);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    m_details = std::make_unique<views::DetailsPane>();
    m_details->setTrace(m_trace);
    m_details->setState(m_widget->state());
    QTRY_VERIFY(m_widget->lodIndexReady());
}

void TstTimelineWidget::cleanup()
{
    m_details.reset();
    m_widget.reset();
}

QPoint TstTimelineWidget::at(core::TimePs t, uint32_t track, uint32_t row) const
{
    return QPoint(int(std::lround(m_widget->xOfTime(t))), int(m_widget->yOfRow(track, row)));
}

void TstTimelineWidget::backendAndLayout()
{
    const bool forcedPainter = qEnvironmentVariable("TRACEDESK_TIMELINE_BACKEND")
                               == QStringLiteral("painter");
    QCOMPARE(m_widget->usesOpenGL(), views::openGLAvailable() && !forcedPainter);
    qInfo("timeline backend: %s", m_widget->usesOpenGL() ? "OpenGL" : "QPainter");
    // Device first: header 22, Stream 1 (2 rows) at 22, host header at 22 + 36 + 3.
    QCOMPARE(m_widget->layout().rowTop(kStream, 0), 22);
    QCOMPARE(m_widget->layout().rowTop(kMain, 0), 22 + 36 + 3 + 22);
    // The whole trace with 1 % padding on both sides.
    QCOMPARE(m_widget->state()->t0(), -100'000);
    QCOMPARE(m_widget->state()->t1(), 10'100'000);
}

void TstTimelineWidget::zoomAndPanKeys()
{
    QWidget *canvas = m_widget->canvasWidget();
    QTest::mouseMove(canvas, QPoint(5, 5));   // over the ruler's gutter: zoom at the centre
    const views::TimelineState *state = m_widget->state();
    const double span0 = double(state->t1() - state->t0());
    const double mid0 = (state->t0() + state->t1()) / 2.0;
    for (int i = 0; i < 10; ++i)
        QTest::keyClick(canvas, Qt::Key_W);
    const double span = double(state->t1() - state->t0());
    QVERIFY2(qAbs(span / span0 - std::pow(0.8, 10)) < 0.001, qPrintable(QString::number(span)));
    QVERIFY(qAbs((state->t0() + state->t1()) / 2.0 - mid0) < span0 * 1e-4);

    const core::TimePs t0 = state->t0();
    const double psPerPx = state->viewport().psPerPx();
    QTest::keyClick(canvas, Qt::Key_D);
    QVERIFY(qAbs(double(state->t0() - t0) - 0.1 * state->widthPx() * psPerPx) <= psPerPx);
    QCOMPARE(double(state->t1() - state->t0()), span);
    QTest::keyClick(canvas, Qt::Key_D, Qt::ShiftModifier);
    QVERIFY(qAbs(double(state->t0() - t0) - 0.6 * state->widthPx() * psPerPx) <= 2 * psPerPx);
    QTest::keyClick(canvas, Qt::Key_A);
    QVERIFY(qAbs(double(state->t0() - t0) - 0.5 * state->widthPx() * psPerPx) <= 3 * psPerPx);

    // Zooming at the cursor keeps the time under it in place.
    const QPoint cursor(m_widget->canvasWidget()->width() - 100, 100);
    QTest::mouseMove(canvas, cursor);
    const core::TimePs under = m_widget->timeAtX(cursor.x());
    QTest::keyClick(canvas, Qt::Key_S);
    QVERIFY(qAbs(double(m_widget->timeAtX(cursor.x()) - under))
            <= state->viewport().psPerPx());

    QTest::keyClick(canvas, Qt::Key_Z);
    QCOMPARE(state->t0(), -100'000);
    QCOMPARE(state->t1(), 10'100'000);
    QTest::keyClick(canvas, Qt::Key_W);
    QTest::keyClick(canvas, Qt::Key_0);
    QCOMPARE(state->t1(), 10'100'000);

    // Tools from the keyboard, shown in the tool bar.
    QTest::keyClick(canvas, Qt::Key_2);
    QCOMPARE(state->tool(), views::TimelineTool::Pan);
    QVERIFY(m_widget->toolText().startsWith(QStringLiteral("Pan")));
    QTest::keyClick(canvas, Qt::Key_1);
    QCOMPARE(state->tool(), views::TimelineTool::Select);
}

void TstTimelineWidget::clickSelectsAndShowsDetails()
{
    QWidget *canvas = m_widget->canvasWidget();
    const views::TimelineState *state = m_widget->state();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, at(4'500'000, kStream));
    QVERIFY(state->selectedSlice());
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 2}));
    QString text = m_details->sliceText().simplified();
    QVERIFY2(text.contains(QStringLiteral("kernelA")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Stream 1")));
    QVERIFY(text.contains(QStringLiteral("/device:GPU:0")));
    QVERIFY(text.contains(QStringLiteral("Start 0.000 004 000 s")));
    QVERIFY(text.contains(QStringLiteral("Duration 1.00 us")));

    QTest::keyClick(canvas, Qt::Key_Left);   // kernelB
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 1}));
    text = m_details->sliceText().simplified();
    QVERIFY2(text.contains(QStringLiteral("Self time 700.00 ns")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Flow in from launch (main) at 0.000 001 500 s")),
             qPrintable(text));
    QCOMPARE(m_widget->currentFrame().flows.size(), size_t(1));

    QTest::keyClick(canvas, Qt::Key_Left);   // first kernelA, with its args
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 0}));
    text = m_details->sliceText().simplified();
    QVERIFY2(text.contains(QStringLiteral("flops 123")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("op fusion.1")));
    QTest::keyClick(canvas, Qt::Key_Left);   // nothing before it
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 0}));
    QTest::keyClick(canvas, Qt::Key_Right);
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 1}));

    // f frames the selection (kernelB, 2-3 us, plus a tenth on each side); m marks it.
    QTest::keyClick(canvas, Qt::Key_F);
    QCOMPARE(state->t0(), 1'900'000);
    QCOMPARE(state->t1(), 3'100'000);
    QTest::keyClick(canvas, Qt::Key_M);
    QCOMPARE(state->marked(), (views::TimeRange{2'000'000, 3'000'000}));

    // Clicking empty space clears the selection.
    QTest::mouseClick(canvas, Qt::LeftButton, {}, at(3'050'000, kStream, 1));
    QVERIFY(!state->selectedSlice());
    QVERIFY(m_details->sliceText().isEmpty());
}

void TstTimelineWidget::headerClickCollapses()
{
    QWidget *canvas = m_widget->canvasWidget();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(60, views::kRulerHeight + 10));
    QVERIFY(m_widget->planeCollapsed(1));
    QCOMPARE(m_widget->layout().rowTop(kMain, 0), 44);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(60, views::kRulerHeight + 10));
    QVERIFY(!m_widget->planeCollapsed(1));
}

void TstTimelineWidget::hideTrackFromMenu()
{
    // Right click on the track's label in the gutter.
    const QPoint label(20, int(m_widget->yOfRow(kStream, 0)));
    QVERIFY(!triggerMenu(m_widget.get(), label, "unpinTrack"));
    QVERIFY(triggerMenu(m_widget.get(), label, "hideTrack"));
    QVERIFY(m_widget->trackHidden(kStream));
    QCOMPARE(m_widget->layout().itemOfTrack(kStream), -1);
    QCOMPARE(m_widget->yOfRow(kStream, 0), -1.0);
    // Where Stream 1 was, the host header now sits: device header 22, host header 22-44.
    const views::LayoutHit hit = m_widget->layout().hitTest(30);
    QCOMPARE(hit.kind, views::LayoutHit::Header);
    QCOMPARE(hit.plane, 0u);
    QCOMPARE(m_widget->layout().rowTop(kMain, 0), 44);
    QVERIFY(!m_widget->sliceAt(label + QPoint(500, 0)));
    QVERIFY(m_widget->currentFrame().bands[0].text.endsWith(QStringLiteral("1 hidden")));
    // The device header's menu brings it back; the host header has nothing hidden to show.
    const QPoint hostHeader(60, views::kRulerHeight + 30);
    QVERIFY(!triggerMenu(m_widget.get(), hostHeader, "showHiddenTracks"));
    QVERIFY(triggerMenu(m_widget.get(), QPoint(60, views::kRulerHeight + 5), "showHiddenTracks"));
    QVERIFY(!m_widget->trackHidden(kStream));
    QCOMPARE(m_widget->layout().rowTop(kStream, 0), 22);

    // The public slot does the same; a search result on a hidden track shows it again.
    m_widget->setTrackHidden(kMain, true);
    QCOMPARE(m_widget->layout().itemOfTrack(kMain), -1);
    m_widget->revealSlice(core::SliceRef{kMain, 1, 0});
    QVERIFY(!m_widget->trackHidden(kMain));
    QCOMPARE(*m_widget->state()->selectedSlice(), (core::SliceRef{kMain, 1, 0}));
}

void TstTimelineWidget::pinTrackFromMenu()
{
    QVERIFY(triggerMenu(m_widget.get(), at(500'000, kMain), "pinTrack"));
    QVERIFY(m_widget->trackPinned(kMain));
    // Pinned header, main (2 rows), device header, Stream 1; the host section is gone.
    const auto &items = m_widget->layout().items();
    QCOMPARE(items.size(), size_t(4));
    QCOMPARE(items[0].plane, views::kPinnedSection);
    QCOMPARE(m_widget->layout().rowTop(kMain, 0), 22);
    QCOMPARE(m_widget->layout().rowTop(kStream, 0), 22 + 36 + 3 + 22);
    QCOMPARE(m_widget->layout().totalHeight(), 83 + 36 + 3);
    // Clicking the first row of the pinned track selects from it.
    QTest::mouseClick(m_widget->canvasWidget(), Qt::LeftButton, {}, at(5'000'000, kMain));
    QCOMPARE(*m_widget->state()->selectedSlice(), (core::SliceRef{kMain, 0, 0}));
    QCOMPARE(m_widget->toolTipAt(QPointF(60, views::kRulerHeight + 5)),
             QStringLiteral("Pinned tracks"));

    QVERIFY(!triggerMenu(m_widget.get(), at(500'000, kMain), "pinTrack"));
    QVERIFY(triggerMenu(m_widget.get(), at(500'000, kMain), "unpinTrack"));
    QVERIFY(!m_widget->trackPinned(kMain));
    QCOMPARE(m_widget->layout().rowTop(kMain, 0), 22 + 36 + 3 + 22);
}

void TstTimelineWidget::collapseAllFromMenu()
{
    m_widget->setTrackPinned(kStream, true);
    const QPoint header(60, views::kRulerHeight + 5);
    QVERIFY(triggerMenu(m_widget.get(), header, "collapseAll"));
    // Two headers (pinned, host: Stream 1 was the device's only track), no tracks.
    const auto &items = m_widget->layout().items();
    QCOMPARE(items.size(), size_t(2));
    for (const auto &item : items)
        QVERIFY(item.kind == views::LayoutItem::Header && item.collapsed);
    QCOMPARE(items[1].plane, 0u);
    QCOMPARE(m_widget->layout().totalHeight(), 2 * 22);
    QVERIFY(m_widget->planeCollapsed(views::kPinnedSection));
    QVERIFY(!m_widget->sliceAt(at(500'000, kStream)));
    QCOMPARE(m_widget->yOfRow(kMain, 0), -1.0);
    QVERIFY(triggerMenu(m_widget.get(), header, "expandAll"));
    QCOMPARE(m_widget->layout().rowTop(kStream, 0), 22);
    QVERIFY(m_widget->layout().rowTop(kMain, 0) > 0);
    m_widget->setTrackPinned(kStream, false);
}

void TstTimelineWidget::trackStateRestored()
{
    const char *source = "traces/node1.xplane.pb";
    m_widget->setTrace(buildTrace(source));
    m_widget->setTrackHidden(kStream, true);
    m_widget->setTrackPinned(kMain, true);
    m_widget->setPlaneCollapsed(views::kPinnedSection, true);
    const views::TrackState expected = m_widget->trackState();
    QCOMPARE(expected.pinned, (std::vector<uint32_t>{kMain}));

    // The same file, loaded again and shown in a new widget: the same tracks.
    TimelineWidget again;
    again.setTrace(buildTrace(source));
    QCOMPARE(again.trackState(), expected);
    QCOMPARE(again.layout().items().size(), m_widget->layout().items().size());
    QCOMPARE(again.layout().itemOfTrack(kStream), -1);
    QVERIFY(again.planeCollapsed(views::kPinnedSection));

    // Another file, and a trace built in memory, start with every track shown.
    TimelineWidget other;
    other.setTrace(buildTrace("traces/node2.xplane.pb"));
    QCOMPARE(other.trackState(), views::TrackState{});
    other.setTrace(buildTrace());
    QCOMPARE(other.trackState(), views::TrackState{});

    // Back to the default: nothing stays stored.
    again.expandAll();
    again.setTrackPinned(kMain, false);
    again.showHiddenTracks(1);
    QCOMPARE(again.trackState(), views::TrackState{});
    TimelineWidget third;
    third.setTrace(buildTrace(source));
    QCOMPARE(third.trackState(), views::TrackState{});
}

void TstTimelineWidget::areaSelectionSummary()
{
    QWidget *canvas = m_widget->canvasWidget();
    QSignalSpy ready(m_details.get(), &views::DetailsPane::summaryReady);
    const QPoint from = at(500'000, kStream);
    const QPoint to = at(4'500'000, kMain);
    QTest::mousePress(canvas, Qt::LeftButton, {}, from);
    QTest::mouseMove(canvas, from + QPoint(20, 5));
    QTest::mouseMove(canvas, to);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
    const views::AreaRange &area = m_widget->state()->area();
    QCOMPARE(area.tracks, (std::vector<uint32_t>{kStream, kMain}));
    const double psPerPx = m_widget->state()->viewport().psPerPx();
    QVERIFY(qAbs(double(area.time.t0 - 500'000)) <= psPerPx);
    QVERIFY(qAbs(double(area.time.t1 - 4'500'000)) <= psPerPx);
    QTRY_COMPARE(ready.count(), 1);

    // Hand-computed over [0.5, 4.5) us: step 10 us (self 9.8), kernelA 2 x 1 us, kernelB 1 us
    // (self 700 ns), inner 300 ns, launch 200 ns.
    QAbstractItemModel *model = m_details->tableModel();
    QAbstractItemModelTester tester(model);
    QCOMPARE(model->rowCount(), 5);
    // Opens sorted by the time inside the area: the step first (it covers the whole window).
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("step"));
    // kernelA 0-1 us and 4-5 us only overlap the window: inside it, 1 us - t0 and t1 - 4 us.
    for (int r = 0; r < model->rowCount(); ++r) {
        if (model->index(r, 0).data().toString() != QStringLiteral("kernelA"))
            continue;
        QCOMPARE(model->index(r, views::SummaryTableModel::InArea)
                     .data(views::SummaryTableModel::SortRole)
                     .toDouble(),
                 double((1'000'000 - area.time.t0) + (area.time.t1 - 4'000'000)));
    }
    m_details->table()->sortByColumn(views::SummaryTableModel::WallTotal, Qt::DescendingOrder);
    QStringList names;
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->index(r, 0).data().toString();
    QCOMPARE(names, (QStringList{"step", "kernelA", "kernelB", "inner", "launch"}));
    QCOMPARE(model->index(1, views::SummaryTableModel::Occurrences).data().toString(),
             QStringLiteral("2"));
    QCOMPARE(model->index(0, views::SummaryTableModel::SelfTotal).data().toString(),
             QStringLiteral("9.80 us"));
    // The 10 us step only overlaps the area: "In area" counts its part inside the window,
    // "Wall total" its whole duration.
    QCOMPARE(model->index(0, views::SummaryTableModel::WallTotal).data().toString(),
             QStringLiteral("10.00 us"));
    QCOMPARE(model->index(0, views::SummaryTableModel::InArea)
                 .data(views::SummaryTableModel::SortRole)
                 .toDouble(),
             double(area.time.t1 - area.time.t0));
    QCOMPARE(model->headerData(views::SummaryTableModel::InArea, Qt::Horizontal).toString(),
             QStringLiteral("In area"));
    const QStringList csv = m_details->csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 6);
    QCOMPARE(csv.at(0), QStringLiteral(
                            "name,occurrences,in_area_ps,wall_ps,self_ps,average_ps,min_ps,max_ps"));
    QCOMPARE(csv.at(3),
             QStringLiteral("\"kernelB\",1,1000000,1000000,700000,1000000,1000000,1000000"));
    // The name column has the room the numbers leave, and at least a readable width.
    QTableView *table = m_details->table();
    QVERIFY(table->columnWidth(views::SummaryTableModel::Name) >= 240);
    QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
    QVERIFY(!table->wordWrap());
    QCOMPARE(table->sizePolicy().horizontalPolicy(), QSizePolicy::Ignored);
    // Nothing on the area page asks for more width than its three buttons.
    QVERIFY2(m_details->minimumSizeHint().width() < 400,
             qPrintable(QString::number(m_details->minimumSizeHint().width())));
    QCOMPARE(model->index(0, views::SummaryTableModel::Name).data(Qt::ToolTipRole).toString(),
             QStringLiteral("step"));
    QVERIFY(m_details->areaText().contains(QStringLiteral("6 slices")));

    // Sorting by occurrences puts kernelA first.
    m_details->table()->sortByColumn(views::SummaryTableModel::Occurrences, Qt::DescendingOrder);
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("kernelA"));
    // The selected row stays selected through a sort; by name, ascending, as a user clicks it.
    m_details->table()->selectRow(4);
    const QString chosen = model->index(4, 0).data().toString();
    m_details->table()->sortByColumn(views::SummaryTableModel::Name, Qt::AscendingOrder);
    names.clear();
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->index(r, 0).data().toString();
    QCOMPARE(names, (QStringList{"inner", "kernelA", "kernelB", "launch", "step"}));
    QCOMPARE(m_details->table()->currentIndex().data().toString(), chosen);
    // By the shortest slice: launch (200 ns) first.
    m_details->table()->sortByColumn(views::SummaryTableModel::Min, Qt::AscendingOrder);
    QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("launch"));
}

void TstTimelineWidget::timingTool()
{
    QWidget *canvas = m_widget->canvasWidget();
    QTest::keyClick(canvas, Qt::Key_4);
    const QPoint from = at(1'000'000, kStream);
    const QPoint to = at(3'000'000, kStream);
    QTest::mousePress(canvas, Qt::LeftButton, {}, from);
    QTest::mouseMove(canvas, from + QPoint(10, 0));
    QTest::mouseMove(canvas, to);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, to);
    const views::TimeRange timing = m_widget->state()->timing();
    const double psPerPx = m_widget->state()->viewport().psPerPx();
    QVERIFY(qAbs(double(timing.duration() - 2'000'000)) <= 2 * psPerPx);
    QVERIFY2(m_widget->toolText().contains(QStringLiteral("timing 2.0")),
             qPrintable(m_widget->toolText()));
    bool shown = false;
    for (const auto &o : m_widget->currentFrame().overlays)
        shown = shown || (o.kind == views::GeoOverlay::Timing && o.text.startsWith("2.0"));
    QVERIFY(shown);
    QTest::keyClick(canvas, Qt::Key_Escape);
    QVERIFY(!m_widget->state()->timing().valid());
    QVERIFY(!m_widget->toolText().contains(QStringLiteral("timing")));
}

void TstTimelineWidget::searchSteps()
{
    QWidget *canvas = m_widget->canvasWidget();
    views::SearchBar *bar = m_widget->searchBar();
    QVERIFY(!bar->isVisible());
    QTest::keyClick(canvas, Qt::Key_Slash);
    QVERIFY(bar->isVisible());
    QCOMPARE(m_widget->focusWidget(), bar->field());   // the window may not be active
    QSignalSpy finished(bar, &views::SearchBar::finished);
    // One edit, one (debounced) search: typing key by key on a loaded machine could let the
    // debounce fire on a prefix.
    bar->field()->setText(QStringLiteral("KERNELa"));
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(bar->totalMatches(), quint64(2));
    QCOMPARE(bar->countText(), QStringLiteral("2 matches"));

    const views::TimelineState *state = m_widget->state();
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 0}));
    QCOMPARE(bar->countText(), QStringLiteral("1 of 2"));
    // Zoomed to three times the 1 us match, kept inside the trace (it starts at 0).
    QCOMPARE(state->t0(), 0);
    QCOMPARE(state->t1(), 3'000'000);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 2}));
    QCOMPARE(state->t0(), 3'000'000);   // same zoom, centred on 4.5 us
    QCOMPARE(state->t1(), 6'000'000);
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 0, 0}));
    QCOMPARE(state->t0(), 0);
    QVERIFY(m_details->sliceText().contains(QStringLiteral("kernelA")));

    // A new query replaces the results; Enter before it finishes steps once it has.
    bar->field()->setText(QStringLiteral("inner"));
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QTRY_COMPARE(*state->selectedSlice(), (core::SliceRef{kStream, 1, 0}));
    QCOMPARE(bar->countText(), QStringLiteral("1 of 1"));
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
}

void TstTimelineWidget::foldedTooltip()
{
    const auto &folded = m_widget->currentFrame().folded;
    QCOMPARE(folded.size(), size_t(1));
    QCOMPARE(folded.front().count, uint32_t(kTiny));
    const QPointF centre(views::kGutterWidth + folded.front().x + folded.front().w / 2,
                         views::kRulerHeight + folded.front().y + 5);
    const QString tip = m_widget->toolTipAt(centre);
    QVERIFY2(tip.startsWith(QStringLiteral("500 slices folded")), qPrintable(tip));
    QCOMPARE(m_widget->toolTipAt(at(4'500'000, kStream)), QStringLiteral("kernelA\n1.00 us"));
}

void TstTimelineWidget::pixels()
{
    QTest::mouseClick(m_widget->canvasWidget(), Qt::LeftButton, {}, at(2'500'000, kStream));
    const QImage image = m_widget->canvasWidget()->grab().toImage();
    QVERIFY(!image.isNull());
    const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
    QTemporaryDir dir;
    const QString path = keep.isEmpty() ? dir.filePath(QStringLiteral("timeline.png")) : keep;
    QVERIFY(image.save(path));
    qInfo("timeline screenshot: %s", qPrintable(path));
    const qreal dpr = image.devicePixelRatio();
    auto pixel = [&](QPoint p) { return image.pixel((QPointF(p) * dpr).toPoint()); };

    // Top-right corner of the second kernelA, clear of its label.
    const int top = views::kRulerHeight + m_widget->layout().rowTop(kStream, 0);
    const int x = int(m_widget->xOfTime(4'950'000));
    QVERIFY2(near(pixel(QPoint(x, top + 1)), views::colourForName("kernelA")),
             qPrintable(QString::number(pixel(QPoint(x, top + 1)), 16)));
    QVERIFY(near(pixel(QPoint(x, views::kRulerHeight + m_widget->layout().rowTop(kMain, 0) + 1)),
                 views::colourForName("step")));
    // Between slices on the nested row, and in the gap below the track: background.
    const int x2 = int(m_widget->xOfTime(1'500'000));
    QVERIFY(near(pixel(QPoint(x2, top + 18 + 5)), views::kBackgroundColour));
    QVERIFY(near(pixel(QPoint(x2, top + 36 + 2)), views::kBackgroundColour));
    // The folded run (10 ps of every 20: 50 % busy) is drawn per pixel column: a bar of half
    // the row in the dominant name's colour, from the bottom.
    const int xf = int(m_widget->xOfTime(6'005'000));
    QVERIFY(near(pixel(QPoint(xf, top + 15)), views::colourForName("tiny")));

    // A dark palette gets the dark theme; slices keep their colours.
    const QPalette light = m_widget->canvasWidget()->palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
    m_widget->canvasWidget()->setPalette(dark);
    const QImage darkImage = m_widget->canvasWidget()->grab().toImage();
    m_widget->canvasWidget()->setPalette(light);
    auto darkPixel = [&](QPoint p) { return darkImage.pixel((QPointF(p) * dpr).toPoint()); };
    QVERIFY(near(darkPixel(QPoint(x2, top + 18 + 5)), views::TimelineTheme::dark().background));
    QVERIFY(near(darkPixel(QPoint(x, top + 1)), views::colourForName("kernelA")));
    QVERIFY(near(darkPixel(QPoint(xf, top + 15)), views::colourForName("tiny")));
}

// What a panel's "show this op" does: every occurrence outlined, the first brought into view
// without changing the selection, and the details pane listing them.
void TstTimelineWidget::opOccurrencesAreOutlinedAndListed()
{
    views::TimelineState *state = m_widget->state();
    state->setWindow(7'000'000, 9'000'000);   // neither kernelA in view
    QSignalSpy shown(m_widget.get(), &views::TimelineWidget::opOccurrencesShown);
    m_widget->showOpOccurrences(QStringLiteral("kernelA"));
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(shown.front().at(1).toULongLong(), 2ull);

    const auto &h = state->highlights();
    QCOMPARE(h.label, QStringLiteral("kernelA"));
    QVERIFY(h.refs);
    QCOMPARE(h.refs->size(), size_t(2));
    QCOMPARE(m_widget->trace()->start(h.refs->at(0)), core::TimePs(0));
    QCOMPARE(m_widget->trace()->start(h.refs->at(1)), core::TimePs(4'000'000));
    QVERIFY(!state->selectedSlice());
    // The first occurrence is in view, centred, at the same zoom.
    QCOMPARE(state->t0() + (state->t1() - state->t0()) / 2, core::TimePs(500'000));
    QCOMPARE(state->t1() - state->t0(), core::TimePs(2'000'000));

    state->setWindow(0, 10'000'000);
    const auto &frame = m_widget->currentFrame();
    std::vector<float> xs;
    for (const views::GeoOverlay &o : frame.overlays) {
        if (o.kind == views::GeoOverlay::Highlight)
            xs.push_back(o.x);
    }
    QCOMPARE(xs.size(), size_t(2));
    QVERIFY(std::abs(xs[0] - float(m_widget->xOfTime(0) - views::kGutterWidth)) < 1.5f);
    QVERIFY(std::abs(xs[1] - float(m_widget->xOfTime(4'000'000) - views::kGutterWidth)) < 1.5f);

    QTRY_VERIFY(!m_details->summaryPending());
    QVERIFY2(m_details->areaText().startsWith(QStringLiteral("kernelA: 2 occurrences")),
             qPrintable(m_details->areaText()));
    QCOMPARE(m_details->tableModel()->rowCount(), 1);

    // An op that does not exist outlines nothing; Esc clears the outlines.
    m_widget->showOpOccurrences(QStringLiteral("kernel"));
    QTRY_COMPARE(shown.count(), 2);
    QCOMPARE(shown.back().at(1).toULongLong(), 0ull);
    m_widget->showOpOccurrences(QStringLiteral("kernelA"));
    QTRY_COMPARE(shown.count(), 3);
    QTest::keyClick(m_widget->canvasWidget(), Qt::Key_Escape);
    QVERIFY(state->highlights().empty());
}

// What clicking a worker in the pod viewer does: that host's sections open, the others close.
void TstTimelineWidget::focusHostCollapsesTheOthers()
{
    core::TraceBuilder b;
    core::EventKind k;
    k.name = b.intern("op");
    const uint32_t op = b.addKind(k);
    std::vector<uint32_t> planes;
    for (const char *host : {"worker-a", "worker-b"}) {
        for (const char *plane : {"/device:GPU:0", "/host:CPU"}) {
            const uint32_t p = b.addPlane(plane, host, int64_t(planes.size()) + 1,
                                          plane[1] == 'd' ? core::PlaneKind::Device
                                                          : core::PlaneKind::Host);
            planes.push_back(p);
            const uint32_t t = b.addTrack(p, "t", 1);
            for (int i = 0; i < 20; ++i)
                b.trackBuilder(t).addSlice(i * 1000, 500, op);
        }
    }
    views::TimelineWidget widget;
    widget.resize(800, 120);   // shorter than the sections, so focusing must scroll
    widget.setTrace(b.build());
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    for (uint32_t p : planes)
        widget.setPlaneCollapsed(p, false);

    QVERIFY(widget.focusHost(QStringLiteral("worker-b")));
    QVERIFY(widget.planeCollapsed(planes[0]) && widget.planeCollapsed(planes[1]));
    QVERIFY(!widget.planeCollapsed(planes[2]) && !widget.planeCollapsed(planes[3]));
    int headerY = -1;
    for (const views::LayoutItem &item : widget.layout().items()) {
        if (item.kind == views::LayoutItem::Header && item.plane == planes[2] && headerY < 0)
            headerY = item.y;
    }
    QVERIFY(headerY > 0);
    QCOMPARE(widget.scrollY(), std::min(headerY, widget.layout().totalHeight()));

    QVERIFY(!widget.focusHost(QStringLiteral("nobody")));
    QVERIFY(!widget.planeCollapsed(planes[2]));   // unchanged
}

QTEST_MAIN(TstTimelineWidget)
#include "tst_timelinewidget.moc"

void TstTimelineWidget::questionMarkListsShortcuts()
{
    QTest::keyClick(m_widget->canvasWidget(), Qt::Key_Question, Qt::ShiftModifier);
    auto *box = m_widget->findChild<QMessageBox *>(QStringLiteral("TimelineShortcuts"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY(box->text().contains(QStringLiteral("Frame the selection")));
    QVERIFY(box->text().contains(QStringLiteral("Search the whole trace")));
    box->close();
}
