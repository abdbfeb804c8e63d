// A legacy per-tool run folder opens in the main window: no timeline events, and the analysis
// panels show the figures recorded in the tool files.

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "views/common/placeholderpanel.h"
#include "views/timeline/timelinewidget.h"
#include "core/legacy/legacytools.h"
#include "views/panels/inputpipeline/inputpipelinepanel.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/overviewpanel.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

class TstLegacyRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void legacyFolderFillsOverviewAndInputPipeline();

private:
    QTemporaryDir m_home;
};

void TstLegacyRun::initTestCase()
{
    qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
    qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
}

void TstLegacyRun::legacyFolderFillsOverviewAndInputPipeline()
{
    const QString path =
        QStringLiteral(TRACEDESK_SHARED_FIXTURES "/legacy_tools/xprof_demo_GPU-input-bound");
    if (!QFileInfo::exists(path))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    // Expected figures, read straight from the tool files.
    auto tools = core::legacy::readLegacyTools(path.toStdString());
    QVERIFY2(tools, tools ? "" : tools.message().c_str());
    const auto expected = tools.value().overview;
    QVERIFY(expected);

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
    QVERIFY(window.analysisDocks()->cache()->trace().planes.empty());
    // No empty timeline: the central area says what the folder holds (tools counted from the
    // folder's file names: it has an overview page and input pipeline files).
    QVERIFY(window.placeholder()->isVisible());
    QVERIFY(!window.timeline()->isVisible());
    const QString note = window.placeholder()->detailText();
    QVERIFY2(note.contains(QStringLiteral("Overview")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("Input Pipeline")), qPrintable(note));
    QVERIFY2(note.contains(QStringLiteral("no timeline")), qPrintable(note));

    auto *overview = qobject_cast<views::OverviewPanel *>(
        window.analysisDocks()->panel(QStringLiteral("OverviewDock")));
    QVERIFY(overview);
    QTRY_VERIFY_WITH_TIMEOUT(!overview->isComputing() && overview->page(), 60000);
    const auto page = overview->page();
    QCOMPARE(page->stepCount, 11);
    QCOMPARE(page->averageStepTimeMs, expected->averageStepTimeMs);
    QCOMPARE(page->bottleneck, std::string("host"));
    const QString summary = overview->summaryText();
    QVERIFY2(summary.contains(QString::number(expected->averageStepTimeMs, 'f', 3)),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("11 steps")), qPrintable(summary));
    QCOMPARE(overview->topOpsModel()->rowCount(), int(expected->topDeviceOps.size()));

    auto *input = qobject_cast<views::InputPipelinePanel *>(
        window.analysisDocks()->panel(QStringLiteral("InputPipelineDock")));
    QVERIFY(input);
    for (QDockWidget *dock : window.analysisDocks()->docks())
        if (dock->objectName() == QLatin1String("InputPipelineDock"))
            dock->raise();
    QTRY_VERIFY_WITH_TIMEOUT(!input->isComputing() && input->opsModel()->rowCount() > 0, 60000);
    QCOMPARE(input->opsModel()->rowCount(), 90);

    const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
    if (!keep.isEmpty()) {
        window.grab().save(keep);
        input->grab().save(keep + QStringLiteral(".input.png"));
    }
}

QTEST_MAIN(TstLegacyRun)
#include "tst_legacyrun.moc"
