// The main window's layout: the first window fits its screen, the analysis docks get about half
// the height on first start, a panel can be maximised and restored, the layout is remembered,
// and the pointer over the timeline gives it the keyboard back.

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "app/gui/windowlayout.h"

#include "core/model/tracebuilder.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/searchbar.h"
#include "views/timeline/summarytablemodel.h"
#include "views/timeline/timelinestate.h"
#include "views/timeline/timelinewidget.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QEnterEvent>
#include <QHeaderView>
#include <QLineEdit>
#include <QProgressDialog>
#include <QMenu>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace tracedesk;
using app::MainWindow;

namespace {

core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("softmax");
    const uint32_t op = b.addKind(kind);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "node1", 1, core::PlaneKind::Device);
    const uint32_t stream = b.addTrack(gpu, "Stream 1", 1);
    for (int i = 0; i < 20; ++i)
        b.trackBuilder(stream).addSlice(i * 1'000'000, 300'000, op);
    return b.build();
}

int analysisHeight(const MainWindow &window)
{
    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->isVisible() && !dock->visibleRegion().isEmpty())
            return dock->height();
    }
    return 0;
}

} // namespace

class TstWindowLayout : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void fittedGeometry();
    void firstWindowFitsTheScreen();
    void analysisDocksGetHalfOnFirstStart();
    void maximisePanelAndRestore();
    void layoutIsRemembered();
    void pointerOverTimelineTakesKeys();
    void timelineKeysFromSmallWidgets();
    void focusBackAfterProgressDialog();
    void searchOnSample();
    void areaSummaryReadsWhole();

private:
    void configure(MainWindow &window);
    // Shows the window and waits until it is exposed and has the focus.
    static bool showActive(MainWindow &window);
    QTemporaryDir m_temp;
};

void TstWindowLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDeskTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_windowlayout"));
    QVERIFY(m_temp.isValid());
}

void TstWindowLayout::init()
{
    app::RecentFiles::flush();   // a list still being written would land after the clear
    QSettings().clear();
}

void TstWindowLayout::configure(MainWindow &window)
{
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
}

bool TstWindowLayout::showActive(MainWindow &window)
{
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

void TstWindowLayout::fittedGeometry()
{
    const QRect rect = app::fittedGeometry(QRect(0, 30, 1920, 1050), 0.5);
    QCOMPARE(rect.size(), QSize(960, 525));
    QCOMPARE(rect.center(), QRect(0, 30, 1920, 1050).center());
}

void TstWindowLayout::firstWindowFitsTheScreen()
{
    MainWindow window;
    const QRect available = app::openingScreen()->availableGeometry();
    // Not a fixed size: a share of the screen, centred on it.
    QVERIFY(qAbs(window.width() - available.width() * app::kFirstWindowShare) <= 2);
    QVERIFY(qAbs(window.height() - available.height() * app::kFirstWindowShare) <= 2);
    QVERIFY(available.contains(window.geometry()));
    QVERIFY((window.geometry().center() - available.center()).manhattanLength() <= 2);
}

void TstWindowLayout::analysisDocksGetHalfOnFirstStart()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_VERIFY2(
        analysisHeight(window) >= window.height() * 0.4,
        qPrintable(QStringLiteral("%1 of %2").arg(analysisHeight(window)).arg(window.height())));
}

void TstWindowLayout::maximisePanelAndRestore()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showTrace(buildTrace(), QStringLiteral("layout"));
    QTRY_VERIFY(analysisHeight(window) > 0);
    const int before = analysisHeight(window);
    QAction *maximise = window.maximisePanelAction();
    QVERIFY(maximise);
    QCOMPARE(maximise->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));

    maximise->trigger();
    QVERIFY(window.panelMaximised());
    QVERIFY(!window.timeline()->isVisible());
    QVERIFY(!window.tracksDock()->isVisible());
    QVERIFY(!window.detailsDock()->isVisible());
    QTRY_VERIFY(analysisHeight(window) > window.height() * 0.75);

    maximise->trigger();
    QVERIFY(!window.panelMaximised());
    QVERIFY(window.timeline()->isVisible());
    QVERIFY(window.tracksDock()->isVisible());
    QVERIFY(window.detailsDock()->isVisible());
    QTRY_VERIFY(qAbs(analysisHeight(window) - before) <= 10);

    // Also offered by the right-click menu of the dock title bars.
    std::unique_ptr<QMenu> popup(window.createPopupMenu());
    QVERIFY(popup && popup->actions().contains(maximise));

    // A dock the user had closed stays closed after a round trip.
    window.tracksDock()->hide();
    maximise->trigger();
    maximise->trigger();
    QVERIFY(!window.tracksDock()->isVisible());
    QVERIFY(window.detailsDock()->isVisible());
}

