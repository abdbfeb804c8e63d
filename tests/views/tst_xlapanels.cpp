// HLO Op Stats and Roofline Model panels on the TPU fixture, as a user sees them: the rows, the
// category and bound-by filters, grouping by source line, the pie, a click naming its op, and
// the chart's rooflines and points. Expectations come from the XSpace protobuf itself: XLA Ops
// events per name, their hlo_category and source stats, the device plane's peaks.

#include "core/support/kinetofixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/analysis/roofline.h"
#include "core/generate/generator.h"
#include "core/io/traceloader.h"
#include "core/analysis/hlodot.h"
#include "core/analysis/hlostats.h"
#include "views/panels/graphviewer/graphviewerpanel.h"
#include "views/panels/graphviewer/hlographview.h"
#include "views/panels/hlostats/hlostatsmodel.h"
#include "views/panels/hlostats/hlostatspanel.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/roofline/rooflinechart.h"
#include "views/panels/roofline/rooflinepanel.h"
#include "views/panels/roofline/rooflinepointsmodel.h"
#include "xplane.pb.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QSpinBox>
#include <QStackedWidget>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace tracedesk;
using namespace tracedesk::views;

namespace {

const QString kTpu = QString(TRACEDESK_SHARED_FIXTURES)
                     + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";
const QString kGpuNoCosts = QString(TRACEDESK_SHARED_FIXTURES)
                            + "/xspace/tracelens_jax08_gemm/tw003.xplane.pb";

// What the raw file says about its XLA ops.
struct RawOps
{
    std::map<std::string, int64_t> timePs;        // by op name
    std::map<std::string, std::string> category;
    std::set<std::string> sources;                // distinct source lines ("" for none)
};

RawOps readRaw(const QString &path)
{
    using tensorflow::profiler::XPlane;
    using tensorflow::profiler::XStat;
    tensorflow::profiler::XSpace space;
    std::ifstream in(path.toStdString(), std::ios::binary);
    space.ParseFromIstream(&in);
    RawOps raw;
    std::map<std::string, std::string> source;
    for (const XPlane &plane : space.planes()) {
        if (plane.name().rfind("/device:TPU:", 0) != 0)
            continue;
        auto statName = [&](int64_t id) {
            auto it = plane.stat_metadata().find(id);
            return it == plane.stat_metadata().end() ? std::string() : it->second.name();
        };
        auto text = [&](const XStat &s) {
            return s.has_ref_value() ? statName(int64_t(s.ref_value())) : s.str_value();
        };
        for (const auto &line : plane.lines()) {
            if (line.name() != "XLA Ops")
                continue;
            for (const auto &e : line.events()) {
                const auto &md = plane.event_metadata().at(e.metadata_id());
                const std::string name = md.display_name().empty() ? md.name() : md.display_name();
                raw.timePs[name] += e.duration_ps();
                for (const auto &s : md.stats()) {
                    const std::string n = statName(s.metadata_id());
                    if (n == "hlo_category")
                        raw.category[name] = text(s);
                    else if (n == "source")
                        source[name] = text(s);
                }
            }
        }
    }
    for (const auto &[name, t] : raw.timePs)
        raw.sources.insert(source[name]);
    return raw;
}

core::analysis::AnalysisCachePtr load(const QString &path)
{
    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
    if (!loaded)
        return nullptr;
    return std::make_shared<core::analysis::AnalysisCache>(loaded.value());
}

QStringList column(const QAbstractItemModel &model, int col)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, col).data().toString();
    return out;
}

} // namespace

class TstXlaPanels : public QObject
{
    Q_OBJECT

private slots:
    void hloStatsRowsFiltersAndSourceLines();
    void rooflineChartAndLinks();
    void gpuProfileWithoutCostsSaysSo();
    void graphViewerDrawsTheOpsNeighbourhood();
    void graphViewerWithoutHloSaysSo();
    void pytorchTraceGetsTheReason();
};

