// Two PyTorch traces dropped on the window together open the comparison: the step selector
// pairs the ProfilerStep both files have, the operator table matches operators across an
// NVIDIA and an AMD run (the convolution through its place in the call tree), and each timeline
// gets a third of the window. Expectations come from the raw JSON of the shared pair.

#include "../core/support/kinetofixtures.h"
#include "../core/support/rawoperators.h"

#include "app/gui/comparecontroller.h"
#include "app/gui/mainwindow.h"
#include "views/compare/compareworkspace.h"
#include "views/compare/operatordiffmodel.h"
#include "views/flamegraph/flamegraphpanel.h"
#include "views/flamegraph/flamegraphwidget.h"
#include "views/flamegraph/flametree.h"
#include "views/timeline/timelinestate.h"
#include "views/timeline/timelinewidget.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <algorithm>

using namespace tracedesk;
using tracedesk::app::MainWindow;

namespace {

const QString kDir =
    QString(TRACEDESK_SHARED_FIXTURES) + "/pairs/tracelens__falconsai_h100_vs_mi300/";
const QString kH100 = kDir + "h100__Falconsai_nsfw_image_detection__1016002.json.gz";
const QString kMi300 = kDir + "mi300__Falconsai_nsfw_image_detection__1016002.json.gz";

void dropFiles(MainWindow &window, const QStringList &paths)
{
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString &p : paths)
        urls << QUrl::fromLocalFile(p);
    mime.setUrls(urls);
    const QPoint pos(window.width() / 2, window.height() / 2);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
}

} // namespace

class TstPyTorchCompareWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("compare"));
    }

    void droppingTwoTracesCompares()
    {
        TRACEDESK_REQUIRE_FIXTURE(kH100);
        TRACEDESK_REQUIRE_FIXTURE(kMi300);
        MainWindow window;
        window.setInteractiveErrors(false);
        window.resize(1500, 950);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QSignalSpy shown(window.compareController(), &app::CompareController::comparisonShown);
        dropFiles(window, {kH100, kMi300});
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
        views::CompareWorkspace *ws = window.compareController()->workspace();
        QTRY_VERIFY_WITH_TIMEOUT(ws->comparison() != nullptr, 30000);
        QVERIFY(ws->comparison()->pytorch);

        // Aligned at the ProfilerStep both files have.
        QComboBox *steps = ws->stepSelector();
        QVERIFY(steps->isEnabled());
        QVERIFY2(steps->currentText().contains("ProfilerStep#6"), qPrintable(steps->currentText()));

        // The operator table: aten::addmm matched by name with each side's GPU time as its
        // launches ran it; the convolution matched through its place in the call tree.
        views::OperatorDiffModel *model = ws->operatorModel();
        QTRY_VERIFY(ws->operatorView()->isVisible());
        int addmm = -1, conv = -1;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString name =
                model->index(r, views::OperatorDiffModel::OperatorColumn).data().toString();
            if (name == "aten::addmm")
                addmm = r;
            if (name.startsWith("aten::cudnn_convolution"))
                conv = r;
        }
        QVERIFY(addmm >= 0 && conv >= 0);
        QCOMPARE(model->index(addmm, views::OperatorDiffModel::MatchColumn).data().toString(),
                 QStringLiteral("name"));
        const core::compare::OperatorDiffRow *row = model->rowAt(addmm);
        QVERIFY(qAbs(row->deviceSelfUsA - testsupport::rawOperators(kH100).deviceUs.at("aten::addmm")) < 1e-3);
        QVERIFY(qAbs(row->deviceSelfUsB - testsupport::rawOperators(kMi300).deviceUs.at("aten::addmm")) < 1e-3);
        QVERIFY(model->index(addmm, views::OperatorDiffModel::GpuWorkAColumn)
                    .data()
                    .toString()
                    .contains("GEMM"));
        QCOMPARE(model->index(conv, views::OperatorDiffModel::MatchColumn).data().toString(),
                 QStringLiteral("call path"));
        QVERIFY(model->index(conv, views::OperatorDiffModel::OperatorColumn)
                    .data()
                    .toString()
                    .contains("aten::miopen_convolution"));
        QVERIFY(ws->operatorMatchLabel()->text().contains("1 by call path"));

        // Clicking an operator row selects one of its calls in each timeline, each side under
        // its own name for the call-path pair.
        auto selectedName = [ws](views::CompareWorkspace::Side side) -> QString {
            const auto &slice = ws->timeline(side)->state()->selectedSlice();
            if (!slice)
                return {};
            const core::Trace &t = *ws->trace(side);
            return QString::fromStdString(std::string(t.name(*slice)));
        };
        QTableView *view = ws->operatorView();
        auto clickRow = [&](int sourceRow) {
            const QModelIndex proxyIndex = static_cast<QSortFilterProxyModel *>(view->model())
                                               ->mapFromSource(model->index(sourceRow, 0));
            view->scrollTo(proxyIndex);
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                              view->visualRect(proxyIndex).center());
        };
        clickRow(addmm);
        QTRY_COMPARE_WITH_TIMEOUT(selectedName(views::CompareWorkspace::SideA),
                                  QStringLiteral("aten::addmm"), 10000);
        QTRY_COMPARE(selectedName(views::CompareWorkspace::SideB), QStringLiteral("aten::addmm"));
        // Deep in the Python stack, the selected call's row was scrolled into view.
        for (auto side : {views::CompareWorkspace::SideA, views::CompareWorkspace::SideB}) {
            views::TimelineWidget *timeline = ws->timeline(side);
            const auto slice = *timeline->state()->selectedSlice();
            const int top = timeline->layout().rowTop(slice.track, slice.row);
            QVERIFY2(top >= timeline->scrollY() && top < timeline->scrollY() + timeline->height(),
                     qPrintable(QStringLiteral("row at %1, view from %2").arg(top).arg(timeline->scrollY())));
        }
        clickRow(conv);
        QTRY_COMPARE_WITH_TIMEOUT(selectedName(views::CompareWorkspace::SideA),
                                  QStringLiteral("aten::cudnn_convolution"), 10000);
        QTRY_COMPARE(selectedName(views::CompareWorkspace::SideB),
                     QStringLiteral("aten::miopen_convolution"));

        // The flame graph diff, opened from its tab.
        views::FlameGraphPanel *flame = ws->flameDiff();
        QTabWidget *tabs = nullptr;
        for (QTabWidget *t : ws->findChildren<QTabWidget *>()) {
            if (t->indexOf(flame) >= 0)
                tabs = t;
        }
        QVERIFY(tabs);
        QSignalSpy computed(flame, &views::FlameGraphPanel::computed);
        QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {},
                          tabs->tabBar()->tabRect(tabs->indexOf(flame)).center());
        QTRY_VERIFY_WITH_TIMEOUT(computed.count() > 0 && !flame->isComputing(), 20000);
        const views::FlameTree *tree = flame->graphWidget()->tree().get();
        QVERIFY(tree && tree->differential);
        const std::vector<std::string> &names = *tree->names;
        const int stepName = int(std::find(names.begin(), names.end(), "ProfilerStep#*")
                                 - names.begin());
        QVERIFY(stepName < int(names.size()));
        QVERIFY(stepName > 0);
        // The numbered step is one frame holding time of both sides; the numbered name is gone.
        bool both = false;
        for (uint32_t n = 0; n < tree->nodes.size(); ++n)
            both = both || (int(tree->nodes[n].name) == stepName && tree->sidesOf(n).a > 0 &&
                            tree->sidesOf(n).b > 0);
        QVERIFY(both);
        QVERIFY(std::find(names.begin(), names.end(), "ProfilerStep#6") == names.end());

        // Each timeline gets about a third of the window's height.
        QTRY_VERIFY(ws->timelineHeights().at(0) >= window.height() / 3 - 20);
        QVERIFY(ws->timelineHeights().at(1) >= window.height() / 3 - 20);
    }
};

QTEST_MAIN(TstPyTorchCompareWindow)
#include "tst_pytorchcomparewindow.moc"
