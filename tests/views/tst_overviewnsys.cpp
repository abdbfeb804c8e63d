// The Overview panel on an Nsight Systems export: the GPU page (step breakdown, GPU summary),
// not the XProf page, whose steps, hosts and device type an export does not have. The export has
// no NVTX steps and no CPU operators, so one step spans its runtime calls; the test counts the
// runtime calls' span from the file itself. A copy with numbered NVTX ranges gets them as steps.

#include "core/support/kinetofixtures.h"
#include "core/support/nsysfixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/overview/steptimechart.h"
#include "views/panels/pytorch/pytorchoverviewview.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>

using namespace tracedesk;
using namespace tracedesk::views;

class TstOverviewNsys : public QObject
{
    Q_OBJECT

private slots:
    void exportShowsTheGpuPage();
    void numberedNvtxRangesAreTheSteps();
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

// The same export with its kernels' launches cut into four NVTX ranges `iteration20` ..
// `iteration23` (written into a copy): the page counts those as its steps and says so, and the
// step chart has one bar per range, named by its number.
void TstOverviewNsys::numberedNvtxRangesAreTheSteps()
{
    const QString source =
        testsupport::nsysFixtureDir() + QStringLiteral("pipit__perlmutter-cloverleaf-cuda.sqlite");
    TRACEDESK_REQUIRE_FIXTURE(source);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("loop.sqlite"));
    QVERIFY(QFile::copy(source, path));
    QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
    {
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        const std::string span =
            "(SELECT min(r.start) AS lo, max(r.\"end\") AS hi, r.globalTid AS tid FROM "
            "CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId "
            "= r.correlationId GROUP BY r.globalTid ORDER BY count(*) DESC LIMIT 1)";
        const std::string sql =
            "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, \"end\" INTEGER, eventType "
            "INTEGER NOT NULL, text TEXT, globalTid INTEGER, domainId INTEGER, textId INTEGER);"
            "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < 3) "
            "INSERT INTO NVTX_EVENTS SELECT lo - 1 + (hi - lo + 1) * i / 4, lo - 1 + (hi - lo + "
            "1) * (i + 1) / 4, 59, 'iteration' || (20 + i), tid, 0, NULL FROM k, " + span;
        char *error = nullptr;
        QVERIFY2(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK, error);
        sqlite3_close(db);
    }
    const testsupport::RawDb raw(path.toStdString());
    QCOMPARE(raw.count("NVTX_EVENTS", "text GLOB 'iteration2[0-3]'"), int64_t(4));
    // The steps kept by the plugin's trim: GPU work launched by calls inside each range, the
    // trailing ranges without any dropped, and the last one if it launched under 0.8x the
    // previous one's.
    std::vector<int64_t> launched;
    for (int i = 0; i < 4; ++i) {
        launched.push_back(raw.scalar(
            "SELECT count(*) FROM NVTX_EVENTS n JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.start >= "
            "n.start AND r.\"end\" <= n.\"end\" JOIN (SELECT correlationId FROM "
            "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT correlationId FROM "
            "CUPTI_ACTIVITY_KIND_MEMCPY) a ON a.correlationId = r.correlationId WHERE n.text = "
            "'iteration" + std::to_string(20 + i) + "'"));
    }
    size_t kept = 4;
    while (kept > 1 && launched[kept - 1] == 0)
        --kept;
    if (kept > 1 && 0.8 * double(launched[kept - 2]) > double(launched[kept - 1]))
        --kept;

    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    OverviewPanel panel;
    panel.resize(1600, 900);
    panel.show();
    panel.setAnalyses(std::make_shared<core::analysis::AnalysisCache>(loaded.value()));
    PyTorchOverviewView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    const QString status = view->statusText();
    QVERIFY2(status.contains(QStringLiteral("each step is one of the numbered \"iteration N\" "
                                            "ranges")),
             qPrintable(status));
    QVERIFY2(status.startsWith(QStringLiteral("GPU profile, %1 steps").arg(kept)),
             qPrintable(status));
    QCOMPARE(view->stepChart()->stepCount(), int(kept));
    for (size_t i = 0; i < kept; ++i) {
        const QString bar = view->stepChart()->barText(int(i));
        QVERIFY2(bar.startsWith(QStringLiteral("Step %1").arg(20 + i)), qPrintable(bar));
    }
}

QTEST_MAIN(TstOverviewNsys)
#include "tst_overviewnsys.moc"
