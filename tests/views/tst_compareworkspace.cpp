// CompareWorkspace and DropChoiceOverlay under a real display: two aligned timelines with
// locked zoom, op rows highlighting occurrences in both, swap, the models under
// QAbstractItemModelTester, and a screenshot when TRACEDESK_SHOTS names a folder.

#include "tests/core/tst_comparefixture.h"

#include "core/compare/opmatch.h"
#include "views/compare/comparecharts.h"
#include "views/compare/comparelabels.h"
#include "views/compare/compareworkspace.h"
#include "views/compare/dropchoiceoverlay.h"
#include "views/compare/opdiffmodel.h"
#include "views/timeline/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::views;
using core::compare::OpLevel;
using comparefixture::kUs;

class TestCompareWorkspace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void showsTwoAlignedTimelines();
    void lockedZoomFollows();
    void selectingAnOpRowHighlightsIt();
    void selectingASliceMatchesTheOtherTrace();
    void swapAndClose();
    void modelsPassTheTester();
    void histogramAndChart();
    void dropOverlay();
    void sameNamedFilesGetDistinctLabels();

private:
    void waitReady(CompareWorkspace &w);
    core::TracePtr m_a;
    core::TracePtr m_b;
};

void TestCompareWorkspace::initTestCase()
{
    m_a = comparefixture::buildTraceA(10);
    comparefixture::Transform t;
    t.scaleByKind = {{"conv_kernel", 1.5}, {"gemm_kernel", 1.2}};
    t.drop = {"dropout_kernel"};
    m_b = comparefixture::transformTrace(*m_a, t);
}

void TestCompareWorkspace::waitReady(CompareWorkspace &w)
{
    QTRY_VERIFY_WITH_TIMEOUT(w.comparison() != nullptr && !w.isComputing(), 30000);
}

