// The Distributed panel in the main window: a folder of rank traces dropped on the window opens
// as one timeline with a section per rank in rank order, the panel lists every rank, names the
// deliberately slow rank as the top straggler, and its clicks reach the timeline (a rank's
// section revealed, a collective zoomed with every rank's instance outlined). A single trace
// gets the panel's one-line reason instead.

#include "../core/support/clirun.h"
#include "../core/support/kinetofixtures.h"
#include "../core/support/slicestarts.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "app/gui/startup.h"
#include "views/panels/distributed/distributedpanel.h"
#include "views/panels/distributed/distributedtables.h"
#include "views/timeline/timelinewidget.h"
#include "views/tracktree/tracktreemodel.h"

#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
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

class TstDistributedPanel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void droppedRunShowsRanks();
    void megatronRun();
    void singleTraceShowsReason();
    void alignStepFromCommandLine();
    void alignStepFromPanel();

private:
    void configure(MainWindow &window);
    QString waitForLoad(MainWindow &window);
    // Drops `paths` on the window the way a file manager does.
    void drop(MainWindow &window, const QStringList &paths);
    // Raises the panel's dock (it computes once shown) and waits for its result.
    DistributedPanel *shownPanel(MainWindow &window);
    QStringList topSections(MainWindow &window) const;
    // The planes of `host` are open and every other plane collapsed.
    bool onlyHostOpen(MainWindow &window, const std::string &host) const;

    QTemporaryDir m_temp;
    QString m_run; // a generated run of kRanks ranks, kSlowRank slow
};

void TstDistributedPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QVERIFY(m_temp.isValid());
    m_run = m_temp.filePath(QStringLiteral("run"));
    const clitest::CliRun gen = clitest::runCli(
        {"generate", "--format", "kineto", "--ranks", QString::number(kRanks), "--slow-rank",
         QString::number(kSlowRank), "--events", "20k", "--seed", "7", m_run});
    QVERIFY2(gen.exitCode == 0, gen.err.constData());
}

void TstDistributedPanel::init()
{
    app::RecentFiles::flush();   // a list still being written would land after the clear
    QSettings().clear();
}

void TstDistributedPanel::configure(MainWindow &window)
{
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
}

QString TstDistributedPanel::waitForLoad(MainWindow &window)
{
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QSignalSpy error(&window, &MainWindow::errorShown);
    if (window.loadController()->isLoading())
        [&] { QTRY_VERIFY_WITH_TIMEOUT(shown.count() + error.count() > 0, 120000); }();
    return error.isEmpty() ? QString() : error.front().front().toString();
}

void TstDistributedPanel::drop(MainWindow &window, const QStringList &paths)
{
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString &p : paths)
        urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropped(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &dropped);
    QVERIFY(dropped.isAccepted());
}

DistributedPanel *TstDistributedPanel::shownPanel(MainWindow &window)
{
    auto *panel = qobject_cast<DistributedPanel *>(
        window.analysisDocks()->panel(QStringLiteral("DistributedDock")));
    if (!panel)
        return nullptr;
    QSignalSpy computed(panel, &DistributedPanel::computed);
    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->objectName() == QStringLiteral("DistributedDock"))
            dock->raise();
    }
    if (!panel->summary() && !panel->showsReason()) {
        if (!QTest::qWaitFor([&] { return computed.count() > 0; }, 60000))
            return nullptr;
    }
    return panel;
}

QStringList TstDistributedPanel::topSections(MainWindow &window) const
{
    QStringList names;
    const QAbstractItemModel *m = window.trackModel();
    for (int r = 0; r < m->rowCount(); ++r)
        names << m->index(r, 0).data().toString();
    return names;
}

bool TstDistributedPanel::onlyHostOpen(MainWindow &window, const std::string &host) const
{
    const core::TracePtr trace = window.trace();
    views::TimelineWidget *timeline = window.timeline();
    bool any = false;
    for (uint32_t p = 0; p < trace->planes.size(); ++p) {
        const bool mine = trace->string(trace->planes[p].host) == host;
        if (mine == timeline->planeCollapsed(p))
            return false;
        any = any || mine;
    }
    return any;
}

