// A CUDA-graph replay dropped on the main window together with the trace of its capture: it
// opens as the replay (not as two ranks), and Kernel Stats names, beside the operator around the
// graph launch, the operator that recorded each replayed kernel at capture; Op Stats says which
// operators recorded the graph. The pair is hand-made: ops A, B, C record three kernel nodes in
// one capture window, D a kernel and a memset in another; the replay runs the first graph twice
// and the second once from `CUDAGraph.replay`.

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

const char *const kCapture = R"json({"schemaVersion":1,"deviceProperties":[],"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"A","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":100}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"External id":100,"correlation":2}},
{"ph":"X","cat":"cpu_op","name":"B","pid":1,"tid":1,"ts":30,"dur":10,"args":{"External id":101}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":32,"dur":2,"args":{"External id":101,"correlation":3}},
{"ph":"X","cat":"cpu_op","name":"C","pid":1,"tid":1,"ts":50,"dur":10,"args":{"External id":102}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":52,"dur":2,"args":{"External id":102,"correlation":5}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamEndCapture","pid":1,"tid":1,"ts":70,"dur":1,"args":{"correlation":6}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":100,"dur":1,"args":{"correlation":7}},
{"ph":"X","cat":"cpu_op","name":"D","pid":1,"tid":1,"ts":110,"dur":10,"args":{"External id":103}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":111,"dur":2,"args":{"External id":103,"correlation":8}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":114,"dur":2,"args":{"External id":103,"correlation":9}},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamEndCapture","pid":1,"tid":1,"ts":130,"dur":1,"args":{"correlation":10}}
]})json";

const char *const kReplay = R"json({"schemaVersion":1,"deviceProperties":[],"traceEvents":[
{"ph":"X","cat":"python_function","name":"CUDAGraph.replay","pid":1,"tid":1,"ts":0,"dur":200},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":1,"dur":5,"args":{"correlation":50}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":51}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":100,"dur":4,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_b","pid":0,"tid":7,"ts":105,"dur":5,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_c","pid":0,"tid":7,"ts":111,"dur":6,"args":{"device":0,"stream":7,"correlation":50}},
{"ph":"X","cat":"kernel","name":"k_d","pid":0,"tid":7,"ts":120,"dur":7,"args":{"device":0,"stream":7,"correlation":51}},
{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":128,"dur":1,"args":{"device":0,"stream":7,"correlation":51}},
{"ph":"X","cat":"kernel","name":"k_a","pid":0,"tid":7,"ts":130,"dur":4,"args":{"device":0,"stream":7,"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_b","pid":0,"tid":7,"ts":135,"dur":5,"args":{"device":0,"stream":7,"correlation":52}},
{"ph":"X","cat":"kernel","name":"k_c","pid":0,"tid":7,"ts":141,"dur":6,"args":{"device":0,"stream":7,"correlation":52}}
]})json";

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