void TestCompareWorkspace::showsTwoAlignedTimelines()
{
    CompareWorkspace w;
    w.resize(1500, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTraces(m_a, QStringLiteral("baseline"), m_b, QStringLiteral("candidate"));
    waitReady(w);
    QVERIFY(w.timeline(CompareWorkspace::SideA)->isVisible());
    QVERIFY(w.timeline(CompareWorkspace::SideB)->isVisible());
    QCOMPARE(w.timeline(CompareWorkspace::SideA)->trace(), m_a);
    QCOMPARE(w.timeline(CompareWorkspace::SideB)->trace(), m_b);
    QVERIFY(w.timeline(CompareWorkspace::SideA)->geometry().bottom()
            <= w.timeline(CompareWorkspace::SideB)->mapTo(&w, QPoint(0, 0)).y()
                   + w.timeline(CompareWorkspace::SideB)->height());
    QVERIFY(w.alignment().byStep);
    // Step 0 is at the same x: the two windows start the same distance before it.
    const TimelineState *a = w.state(CompareWorkspace::SideA);
    const TimelineState *b = w.state(CompareWorkspace::SideB);
    QCOMPARE(a->t0() - w.alignment().anchorA, b->t0() - w.alignment().anchorB);
    QCOMPARE(a->t1() - a->t0(), b->t1() - b->t0());
    // Aligning step 5 moves B's window so that step 5 of both share the x.
    w.setAlignStep(5);
    QCOMPARE(w.alignment().offset(), core::TimePs(5 * 55 * kUs));
    QCOMPARE(a->t0() + w.alignment().offset(), b->t0());
    QVERIFY(w.summaryText().contains(QStringLiteral("Biggest regressions: conv1 (Device)")));
    QTRY_VERIFY(w.timeline(CompareWorkspace::SideA)->lodIndexReady());
    QTRY_VERIFY(w.timeline(CompareWorkspace::SideB)->lodIndexReady());
    w.setAlignStep(0);
    const QByteArray shots = qgetenv("TRACEDESK_SHOTS");
    if (!shots.isEmpty()) {
        w.opDiffView()->selectRow(0);
        QTRY_COMPARE(w.highlightedOp(), QStringLiteral("conv1"));
        QTest::qWait(300);
        QVERIFY(w.grab().save(QString::fromLocal8Bit(shots) + "/compareworkspace.png"));
    }
}

void TestCompareWorkspace::lockedZoomFollows()
{
    CompareWorkspace w;
    w.resize(1200, 800);
    w.show();
    w.setTraces(m_a, QStringLiteral("A"), m_b, QStringLiteral("B"));
    waitReady(w);
    w.setAlignStep(3);
    QVERIFY(w.zoomLocked());
    TimelineWidget *ta = w.timeline(CompareWorkspace::SideA);
    TimelineState *a = w.state(CompareWorkspace::SideA);
    TimelineState *b = w.state(CompareWorkspace::SideB);
    const core::TimePs offset = w.alignment().offset();
    QCOMPARE(offset, core::TimePs(3 * 55 * kUs));
    ta->zoomBy(4.0, 100);
    QCOMPARE(b->t0(), a->t0() + offset);
    QCOMPARE(b->t1(), a->t1() + offset);
    // Zooming B maps back to A.
    w.timeline(CompareWorkspace::SideB)->panByPixels(-80);
    QCOMPARE(a->t0(), b->t0() - offset);
    QCOMPARE(a->t1(), b->t1() - offset);
    b->setWindow(m_b->begin + 100 * kUs, m_b->begin + 900 * kUs);
    QCOMPARE(a->t0(), m_b->begin + 100 * kUs - offset);
    // Unlocked, the other side stays.
    w.setZoomLocked(false);
    const core::TimePs keep0 = b->t0(), keep1 = b->t1();
    a->setWindow(a->t0() + 10 * kUs, a->t1() - 10 * kUs);
    QCOMPARE(b->t0(), keep0);
    QCOMPARE(b->t1(), keep1);
}

void TestCompareWorkspace::selectingAnOpRowHighlightsIt()
{
    CompareWorkspace w;
    w.resize(1200, 800);
    w.show();
    w.setTraces(m_a, QStringLiteral("A"), m_b, QStringLiteral("B"));
    waitReady(w);
    w.setLevel(OpLevel::Kernel);
    QTableView *view = w.opDiffView();
    QCOMPARE(view->model()->rowCount(), 5);
    QCOMPARE(view->model()->index(0, OpDiffModel::NameColumn).data().toString(),
             QStringLiteral("conv_kernel"));
    QSignalSpy highlighted(&w, &CompareWorkspace::opHighlighted);
    view->selectRow(1);   // gemm_kernel, +10 us per step
    QCOMPARE(highlighted.count(), 1);
    QCOMPARE(highlighted.at(0).at(0).toString(), QStringLiteral("gemm_kernel"));
    for (auto side : {CompareWorkspace::SideA, CompareWorkspace::SideB}) {
        const TimelineState *s = w.state(side);
        const core::TracePtr t = w.trace(side);
        QTRY_VERIFY(s->selectedSlice().has_value());
        QCOMPARE(t->name(*s->selectedSlice()), std::string_view("gemm_kernel"));
    }
    QCOMPARE(w.histogram()->countsA().size(), size_t(DurationHistogram::kBins));
    int a = 0, b = 0;
    for (int c : w.histogram()->countsA())
        a += c;
    for (int c : w.histogram()->countsB())
        b += c;
    QCOMPARE(a, 10);
    QCOMPARE(b, 10);
    // An op removed in B selects in A only.
    w.highlightOp(QStringLiteral("dropout_kernel"));
    QTRY_VERIFY(w.state(CompareWorkspace::SideA)->selectedSlice().has_value()
                && w.trace(CompareWorkspace::SideA)->name(
                       *w.state(CompareWorkspace::SideA)->selectedSlice())
                       == "dropout_kernel");
    QVERIFY(!w.state(CompareWorkspace::SideB)->selectedSlice().has_value());
}

void TestCompareWorkspace::selectingASliceMatchesTheOtherTrace()
{
    CompareWorkspace w;
    w.resize(1200, 800);
    w.show();
    w.setTraces(m_a, QStringLiteral("A"), m_b, QStringLiteral("B"));
    waitReady(w);
    w.setAlignStep(4);
    const auto convs = core::compare::opOccurrences(*m_a, OpLevel::Kernel, "conv_kernel");
    w.state(CompareWorkspace::SideA)->selectSlice(convs[4]);
    const auto &match = w.state(CompareWorkspace::SideB)->selectedSlice();
    QVERIFY(match.has_value());
    QCOMPARE(m_b->name(*match), std::string_view("conv_kernel"));
    QCOMPARE(m_b->side(*match, core::SideColumn::GroupId), int64_t(4));
    // The diff table is filtered to the op.
    QCOMPARE(w.opDiffProxy()->filterRegularExpression().pattern().isEmpty(), false);
    // conv1 on the device and on the host.
    QCOMPARE(w.opDiffView()->model()->rowCount(), 2);
    QCOMPARE(w.opDiffView()->model()->index(0, 0).data().toString(), QStringLiteral("conv1"));
    QCOMPARE(w.opDiffView()->model()->index(1, 0).data().toString(), QStringLiteral("conv1"));
    QCOMPARE(w.highlightedOp(), QStringLiteral("conv1"));
    QCOMPARE(w.state(CompareWorkspace::SideA)->selectedSlice(), std::optional(convs[4]));
}

void TestCompareWorkspace::swapAndClose()
{
    CompareWorkspace w;
    w.resize(1200, 800);
    w.show();
    w.setTraces(m_a, QStringLiteral("first"), m_b, QStringLiteral("second"));
    waitReady(w);
    TimelineWidget *oldA = w.timeline(CompareWorkspace::SideA);
    w.swap();
    QCOMPARE(w.name(CompareWorkspace::SideA), QStringLiteral("second"));
    QCOMPARE(w.trace(CompareWorkspace::SideA), m_b);
    QCOMPARE(w.timeline(CompareWorkspace::SideB), oldA);
    waitReady(w);
    const auto &conv = *w.comparison()->diff(OpLevel::Framework).rows.begin();
    QCOMPARE(conv.name, std::string("conv1"));
    QCOMPARE(conv.deltaUs, -50.0);
    QCOMPARE(core::compare::opChangeName(conv.change), "faster");
    // dropout is new in the swapped B (= old A).
    bool added = false;
    for (const auto &r : w.comparison()->diff(OpLevel::Framework).rows)
        added = added || (r.name == "dropout" && r.change == core::compare::OpChange::Added);
    QVERIFY(added);
    QVERIFY(w.timeline(CompareWorkspace::SideA)->mapTo(&w, QPoint(0, 0)).y()
            < w.timeline(CompareWorkspace::SideB)->mapTo(&w, QPoint(0, 0)).y());
    QSignalSpy closing(&w, &CompareWorkspace::closeRequested);
    w.findChild<QPushButton *>(QStringLiteral("closeBButton"))->click();
    QCOMPARE(closing.count(), 1);
    QCOMPARE(closing.at(0).at(0).value<CompareWorkspace::Side>(), CompareWorkspace::SideB);
}

void TestCompareWorkspace::modelsPassTheTester()
{
    OpDiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    OpDiffProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    core::analysis::AnalysisCache ca(m_a), cb(m_b);
    const auto comparison = core::compare::compareTraces(ca, cb);
    for (int l = 0; l < core::compare::kOpLevelCount; ++l) {
        model.setDiff(comparison.diff(OpLevel(l)));
        QCOMPARE(model.rowCount(), int(comparison.diff(OpLevel(l)).rows.size()));
        proxy.sort(OpDiffModel::DeltaColumn, Qt::DescendingOrder);
        proxy.setFilterFixedString(QStringLiteral("CONV"));
        QVERIFY(proxy.rowCount() >= 1);
        proxy.setFilterFixedString({});
    }
    model.setDiff(comparison.diff(OpLevel::Kernel));
    proxy.sort(OpDiffModel::DeltaColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, OpDiffModel::NameColumn).data().toString(),
             QStringLiteral("dropout_kernel"));
    QCOMPARE(proxy.index(4, OpDiffModel::NameColumn).data().toString(),
             QStringLiteral("conv_kernel"));
    const QString csv = opDiffCsv(proxy);
    QCOMPARE(csv.count(QLatin1Char('\n')), 6);
    QVERIFY(csv.startsWith(QStringLiteral("Op,Where,Category,Change")));
    QVERIFY(csv.contains(QStringLiteral("conv_kernel,,")));
    model.setDiff({});
    QCOMPARE(proxy.rowCount(), 0);
}