void TstWindowLayout::layoutIsRemembered()
{
    int saved = 0;
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(analysisHeight(window) > 0);
        saved = analysisHeight(window);
        // Closing while maximised saves the restored layout.
        window.maximisePanelAction()->trigger();
        window.close();
    }
    MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(!again.panelMaximised());
    QVERIFY(again.tracksDock()->isVisible());
    QVERIFY(again.timeline()->parentWidget()->isVisible());
    QTRY_VERIFY(qAbs(analysisHeight(again) - saved) <= 10);
}

void TstWindowLayout::pointerOverTimelineTakesKeys()
{
    MainWindow window;
    QVERIFY(showActive(window));
    window.showTrace(buildTrace(), QStringLiteral("focus"));
    QWidget *canvas = window.timeline()->canvasWidget();

    // A click on a panel tab leaves the keyboard in the panels.
    QDockWidget *overview = window.analysisDocks()->docks().front();
    overview->widget()->setFocusPolicy(Qt::StrongFocus);
    overview->widget()->setFocus(Qt::MouseFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), overview->widget());

    // The pointer coming over the timeline hands it back, so W zooms.
    const QPointF centre = QRectF(canvas->rect()).center();
    QEnterEvent enter(centre, canvas->mapToGlobal(centre), canvas->mapToGlobal(centre));
    QCoreApplication::sendEvent(canvas, &enter);
    QTRY_COMPARE(QApplication::focusWidget(), canvas);
    const views::TimelineState *state = window.timeline()->state();
    const core::TimePs span = state->t1() - state->t0();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    QVERIFY(state->t1() - state->t0() < span);

    // Not while text is being typed elsewhere (the find bar).
    window.timeline()->openSearch();
    QLineEdit *field = window.timeline()->searchBar()->field();
    QTRY_COMPARE(QApplication::focusWidget(), field);
    QCoreApplication::sendEvent(canvas, &enter);
    QCOMPARE(QApplication::focusWidget(), field);
}

// After a load the timeline has the keyboard (not the Tracks filter, which would take W as
// text); W A S D reach it from the track tree or a panel, never from a text field.
void TstWindowLayout::timelineKeysFromSmallWidgets()
{
    MainWindow window;
    QVERIFY(showActive(window));
    QLineEdit *filter = window.findChild<QLineEdit *>(QStringLiteral("TrackFilter"));
    QVERIFY(filter);
    filter->setFocus(Qt::OtherFocusReason);
    window.showTrace(buildTrace(), QStringLiteral("keys"));
    QWidget *canvas = window.timeline()->canvasWidget();
    QTRY_COMPARE(QApplication::focusWidget(), canvas);

    const views::TimelineState *state = window.timeline()->state();
    QTreeView *tree = window.trackView();
    tree->setFocus(Qt::MouseFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), tree);
    core::TimePs span = state->t1() - state->t0();
    QTest::keyClick(tree, Qt::Key_W);
    QVERIFY(state->t1() - state->t0() < span);
    QCOMPARE(QApplication::focusWidget(), tree);   // the keyboard stays where the user put it
    const core::TimePs t0 = state->t0();
    QTest::keyClick(tree, Qt::Key_D);
    QVERIFY(state->t0() > t0);

    // A text field the user clicked keeps its letters.
    filter->setFocus(Qt::MouseFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), filter);
    span = state->t1() - state->t0();
    QTest::keyClick(filter, Qt::Key_W);
    QCOMPARE(filter->text(), QStringLiteral("w"));
    QCOMPARE(state->t1() - state->t0(), span);
}

// A load slow enough to show its progress dialog (as on a slow machine): when the dialog goes,
// the window has the focus back and the timeline the keyboard, with no window manager to help.
void TstWindowLayout::focusBackAfterProgressDialog()
{
    MainWindow window;
    configure(window);
    QVERIFY(showActive(window));
    std::atomic<bool> release{false};
    window.loadController()->setLoader(
        [&](const std::string &path, core::LoadControl *control, const core::LoadOptions &)
            -> core::Result<app::LoadedTrace> {
            control->addTotal(1000);
            control->addDone(500);
            while (!release.load() && !control->cancelRequested())
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            return app::LoadedTrace{buildTrace(), QString::fromStdString(path)};
        });
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openPath(m_temp.filePath(QStringLiteral("slow.json")));
    QTRY_VERIFY(window.progressDialog() && window.progressDialog()->isVisible());
    release = true;
    QTRY_COMPARE(shown.count(), 1);
    QTRY_VERIFY(window.isActiveWindow());
    QTRY_COMPARE(QApplication::focusWidget(), window.timeline()->canvasWidget());
}