void TstDistributedPanel::droppedRunShowsRanks()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    drop(window, {m_run});
    QCOMPARE(waitForLoad(window), QString());

    QStringList expected;
    for (int r = 0; r < kRanks; ++r)
        expected << QStringLiteral("rank %1").arg(r);
    QCOMPARE(topSections(window), expected);

    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QVERIFY(!panel->showsReason());
    QCOMPARE(panel->rankCount(), kRanks);
    const auto summary = panel->summary();
    QCOMPARE(summary->stragglers.front().rank, int64_t(kSlowRank));
    QVERIFY(!summary->collectives.empty());
    QVERIFY(summary->fullyMatched());
    QVERIFY(panel->statusText().contains(QStringLiteral("top straggler: rank %1").arg(kSlowRank)));

    // The table lists every rank, in rank order, each with its steps.
    QTableView *table = panel->rankStepTable();
    QVERIFY(table->model()->rowCount() >= kRanks);
    QCOMPARE(table->model()->index(0, 0).data().toInt(), 0);

    // Clicking rank 1's cell reveals rank 1's section and folds the others.
    int row = -1;
    for (int r = 0; r < table->model()->rowCount() && row < 0; ++r) {
        if (table->model()->index(r, views::RankColumn).data().toInt() == 1)
            row = r;
    }
    QVERIFY(row >= 0);
    table->scrollTo(table->model()->index(row, views::RankColumn));
    const QRect cell = table->visualRect(table->model()->index(row, views::RankColumn));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY(onlyHostOpen(window, "rank 1"));

    // A collective: the timeline shows its span with each rank's kernel outlined.
    const auto &c = summary->collectives.front();
    panel->activateCollective(0);
    const views::TimelineState *state = window.timeline()->state();
    QVERIFY(state->t0() <= c.firstStart && state->t1() >= c.lastEnd);
    QCOMPARE(state->highlights().refs->size(), size_t(kRanks));
    const core::TracePtr trace = window.trace();
    for (size_t i = 0; i < c.refs.size(); ++i) {
        QCOMPARE(trace->start(c.refs[i]), c.starts[i]);
        const uint32_t plane = trace->tracks[c.refs[i].track].plane;
        QCOMPARE(std::string(trace->string(trace->planes[plane].host)),
                 "rank " + std::to_string(c.ranks[i]));
    }
}

void TstDistributedPanel::megatronRun()
{
    const QString dir = QStringLiteral(TRACEDESK_SHARED_FIXTURES
                                       "/multirank/astrasim__megatron-tp8");
    TRACEDESK_REQUIRE_FIXTURE(dir);
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    drop(window, {dir});
    QCOMPARE(waitForLoad(window), QString());
    QStringList expected;
    for (int r = 0; r < 8; ++r)
        expected << QStringLiteral("rank %1").arg(r);
    QCOMPARE(topSections(window), expected);

    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QCOMPARE(panel->rankCount(), 8);
    // PROVENANCE.md: 84 NCCL kernels per rank, all matched by order across the 8 ranks.
    QCOMPARE(panel->summary()->collectives.size(), size_t(84));
    QVERIFY(panel->summary()->fullyMatched());
    QCOMPARE(panel->stragglerTable()->model()->rowCount(), 84);
    QCOMPARE(panel->waitingTable()->model()->rowCount(), 8);
    // One step (ProfilerStep#3) per rank.
    QCOMPARE(panel->rankStepTable()->model()->rowCount(), 8);
    panel->activateRank(5);
    QVERIFY(onlyHostOpen(window, "rank 5"));
}

void TstDistributedPanel::singleTraceShowsReason()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QStringList files = QDir(m_run).entryList(QDir::Files, QDir::Name);
    QVERIFY(!files.isEmpty());
    drop(window, {QDir(m_run).filePath(files.front())});
    QCOMPARE(waitForLoad(window), QString());
    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QVERIFY(panel->showsReason());
    QVERIFY(panel->reasonText().contains(QStringLiteral("single process")));
}

void TstDistributedPanel::alignStepFromCommandLine()
{
    const app::StartupOptions options =
        app::parseCommandLine({"tracedesk", "--align-step", "3", m_run});
    QVERIFY(!options.exitNow);
    QCOMPARE(options.alignStep, QStringLiteral("3"));
    MainWindow window;
    configure(window);
    app::applyStartupOptions(window, options);
    QCOMPARE(window.loadController()->options().alignStep, std::string("3"));
    QCOMPARE(waitForLoad(window), QString());
    // Aligned at step 3, every rank's ProfilerStep#3 starts at one time.
    const std::vector<core::TimePs> starts = sliceStarts(*window.trace(), "ProfilerStep#3");
    QCOMPARE(starts.size(), size_t(kRanks));
    QCOMPARE(*std::min_element(starts.begin(), starts.end()),
             *std::max_element(starts.begin(), starts.end()));
}

void TstDistributedPanel::alignStepFromPanel()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openPath(m_run);
    QCOMPARE(waitForLoad(window), QString());
    DistributedPanel *panel = shownPanel(window);
    QVERIFY(panel);
    QVERIFY(panel->summary());
    QVERIFY(!panel->alignButton()->isEnabled()); // "all steps": nothing to align at
    const auto &names = panel->stepNames();
    const auto it = std::find(names.begin(), names.end(), std::string("3"));
    QVERIFY(it != names.end());
    panel->setStepChoice(int(it - names.begin()) + 1);
    QVERIFY(panel->alignButton()->isEnabled());
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QTest::mouseClick(panel->alignButton(), Qt::LeftButton);
    QCOMPARE(window.loadController()->options().alignStep, std::string("3"));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, 120000);
    const std::vector<core::TimePs> starts = sliceStarts(*window.trace(), "ProfilerStep#3");
    QCOMPARE(starts.size(), size_t(kRanks));
    QCOMPARE(*std::min_element(starts.begin(), starts.end()),
             *std::max_element(starts.begin(), starts.end()));
}

QTEST_MAIN(TstDistributedPanel)
#include "tst_distributedpanel.moc"
