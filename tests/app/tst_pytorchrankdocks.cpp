// The rank of a merged run in the main window: every dock's PyTorch page follows one pick (rank
// 2 picked in Kernel Stats turns the Overview to rank 2), and an operator activated then outlines
// the GPU work rank 2's operator launched, none of another rank's.

#include "../core/support/clirun.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/rankanalyses.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchkernelview.h"
#include "views/panels/pytorch/pytorchoverviewview.h"
#include "views/timeline/timelinewidget.h"

#include <QComboBox>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using app::MainWindow;

namespace {

template<typename W>
bool waitComputed(W &w)
{
    if (!w.isComputing())
        return true;
    QSignalSpy spy(&w, &W::computed);
    return spy.wait(120000) || !w.isComputing();
}

void raise(MainWindow &window, const QString &dockName)
{
    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->objectName() == dockName) {
            dock->show();
            dock->raise();
        }
    }
}

} // namespace

class TstPyTorchRankDocks : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void oneRankForEveryDock();

private:
    QTemporaryDir m_temp;
    QString m_run;
};

void TstPyTorchRankDocks::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    app::RecentFiles::flush();   // a list still being written would land after the clear
    QSettings().clear();
    QVERIFY(m_temp.isValid());
    m_run = m_temp.filePath(QStringLiteral("run"));
    const clitest::CliRun gen = clitest::runCli({"generate", "--format", "kineto", "--ranks", "3",
                                                 "--events", "8k", "--seed", "5", m_run});
    QVERIFY2(gen.exitCode == 0, gen.err.constData());
}

void TstPyTorchRankDocks::oneRankForEveryDock()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openPath(m_run);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 120000);

    raise(window, QStringLiteral("KernelStatsDock"));
    auto *kernels = qobject_cast<views::KernelStatsPanel *>(
        window.analysisDocks()->panel(QStringLiteral("KernelStatsDock")));
    QVERIFY(kernels);
    QTRY_VERIFY(kernels->findChild<views::FrameworkPages *>()->showsPyTorch());
    QComboBox *chooser = kernels->findChild<views::FrameworkPages *>()->rankChooser();
    QTRY_VERIFY(chooser->isVisible());
    QCOMPARE(chooser->count(), 3);
    QVERIFY(waitComputed(*kernels->pytorchView()));
    chooser->setCurrentIndex(2);
    emit chooser->activated(2);
    QVERIFY(waitComputed(*kernels->pytorchView()));

    // The overview, shown afterwards, is on rank 2 too.
    raise(window, QStringLiteral("OverviewDock"));
    auto *overview = qobject_cast<views::OverviewPanel *>(
        window.analysisDocks()->panel(QStringLiteral("OverviewDock")));
    QVERIFY(overview);
    QTRY_VERIFY(overview->findChild<views::FrameworkPages *>()->showsPyTorch());
    QCOMPARE(overview->findChild<views::FrameworkPages *>()->rankChooser()->currentText(),
             QStringLiteral("rank 2 of 3"));
    QTRY_VERIFY_WITH_TIMEOUT(!overview->pytorchView()->isComputing()
                                 && overview->pytorchView()->statusText().contains("rank 2 of 3"),
                             60000);

    // An operator of rank 2 outlines only rank 2's GPU work.
    const core::analysis::AnalysisCachePtr cache = window.analysisDocks()->cache();
    const auto ranked = core::analysis::pytorch::rankAnalyses(cache, 2);
    const auto stats = core::analysis::pytorch::operatorStats(*ranked);
    std::string op;
    for (const auto &row : stats->byName) {
        if (row.deviceTotalUs > 0) {
            op = row.opName;
            break;
        }
    }
    QVERIFY(!op.empty());
    views::TimelineState *state = window.timeline()->state();
    QSignalSpy highlighted(state, &views::TimelineState::highlightsChanged);
    window.analysisDocks()->showOp(QString::fromStdString(op));
    QVERIFY(highlighted.count() > 0 || highlighted.wait(60000));
    const auto refs = state->highlights().refs;
    QVERIFY(refs && !refs->empty());
    const core::Trace &trace = cache->trace();
    int gpu = 0;
    for (const core::SliceRef &ref : *refs) {
        const core::Plane &plane = trace.planes[trace.tracks[ref.track].plane];
        if (plane.kind != core::PlaneKind::Device)
            continue;
        ++gpu;
        QCOMPARE(QString::fromStdString(std::string(trace.string(plane.host))),
                 QStringLiteral("rank 2"));
    }
    QVERIFY(gpu > 0);
}

QTEST_MAIN(TstPyTorchRankDocks)
#include "tst_pytorchrankdocks.moc"
