// The find bar on the timeline: Enter zooms to the match inside the trace, the matches are
// outlined, and the keyboard goes back to the timeline (Enter, Esc).

#include "core/model/tracebuilder.h"
#include "views/timeline/searchbar.h"
#include "views/timeline/timelinegeometry.h"
#include "views/timeline/timelinewidget.h"

#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace tracedesk;
using views::SearchBar;
using views::TimelineWidget;
using views::TimeRange;

namespace {

constexpr core::TimePs kUs = 1'000'000;
constexpr core::TimePs kTraceEnd = 2'000 * kUs; // 2 ms
constexpr int kSoftmax = 40;

// One device track: "softmax" 30 us long every 50 us from t = 0 (the first match sits on the
// trace's start, as on the sample), then a 1.9 ms "matmul" ending the trace. A host track holds
// one "step" over the whole trace.
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    auto kind = [&](const char *name) {
        core::EventKind k;
        k.name = b.intern(name);
        return b.addKind(k);
    };
    const uint32_t softmax = kind("fusion.softmax");
    const uint32_t matmul = kind("matmul");
    const uint32_t step = kind("step");
    const uint32_t device = b.addPlane("/device:GPU:0", "node1", 1, core::PlaneKind::Device);
    const uint32_t host = b.addPlane("/host:CPU", "node1", 2, core::PlaneKind::Host);
    const uint32_t stream = b.addTrack(device, "Stream 1", 1);
    for (int i = 0; i < kSoftmax; ++i)
        b.trackBuilder(stream).addSlice(i * 50 * kUs, 30 * kUs, softmax);
    b.trackBuilder(stream).addSlice(kSoftmax * 50 * kUs, kTraceEnd - kSoftmax * 50 * kUs, matmul);
    const uint32_t main = b.addTrack(host, "main", 1);
    b.trackBuilder(main).addSlice(0, kTraceEnd, step);
    return b.build();
}

size_t highlightCount(const views::TimelineGeometry &frame)
{
    return size_t(std::count_if(frame.overlays.begin(), frame.overlays.end(), [](const auto &o) {
        return o.kind == views::GeoOverlay::Highlight;
    }));
}

} // namespace

class TstTimelineSearch : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void matchWindow();
    void enterZoomsInsideTheTrace();
    void matchesAreMarked();
    void focusReturnsToTimeline();
    void escClosesAndClearsItsMarks();

private:
    void search(const QString &query);

    core::TracePtr m_trace;
    std::unique_ptr<TimelineWidget> m_widget;
};

void TstTimelineSearch::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDeskTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_timelinesearch"));
}

void TstTimelineSearch::init()
{
    m_trace = buildTrace();
    m_widget = std::make_unique<TimelineWidget>();
    m_widget->resize(1200, 500);
    m_widget->setTrace(m_trace);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    m_widget->activateWindow();
    QTRY_VERIFY(m_widget->lodIndexReady());
}

void TstTimelineSearch::cleanup()
{
    m_widget.reset();
}

void TstTimelineSearch::search(const QString &query)
{
    SearchBar *bar = m_widget->searchBar();
    QTest::keyClick(m_widget->canvasWidget(), Qt::Key_Slash);
    QVERIFY(bar->isVisible());
    QSignalSpy finished(bar, &SearchBar::finished);
    bar->field()->setText(query);
    QTRY_COMPARE(finished.count(), 1);
}

void TstTimelineSearch::matchWindow()
{
    const TimeRange trace{0, kTraceEnd};
    const TimeRange whole{-20 * kUs, kTraceEnd + 20 * kUs};
    // From the whole trace: three times the match, clamped at the trace's start.
    QCOMPARE(views::searchMatchWindow({0, 30 * kUs}, whole, trace), (TimeRange{0, 90 * kUs}));
    QCOMPARE(views::searchMatchWindow({kTraceEnd - 30 * kUs, kTraceEnd}, whole, trace),
             (TimeRange{kTraceEnd - 90 * kUs, kTraceEnd}));
    // In the middle: centred.
    QCOMPARE(views::searchMatchWindow({1000 * kUs, 1030 * kUs}, whole, trace),
             (TimeRange{970 * kUs, 1060 * kUs}));
    // A zoom where the match reads well is kept.
    QCOMPARE(views::searchMatchWindow({1000 * kUs, 1030 * kUs}, {0, 200 * kUs}, trace),
             (TimeRange{915 * kUs, 1115 * kUs}));
    // A match longer than the view is framed.
    QCOMPARE(views::searchMatchWindow({100 * kUs, 400 * kUs}, {0, 200 * kUs}, trace),
             (TimeRange{0, 900 * kUs}));
    // An instant gets at least kMinMatchSpan; a view wider than the trace is the trace.
    QCOMPARE(views::searchMatchWindow({500 * kUs, 500 * kUs}, whole, trace).duration(),
             views::kMinMatchSpan);
    QCOMPARE(views::searchMatchWindow({0, 1900 * kUs}, whole, trace), trace);
}

