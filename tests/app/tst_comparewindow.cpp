// Comparison from the main window: `--compare`, File > Compare With, and dropping a second
// profile on the "Compare with current" zone, which loads B beside A; closing a side returns
// to the other trace alone; dropping on "Open" replaces the trace as before.

#include "app/gui/comparecontroller.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/startup.h"
#include "core/model/tracebuilder.h"
#include "views/compare/compareworkspace.h"
#include "views/compare/dropchoiceoverlay.h"
#include "views/timeline/timelinewidget.h"

#include <QAction>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using app::LoadController;
using app::LoadedTrace;
using app::MainWindow;

namespace {

// One device track with a kernel whose duration depends on the file name, so A and B differ.
core::TracePtr buildTrace(core::TimePs kernelPs)
{
    core::TraceBuilder b;
    core::EventKind kernel;
    kernel.name = b.intern("gemm_kernel");
    const uint32_t k = b.addKind(kernel);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "host", 1, core::PlaneKind::Device);
    const uint32_t stream = b.addTrack(gpu, "Stream #1", 1);
    for (int i = 0; i < 4; ++i)
        b.trackBuilder(stream).addSlice(i * 10'000'000, kernelPs, k);
    return b.build();
}

LoadController::Loader fakeLoader()
{
    return [](const std::string &path, core::LoadControl *, const core::LoadOptions &)
               -> core::Result<LoadedTrace> {
        const QString name = QFileInfo(QString::fromStdString(path)).fileName();
        return LoadedTrace{buildTrace(name.startsWith(QLatin1Char('b')) ? 2'000'000 : 1'000'000),
                           name};
    };
}

void sendDrag(MainWindow &window, const QString &path, QPoint pos, bool drop)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QDragMoveEvent move(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &move);
    if (!drop)
        return;
    QDropEvent dropEvent(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &dropEvent);
}

} // namespace

class TstCompareWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void commandLineCompares();
    void dropOnCompareZoneCompares();
    void dropOnOpenZoneOpens();
    void closingASideShowsTheOther();
    void docksSayWhichSideTheyShow();

private:
    void prepare(MainWindow &window);
    QTemporaryDir m_temp;
};

void TstCompareWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_temp.isValid());
}

void TstCompareWindow::prepare(MainWindow &window)
{
    window.setInteractiveErrors(false);
    window.loadController()->setLoader(fakeLoader());
    window.compareController()->loads()->setLoader(fakeLoader());
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
}

void TstCompareWindow::commandLineCompares()
{
    const auto options = app::parseCommandLine(
        {"tracedesk", "--compare", m_temp.filePath("b.json"), m_temp.filePath("a.json")});
    QVERIFY(!options.exitNow);
    QCOMPARE(options.comparePath, m_temp.filePath("b.json"));
    QVERIFY(app::parseCommandLine({"tracedesk", "--compare", "b.json"}).exitNow);

    MainWindow window;
    prepare(window);
    QSignalSpy compared(window.compareController(), &app::CompareController::comparisonShown);
    app::applyStartupOptions(window, options);
    QTRY_COMPARE(compared.count(), 1);
    views::CompareWorkspace *ws = window.compareController()->workspace();
    QVERIFY(window.compareController()->isComparing());
    QCOMPARE(ws->name(views::CompareWorkspace::SideA), QStringLiteral("a.json"));
    QCOMPARE(ws->name(views::CompareWorkspace::SideB), QStringLiteral("b.json"));
    QCOMPARE(ws->trace(views::CompareWorkspace::SideA), window.trace());
    QVERIFY(window.windowTitle().contains(QStringLiteral("a.json vs b.json")));
    // Not PyTorch traces: no operator table, and nothing of it drawn over the op diff.
    QTRY_VERIFY(ws->comparison());
    QVERIFY(!ws->operatorView()->isVisible());
    QVERIFY(ws->opDiffView()->isVisible());
}

