// Memory profile and memory viewer panels on real fixtures: models pass QAbstractItemModelTester,
// modules switch, hovering a buffer fills its card and draws its lifetime, a chart click emits
// a time. TRACEDESK_SHOTS=<dir> saves screenshots of both panels.

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "views/panels/memoryprofile/memorybreakdownmodel.h"
#include "views/panels/memoryprofile/memoryprofilepanel.h"
#include "views/panels/memoryviewer/memoryviewerpanel.h"

#include <QAbstractItemModelTester>
#include <QAbstractAxis>
#include <QChart>
#include <QLabel>
#include <QComboBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <cmath>
#include <filesystem>

using namespace tracedesk;
using namespace tracedesk::views;
namespace fs = std::filesystem;

namespace {

core::analysis::AnalysisCachePtr open(const fs::path &path)
{
    core::LoadOptions o;
    o.useCache = false;
    auto t = core::loadTrace(path.string(), nullptr, o);
    if (!t.ok())
        return nullptr;
    return std::make_shared<core::analysis::AnalysisCache>(t.value());
}

void shot(QWidget *w, const char *name)
{
    const QByteArray dir = qgetenv("TRACEDESK_SHOTS");
    if (dir.isEmpty())
        return;
    QTest::qWait(300);   // charts lay out their axes on the next event-loop turns
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + "/" + name);
}

const fs::path kXSpace = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace";

} // namespace

class TestMemoryPanels : public QObject
{
    Q_OBJECT

private slots:
    void profilePanel();
    void viewerPanel();
    void emptyStates();
    void unrecordedFieldsSaySo();
};

// The TPU fixture's allocations carry no op name and TensorFlow's DT_INVALID data type: the
// peak table says "(not recorded)" in both columns instead of a blank and "INVALID".
void TestMemoryPanels::unrecordedFieldsSaySo()
{
    const fs::path tpu = kXSpace / "xprof_tpu_inference_2" / "tpu_inference_2.xplane.pb";
    if (!fs::exists(tpu))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    auto cache = open(tpu);
    QVERIFY(cache);
    MemoryProfilePanel panel;
    panel.resize(1400, 900);
    panel.show();
    QSignalSpy done(&panel, &MemoryProfilePanel::computed);
    panel.setAnalyses(cache);
    QVERIFY(done.wait(60000));
    QAbstractItemModel *m = panel.model();
    QVERIFY(m->rowCount() > 0);
    int unnamed = 0;
    for (int r = 0; r < m->rowCount(); ++r) {
        const QString type = m->index(r, MemoryBreakdownModel::DataType).data().toString();
        QVERIFY2(type != QStringLiteral("INVALID"), qPrintable(type));
        const QString op = m->index(r, MemoryBreakdownModel::OpName).data().toString();
        QVERIFY(!op.isEmpty());
        if (op == QStringLiteral("(not recorded)")) {
            ++unnamed;
            QVERIFY(m->index(r, MemoryBreakdownModel::OpName).data(Qt::ToolTipRole).toString().contains("no op"));
        }
    }
    QVERIFY(unnamed > 0);
}

