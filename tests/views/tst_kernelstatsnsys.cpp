// The Kernel Stats panel on an Nsight Systems export: the kernel view, not the XSpace page that
// has nothing to show, with every kernel call of the export counted by the test's own SQL.

#include "core/support/kinetofixtures.h"
#include "core/support/nsysfixtures.h"

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "views/panels/kernelstats/kernelstatspanel.h"
#include "views/panels/pytorch/pytorchkernelmodel.h"
#include "views/panels/pytorch/pytorchkernelview.h"

#include <QTest>

using namespace tracedesk;
using namespace tracedesk::views;

class TstKernelStatsNsys : public QObject
{
    Q_OBJECT

private slots:
    void exportShowsItsKernels();
};

void TstKernelStatsNsys::exportShowsItsKernels()
{
    const QString path =
        testsupport::nsysFixtureDir() + QStringLiteral("pipit__perlmutter-cloverleaf-cuda.sqlite");
    TRACEDESK_REQUIRE_FIXTURE(path);
    const testsupport::RawDb raw(path.toStdString());
    const int64_t calls = raw.count("CUPTI_ACTIVITY_KIND_KERNEL");
    // The reader names a kernel by its demangled name, as Nsight Systems shows it.
    const int64_t names = raw.scalar("SELECT count(DISTINCT s.value) FROM "
                                     "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                                     "ON s.id = k.demangledName");
    QVERIFY(calls > 0);

    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    auto cache = std::make_shared<core::analysis::AnalysisCache>(loaded.value());

    KernelStatsPanel panel;
    panel.resize(1600, 800);
    panel.show();
    panel.setAnalyses(cache);
    PyTorchKernelView *view = panel.pytorchView();
    QTRY_VERIFY_WITH_TIMEOUT(view->isVisible(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!view->isComputing(), 60000);
    QVERIFY(!view->showsEmptyMessage());
    const int column = view->model()->columnOf(PyTorchKernelModel::Calls);
    qint64 sum = 0;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        sum += view->model()->index(r, column).data(PyTorchKernelModel::kSortRole).toLongLong();
    QCOMPARE(sum, calls);
    QCOMPARE(int64_t(view->model()->rowCount()), names);
}

QTEST_MAIN(TstKernelStatsNsys)
#include "tst_kernelstatsnsys.moc"
