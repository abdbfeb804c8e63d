// The Overview panel on an Nsight Systems export: the GPU page (step breakdown, GPU summary),
// not the XProf page, whose steps, hosts and device type an export does not have. The export has
// no NVTX steps and no CPU operators, so one step spans its runtime calls; the test counts the
// runtime calls' span from the file itself.

#include "core/support/kinetofixtures.h"
#include "core/support/nsysfixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/pytorch/pytorchoverviewview.h"

#include <QTest>

#include <algorithm>

using namespace tracedesk;
using namespace tracedesk::views;

class TstOverviewNsys : public QObject
{
    Q_OBJECT

private slots:
    void exportShowsTheGpuPage();
};

void TstOverviewNsys::exportShowsTheGpuPage()
{
    const QString path =
        testsupport::nsysFixtureDir() + QStringLiteral("pipit__perlmutter-cloverleaf-cuda.sqlite");
    TRACEDESK_REQUIRE_FIXTURE(path);
    const testsupport::RawDb raw(path.toStdString());
    const int64_t runtimeStart = raw.scalar("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    // The step ends when the last runtime call or the last GPU work it launched ends.
    const int64_t stepEnd =
        std::max({raw.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                  raw.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL"),
                  raw.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_MEMCPY")});
    QVERIFY(stepEnd > runtimeStart);

    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    auto cache = std::make_shared<core::analysis::AnalysisCache>(loaded.value());

    OverviewPanel panel;
    panel.resize(1600, 900);
    panel.show();
    panel.setAnalyses(cache);
    PyTorchOverviewView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    const QString status = view->statusText();
    QVERIFY2(status.startsWith(QStringLiteral("GPU profile, 1 step")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("one step spans the runtime calls")),
             qPrintable(status));
    const QString stepMs = QString::number(double(stepEnd - runtimeStart) / 1e6, 'f', 3);
    const QString summary = view->summaryText();
    QVERIFY2(summary.contains(QStringLiteral("Average step time: <b>%1 ms</b> over 1 step")
                                  .arg(stepMs)),
             qPrintable(summary));
    QVERIFY2(view->gpuText().contains(QStringLiteral("A100")), qPrintable(view->gpuText()));
    // The export names no framework: the page must not claim a PyTorch trace.
    QVERIFY2(!view->environmentText().contains(QStringLiteral("PyTorch")),
             qPrintable(view->environmentText()));
}

QTEST_MAIN(TstOverviewNsys)
#include "tst_overviewnsys.moc"