void TestMemoryPanels::profilePanel()
{
    const fs::path gpu = kXSpace / "xprof_GPU-multi-worker" / "34.83.195.179_6003.xplane.pb";
    if (!fs::exists(gpu))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    auto cache = open(gpu);
    QVERIFY(cache);
    MemoryProfilePanel panel;
    panel.resize(1400, 900);
    panel.show();
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(panel.proxyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(&panel, &MemoryProfilePanel::computed);
    panel.setAnalyses(cache);
    QCOMPARE(panel.statusText(), QStringLiteral("Computing..."));
    QVERIFY(done.wait(60000));
    QVERIFY(panel.hostCombo()->count() >= 1);
    QVERIFY(panel.memoryIdCombo()->count() >= 3);
    const int gpu4 = panel.memoryIdCombo()->findText("GPU_4_bfc");
    QVERIFY(gpu4 >= 0);
    panel.memoryIdCombo()->setCurrentIndex(gpu4);
    const auto *p = panel.currentProfile();
    QVERIFY(p);
    QCOMPARE(panel.model()->rowCount(), int(p->breakdown.size()));
    // Both peaks say what they measure, with the definitions on hover.
    QVERIFY(panel.summaryText().contains("Peak reported by allocator (lifetime)"));
    QVERIFY(panel.summaryText().contains("Peak stack + heap (this window)"));
    QVERIFY(panel.findChild<QLabel *>() != nullptr);
    bool definitions = false;
    for (QLabel *l : panel.findChildren<QLabel *>())
        definitions = definitions || l->toolTip().contains("peak_bytes_in_use");
    QVERIFY(definitions);
    QVERIFY(!panel.chart()->series().isEmpty());
    // The memory axis unit comes from the data: its largest stack + heap + free reads 1..1024.
    double maxBytes = 0;
    for (uint32_t i : p->timeline) {
        const auto &st = p->snapshots[i].stats;
        maxBytes = std::max(maxBytes, double(st.stackReservedBytes + st.heapAllocatedBytes
                                             + st.freeMemoryBytes));
    }
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (k < 4 && maxBytes >= std::pow(1024.0, k + 1))
        ++k;
    bool unitAxis = false;
    for (QAbstractAxis *axis : panel.chart()->axes(Qt::Vertical))
        unitAxis = unitAxis || axis->titleText() == QStringLiteral("Memory (%1)").arg(units[k]);
    QVERIFY(unitAxis);

    // Filter by op name.
    const int all = panel.proxyModel()->rowCount();
    panel.proxyModel()->setFilterFixedString("word_embeddings");
    QVERIFY(panel.proxyModel()->rowCount() >= 1);
    QVERIFY(panel.proxyModel()->rowCount() < all);
    panel.proxyModel()->setFilterFixedString({});
    // Sort by requested size ascending: numeric, not text.
    panel.proxyModel()->sort(MemoryBreakdownModel::RequestedGiB, Qt::AscendingOrder);
    const auto raw = [&](int row) {
        return panel.proxyModel()->index(row, MemoryBreakdownModel::RequestedGiB)
            .data(MemoryBreakdownModel::kSortRole).toLongLong();
    };
    for (int r = 1; r < panel.proxyModel()->rowCount(); ++r)
        QVERIFY(raw(r - 1) <= raw(r));

    // Hover at the peak shows that snapshot; a click emits its time. The chart's times count
    // from the trace's start, the timeline's 0 (the XSpace's own origin lies 128 ms before),
    // and so does the card: the peak lies inside the trace's span.
    const core::Trace &trace = cache->trace();
    const double peakMs = double(p->summary.peakTime - trace.begin) / 1e9;
    QVERIFY(peakMs >= 0 && peakMs <= double(trace.end - trace.begin) / 1e9);
    QVERIFY2(panel.summaryText().contains(QString::number(peakMs, 'f', 3) + QStringLiteral(" ms")),
             qPrintable(panel.summaryText()));
    panel.hoverAt(peakMs);
    QVERIFY(panel.hoverText().contains("in use"));
    QVERIFY(panel.hoverText().contains("step"));
    QSignalSpy times(&panel, &MemoryProfilePanel::timeActivated);
    panel.clickAt(peakMs);
    QCOMPARE(times.count(), 1);
    QCOMPARE(times.at(0).at(0).value<core::TimePs>(), p->summary.peakTime);
    shot(&panel, "memory_profile.png");
}

void TestMemoryPanels::viewerPanel()
{
    const fs::path tpu = kXSpace / "xprof_tpu_inference_2" / "tpu_inference_2.xplane.pb";
    if (!fs::exists(tpu))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    auto cache = open(tpu);
    QVERIFY(cache);
    MemoryViewerPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QSignalSpy done(&panel, &MemoryViewerPanel::computed);
    panel.setAnalyses(cache);
    QVERIFY(done.wait(60000));
    QCOMPARE(panel.moduleCombo()->count(), 4);
    QVERIFY(panel.moduleCombo()->currentText().startsWith("jit_f("));
    QVERIFY(panel.result());
    QVERIFY(panel.overviewText().contains("Peak memory allocation"));
    QVERIFY(!panel.workspaceChart()->series().isEmpty());
    QVERIFY(!panel.programOrderChart()->series().isEmpty());
    shot(&panel, "memory_viewer_jit_f.png");

    // Switch modules.
    const int psum = panel.moduleCombo()->findText("jit__psum", Qt::MatchStartsWith);
    QVERIFY(psum >= 0);
    done.clear();
    panel.moduleCombo()->setCurrentIndex(psum);
    QVERIFY(done.wait(60000));
    QVERIFY(panel.result());
    QVERIFY(panel.result()->moduleName.starts_with("jit__psum("));

    // Hover the largest buffer at the peak: card and lifetime line.
    const auto &r = *panel.result();
    QVERIFY(!r.maxHeap.empty());
    const int largest = r.bySizeToMaxHeap[0];
    const auto *b = r.buffer(r.maxHeap[size_t(largest)].bufferId);
    QVERIFY(b);
    panel.hoverBuffer(largest);
    const QString card = panel.bufferCardText();
    QVERIFY(card.contains(QString::fromStdString(b->instructionName)));
    QVERIFY(card.contains("Unpadded size"));
    QVERIFY(card.contains("Expansion"));
    QVERIFY(card.contains("Extra memory"));
    QVERIFY(card.contains(QString::fromStdString(b->shape).toHtmlEscaped()));
    QVERIFY(card.contains(core::analysis::bufferCategoryName(b->category)));
    QCOMPARE(panel.lifetimePointCount(), 2);
    QCOMPARE(panel.lifetimePenWidth(), 10.0);   // the largest buffer gets the thickest line
    shot(&panel, "memory_viewer_psum_hover.png");

    // The legacy GPU run: 8 modules, all selectable.
    const fs::path legacy = kXSpace / "tracelens_jax_conv_minimal_legacy";
    for (const auto &e : fs::directory_iterator(legacy)) {
        done.clear();
        panel.setAnalyses(open(e.path()));
        QVERIFY(done.wait(60000));
        QCOMPARE(panel.moduleCombo()->count(), 8);
        const int conv = panel.moduleCombo()->findText("jit_forward_3d_conv(15)");
        QVERIFY(conv >= 0);
        if (panel.moduleCombo()->currentIndex() != conv) {
            done.clear();
            panel.moduleCombo()->setCurrentIndex(conv);
            QVERIFY(done.wait(60000));
        }
        QVERIFY(panel.result());
        panel.hoverBuffer(0);
        QVERIFY(!panel.bufferCardText().isEmpty());
        shot(&panel, "memory_viewer_conv.png");
    }
}

void TestMemoryPanels::emptyStates()
{
    MemoryViewerPanel viewer;
    viewer.setAnalyses(nullptr);
    QCOMPARE(viewer.statusText(), QStringLiteral("No profile"));
    MemoryProfilePanel profile;
    profile.setAnalyses(nullptr);
    QCOMPARE(profile.statusText(), QStringLiteral("No profile"));
}

QTEST_MAIN(TestMemoryPanels)
#include "tst_memorypanels.moc"
