// The op panels on the real GPU fixture: each model passes QAbstractItemModelTester, shows the
// analysis results, and a click on an op row emits opActivated with that op's name. Set
// TRACEDESK_SHOTS=<dir> to save a screenshot of each panel.

#include "core/analysis/frameworkopstats.h"
#include "core/analysis/opprofile.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"
#include "views/panels/kernelstats/kernelstatsmodel.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/opprofile/opprofilemodel.h"
#include "views/panels/opprofile/opprofilepanel.h"
#include "views/panels/opstats/frameworkopstatsmodel.h"
#include "views/panels/opstats/frameworkopstatspanel.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/opstats/tablecsv.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include <filesystem>

using namespace tracedesk;
using namespace tracedesk::core::analysis;

namespace {

std::string gpuFixture()
{
    return std::string(TRACEDESK_SHARED_FIXTURES)
           + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
}

void shoot(QWidget *w, const char *name)
{
    const QByteArray dir = qgetenv("TRACEDESK_SHOTS");
    if (dir.isEmpty())
        return;
    w->grab().save(QString::fromUtf8(dir) + QLatin1Char('/') + QLatin1String(name));
}

template<typename Panel>
bool waitComputed(Panel &panel)
{
    if (!panel.isComputing())
        return true;
    QSignalSpy spy(&panel, &Panel::computed);
    return spy.wait(60000);
}

} // namespace

class TestOpPanels : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void opProfilePanel();
    void frameworkOpStatsPanel();
    void kernelStatsPanel();
    void kernelStatsEmptyState();
    void kernelStatsOnTheSample();
    void clearsWithoutProfile();

private:
    AnalysisCachePtr m_cache;
};

void TestOpPanels::initTestCase()
{
    if (!std::filesystem::exists(gpuFixture()))
        QSKIP("shared GPU fixture not present");
    auto trace = core::loadTrace(gpuFixture());
    QVERIFY(trace);
    m_cache = std::make_shared<AnalysisCache>(trace.value());
}

void TestOpPanels::opProfilePanel()
{
    views::OpProfilePanel panel;
    panel.resize(1300, 700);
    panel.show();
    QAbstractItemModelTester tester(panel.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxyModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setGrouping(OpProfileGrouping::ByCategory);
    panel.setAnalyses(m_cache);
    QVERIFY(waitComputed(panel));
    QVERIFY(panel.statusText().contains("Nvidia GPU (Volta)"));

    const OpProfile expected = buildOpProfile(*m_cache, {OpProfileGrouping::ByCategory});
    const auto *model = panel.model();
    QCOMPARE(model->rowCount(), int(expected.root.children.size()));
    QVERIFY(model->rowCount() > 1);
    // The view sorts by time descending: the first row is the biggest category.
    QTreeView *tree = panel.treeView();
    const QModelIndex first = panel.proxyModel()->index(0, views::OpProfileModel::Name);
    QCOMPARE(first.data().toString(), QString::fromStdString(expected.root.children[0].name));
    const QModelIndex firstTime = panel.proxyModel()->index(0, views::OpProfileModel::Time);
    QCOMPARE(firstTime.data(views::OpProfileModel::kSortRole).toLongLong(),
             qlonglong(expected.root.children[0].metrics.timePs));

    // Click the biggest non-IDLE op.
    QModelIndex category;
    for (int r = 0; r < panel.proxyModel()->rowCount(); ++r) {
        const QModelIndex i = panel.proxyModel()->index(r, 0);
        if (i.data().toString() != "IDLE") {
            category = i;
            break;
        }
    }
    QVERIFY(category.isValid());
    tree->expand(category);
    const QModelIndex opIndex = panel.proxyModel()->index(0, 0, category);
    QVERIFY(opIndex.isValid());
    const QString opName = opIndex.data().toString();
    QVERIFY(!opName.isEmpty());
    QSignalSpy activated(&panel, &views::OpProfilePanel::opActivated);
    tree->scrollTo(opIndex);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(opIndex).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toString(), opName);
    QVERIFY(panel.detailsText().contains(opName));
    QVERIFY(panel.detailsText().contains("FLOP rate"));
    // Unknown FLOPs (counted per row from the profile's own metrics: flops == 0) read "not
    // available" without a colour, never a red 0.00%.
    int unknown = 0;
    for (int r = 0; r < panel.proxyModel()->rowCount(); ++r) {
        const QModelIndex i = panel.proxyModel()->index(r, views::OpProfileModel::FlopsUtil);
        const auto *node = reinterpret_cast<const OpProfileNode *>(
            i.data(views::OpProfileModel::kNodeRole).value<quintptr>());
        QVERIFY(node);
        if (node->metrics.flops > 0)
            continue;
        ++unknown;
        QCOMPARE(i.data().toString(), QStringLiteral("not available"));
        QVERIFY(!i.data(Qt::BackgroundRole).isValid());
    }
    QVERIFY(unknown > 0);   // this GPU profile carries no FLOP counts
    shoot(&panel, "opprofile.png");

    // Changing the grouping recomputes on the worker.
    panel.setGrouping(OpProfileGrouping::ByProgram);
    QVERIFY(waitComputed(panel));
    QVERIFY(panel.model()->rowCount() > 0);
}