void TestCompareWorkspace::histogramAndChart()
{
    DurationHistogram h;
    // Nothing to draw yet: a one-line message, not an empty plot area.
    const int messageHeight = h.maximumHeight();
    QVERIFY(messageHeight < 100);
    h.setDurations(QStringLiteral("op"), {10 * kUs, 10 * kUs, 20 * kUs}, {40 * kUs}, "A", "B");
    QVERIFY(h.minimumHeight() >= 200);
    QCOMPARE(h.countsA().front(), 0);   // linear bins start at 0
    int a = 0;
    for (int c : h.countsA())
        a += c;
    QCOMPARE(a, 3);
    QCOMPARE(h.countsB().back(), 1);
    h.setLogAxes(true);
    QCOMPARE(h.countsA().front(), 2);   // log bins start at the shortest
    QCOMPARE(h.countsB().back(), 1);

    core::analysis::AnalysisCache ca(m_a), cb(m_b);
    const auto comparison = core::compare::compareTraces(ca, cb);
    StepCompareChart chart;
    QVERIFY(chart.maximumHeight() < 100);   // no steps yet: a message
    chart.setComparison(comparison.steps, "A", "B");
    QVERIFY(chart.minimumHeight() >= 220);
    QCOMPARE(chart.barLabels().size(), 2 + 2 * 10);
    QVERIFY(chart.seriesNames().contains(QStringLiteral("Device compute")));
}