void TstTimelineSearch::enterZoomsInsideTheTrace()
{
    search(QStringLiteral("softmax"));
    SearchBar *bar = m_widget->searchBar();
    QCOMPARE(bar->totalMatches(), quint64(kSoftmax));
    const views::TimelineState *state = m_widget->state();
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QCOMPARE(bar->countText(), QStringLiteral("1 of 40"));
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{0, 0, 0}));
    // The 30 us match is visible, the view is at most ten times wider, never before the trace.
    QVERIFY(state->t0() <= 0 && state->t1() >= 30 * kUs);
    QVERIFY(state->t1() - state->t0() <= 300 * kUs);
    QVERIFY(state->t0() >= m_trace->begin);
    QVERIFY(state->t1() <= m_trace->end);
    const double x0 = m_widget->xOfTime(0);
    const double x1 = m_widget->xOfTime(30 * kUs);
    QVERIFY2(x1 - x0 > 100, "the match is wide enough to read");

    // Shift+Enter wraps to the last match; still inside the trace.
    QTest::keyClick(bar->field(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(bar->countText(), QStringLiteral("40 of 40"));
    const core::TimePs last = (kSoftmax - 1) * 50 * kUs;
    QVERIFY(state->t0() <= last && state->t1() >= last + 30 * kUs);
    QVERIFY(state->t0() >= m_trace->begin && state->t1() <= m_trace->end);
}

void TstTimelineSearch::matchesAreMarked()
{
    search(QStringLiteral("softmax"));
    const views::TimelineState *state = m_widget->state();
    QVERIFY(!state->highlights().empty());
    QCOMPARE(state->highlights().total, quint64(kSoftmax));
    QVERIFY(state->highlights().label.contains(QStringLiteral("softmax")));
    // Zoomed out, every match is outlined.
    QCOMPARE(highlightCount(m_widget->currentFrame()), size_t(kSoftmax));
    // Zoomed to the first, the ones in view are (the first two, 50 us apart in a 90 us view):
    // the current one keeps the selection outline, the other is marked.
    QTest::keyClick(m_widget->searchBar()->field(), Qt::Key_Return);
    const views::TimelineGeometry &frame = m_widget->currentFrame();
    QCOMPARE(highlightCount(frame), size_t(1));
    QCOMPARE(std::count_if(frame.overlays.begin(), frame.overlays.end(),
                           [](const auto &o) { return o.kind == views::GeoOverlay::SelectedSlice; }),
             std::ptrdiff_t(1));
    const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
    if (!keep.isEmpty())
        QVERIFY(m_widget->grab().save(keep));
}

void TstTimelineSearch::focusReturnsToTimeline()
{
    search(QStringLiteral("softmax"));
    SearchBar *bar = m_widget->searchBar();
    QWidget *canvas = m_widget->canvasWidget();
    QTRY_COMPARE(QApplication::focusWidget(), bar->field());
    QTest::keyClick(bar->field(), Qt::Key_Return);
    QTRY_COMPARE(QApplication::focusWidget(), canvas);
    QVERIFY(bar->isVisible());
    const views::TimelineState *state = m_widget->state();

    // The timeline's keys work at once: f frames the match, W zooms in, D pans.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_F);
    QCOMPARE(bar->field()->text(), QStringLiteral("softmax"));
    QVERIFY(state->t0() <= 0 && state->t1() >= 30 * kUs); // 30 us with 10 % each side
    QVERIFY(state->t1() < 40 * kUs);
    core::TimePs span = state->t1() - state->t0();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    QVERIFY(state->t1() - state->t0() < span);
    span = state->t1() - state->t0();
    const core::TimePs before = state->t0();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_D);
    QVERIFY(state->t0() > before);

    // Enter on the timeline steps on while the bar is open.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QCOMPARE(bar->countText(), QStringLiteral("2 of 40"));
    QCOMPARE(*state->selectedSlice(), (core::SliceRef{0, 0, 1}));
    QCOMPARE(QApplication::focusWidget(), canvas);
}

void TstTimelineSearch::escClosesAndClearsItsMarks()
{
    search(QStringLiteral("softmax"));
    SearchBar *bar = m_widget->searchBar();
    QVERIFY(!m_widget->state()->highlights().empty());
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
    QTRY_COMPARE(QApplication::focusWidget(), m_widget->canvasWidget());
    QVERIFY(m_widget->state()->highlights().empty());
    const core::TimePs span = m_widget->state()->t1() - m_widget->state()->t0();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    QVERIFY(m_widget->state()->t1() - m_widget->state()->t0() < span);

    // Reopened on the same query, its matches are marked again at once.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Slash);
    QCOMPARE(bar->field()->text(), QStringLiteral("softmax"));
    QCOMPARE(m_widget->state()->highlights().total, quint64(kSoftmax));

    // Marks a panel set after the search are not the bar's to clear.
    views::TimelineState::Highlights panel;
    panel.label = QStringLiteral("matmul");
    panel.refs = std::make_shared<const std::vector<core::SliceRef>>(
        std::vector<core::SliceRef>{{0, 0, uint32_t(kSoftmax)}});
    panel.total = 1;
    m_widget->state()->setHighlights(panel);
    QTest::keyClick(bar->field(), Qt::Key_Escape);
    QCOMPARE(m_widget->state()->highlights().label, QStringLiteral("matmul"));
}

QTEST_MAIN(TstTimelineSearch)
#include "tst_timelinesearch.moc"