void TestOpPanels::frameworkOpStatsPanel()
{
    views::FrameworkOpStatsPanel panel;
    panel.resize(1300, 900);
    panel.show();
    QAbstractItemModelTester tester(panel.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setAnalyses(m_cache);
    QVERIFY(waitComputed(panel));
    const auto stats = frameworkOpStats(*m_cache);
    QCOMPARE(panel.model()->rowCount(), int(stats->withIdle.rows.size()));
    QVERIFY(panel.model()->rowCount() > 10);
    // A side cut at XProf's 500 rows says "top 500 of N", never "500 ops" as if that were all.
    size_t deviceRows = 0;
    for (const auto &r : stats->withIdle.rows)
        deviceRows += r.onDevice ? 1 : 0;
    const size_t hostRows = stats->withIdle.rows.size() - deviceRows;
    QCOMPARE(deviceRows, std::min<size_t>(500, stats->withIdle.deviceOps));
    QCOMPARE(hostRows, std::min<size_t>(500, stats->withIdle.hostOps));
    QVERIFY(stats->withIdle.hostOps > 500);   // the TF GPU profile has over a thousand host ops
    QVERIFY2(panel.statusText().startsWith(
                 QStringLiteral("top 500 of %L1 host ops").arg(stats->withIdle.hostOps)) ||
                 panel.statusText().contains(
                     QStringLiteral(", top 500 of %L1 host ops").arg(stats->withIdle.hostOps)),
             qPrintable(panel.statusText()));
    // Rank 1 (device, by self time) is the first row when sorted by rank.
    QTableView *table = panel.tableView();
    const QModelIndex top = panel.proxyModel()->index(0, views::FrameworkOpStatsModel::Name);
    QCOMPARE(top.data().toString(), QString::fromStdString(stats->withIdle.rows[0].name));
    for (views::PieChartView *chart : panel.charts())
        QVERIFY2(chart->sliceCount() > 0, qPrintable(chart->title()));

    // Find the first non-IDLE row and click it.
    QModelIndex row;
    for (int r = 0; r < panel.proxyModel()->rowCount(); ++r) {
        const QModelIndex i = panel.proxyModel()->index(r, views::FrameworkOpStatsModel::Name);
        if (i.data().toString() != "IDLE") {
            row = i;
            break;
        }
    }
    QSignalSpy activated(&panel, &views::FrameworkOpStatsPanel::opActivated);
    table->scrollTo(row);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(row).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toString(), row.data().toString());

    // Filtering narrows the rows; the CSV has a header plus one line per shown row.
    panel.proxyModel()->setFilterFixedString("RandomUniform");
    QVERIFY(panel.proxyModel()->rowCount() > 0);
    QVERIFY(panel.proxyModel()->rowCount() < panel.model()->rowCount());
    const QString csv = views::tableToCsv(*panel.proxyModel());
    QCOMPARE(csv.count('\n'), panel.proxyModel()->rowCount() + 1);
    QVERIFY(csv.startsWith("Rank,Host/device,Type,Operation"));
    panel.proxyModel()->setFilterFixedString(QString());
    shoot(&panel, "frameworkopstats.png");
}