void TstXlaPanels::hloStatsRowsFiltersAndSourceLines()
{
    TRACEDESK_REQUIRE_FIXTURE(kTpu);
    const RawOps raw = readRaw(kTpu);
    QVERIFY(raw.timePs.size() > 3);
    auto cache = load(kTpu);
    QVERIFY(cache);

    HloStatsPanel panel;
    panel.resize(1600, 700);
    panel.show();
    QSignalSpy computed(&panel, &HloStatsPanel::computed);
    panel.setAnalyses(cache);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);
    QVERIFY(!panel.showsEmptyMessage());

    // One row per op; the first (self time, descending) is the op with the most time: this
    // device's XLA ops do not nest, so self time is the summed duration.
    QTableView *table = panel.tableView();
    QCOMPARE(table->model()->rowCount(), int(raw.timePs.size()));
    auto top = raw.timePs.begin();
    for (auto it = raw.timePs.begin(); it != raw.timePs.end(); ++it)
        top = it->second > top->second ? it : top;
    QCOMPARE(table->model()->index(0, HloStatsModel::Op).data().toString(),
             QString::fromStdString(top->first));
    QVERIFY(panel.statusText().contains(QStringLiteral("ridge point")));

    // The pie: one slice per category (up to its cap), the top op's category among them.
    QVERIFY(panel.categoryChart()->sliceCount() > 0);
    QVERIFY(panel.categoryChart()->legendText().contains(
        QString::fromStdString(raw.category.at(top->first))));

    // Category filter: exactly the ops of that category.
    const std::string cat = raw.category.at(top->first);
    const int catIndex = panel.categoryBox()->findData(QString::fromStdString(cat));
    QVERIFY(catIndex > 0);
    panel.categoryBox()->setCurrentIndex(catIndex);
    int inCategory = 0;
    for (const auto &[name, c] : raw.category)
        inCategory += c == cat ? 1 : 0;
    QCOMPARE(table->model()->rowCount(), inCategory);
    for (const QString &c : column(*table->model(), HloStatsModel::Category))
        QCOMPARE(c, QString::fromStdString(cat));

    // Bound-by filter on top: every row shown is bound by what was chosen.
    panel.boundByBox()->setCurrentIndex(panel.boundByBox()->findData(QStringLiteral("HBM")));
    for (const QString &b : column(*table->model(), HloStatsModel::BoundBy))
        QCOMPARE(b, QStringLiteral("HBM"));

    // Asking for an op the filters hide clears them and selects its row.
    std::string other;
    for (const auto &[name, c] : raw.category) {
        if (c != cat)
            other = name;
    }
    QVERIFY(!other.empty());
    QVERIFY(panel.selectOp(QString::fromStdString(other)));
    QCOMPARE(panel.categoryBox()->currentIndex(), 0);
    const QModelIndexList selected = table->selectionModel()->selectedRows(HloStatsModel::Op);
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.front().data().toString(), QString::fromStdString(other));

    // A click on a row names its op for the timeline.
    QSignalSpy activated(&panel, &HloStatsPanel::opActivated);
    const QModelIndex first = table->model()->index(0, HloStatsModel::Op);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(first).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toString(), first.data().toString());

    // Grouped by source line: one row per distinct line of the file, none naming an op.
    panel.bySourceBox()->setChecked(true);
    QCOMPARE(table->model()->rowCount(), int(raw.sources.size()));
    QCOMPARE(table->model()->headerData(HloStatsModel::Op, Qt::Horizontal).toString(),
             QStringLiteral("Source line"));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(0, HloStatsModel::Op)).center());
    QCOMPARE(activated.count(), 1);

    // The filter string narrows to matching rows.
    panel.bySourceBox()->setChecked(false);
    panel.findChild<QLineEdit *>()->setText(QString::fromStdString(top->first));
    QVERIFY(table->model()->rowCount() >= 1);
    QVERIFY(table->model()->rowCount() < int(raw.timePs.size()));
}