// An area selected on the sample: the Details dock widens so the summary's number columns
// (In area, Wall, Self, ...) all show beside a readable name column.
void TstWindowLayout::areaSummaryReadsWhole()
{
    const QString sample =
        QDir::cleanPath(QStringLiteral(TRACEDESK_TEST_DATA "/../../resources/sample"));
    if (!QFileInfo::exists(sample))
        QSKIP("no bundled sample");
    MainWindow window;
    configure(window);
    // A 1920 px window, as users have; beside the analysis tabs (a row that scrolls once it
    // needs more than half the window) the Details dock has room for the whole summary.
    window.resize(1920, 1000);
    QVERIFY(showActive(window));
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openPath(sample);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    const core::TracePtr trace = window.trace();
    views::DetailsPane *details = qobject_cast<views::DetailsPane *>(window.detailsDock()->widget());
    QVERIFY(details);
    const int before = window.detailsDock()->width();
    QSignalSpy ready(details, &views::DetailsPane::summaryReady);
    views::AreaRange area;
    area.time = {trace->begin, trace->begin + (trace->end - trace->begin) / 3};
    for (uint32_t t = 0; t < trace->tracks.size(); ++t)
        area.tracks.push_back(t);
    window.timeline()->state()->selectArea(area);
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
    QTableView *table = details->table();
    QTRY_VERIFY(window.detailsDock()->width() > before);
    QHeaderView *header = table->horizontalHeader();
    // The name, the count and the time in and around the area read whole; the rest scroll
    // sideways when the analysis tabs need the room.
    const int self = views::SummaryTableModel::WallTotal;
    QTRY_VERIFY2(header->sectionViewportPosition(self) + header->sectionSize(self)
                     <= table->viewport()->width(),
                 qPrintable(QStringLiteral("Wall total ends at %1 in a %2 px table")
                                .arg(header->sectionViewportPosition(self) + header->sectionSize(self))
                                .arg(table->viewport()->width())));
    QVERIFY(header->sectionSize(views::SummaryTableModel::Name) >= 200);
    // ... and the analysis tabs beside it keep their whole titles.
    QTabBar *tabs = nullptr;
    for (QTabBar *bar : window.findChildren<QTabBar *>(Qt::FindDirectChildrenOnly)) {
        for (int i = 0; i < bar->count(); ++i) {
            if (bar->tabText(i) == QStringLiteral("Overview"))
                tabs = bar;
        }
    }
    QVERIFY(tabs);
    for (int i = 0; i < tabs->count(); ++i) {
        const int text = tabs->fontMetrics().horizontalAdvance(tabs->tabText(i));
        QVERIFY2(tabs->tabRect(i).width() > text, qPrintable(tabs->tabText(i)));
    }
}

// Also the screenshots of a search on the bundled sample when TRACEDESK_SEARCH_SCREENSHOT names
// a PNG to write, and of the panel maximised when TRACEDESK_MAXIMISED_SCREENSHOT does.
void TstWindowLayout::searchOnSample()
{
    const QString sample =
        QDir::cleanPath(QStringLiteral(TRACEDESK_TEST_DATA "/../../resources/sample"));
    if (!QFileInfo::exists(sample))
        QSKIP("no bundled sample");
    MainWindow window;
    configure(window);
    QVERIFY(showActive(window));
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openPath(sample);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, 60000);
    // The load's progress dialog may have held the focus: the window has it back.
    QTRY_VERIFY(window.isActiveWindow());
    views::TimelineWidget *timeline = window.timeline();
    QTRY_VERIFY(timeline->lodIndexReady());
    timeline->openSearch();
    views::SearchBar *bar = timeline->searchBar();
    QSignalSpy finished(bar, &views::SearchBar::finished);
    bar->field()->setText(QStringLiteral("softmax"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QVERIFY(bar->totalMatches() > 0);
    QTest::keyClick(bar->field(), Qt::Key_Return);
    const views::TimelineState *state = timeline->state();
    const core::TracePtr trace = window.trace();
    QVERIFY(state->t0() >= trace->begin && state->t1() <= trace->end);
    const core::SliceRef match = *state->selectedSlice();
    QVERIFY(state->t0() <= trace->start(match));
    QVERIFY(state->t1() >= trace->start(match) + trace->duration(match));
    QTRY_COMPARE(QApplication::focusWidget(), timeline->canvasWidget());
    QVERIFY(!state->highlights().empty());
    const QString shot = qEnvironmentVariable("TRACEDESK_SEARCH_SCREENSHOT");
    if (!shot.isEmpty()) {
        QTest::qWait(300);
        QVERIFY(window.grab().save(shot));
        qInfo("search screenshot: %s", qPrintable(shot));
    }
    const QString maximised = qEnvironmentVariable("TRACEDESK_MAXIMISED_SCREENSHOT");
    if (!maximised.isEmpty()) {
        window.maximisePanelAction()->trigger();
        QTest::qWait(300);
        QVERIFY(window.grab().save(maximised));
        window.maximisePanelAction()->trigger();
    }
}

QTEST_MAIN(TstWindowLayout)
#include "tst_windowlayout.moc"
