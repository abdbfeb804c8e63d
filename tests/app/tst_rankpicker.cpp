// Part of a distributed run on the timeline: the Distributed panel's "Ranks on Timeline…" picker
// reopens a generated 4-rank run with the two ranks chosen (the timeline's sections are exactly
// those) while the panel still reports all four ranks, summarised rank by rank, and its clicks
// reach only the ranks shown; the step alignment is kept; a memory budget too small for the
// whole run (worked out here from runfit.h's documented estimate) opens the first ranks that
// fit with the slow rank, not on the timeline, still named the top straggler; `--ranks` and
// `--memory-limit` on the command line.

#include "../core/support/slicestarts.h"
#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "app/gui/startup.h"
#include "core/generate/kinetorungenerator.h"
#include "views/panels/distributed/distributedpanel.h"
#include "views/panels/distributed/rankpickerdialog.h"
#include "views/timeline/timelinewidget.h"
#include "views/tracktree/tracktreemodel.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using app::MainWindow;
using views::DistributedPanel;
using testsupport::sliceStarts;

namespace {

constexpr int kRanks = 4;
constexpr int kSlowRank = 2;

} // namespace

class TstRankPicker : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void pickTwoRanks();
    void pickKeepsAlignment();
    void runLargerThanTheBudget();
    void commandLine();

private:
    void configure(MainWindow &window, uint64_t memoryLimit = 0);
    QString waitForLoad(MainWindow &window);
    DistributedPanel *shownPanel(MainWindow &window);
    QStringList topSections(MainWindow &window) const;
    // Opens the picker, types `ranks` and accepts; waits for the reload.
    QString pickRanks(MainWindow &window, DistributedPanel *panel, const QString &ranks);

    QTemporaryDir m_temp;
    QString m_run;
};

void TstRankPicker::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QVERIFY(m_temp.isValid());
    m_run = m_temp.filePath(QStringLiteral("run"));
    core::KinetoRunOptions run;
    run.ranks = kRanks;
    run.slowRank = kSlowRank;
    run.eventsPerRank = 20000;
    run.seed = 3;
    const auto generated = core::generateKinetoRun(run, m_run.toStdString());
    QVERIFY2(generated, generated ? "" : generated.error().message.c_str());
}

void TstRankPicker::init()
{
    app::RecentFiles::flush();   // a list still being written would land after the clear
    QSettings().clear();
}

void TstRankPicker::configure(MainWindow &window, uint64_t memoryLimit)
{
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    options.memoryLimitBytes = memoryLimit;
    window.loadController()->setOptions(options);
}

QString TstRankPicker::waitForLoad(MainWindow &window)
{
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QSignalSpy error(&window, &MainWindow::errorShown);
    if (window.loadController()->isLoading())
        [&] { QTRY_VERIFY_WITH_TIMEOUT(shown.count() + error.count() > 0, 120000); }();
    return error.isEmpty() ? QString() : error.front().front().toString();
}

DistributedPanel *TstRankPicker::shownPanel(MainWindow &window)
{
    auto *panel = qobject_cast<DistributedPanel *>(
        window.analysisDocks()->panel(QStringLiteral("DistributedDock")));
    if (!panel)
        return nullptr;
    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->objectName() == QStringLiteral("DistributedDock"))
            dock->raise();
    }
    // The panel computes once shown; a rank-by-rank summary of the whole run may take a while.
    if (!QTest::qWaitFor([&] { return !panel->isComputing() && (panel->summary()
                                                                 || panel->showsReason()); },
                         120000))
        return nullptr;
    return panel;
}

QStringList TstRankPicker::topSections(MainWindow &window) const
{
    QStringList names;
    const QAbstractItemModel *m = window.trackModel();
    for (int r = 0; r < m->rowCount(); ++r)
        names << m->index(r, 0).data().toString();
    return names;
}