void TstCompareWindow::dropOnCompareZoneCompares()
{
    MainWindow window;
    prepare(window);
    window.openPath(m_temp.filePath("a.json"));
    QTRY_VERIFY(window.trace());
    QVERIFY(!window.dropOverlay()->isVisible());

    // Hovering shows both zones; the position picks one.
    const QString b = m_temp.filePath("b.json");
    sendDrag(window, b, QPoint(10, 10), false);
    QVERIFY(window.dropOverlay()->isVisible());
    const QRect compareZone = window.dropOverlay()->zoneRect(
        views::DropChoiceOverlay::Choice::Compare);
    QVERIFY(compareZone.isValid());
    QSignalSpy compared(window.compareController(), &app::CompareController::comparisonShown);
    sendDrag(window, b, compareZone.center(), true);
    QVERIFY(!window.dropOverlay()->isVisible());
    QTRY_COMPARE(compared.count(), 1);
    QCOMPARE(window.displayName(), QStringLiteral("a.json"));   // A stays A
    QCOMPARE(window.compareController()->workspace()->name(views::CompareWorkspace::SideB),
             QStringLiteral("b.json"));
}

void TstCompareWindow::dropOnOpenZoneOpens()
{
    MainWindow window;
    prepare(window);
    window.openPath(m_temp.filePath("a.json"));
    QTRY_VERIFY(window.trace());
    const QString c = m_temp.filePath("c.json");
    sendDrag(window, c, QPoint(10, 10), false);
    const QRect openZone = window.dropOverlay()->zoneRect(views::DropChoiceOverlay::Choice::Open);
    sendDrag(window, c, openZone.center(), true);
    QTRY_COMPARE(window.displayName(), QStringLiteral("c.json"));
    QVERIFY(!window.compareController()->isComparing());
}

void TstCompareWindow::closingASideShowsTheOther()
{
    MainWindow window;
    prepare(window);
    window.openPath(m_temp.filePath("a.json"));
    QTRY_VERIFY(window.trace());
    QSignalSpy compared(window.compareController(), &app::CompareController::comparisonShown);
    window.compareWith(m_temp.filePath("b.json"));
    QTRY_COMPARE(compared.count(), 1);
    views::CompareWorkspace *ws = window.compareController()->workspace();

    emit ws->closeRequested(views::CompareWorkspace::SideA);
    QVERIFY(!window.compareController()->isComparing());
    QCOMPARE(window.displayName(), QStringLiteral("b.json"));
    auto *stack = qobject_cast<QStackedWidget *>(window.centralWidget());
    QVERIFY(stack);
    QCOMPARE(stack->currentWidget(), static_cast<QWidget *>(window.timeline()));

    window.compareWith(m_temp.filePath("a.json"));
    QTRY_COMPARE(compared.count(), 2);
    emit ws->closeRequested(views::CompareWorkspace::SideB);
    QCOMPARE(window.displayName(), QStringLiteral("b.json"));
    QVERIFY(!window.compareController()->isComparing());
}

void TstCompareWindow::docksSayWhichSideTheyShow()
{
    MainWindow window;
    prepare(window);
    window.openPath(m_temp.filePath("a.json"));
    QTRY_VERIFY(window.trace());
    QSignalSpy compared(window.compareController(), &app::CompareController::comparisonShown);
    window.compareWith(m_temp.filePath("b.json"));
    QTRY_COMPARE(compared.count(), 1);
    views::CompareWorkspace *ws = window.compareController()->workspace();
    QDockWidget *overview = nullptr;
    for (QDockWidget *dock : window.findChildren<QDockWidget *>()) {
        if (dock->objectName() == QStringLiteral("OverviewDock"))
            overview = dock;
    }
    QVERIFY(overview);
    // The panels show the window's own profile, a.json, which is side A until swapped.
    QTRY_VERIFY(overview->windowTitle().endsWith(QStringLiteral("(A)")));
    // The single-trace panels step aside for the two timelines, and come back afterwards.
    QVERIFY(!overview->toggleViewAction()->isChecked());
    QVERIFY(!window.detailsDock()->toggleViewAction()->isChecked());
    QSignalSpy ready(ws, &views::CompareWorkspace::comparisonReady);
    ws->swap();
    QTRY_VERIFY(ready.count() >= 1);
    QCOMPARE(ws->trace(views::CompareWorkspace::SideB), window.trace());
    QTRY_VERIFY(overview->windowTitle().endsWith(QStringLiteral("(B)")));
    emit ws->closeRequested(views::CompareWorkspace::SideA);
    QTRY_VERIFY(overview->toggleViewAction()->isChecked());
    QVERIFY(window.detailsDock()->toggleViewAction()->isChecked());
    QCOMPARE(overview->windowTitle(), QStringLiteral("Overview"));
}

QTEST_MAIN(TstCompareWindow)
#include "tst_comparewindow.moc"