void TestOpPanels::kernelStatsPanel()
{
    views::KernelStatsPanel panel;
    panel.resize(1300, 600);
    panel.show();
    QAbstractItemModelTester tester(panel.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setAnalyses(m_cache);
    QVERIFY(waitComputed(panel));
    QVERIFY(!panel.showsEmptyMessage());
    const KernelStatsDb &db = opStats(*m_cache)->kernelStats;
    QCOMPARE(panel.model()->rowCount(), int(db.reports.size()));
    const QModelIndex top = panel.proxyModel()->index(0, views::KernelStatsModel::Kernel);
    QCOMPARE(top.data().toString(), QString::fromStdString(db.reports[0].name));
    QCOMPARE(panel.proxyModel()->index(0, views::KernelStatsModel::Occurrences).data().toLongLong(),
             qlonglong(db.reports[0].occurrences));
    QSignalSpy activated(&panel, &views::KernelStatsPanel::opActivated);
    QTableView *table = panel.tableView();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(top).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toString(), QString::fromStdString(db.reports[0].opName));
    shoot(&panel, "kernelstats.png");
}

void TestOpPanels::kernelStatsEmptyState()
{
    core::TraceBuilder b;
    const uint32_t plane = b.addPlane("/host:CPU", "h", 1, core::PlaneKind::Host);
    const uint32_t t = b.addTrack(plane, "main", 1);
    core::EventKind k;
    k.name = b.intern("work:Foo");
    k.plane = plane;
    b.trackBuilder(t).addSlice(0, 10, b.addKind(k));
    auto cache = std::make_shared<AnalysisCache>(b.build());
    views::KernelStatsPanel panel;
    panel.resize(800, 300);
    panel.show();
    panel.setAnalyses(cache);
    QVERIFY(waitComputed(panel));
    QVERIFY(panel.showsEmptyMessage());
    QCOMPARE(panel.model()->rowCount(), 0);
    shoot(&panel, "kernelstats-empty.png");
}

// The bundled sample is the first profile a user opens: its GPU kernels are listed, one row per
// kernel whatever GPU ran it, and the status counts the rows shown.
void TestOpPanels::kernelStatsOnTheSample()
{
    const std::string sample = QDir::cleanPath(QStringLiteral(TRACEDESK_TEST_DATA
                                                              "/../../resources/sample"))
                                   .toStdString();
    core::LoadOptions options;
    options.useCache = false;
    auto trace = core::loadTrace(sample, nullptr, options);
    QVERIFY2(trace.ok(), trace.ok() ? "" : trace.message().c_str());
    auto cache = std::make_shared<AnalysisCache>(trace.value());
    views::KernelStatsPanel panel;
    panel.resize(1300, 600);
    panel.show();
    panel.setAnalyses(cache);
    QVERIFY(waitComputed(panel));
    QVERIFY(!panel.showsEmptyMessage());
    const int rows = panel.model()->rowCount();
    QVERIFY(rows >= 5);
    QSet<QString> names;
    for (int r = 0; r < rows; ++r)
        names.insert(panel.model()->index(r, views::KernelStatsModel::Kernel).data().toString());
    QCOMPARE(names.size(), rows);
    QVERIFY(names.contains(QStringLiteral("volta_sgemm_128x64_nn")));
    QCOMPARE(panel.statusText(), QStringLiteral("%1 kernel rows").arg(rows));
    shoot(&panel, "kernelstats-sample.png");
}

void TestOpPanels::clearsWithoutProfile()
{
    views::OpProfilePanel profile;
    profile.setAnalyses(m_cache);
    profile.setAnalyses(nullptr);
    QCOMPARE(profile.model()->rowCount(), 0);
    QCOMPARE(profile.statusText(), QString("No profile"));
    views::FrameworkOpStatsPanel stats;
    stats.setAnalyses(nullptr);
    QCOMPARE(stats.model()->rowCount(), 0);
}

QTEST_MAIN(TestOpPanels)
#include "tst_oppanels.moc"