QString TstRankPicker::pickRanks(MainWindow &window, DistributedPanel *panel,
                                 const QString &ranks)
{
    if (!panel->ranksButton()->isEnabled())
        return QStringLiteral("the Ranks on Timeline button is disabled");
    QTest::mouseClick(panel->ranksButton(), Qt::LeftButton);
    views::RankPickerDialog *picker = nullptr;
    for (auto *p : panel->findChildren<views::RankPickerDialog *>()) {
        if (p->isVisible())
            picker = p; // an earlier one may still wait for its deletion
    }
    if (!picker)
        return QStringLiteral("no picker");
    if (picker->rankList()->count() != kRanks)
        return QStringLiteral("the picker lists %1 ranks").arg(picker->rankList()->count());
    picker->choiceEdit()->selectAll();
    QTest::keyClicks(picker->choiceEdit(), ranks);
    if (!picker->problemText().isEmpty())
        return picker->problemText();
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QTest::mouseClick(picker->buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    if (!QTest::qWaitFor([&] { return shown.count() > 0; }, 120000))
        return QStringLiteral("no reload: %1").arg(window.lastError());
    return {};
}

void TstRankPicker::pickTwoRanks()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openPath(m_run);
    QCOMPARE(waitForLoad(window), QString());
    QCOMPARE(topSections(window).size(), kRanks);
    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QCOMPARE(panel->rankCount(), kRanks);
    QVERIFY(!panel->runView()->partial);

    // The picker shows the ranks on the timeline checked; typing checks the ranks typed.
    QTest::mouseClick(panel->ranksButton(), Qt::LeftButton);
    auto *picker = panel->findChild<views::RankPickerDialog *>();
    QVERIFY(picker);
    QCOMPARE(picker->chosenRanks(), (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(picker->choiceText(), QStringLiteral("0-3"));
    picker->choiceEdit()->selectAll();
    QTest::keyClicks(picker->choiceEdit(), QStringLiteral("1,3"));
    QCOMPARE(picker->chosenRanks(), (std::vector<int64_t>{1, 3}));
    QCOMPARE(picker->rankList()->item(1)->checkState(), Qt::Checked);
    QCOMPARE(picker->rankList()->item(2)->checkState(), Qt::Unchecked);
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QTest::mouseClick(picker->buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 120000);

    QCOMPARE(topSections(window), (QStringList{"rank 1", "rank 3"}));
    QCOMPARE(window.loadController()->options().ranks, (std::vector<int64_t>{1, 3}));
    QVERIFY2(window.statusBar()->currentMessage().contains("showing ranks 1, 3 of 4"),
             qPrintable(window.statusBar()->currentMessage()));
    panel = shownPanel(window);
    QVERIFY(panel);
    // Still every rank of the run, its slow rank the top straggler though not on the timeline.
    QCOMPARE(panel->rankCount(), kRanks);
    QVERIFY(panel->runView()->partial);
    QCOMPARE(panel->runView()->shownRanks(), (std::vector<int64_t>{1, 3}));
    QCOMPARE(panel->summary()->stragglers.front().rank, int64_t(kSlowRank));
    QVERIFY2(panel->statusText().contains("Timeline: 2 of 4 ranks (1, 3)"),
             qPrintable(panel->statusText()));
    QCOMPARE(panel->rankStepTable()->model()->index(0, 0).data().toInt(), 0);

    // Clicks reach the ranks on the timeline only.
    panel->activateRank(0);
    QVERIFY(panel->statusText().contains("Rank 0 is not on the timeline"));
    const core::TracePtr trace = window.trace();
    panel->activateCollective(0);
    const auto &highlights = window.timeline()->state()->highlights();
    QVERIFY(highlights.refs);
    QCOMPARE(highlights.refs->size(), size_t(2));
    for (const core::SliceRef &ref : *highlights.refs) {
        const uint32_t plane = trace->tracks[ref.track].plane;
        const std::string host(trace->string(trace->planes[plane].host));
        QVERIFY2(host == "rank 1" || host == "rank 3", host.c_str());
    }

    // "All" puts every rank back.
    QCOMPARE(pickRanks(window, panel, QStringLiteral("0-3")), QString());
    QCOMPARE(topSections(window).size(), kRanks);
}

void TstRankPicker::pickKeepsAlignment()
{
    MainWindow window;
    configure(window);
    core::LoadOptions options = window.loadController()->options();
    options.alignStep = QStringLiteral("3").toStdString();
    window.loadController()->setOptions(options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openPath(m_run);
    QCOMPARE(waitForLoad(window), QString());
    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QCOMPARE(pickRanks(window, panel, QStringLiteral("0, 2")), QString());
    QCOMPARE(topSections(window), (QStringList{"rank 0", "rank 2"}));
    QCOMPARE(window.loadController()->options().alignStep, std::string("3"));
    const std::vector<core::TimePs> starts = sliceStarts(*window.trace(), "ProfilerStep#3");
    QCOMPARE(starts.size(), size_t(2));
    QCOMPARE(starts[0], starts[1]);
}

void TstRankPicker::runLargerThanTheBudget()
{
    // runfit.h: a rank keeps 3/4 of its JSON and peaks at 2 x its JSON + 16 MiB while loading;
    // the whole run needs its stores plus the largest peak. This budget fits two ranks.
    QStringList files = QDir(m_run).entryList(QDir::Files, QDir::Name);
    QCOMPARE(files.size(), kRanks);
    auto need = [&](int n) {
        uint64_t stores = 0, peak = 0;
        for (int i = 0; i < n; ++i) {
            const auto json = uint64_t(QFileInfo(QDir(m_run).filePath(files[i])).size());
            stores += json / 4 * 3;
            peak = std::max(peak, 2 * json + (uint64_t(16) << 20));
        }
        return stores + peak;
    };
    MainWindow window;
    configure(window, need(2) + (need(3) - need(2)) / 2);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openPath(m_run);
    QCOMPARE(waitForLoad(window), QString());
    QCOMPARE(topSections(window), (QStringList{"rank 0", "rank 1"}));
    bool explained = false;
    for (const std::string &w : window.trace()->info.warnings)
        explained = explained || w.find("only ranks 0, 1 are opened") != std::string::npos;
    QVERIFY(explained);
    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QCOMPARE(panel->rankCount(), kRanks);
    QVERIFY(panel->summary()->errors.empty());
    QCOMPARE(panel->summary()->stragglers.front().rank, int64_t(kSlowRank));
    QVERIFY(panel->summary()->fullyMatched());
    // Forcing every rank: the user's choice is opened as asked.
    QCOMPARE(pickRanks(window, panel, QStringLiteral("0-3")), QString());
    QCOMPARE(topSections(window).size(), kRanks);
}

void TstRankPicker::commandLine()
{
    app::StartupOptions bad = app::parseCommandLine({"tracedesk", "--ranks", "x", m_run});
    QVERIFY(bad.exitNow);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.message.contains("rank list 'x'"));
    bad = app::parseCommandLine({"tracedesk", "--memory-limit", "lots", m_run});
    QVERIFY(bad.exitNow);
    QCOMPARE(bad.exitCode, 2);
    const app::StartupOptions limit =
        app::parseCommandLine({"tracedesk", "--memory-limit", "512M", m_run});
    QVERIFY(!limit.exitNow);
    QCOMPARE(limit.memoryLimitBytes, quint64(512000000));

    const app::StartupOptions options =
        app::parseCommandLine({"tracedesk", "--ranks", "0-1,3", m_run});
    QVERIFY(!options.exitNow);
    QCOMPARE(options.ranks, (QList<qint64>{0, 1, 3}));
    MainWindow window;
    configure(window);
    app::applyStartupOptions(window, options);
    QCOMPARE(waitForLoad(window), QString());
    QCOMPARE(topSections(window), (QStringList{"rank 0", "rank 1", "rank 3"}));
    // A rank the run lacks is named.
    MainWindow other;
    configure(other);
    app::applyStartupOptions(other, app::parseCommandLine({"tracedesk", "--ranks", "5", m_run}));
    QVERIFY(waitForLoad(other).contains("has no rank 5 (its ranks: 0-3)"));
}

QTEST_MAIN(TstRankPicker)
#include "tst_rankpicker.moc"
