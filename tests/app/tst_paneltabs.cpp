// The analysis panels' tabs follow the loaded profile, as XProf lists only its tools: those that
// apply first, the rest at the end, greyed, each with the reason in its tooltip. Clicking a moved
// tab shows that tab's panel (the dock layout followed the move).

#include "../core/support/kinetofixtures.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/mainwindow.h"
#include "core/analysis/hlostats.h"
#include "views/panels/graphviewer/graphviewerpanel.h"
#include "views/panels/graphviewer/hlographview.h"
#include "views/panels/hlostats/hlostatsmodel.h"
#include "views/panels/hlostats/hlostatspanel.h"
#include "views/panels/roofline/rooflinepanel.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <QDockWidget>
#include <QItemSelectionModel>
#include <QTableView>
#include <QSignalSpy>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;

namespace {

const QString kPyTorch = QString(TRACEDESK_SHARED_FIXTURES)
                         + "/chrome_json/kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";
const QString kTpu =
    QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";

QTabBar *panelTabs(app::MainWindow &window)
{
    for (QTabBar *bar : window.findChildren<QTabBar *>(Qt::FindDirectChildrenOnly)) {
        for (int i = 0; i < bar->count(); ++i) {
            if (bar->tabText(i) == QStringLiteral("Overview"))
                return bar;
        }
    }
    return nullptr;
}

QStringList titles(const QTabBar *bar)
{
    QStringList out;
    for (int i = 0; i < bar->count(); ++i)
        out << bar->tabText(i);
    return out;
}

bool greyed(const QTabBar *bar, const QString &title)
{
    const int i = int(titles(bar).indexOf(title));
    return i >= 0 && bar->tabTextColor(i).isValid()
           && bar->tabTextColor(i) == bar->palette().color(QPalette::Disabled, QPalette::WindowText);
}

QString tip(const QTabBar *bar, const QString &title)
{
    return bar->tabToolTip(int(titles(bar).indexOf(title)));
}

// Shows a window and opens `path` in it; false (with the reason) when it did not load.
bool open(app::MainWindow &window, const QString &path)
{
    window.setInteractiveErrors(false);
    window.resize(1600, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    QSignalSpy shown(&window, &app::MainWindow::traceShown);
    window.openPath(path);
    if (!QTest::qWaitFor([&] { return shown.count() == 1 || !window.lastError().isEmpty(); }, 60000))
        return false;
    if (!window.lastError().isEmpty())
        qWarning("%s", qPrintable(window.lastError()));
    return window.lastError().isEmpty();
}

} // namespace

class TstPanelTabs : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
    }

    void pytorchToolsFirst()
    {
        TRACEDESK_REQUIRE_FIXTURE(kPyTorch);
        app::MainWindow window;
        QVERIFY(open(window, kPyTorch));
        QTabBar *bar = panelTabs(window);
        QVERIFY(bar);
        QTRY_COMPARE(titles(bar),
                     (QStringList{"Overview", "Framework Op Stats", "Kernel Stats",
                                  "GPU Time", "Memory Profile", "Distributed", "Query", "Pivot",
                                  "Flame Graph", "Input Pipeline", "Op Profile", "HLO Op Stats",
                                  "Roofline Model", "Graph Viewer", "Memory Viewer",
                                  "Pod Viewer", "tf.data Bottleneck"}));
        for (const QString &title :
             {"Input Pipeline", "Op Profile", "HLO Op Stats", "Roofline Model", "Graph Viewer",
              "Memory Viewer", "Pod Viewer", "tf.data Bottleneck"}) {
            QVERIFY2(greyed(bar, title), qPrintable(title));
            QVERIFY2(tip(bar, title).contains("PyTorch"), qPrintable(tip(bar, title)));
        }
        QVERIFY(!greyed(bar, "Kernel Stats"));
        QCOMPARE(tip(bar, "Kernel Stats"), QStringLiteral("Kernel Stats"));

        // Moving the tabs fed no hidden panel: Kernel Stats computes when it is first shown.
        auto *kernelPages = window.analysisDocks()
                                ->panel(QStringLiteral("KernelStatsDock"))
                                ->findChild<views::FrameworkPages *>();
        QVERIFY(kernelPages);
        QVERIFY(!kernelPages->showsPyTorch());

        // A moved tab still opens its own panel.
        for (const QString &title : {"Kernel Stats", "Op Profile"}) {
            QTest::mouseClick(bar, Qt::LeftButton, {},
                              bar->tabRect(int(titles(bar).indexOf(title))).center());
            QDockWidget *dock = nullptr;
            for (QDockWidget *d : window.analysisDocks()->docks()) {
                if (d->windowTitle() == title)
                    dock = d;
            }
            QVERIFY(dock);
            QTRY_VERIFY2(dock->isVisible() && !dock->visibleRegion().isEmpty(), qPrintable(title));
        }
        QVERIFY(kernelPages->showsPyTorch());
    }

    void tpuHasNoKernelStats()
    {
        TRACEDESK_REQUIRE_FIXTURE(kTpu);
        app::MainWindow window;
        QVERIFY(open(window, kTpu));
        QTabBar *bar = panelTabs(window);
        QVERIFY(bar);
        QTRY_VERIFY(greyed(bar, "Kernel Stats"));
        QVERIFY(tip(bar, "Kernel Stats").contains("no GPU"));
        QVERIFY(!greyed(bar, "Op Profile"));
        QVERIFY(titles(bar).indexOf("Kernel Stats") > titles(bar).indexOf("Flame Graph"));
        // GPU Time reads GPU launches and kernels: greyed on a TPU profile.
        QVERIFY(greyed(bar, "GPU Time"));
        // The XLA tools apply to a TPU profile.
        QVERIFY(!greyed(bar, "HLO Op Stats"));
        QVERIFY(!greyed(bar, "Roofline Model"));
        QVERIFY(titles(bar).indexOf("HLO Op Stats") < titles(bar).indexOf("Flame Graph"));

        // An op picked in the Roofline Model opens HLO Op Stats on that op's row, even though
        // HLO Op Stats had not computed yet.
        auto *roofline = qobject_cast<views::RooflinePanel *>(
            window.analysisDocks()->panel(QStringLiteral("RooflineDock")));
        auto *hlo = qobject_cast<views::HloStatsPanel *>(
            window.analysisDocks()->panel(QStringLiteral("HloStatsDock")));
        QVERIFY(roofline && hlo);
        QCOMPARE(hlo->tableView()->model()->rowCount(), 0);
        const auto stats = core::analysis::hloStats(*window.analysisDocks()->cache());
        QVERIFY(stats->rows.size() > 2);
        const QString op = QString::fromStdString(stats->rows[2].hloOpName);
        emit roofline->opSelected(op);
        QTRY_VERIFY_WITH_TIMEOUT(hlo->isVisible() && !hlo->visibleRegion().isEmpty(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(
            hlo->tableView()->selectionModel()->selectedRows(views::HloStatsModel::Op).size(), 1,
            60000);
        QCOMPARE(hlo->tableView()
                     ->selectionModel()
                     ->selectedRows(views::HloStatsModel::Op)
                     .front()
                     .data()
                     .toString(),
                 op);

        // "Show in Graph Viewer" (HLO Op Stats, Op Profile, Details) opens the graph of the op.
        auto *graph = qobject_cast<views::GraphViewerPanel *>(
            window.analysisDocks()->panel(QStringLiteral("GraphViewerDock")));
        QVERIFY(graph);
        window.analysisDocks()->showGraph(op, QString::fromStdString(stats->rows[2].programId));
        QTRY_VERIFY_WITH_TIMEOUT(graph->isVisible() && !graph->visibleRegion().isEmpty(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->result().graph.nodes.empty()
                                     || !graph->result().error.isEmpty(),
                                 60000);
        QVERIFY2(graph->result().error.isEmpty(), qPrintable(graph->statusText()));
        QCOMPARE(QString::fromStdString(graph->result().graph.nodes.front().name), op);
        QVERIFY(graph->graphView()->nodeCount() > 0);
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TstPanelTabs)
#include "tst_paneltabs.moc"
