// The analysis panels inside the main window: a real GPU profile fills them, and clicking a top
// op in the overview outlines that op's occurrences on the timeline and lists them in the
// details pane.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/timelinewidget.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

namespace {

QString fixture(const char *relative)
{
    return QStringLiteral(TRACEDESK_SHARED_FIXTURES "/") + QLatin1String(relative);
}

} // namespace

class TstAnalysisDocks : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void docksExistAndStartEmpty();
    void gpuProfileFillsPanelsAndTopOpFollowsOnTimeline();

private:
    QTemporaryDir m_home;
};

void TstAnalysisDocks::initTestCase()
{
    // Keep settings and the store cache away from the user's.
    qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
    qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
}

void TstAnalysisDocks::docksExistAndStartEmpty()
{
    app::MainWindow window;
    QStringList names;
    for (QDockWidget *dock : window.analysisDocks()->docks())
        names << dock->objectName();
    QCOMPARE(names, (QStringList{"OverviewDock", "InputPipelineDock", "OpProfileDock",
                                 "FrameworkOpStatsDock", "KernelStatsDock", "HloStatsDock",
                                 "RooflineDock", "GraphViewerDock", "GpuTimeDock",
                                 "MemoryProfileDock", "MemoryViewerDock", "PodViewerDock",
                                 "TfDataDock",
                                 "DistributedDock", "QueryDock", "PivotDock", "FlameGraphDock"}));
    QVERIFY(!window.analysisDocks()->cache());
}

void TstAnalysisDocks::gpuProfileFillsPanelsAndTopOpFollowsOnTimeline()
{
    const QString path = fixture("xspace/tracelens_jax08_gemm");
    if (!QFileInfo::exists(path))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    app::MainWindow window;
    window.setInteractiveErrors(false);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &app::MainWindow::traceShown);
    window.openPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1 || !window.lastError().isEmpty(), 60000);
    QCOMPARE(window.lastError(), QString());
    QVERIFY(window.analysisDocks()->cache());

    auto *overview = qobject_cast<views::OverviewPanel *>(
        window.analysisDocks()->panel(QStringLiteral("OverviewDock")));
    QVERIFY(overview);
    window.analysisDocks()->docks().front()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(!overview->isComputing() && overview->page(), 60000);
    QVERIFY(overview->topOpsModel()->rowCount() > 0);

    // Click the first top op: its occurrences are outlined and listed.
    QTableView *table = overview->topOpsView();
    const QModelIndex first = table->model()->index(0, 0);
    const QString op = first.data().toString();
    QVERIFY(!op.isEmpty());
    QSignalSpy found(window.timeline(), &views::TimelineWidget::opOccurrencesShown);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(first).center());
    QTRY_COMPARE_WITH_TIMEOUT(found.count(), 1, 30000);
    QCOMPARE(found.front().at(0).toString(), op);
    const auto &h = window.timeline()->state()->highlights();
    QCOMPARE(h.label, op);
    QVERIFY2(h.total > 0, qPrintable(op));
    // The first occurrence is in view.
    const core::TimePs start = window.trace()->start(h.refs->front());
    const auto *state = window.timeline()->state();
    QVERIFY(start >= state->t0() && start <= state->t1());
    QTRY_VERIFY(!window.detailsPane()->summaryPending());
    QVERIFY2(window.detailsPane()->areaText().startsWith(op + QStringLiteral(": ")),
             qPrintable(window.detailsPane()->areaText()));

    const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
    if (!keep.isEmpty())
        window.grab().save(keep);
}

QTEST_MAIN(TstAnalysisDocks)
#include "tst_analysisdocks.moc"
