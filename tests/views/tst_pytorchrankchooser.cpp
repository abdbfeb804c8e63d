// The rank chooser of the PyTorch pages on a merged run of rank traces: shown only for such a
// run, "rank k of 8" per rank; picking rank 3 recomputes the kernel view (on its worker) and
// shows rank 3's kernel count and time, counted here from rank 3's raw JSON. One shared pick
// turns every panel's PyTorch page (the overview follows), a page shown later starts on the
// picked rank, and a newly opened run starts on its first rank again. Set TRACEDESK_SHOTS=<dir>
// to save a screenshot of the kernel panel on rank 3.

#include "../core/support/kinetofixtures.h"

#include "core/io/traceloader.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchkernelview.h"
#include "views/panels/pytorch/pytorchoverviewview.h"
#include "views/panels/pytorch/rankchoice.h"

#include <QComboBox>
#include <QDir>
#include <QSignalSpy>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core::analysis;
using namespace tracedesk::views;

namespace {

const QString kDlrm = QStringLiteral(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");

// Kernels in one rank's raw file: how many, and their summed duration in ms.
struct RawKernels
{
    qint64 count = 0;
    double totalMs = 0;
};

RawKernels rawKernels(int rank)
{
    RawKernels raw;
    const QStringList files =
        QDir(kDlrm).entryList({QStringLiteral("worker%1_*").arg(rank)}, QDir::Files);
    if (files.size() != 1)
        return raw;
    const QJsonObject top = testsupport::readFixtureObject(kDlrm + "/" + files.front());
    if (top["distributedInfo"].toObject()["rank"].toInt(-1) != rank)
        return raw;
    for (const QJsonValue &v : top["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        if (e["ph"].toString() == "X" && e["cat"].toString().toLower() == "kernel") {
            ++raw.count;
            raw.totalMs += e["dur"].toDouble() / 1e3;
        }
    }
    return raw;
}

// What the kernel view's summary line says for those kernels.
QString kernelLine(const RawKernels &raw)
{
    return QStringLiteral("%1 kernel launches").arg(raw.count);
}
QString kernelTime(const RawKernels &raw)
{
    return QStringLiteral("%1 ms in total").arg(raw.totalMs, 0, 'f', 3);
}

AnalysisCachePtr load(const QString &path)
{
    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
    if (!loaded) {
        qWarning("%s", loaded.message().c_str());
        return nullptr;
    }
    return std::make_shared<AnalysisCache>(loaded.value());
}

template<typename W>
bool waitComputed(W &w)
{
    if (!w.isComputing())
        return true;
    QSignalSpy spy(&w, &W::computed);
    return spy.wait(120000) || !w.isComputing();
}

FrameworkPages *pagesOf(QWidget &panel)
{
    return panel.findChild<FrameworkPages *>();
}

// Picks `rank` the way a user does: the chooser focused, arrow keys down to it.
void pickWithKeys(QComboBox *chooser, int rank)
{
    chooser->setFocus();
    while (chooser->currentIndex() < rank)
        QTest::keyClick(chooser, Qt::Key_Down);
    while (chooser->currentIndex() > rank)
        QTest::keyClick(chooser, Qt::Key_Up);
}

} // namespace

class TestPyTorchRankChooser : public QObject
{
    Q_OBJECT

private slots:
    void chooserSwitchesKernelView();
    void sharedChoiceTurnsEveryPage();
    void singleTraceHasNoChooser();
};

void TestPyTorchRankChooser::chooserSwitchesKernelView()
{
    TRACEDESK_REQUIRE_FIXTURE(kDlrm);
    const AnalysisCachePtr cache = load(kDlrm);
    QVERIFY(cache);
    const RawKernels rank0 = rawKernels(0), rank3 = rawKernels(3);
    QVERIFY(rank0.count > 0 && rank3.count > 0 && rank0.count != rank3.count);

    KernelStatsPanel panel;
    panel.resize(1400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setAnalyses(cache);
    PyTorchKernelView *view = panel.pytorchView();
    QVERIFY(waitComputed(*view));
    QVERIFY2(view->statusText().contains(kernelLine(rank0)), qPrintable(view->statusText()));
    QVERIFY2(view->statusText().contains(kernelTime(rank0)), qPrintable(view->statusText()));

    QComboBox *chooser = pagesOf(panel)->rankChooser();
    QVERIFY(chooser);
    QVERIFY(chooser->isVisible());
    QCOMPARE(chooser->count(), 8);
    QCOMPARE(chooser->currentText(), QStringLiteral("rank 0 of 8"));
    QCOMPARE(chooser->itemText(3), QStringLiteral("rank 3 of 8"));

    QSignalSpy computed(view, &PyTorchKernelView::computed);
    pickWithKeys(chooser, 3);
    QCOMPARE(chooser->currentText(), QStringLiteral("rank 3 of 8"));
    QVERIFY(computed.count() > 0 || computed.wait(120000));
    QVERIFY(waitComputed(*view));
    QVERIFY2(view->statusText().contains(kernelLine(rank3)), qPrintable(view->statusText()));
    QVERIFY2(view->statusText().contains(kernelTime(rank3)), qPrintable(view->statusText()));
    if (!qEnvironmentVariable("TRACEDESK_SHOTS").isEmpty()) {
        QTest::qWait(200);
        panel.grab().save(qEnvironmentVariable("TRACEDESK_SHOTS") + "/pytorch_rank3_kernels.png");
    }

    // Back to the first rank: its numbers again (already computed, kept by the cache).
    pickWithKeys(chooser, 0);
    QVERIFY(waitComputed(*view));
    QVERIFY2(view->statusText().contains(kernelLine(rank0)), qPrintable(view->statusText()));
}

void TestPyTorchRankChooser::sharedChoiceTurnsEveryPage()
{
    TRACEDESK_REQUIRE_FIXTURE(kDlrm);
    const AnalysisCachePtr cache = load(kDlrm);
    QVERIFY(cache);
    PyTorchRankChoice choice;
    KernelStatsPanel kernels;
    OverviewPanel overview;
    pagesOf(kernels)->setRankChoice(&choice);
    pagesOf(overview)->setRankChoice(&choice);
    kernels.setAnalyses(cache);
    overview.setAnalyses(cache);
    QVERIFY(waitComputed(*kernels.pytorchView()));
    QVERIFY(waitComputed(*overview.pytorchView()));
    QVERIFY2(overview.pytorchView()->statusText().contains("rank 0 of 8"),
             qPrintable(overview.pytorchView()->statusText()));

    // Rank 6 picked in the kernel panel: the overview follows.
    pagesOf(kernels)->rankChooser()->setCurrentIndex(6);
    emit pagesOf(kernels)->rankChooser()->activated(6);
    QCOMPARE(choice.section(cache), 6u);
    QCOMPARE(pagesOf(overview)->rankChooser()->currentText(), QStringLiteral("rank 6 of 8"));
    QVERIFY(waitComputed(*kernels.pytorchView()));
    QVERIFY(waitComputed(*overview.pytorchView()));
    const RawKernels rank6 = rawKernels(6);
    QVERIFY(kernels.pytorchView()->statusText().contains(kernelLine(rank6)));
    QVERIFY2(overview.pytorchView()->statusText().contains("PyTorch profile of rank 6 of 8"),
             qPrintable(overview.pytorchView()->statusText()));
    QVERIFY2(overview.pytorchView()->environmentText().contains("rank 6 of world size 8"),
             qPrintable(overview.pytorchView()->environmentText()));

    // A page handed the run later starts on rank 6.
    OverviewPanel later;
    pagesOf(later)->setRankChoice(&choice);
    later.setAnalyses(cache);
    QCOMPARE(pagesOf(later)->rankChooser()->currentText(), QStringLiteral("rank 6 of 8"));
    QVERIFY(waitComputed(*later.pytorchView()));
    QVERIFY(later.pytorchView()->statusText().contains("rank 6 of 8"));

    // The run opened again (a new cache): its first rank.
    const AnalysisCachePtr reopened = load(kDlrm);
    QVERIFY(reopened);
    kernels.setAnalyses(reopened);
    QCOMPARE(pagesOf(kernels)->rankChooser()->currentText(), QStringLiteral("rank 0 of 8"));
    QVERIFY(waitComputed(*kernels.pytorchView()));
    QVERIFY(kernels.pytorchView()->statusText().contains(kernelLine(rawKernels(0))));
}

void TestPyTorchRankChooser::singleTraceHasNoChooser()
{
    TRACEDESK_REQUIRE_FIXTURE(kDlrm);
    const QStringList files = QDir(kDlrm).entryList({QStringLiteral("worker2_*")}, QDir::Files);
    QCOMPARE(files.size(), 1);
    const AnalysisCachePtr cache = load(kDlrm + "/" + files.front());
    QVERIFY(cache);
    KernelStatsPanel panel;
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setAnalyses(cache);
    QVERIFY(pagesOf(panel)->showsPyTorch());
    QVERIFY(!pagesOf(panel)->rankChooser()->isVisible());
    QVERIFY(waitComputed(*panel.pytorchView()));
    QVERIFY(panel.pytorchView()->statusText().contains(kernelLine(rawKernels(2))));
}

QTEST_MAIN(TestPyTorchRankChooser)
#include "tst_pytorchrankchooser.moc"
