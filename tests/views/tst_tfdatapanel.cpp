// TfDataPanel: the graph model passes QAbstractItemModelTester, the critical path is bold and the
// bottleneck red, clicking a node names its iterator. TRACEDESK_SHOTS=<dir> saves a screenshot.

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"
#include "views/panels/tfdata/tfdatagraphmodel.h"
#include "views/panels/tfdata/tfdatapanel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QFont>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include <filesystem>

using namespace tracedesk;
using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::views;

namespace {

constexpr TimePs kUs = 1'000'000;

// Batch 0-100 > Map 10-90 > TFRecord 20-50 (us): self 20 / 50 / 30 -> bottleneck Map.
TracePtr chain()
{
    TraceBuilder b;
    const uint32_t plane = b.addPlane("/host:CPU", "worker-0", 0, PlaneKind::Host);
    const uint32_t track = b.addTrack(plane, "tf_data", 1);
    struct E { const char *name; TimePs start, duration; int64_t id, parent; };
    const E events[] = {{"Iterator::Batch", 0, 100 * kUs, 1, 0},
                        {"Iterator::Batch::Map", 10 * kUs, 80 * kUs, 2, 1},
                        {"Iterator::Batch::Map::TFRecord", 20 * kUs, 30 * kUs, 3, 2}};
    for (const E &e : events) {
        EventKind k;
        k.name = b.intern(e.name);
        const uint32_t kind = b.addKind(k);
        TrackBuilder &tb = b.trackBuilder(track);
        ArgsArena::Writer w(tb.args());
        w.addInt(b.intern("id"), e.id);
        if (e.parent)
            w.addInt(b.intern("parent_id"), e.parent);
        tb.addSlice(e.start, e.duration, kind, w.finish());
    }
    return b.build();
}

void shot(QWidget *w, const char *name)
{
    const QByteArray dir = qgetenv("TRACEDESK_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(QString::fromUtf8(dir) + QLatin1Char('/') + QLatin1String(name));
}

bool waitComputed(TfDataPanel &panel)
{
    QSignalSpy spy(&panel, &TfDataPanel::computed);
    return spy.wait(20000);
}

} // namespace

class TestTfDataPanel : public QObject
{
    Q_OBJECT

private slots:
    void syntheticChain()
    {
        TfDataPanel panel;
        panel.resize(1000, 720);
        QAbstractItemModelTester tester(panel.graphModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.show();
        panel.setAnalyses(std::make_shared<AnalysisCache>(chain()));
        QCOMPARE(panel.statusText(), QStringLiteral("Computing..."));
        QVERIFY(waitComputed(panel));
        QVERIFY(!panel.isComputing());
        QCOMPARE(panel.pipelineModel()->rowCount(), 1);
        QCOMPARE(panel.pipelineModel()->index(0, TfDataPanel::Calls).data().toLongLong(), 1);
        QCOMPARE(panel.pipelineModel()->index(0, TfDataPanel::Bottleneck).data().toString(),
                 QStringLiteral("Iterator::Batch::Map"));

        TfDataGraphModel *m = panel.graphModel();
        QCOMPARE(m->rowCount(), 1);
        const QModelIndex batch = m->index(0, 0);
        const QModelIndex map = m->index(0, 0, batch);
        const QModelIndex record = m->index(0, 0, map);
        QCOMPARE(batch.data().toString(), QStringLiteral("Batch"));
        QCOMPARE(map.data().toString(), QStringLiteral("Map"));
        QCOMPARE(record.data().toString(), QStringLiteral("TFRecord"));
        QCOMPARE(m->index(0, TfDataGraphModel::SelfUs, batch).data().toString(),
                 QStringLiteral("50.000"));
        QCOMPARE(m->bottleneckIndex(), map);
        // Bottleneck red, the whole chain bold (all on the critical path).
        QCOMPARE(map.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(200, 0, 0));
        QVERIFY(!batch.data(Qt::ForegroundRole).isValid());
        QVERIFY(batch.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(record.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(panel.recommendationText().contains(QStringLiteral("num_parallel_calls")));

        QSignalSpy op(&panel, &TfDataPanel::opActivated);
        QTreeView *tree = panel.graphView();
        const QRect rect = tree->visualRect(map);
        QVERIFY(rect.isValid());
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(op.size(), 1);
        QCOMPARE(op.at(0).at(0).toString(), QStringLiteral("Iterator::Batch::Map"));
        shot(&panel, "tfdata_synthetic.png");

        panel.setAnalyses(nullptr);
        QCOMPARE(panel.statusText(), QStringLiteral("No profile"));
        QCOMPARE(m->rowCount(), 0);
    }

    void realGpuFixture()
    {
        const auto file = std::filesystem::path(TRACEDESK_SHARED_FIXTURES)
                          / "xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(file))
            QSKIP("shared fixture xprof_GPU-multi-worker is not present");
        auto trace = loadTrace(file.string());
        QVERIFY(trace.ok());
        TfDataPanel panel;
        panel.resize(1000, 720);
        QAbstractItemModelTester tester(panel.graphModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.show();
        panel.setAnalyses(std::make_shared<AnalysisCache>(trace.value()));
        QVERIFY(waitComputed(panel));
        QCOMPARE(panel.pipelineModel()->rowCount(), 2);
        const QModelIndex bottleneck = panel.graphModel()->bottleneckIndex();
        QVERIFY(bottleneck.isValid());
        QCOMPARE(bottleneck.data().toString(), QStringLiteral("Generator"));
        QCOMPARE(bottleneck.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(200, 0, 0));
        // Selecting the other pipeline shows its graph.
        panel.pipelineView()->selectRow(1);
        QVERIFY(panel.graphModel()->bottleneckIndex().isValid());
        shot(&panel, "tfdata_gpu.png");
    }
};

QTEST_MAIN(TestTfDataPanel)
#include "tst_tfdatapanel.moc"