void TstXlaPanels::rooflineChartAndLinks()
{
    TRACEDESK_REQUIRE_FIXTURE(kTpu);
    auto cache = load(kTpu);
    QVERIFY(cache);
    RooflinePanel panel;
    panel.resize(1600, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy computed(&panel, &RooflinePanel::computed);
    panel.setAnalyses(cache);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);

    const auto model = core::analysis::rooflineModel(*cache);
    QVERIFY(!model->rooflines.empty());
    QCOMPARE(panel.chart()->rooflineCount(), int(model->rooflines.size()));
    int placeable = 0;
    for (const auto &p : model->points)
        placeable += p.operationalIntensity && *p.operationalIntensity > 0 && p.gflopsPerSecond
                             && *p.gflopsPerSecond > 0
                         ? 1
                         : 0;
    QVERIFY(placeable > 1);
    QCOMPARE(panel.chart()->pointCount(), placeable);
    QCOMPARE(panel.model()->rowCount(), int(model->points.size()));
    QVERIFY(panel.statusText().contains(QStringLiteral("ridge point")));

    // Hovering names the op and what bounds it.
    int op = -1;
    for (int i = 0; i < panel.chart()->pointCount() && op < 0; ++i) {
        if (panel.chart()->pointText(i).contains(QStringLiteral("occurrences"))
            && !panel.chart()->pointText(i).contains(QStringLiteral("<b>Total</b>"))
            && !panel.chart()->pointText(i).contains(QStringLiteral("<b>Step")))
            op = i;
    }
    QVERIFY(op >= 0);
    QVERIFY(panel.chart()->pointText(op).contains(QStringLiteral("bound by")));

    // Bound-by filter: the table and chart keep only those points.
    panel.boundByBox()->setCurrentIndex(panel.boundByBox()->findData(QStringLiteral("HBM")));
    QVERIFY(panel.model()->rowCount() > 0);
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        QCOMPARE(panel.model()->point(row).boundBy, std::string("HBM"));
    QVERIFY(panel.chart()->pointCount() <= panel.model()->rowCount());

    // A click on an op's row selects it (for HLO Op Stats) and names it for the timeline.
    QSignalSpy selected(&panel, &RooflinePanel::opSelected);
    QTableView *table = panel.tableView();
    int opRow = -1;
    for (int r = 0; r < table->model()->rowCount() && opRow < 0; ++r) {
        const QModelIndex index = table->model()->index(r, 0);
        if (!index.data(RooflinePointsModel::kOpNameRole).toString().isEmpty())
            opRow = r;
    }
    QVERIFY(opRow >= 0);
    const QModelIndex cell = table->model()->index(opRow, RooflinePointsModel::Name);
    table->scrollTo(cell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.front().front().toString(), cell.data().toString());
}

void TstXlaPanels::gpuProfileWithoutCostsSaysSo()
{
    TRACEDESK_REQUIRE_FIXTURE(kGpuNoCosts);
    auto cache = load(kGpuNoCosts);
    QVERIFY(cache);
    HloStatsPanel stats;
    RooflinePanel roofline;
    QSignalSpy statsDone(&stats, &HloStatsPanel::computed);
    QSignalSpy rooflineDone(&roofline, &RooflinePanel::computed);
    stats.setAnalyses(cache);
    roofline.setAnalyses(cache);
    QTRY_COMPARE_WITH_TIMEOUT(statsDone.count(), 1, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(rooflineDone.count(), 1, 60000);
    const auto hlo = core::analysis::hloStats(*cache);
    QVERIFY(!hlo->rows.empty());
    // The JAX GPU capture records no FLOPs or bytes: the panels show the estimate from its
    // compiled HLO and say in one line, and in the headers, that it is one.
    QVERIFY2(stats.statusText().contains(QStringLiteral("estimated from the compiled HLO")),
             qPrintable(stats.statusText()));
    QCOMPARE(stats.tableView()->model()->headerData(HloStatsModel::GflopsPerSecond,
                                                     Qt::Horizontal),
             QVariant(QStringLiteral("GFLOP/s (est.)")));
    QVERIFY2(roofline.statusText().contains(QStringLiteral("estimated")),
             qPrintable(roofline.statusText()));
    QVERIFY(roofline.chart()->pointCount() > 0);
    const QStringList rates = column(*stats.tableView()->model(), HloStatsModel::GflopsPerSecond);
    QVERIFY(std::any_of(rates.begin(), rates.end(),
                        [](const QString &v) { return !v.isEmpty(); }));
    QVERIFY(HloStatsPanel::notApplicableReason(cache->trace()).isEmpty());
}

void TstXlaPanels::graphViewerDrawsTheOpsNeighbourhood()
{
    TRACEDESK_REQUIRE_FIXTURE(kGpuNoCosts);
    auto cache = load(kGpuNoCosts);
    QVERIFY(cache);
    GraphViewerPanel panel;
    panel.resize(1400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy computed(&panel, &GraphViewerPanel::computed);
    panel.setAnalyses(cache);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);

    // It opens on the op with the most self time, every op of the profile to choose from.
    const auto hlo = core::analysis::hloStats(*cache);
    QCOMPARE(panel.opBox()->count(), int(hlo->rows.size()));
    const auto &top = hlo->rows.front();
    QCOMPARE(panel.opBox()->currentText(), QString::fromStdString(top.hloOpName));
    const auto &graph = panel.result().graph;
    QVERIFY2(panel.result().error.isEmpty(), qPrintable(panel.result().error));
    QCOMPARE(panel.graphView()->nodeCount(), int(graph.nodes.size()));
    QVERIFY(panel.statusText().contains(QString::fromStdString(top.hloOpName)));
    // The op's fill is its share of all op self time (this program's op only).
    double total = 0;
    for (const auto &r : hlo->rows)
        total += r.totalSelfTimeUs;
    QCOMPARE(panel.graphView()->nodeColour(QString::fromStdString(top.hloOpName)),
             QColor(QString::fromStdString(
                 core::analysis::hloShareColour(top.totalSelfTimeUs / total))));

    // Depth 0: the op alone.
    panel.depthBox()->setValue(0);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 2, 60000);
    QCOMPARE(panel.graphView()->nodeCount(), 1);

    // A click on a node selects its op.
    panel.depthBox()->setValue(1);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 3, 60000);
    QVERIFY(panel.graphView()->nodeCount() > 1);
    QSignalSpy selected(&panel, &GraphViewerPanel::opSelected);
    const QString name = QString::fromStdString(panel.result().graph.nodes.back().name);
    const QPoint at = panel.graphView()->nodePosition(name);
    QVERIFY(panel.graphView()->viewport()->rect().contains(at));
    QTest::mouseClick(panel.graphView()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.front().front().toString(), name);

    // An op of another program is drawn from its own module.
    panel.showOp(QString::fromStdString(hlo->rows.back().hloOpName),
                 QString::fromStdString(hlo->rows.back().programId));
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 4, 60000);
    QCOMPARE(panel.result().graph.nodes.front().name, hlo->rows.back().hloOpName);
}

