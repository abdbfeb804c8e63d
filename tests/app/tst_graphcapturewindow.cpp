// A CUDA-graph replay dropped on the main window together with the trace of its capture: it
// opens as the replay (not as two ranks), and Kernel Stats names, beside the operator around the
// graph launch, the operator that recorded each replayed kernel at capture; Op Stats says which
// operators recorded the graph. The pair is tests/core/support/graphcapturepair.h.

#include "../core/support/graphcapturepair.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/opstats/frameworkopstatspanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchkernelmodel.h"
#include "views/panels/pytorch/pytorchkernelview.h"
#include "views/panels/pytorch/pytorchoperatorview.h"

#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using app::MainWindow;

namespace {

using testsupport::kCapture;
using testsupport::kReplay;

void raise(MainWindow &window, const QString &dockName)
{
    for (QDockWidget *dock : window.analysisDocks()->docks()) {
        if (dock->objectName() == dockName) {
            dock->show();
            dock->raise();
        }
    }
}

bool write(const QString &path, const char *text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == qint64(std::strlen(text));
}

} // namespace

class TstGraphCaptureWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
        QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
        app::RecentFiles::flush();
        QSettings().clear();
        QVERIFY(m_temp.isValid());
        QVERIFY(write(m_temp.filePath("replay.pt.trace.json"), kReplay));
        QVERIFY(write(m_temp.filePath("capture.pt.trace.json"), kCapture));
    }

    void droppedTogether()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        core::LoadOptions options;
        options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
        window.loadController()->setOptions(options);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QSignalSpy shown(&window, &MainWindow::traceShown);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(m_temp.filePath("capture.pt.trace.json")),
                      QUrl::fromLocalFile(m_temp.filePath("replay.pt.trace.json"))});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 60000);
        // One process, not a run of two ranks; the title says what opened.
        QVERIFY2(shown.at(0).at(0).toString().contains(QStringLiteral("graph capture")),
                 qPrintable(shown.at(0).at(0).toString()));

        raise(window, QStringLiteral("KernelStatsDock"));
        auto *kernels = qobject_cast<views::KernelStatsPanel *>(
            window.analysisDocks()->panel(QStringLiteral("KernelStatsDock")));
        QVERIFY(kernels);
        QTRY_VERIFY(kernels->findChild<views::FrameworkPages *>()->showsPyTorch());
        views::PyTorchKernelView *view = kernels->pytorchView();
        QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing() && view->model()->rowCount() > 0, 60000);
        views::PyTorchKernelModel *model = view->model();
        const int captured = model->columnOf(views::PyTorchKernelModel::CapturedBy);
        const int op = model->columnOf(views::PyTorchKernelModel::Operator);
        QVERIFY(captured >= 0 && op >= 0);
        QCOMPARE(model->headerData(captured, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("Captured by"));
        QMap<QString, QString> capturedBy;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QString kernel = model->index(r, 0).data().toString();
            capturedBy[kernel] = model->index(r, captured).data().toString();
            // The launch itself sits under the Python frame that replays the graph.
            QCOMPARE(model->index(r, op).data().toString(), QStringLiteral("CUDAGraph.replay"));
        }
        QCOMPARE(capturedBy.value("k_a"), QStringLiteral("A"));
        QCOMPARE(capturedBy.value("k_b"), QStringLiteral("B"));
        QCOMPARE(capturedBy.value("k_c"), QStringLiteral("C"));
        QCOMPARE(capturedBy.value("k_d"), QStringLiteral("D"));
        QVERIFY2(view->statusText().contains(QStringLiteral("Captured by")),
                 qPrintable(view->statusText()));
        // The filter finds kernels by the operator that captured them.
        auto *proxy = view->proxyModel();
        proxy->setFilterFixedString(QStringLiteral("k_c"));
        QCOMPARE(proxy->rowCount(), 1);
        proxy->setFilterFixedString(QString());

        raise(window, QStringLiteral("FrameworkOpStatsDock"));
        auto *ops = qobject_cast<views::FrameworkOpStatsPanel *>(
            window.analysisDocks()->panel(QStringLiteral("FrameworkOpStatsDock")));
        QVERIFY(ops);
        QTRY_VERIFY(ops->findChild<views::FrameworkPages *>()->showsPyTorch());
        auto *opView = ops->findChild<views::PyTorchOperatorView *>();
        QVERIFY(opView);
        // C captured k_c (6 µs, replayed twice) and leads; D's kernel and memset follow.
        QTRY_VERIFY_WITH_TIMEOUT(opView->statusText().contains(
                                     QStringLiteral("operator that captured them: C 0.012 ms")),
                                 60000);
        QVERIFY(opView->statusText().contains(QStringLiteral("D 0.008 ms")));
    }

private:
    QTemporaryDir m_temp;
};

QTEST_MAIN(TstGraphCaptureWindow)
#include "tst_graphcapturewindow.moc"
