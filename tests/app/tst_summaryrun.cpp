// A run opened from its ranks' summary files (distributed --map): opening the folder shows the
// Distributed panel at once with no trace loaded, its numbers those of summarizeRun() on the
// traces; clicks say the rank is not on the timeline; the rank picker loads the chosen ranks'
// traces from the paths the summaries recorded, and the panel keeps the run it had (no rank
// summarised again); a folder whose only summary is damaged is an error naming it.

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/summaryfile.h"
#include "core/generate/kinetorungenerator.h"
#include "views/panels/distributed/distributedpanel.h"
#include "views/panels/distributed/rankpickerdialog.h"

#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using app::MainWindow;
using views::DistributedPanel;

namespace {

constexpr int kRanks = 4;
constexpr int kSlowRank = 1;

} // namespace

class TstSummaryRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void openSummariesThenRanks();
    void damagedSummary();

private:
    void configure(MainWindow &window);
    DistributedPanel *panelOf(MainWindow &window) const;

    QTemporaryDir m_temp;
    std::vector<std::string> m_files;
    QString m_sums;
};

void TstSummaryRun::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QVERIFY(m_temp.isValid());
    core::KinetoRunOptions run;
    run.ranks = kRanks;
    run.slowRank = kSlowRank;
    run.eventsPerRank = 5000;
    run.seed = 9;
    const auto generated =
        core::generateKinetoRun(run, m_temp.filePath(QStringLiteral("run")).toStdString());
    QVERIFY2(generated, generated ? "" : generated.error().message.c_str());
    m_files = generated.value().files;
    m_sums = m_temp.filePath(QStringLiteral("sums"));
    core::LoadOptions noCache;
    noCache.useCache = false;
    for (size_t i = 0; i < m_files.size(); ++i) {
        using namespace core::analysis::distributed;
        RankSummaryFile f;
        f.source = describeSource(m_files[i]);
        f.order = i;
        auto made = summarizeRankFile(m_files[i], i, nullptr, noCache);
        QVERIFY2(made, made ? "" : made.message().c_str());
        f.summary = std::move(made).value();
        QVERIFY(writeSummaryFile(f, m_sums.toStdString()));
    }
}

void TstSummaryRun::init()
{
    app::RecentFiles::flush();
    QSettings().clear();
}

void TstSummaryRun::configure(MainWindow &window)
{
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
}

DistributedPanel *TstSummaryRun::panelOf(MainWindow &window) const
{
    return qobject_cast<DistributedPanel *>(
        window.analysisDocks()->panel(QStringLiteral("DistributedDock")));
}

void TstSummaryRun::openSummariesThenRanks()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    DistributedPanel *panel = panelOf(window);
    QVERIFY(panel);
    window.openPath(m_sums);
    QTRY_VERIFY_WITH_TIMEOUT(panel->summary() != nullptr, 60000);
    QVERIFY(!window.trace());
    QVERIFY(!window.loadController()->isLoading());

    core::LoadOptions noCache;
    noCache.useCache = false;
    const auto expected = core::analysis::distributed::summarizeRun(m_files, nullptr, noCache);
    const auto run = panel->summary();
    QCOMPARE(panel->rankCount(), kRanks);
    QCOMPARE(run->collectives.size(), expected.collectives.size());
    QCOMPARE(run->stragglers.front().rank, int64_t(kSlowRank));
    for (size_t r = 0; r < expected.ranks.size(); ++r) {
        QCOMPARE(run->ranks[r].computation, expected.ranks[r].computation);
        QCOMPARE(run->ranks[r].idle, expected.ranks[r].idle);
        QCOMPARE(run->stragglers[r].waitingCaused, expected.stragglers[r].waitingCaused);
    }
    QVERIFY(panel->runView()->partial);
    QVERIFY(panel->runView()->shownRanks().empty());
    QVERIFY2(panel->statusText().contains(
                 QStringLiteral("No rank on the timeline yet (Ranks on Timeline… loads some); "
                                "the tables cover all %1 ranks").arg(kRanks)),
             qPrintable(panel->statusText()));
    panel->activateRank(0);
    QVERIFY2(panel->statusText().contains(QStringLiteral("Rank 0 is not on the timeline")),
             qPrintable(panel->statusText()));

    // The picker lists every rank; choosing 0 and 2 loads those traces.
    QVERIFY(panel->ranksButton()->isEnabled());
    QTest::mouseClick(panel->ranksButton(), Qt::LeftButton);
    auto *picker = panel->findChild<views::RankPickerDialog *>();
    QVERIFY(picker);
    QCOMPARE(picker->rankList()->count(), kRanks);
    picker->choiceEdit()->selectAll();
    QTest::keyClicks(picker->choiceEdit(), QStringLiteral("0,2"));
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QTest::mouseClick(picker->buttons()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 120000);
    QVERIFY(window.trace());
    QCOMPARE(window.trace()->info.hosts,
             (std::vector<std::string>{"rank 0", "rank 2"}));

    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->objectName() == QStringLiteral("DistributedDock"))
            dock->raise();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isComputing() && panel->runView()
                                 && !panel->runView()->shownRanks().empty(),
                             60000);
    // The run is the one read from the summaries, not summarised again from the traces.
    QCOMPARE(panel->summary().get(), run.get());
    QCOMPARE(panel->runView()->shownRanks(), (std::vector<int64_t>{0, 2}));
}

void TstSummaryRun::damagedSummary()
{
    QTemporaryDir dir;
    QFile bad(dir.filePath(QStringLiteral("rank-0.json.tdsummary")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"format\":\"tracedesk-rank-summary\",\"version\":1,");
    bad.close();
    MainWindow window;
    configure(window);
    QSignalSpy error(&window, &MainWindow::errorShown);
    window.openPath(dir.path());
    QTRY_VERIFY_WITH_TIMEOUT(error.count() > 0, 30000);
    const QString message = error.front().front().toString();
    QVERIFY2(message.contains(QStringLiteral("rank-0.json.tdsummary: is not a rank summary")),
             qPrintable(message));
    QVERIFY(!window.trace());
}

QTEST_MAIN(TstSummaryRun)
#include "tst_summaryrun.moc"