void TstXlaPanels::graphViewerWithoutHloSaysSo()
{
    // The generated XSpace has XLA ops (with costs) but embeds no HLO modules.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("generated.xplane.pb"));
    core::GeneratorOptions g;
    g.events = 3000;
    QVERIFY(core::generateTrace(g, path.toStdString()).ok());
    auto cache = load(path);
    QVERIFY(cache);
    QVERIFY(core::hlo::hloModulesForTrace(cache->trace()).empty());
    QVERIFY(!core::analysis::hloStats(*cache)->rows.empty());
    GraphViewerPanel panel;
    QSignalSpy computed(&panel, &GraphViewerPanel::computed);
    panel.setAnalyses(cache);
    QTRY_COMPARE_WITH_TIMEOUT(computed.count(), 1, 60000);
    QVERIFY2(panel.statusText().contains(QStringLiteral("no HLO modules")),
             qPrintable(panel.statusText()));
    QCOMPARE(panel.graphView()->nodeCount(), 0);
}

void TstXlaPanels::pytorchTraceGetsTheReason()
{
    // A PyTorch capture has no XLA ops: each tool says so at once and computes nothing.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.pt.trace.json"));
    core::GeneratorOptions g;
    g.events = 3000;
    QVERIFY(core::parseGeneratedFormat("kineto", &g.format));
    QVERIFY(core::generateTrace(g, path.toStdString()).ok());
    auto cache = load(path);
    QVERIFY(cache);
    HloStatsPanel stats;
    RooflinePanel roofline;
    GraphViewerPanel graph;
    stats.setAnalyses(cache);
    roofline.setAnalyses(cache);
    graph.setAnalyses(cache);
    QVERIFY(!stats.isComputing() && !roofline.isComputing() && !graph.isComputing());
    QVERIFY(stats.showsEmptyMessage());
    const QString why = HloStatsPanel::notApplicableReason(cache->trace());
    QVERIFY(why.contains(QStringLiteral("PyTorch")));
    QCOMPARE(stats.findChild<QStackedWidget *>()->currentWidget()->property("text").toString(),
             why);
    QCOMPARE(roofline.chart()->pointCount(), 0);
    QCOMPARE(roofline.findChild<QStackedWidget *>()->currentWidget()->property("text").toString(),
             RooflinePanel::notApplicableReason(cache->trace()));
    QCOMPARE(graph.graphView()->nodeCount(), 0);
    QCOMPARE(graph.findChild<QStackedWidget *>()->currentWidget()->property("text").toString(),
             GraphViewerPanel::notApplicableReason(cache->trace()));
}

QTEST_MAIN(TstXlaPanels)
#include "tst_xlapanels.moc"