void TestCompareWorkspace::dropOverlay()
{
    QWidget window;
    window.resize(1000, 600);
    DropChoiceOverlay overlay(&window);
    overlay.setCurrentName(QStringLiteral("run-1"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!overlay.isVisible());
    QCOMPARE(overlay.geometry(), window.rect());
    overlay.showFor(QPoint(200, 300));
    QVERIFY(overlay.isVisible());
    QCOMPARE(overlay.highlighted(), DropChoiceOverlay::Choice::Open);
    QCOMPARE(overlay.choiceAt(QPoint(200, 300)), DropChoiceOverlay::Choice::Open);
    QCOMPARE(overlay.choiceAt(QPoint(800, 300)), DropChoiceOverlay::Choice::Compare);
    QCOMPARE(overlay.choiceAt(QPoint(-5, 300)), DropChoiceOverlay::Choice::None);
    QSignalSpy changed(&overlay, &DropChoiceOverlay::highlightChanged);
    overlay.updateHover(QPoint(900, 100));
    QCOMPARE(overlay.highlighted(), DropChoiceOverlay::Choice::Compare);
    QCOMPARE(changed.count(), 1);
    QVERIFY(overlay.zoneRect(DropChoiceOverlay::Choice::Compare).left() > 500);
    window.resize(1200, 700);
    QCOMPARE(overlay.geometry(), QRect(0, 0, 1200, 700));
    const QByteArray shots = qgetenv("TRACEDESK_SHOTS");
    if (!shots.isEmpty())
        QVERIFY(window.grab().save(QString::fromLocal8Bit(shots) + "/dropoverlay.png"));
}

// JAX writes <host>.xplane.pb in every run folder: two such files are labelled by their runs.
void TestCompareWorkspace::sameNamedFilesGetDistinctLabels()
{
    const QString name = QStringLiteral("host.xplane.pb");
    auto labels = distinctComparisonLabels(name, "/p/runs/run_1/plugins/profile/host.xplane.pb",
                                           name, "/p/runs/run_2/plugins/profile/host.xplane.pb");
    QCOMPARE(labels.first, QStringLiteral("run_1/host.xplane.pb"));
    QCOMPARE(labels.second, QStringLiteral("run_2/host.xplane.pb"));
    // The same file twice still reads as two sides.
    labels = distinctComparisonLabels(name, "/p/x/host.xplane.pb", name, "/p/x/host.xplane.pb");
    QVERIFY(labels.first != labels.second);
    // Different names stay as they are.
    labels = distinctComparisonLabels(QStringLiteral("a.json"), "/x/a.json",
                                      QStringLiteral("b.json"), "/y/b.json");
    QCOMPARE(labels.first, QStringLiteral("a.json"));
    QCOMPARE(labels.second, QStringLiteral("b.json"));

    // In the workspace: headers and chart title carry the run folders.
    core::TracePtr a = comparefixture::buildTraceA(4);
    core::TracePtr b = comparefixture::buildTraceA(4);
    // Freshly built and not shared yet: give them the paths a loader would have recorded.
    const_cast<core::Trace &>(*a).info.sources = {"/data/d1/plugins/profile/r1/h.xplane.pb"};
    const_cast<core::Trace &>(*b).info.sources = {"/data/d1/plugins/profile/r2/h.xplane.pb"};
    CompareWorkspace w;
    w.resize(1200, 800);
    w.show();
    w.setTraces(a, QStringLiteral("h.xplane.pb"), b, QStringLiteral("h.xplane.pb"));
    QCOMPARE(w.name(CompareWorkspace::SideA), QStringLiteral("r1/h.xplane.pb"));
    QCOMPARE(w.name(CompareWorkspace::SideB), QStringLiteral("r2/h.xplane.pb"));
    waitReady(w);
}

QTEST_MAIN(TestCompareWorkspace)
#include "tst_compareworkspace.moc"
