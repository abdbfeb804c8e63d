#include "views/tracktree/tracktreemodel.h"

#include "core/model/tracebuilder.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace tracedesk;
using views::TrackTreeModel;

namespace {

// Two hosts. hostA: /host:CPU (python 3 slices, worker 1), /device:GPU:0 (Stream #1 with
// sortIndex 1, Stream #2 with sortIndex 0), /host:metadata (no tracks), /device:GPU:2 whose
// sortIndex puts it before GPU:0. hostB: /device:GPU:1 with a 4-sample counter.
core::TracePtr buildTrace()
{
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("op");
    const uint32_t op = b.addKind(kind);

    const uint32_t cpu = b.addPlane("/host:CPU", "hostA", 1, core::PlaneKind::Host);
    const uint32_t gpu0 = b.addPlane("/device:GPU:0", "hostA", 2, core::PlaneKind::Device);
    b.addPlane("/host:metadata", "hostA", 3, core::PlaneKind::Metadata);
    const uint32_t gpu1 = b.addPlane("/device:GPU:1", "hostB", 4, core::PlaneKind::Device);
    const uint32_t gpu2 = b.addPlane("/device:GPU:2", "hostA", 5, core::PlaneKind::Device);
    b.trace().planes[gpu2].sortIndex = 0;   // GPU:0 has 1

    const uint32_t python = b.addTrack(cpu, "python", 11);
    b.trackBuilder(python).addSlice(0, 1000, op);
    b.trackBuilder(python).addSlice(100, 200, op);
    b.trackBuilder(python).addSlice(2000, 500, op);
    const uint32_t worker = b.addTrack(cpu, "worker", 12);
    b.trackBuilder(worker).addSlice(5000, 1000, op);

    const uint32_t stream1 = b.addTrack(gpu0, "Stream #1", 1);
    b.trackBuilder(stream1).addSlice(10'000, 990'000, op);
    const uint32_t stream2 = b.addTrack(gpu0, "Stream #2", 2);
    b.trackBuilder(stream2).addSlice(20'000, 10'000, op);
    b.trackBuilder(stream2).addSlice(40'000, 10'000, op);
    b.track(stream1).sortIndex = 1;
    b.track(stream2).sortIndex = 0;

    const uint32_t memory = b.addTrack(gpu1, "Memory", 1, core::TrackType::Counter);
    for (int i = 0; i < 4; ++i)
        b.trackBuilder(memory).addCounterSample(i * 100, double(i));

    const uint32_t stream7 = b.addTrack(gpu2, "Stream #7", 7);
    b.trackBuilder(stream7).addSlice(0, 1'500'000, op);
    return b.build();
}

QString text(const QAbstractItemModel &m, const QModelIndex &parent, int row, int column = 0)
{
    return m.data(m.index(row, column, parent)).toString();
}

QStringList childNames(const QAbstractItemModel &m, const QModelIndex &parent)
{
    QStringList names;
    for (int r = 0; r < m.rowCount(parent); ++r)
        names << text(m, parent, r);
    return names;
}

} // namespace

class TstTrackTreeModel : public QObject
{
    Q_OBJECT

private slots:
    void emptyModel();
    void modelTester();
    void hostsPlanesAndTrackOrder();
    void countsAndSpans();
    void rolesAndIndexForTrack();
    void resetOnNewTrace();
    void duplicatePlaneNamesAndUnnamedHost();
};

void TstTrackTreeModel::emptyModel()
{
    TrackTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Name"));
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Events"));
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("Span"));
}

void TstTrackTreeModel::modelTester()
{
    TrackTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTrace(buildTrace());
    model.setTrace(nullptr);
    model.setTrace(buildTrace());
    QVERIFY(model.rowCount() > 0);
}

void TstTrackTreeModel::hostsPlanesAndTrackOrder()
{
    TrackTreeModel model;
    model.setTrace(buildTrace());
    QCOMPARE(childNames(model, {}), (QStringList{"hostA", "hostB"}));

    const QModelIndex hostA = model.index(0, 0);
    QCOMPARE(childNames(model, hostA),
             (QStringList{"/device:GPU:2", "/device:GPU:0", "/host:CPU", "/host:metadata"}));
    const QModelIndex hostB = model.index(1, 0);
    QCOMPARE(childNames(model, hostB), QStringList{"/device:GPU:1"});

    QCOMPARE(childNames(model, model.index(0, 0, hostA)), QStringList{"Stream #7"});
    QCOMPARE(childNames(model, model.index(1, 0, hostA)),
             (QStringList{"Stream #2", "Stream #1"}));
    QCOMPARE(childNames(model, model.index(2, 0, hostA)), (QStringList{"python", "worker"}));
    QCOMPARE(model.rowCount(model.index(3, 0, hostA)), 0);
    QCOMPARE(childNames(model, model.index(0, 0, hostB)), QStringList{"Memory"});

    // Only the name column has children.
    QCOMPARE(model.rowCount(model.index(0, 1)), 0);
    // Tracks are leaves.
    QCOMPARE(model.rowCount(model.index(0, 0, model.index(2, 0, hostA))), 0);
}

void TstTrackTreeModel::countsAndSpans()
{
    TrackTreeModel model;
    model.setTrace(buildTrace());
    const QModelIndex hostA = model.index(0, 0);
    const QModelIndex hostB = model.index(1, 0);
    const QModelIndex cpu = model.index(2, 0, hostA);
    const QModelIndex gpu0 = model.index(1, 0, hostA);

    // Hand counts: python 3 + worker 1 = 4; GPU:0 1 + 2 = 3; GPU:2 1; hostA 8; hostB 4 samples.
    QCOMPARE(text(model, {}, 0, 1), QStringLiteral("8"));
    QCOMPARE(text(model, {}, 1, 1), QStringLiteral("4"));
    QCOMPARE(text(model, hostA, 2, 1), QStringLiteral("4"));
    QCOMPARE(text(model, hostA, 1, 1), QStringLiteral("3"));
    QCOMPARE(text(model, hostA, 3, 1), QStringLiteral("0"));
    QCOMPARE(text(model, cpu, 0, 1), QStringLiteral("3"));
    QCOMPARE(text(model, cpu, 1, 1), QStringLiteral("1"));

    // Spans: python 0..2500 ps; CPU 0..6000 ps; GPU:0 10'000..1'000'000 ps; hostA 0..1.5 us;
    // the memory counter 0..300 ps; the empty metadata plane has none.
    QCOMPARE(text(model, cpu, 0, 2), QStringLiteral("2.50 ns"));
    QCOMPARE(text(model, hostA, 2, 2), QStringLiteral("6.00 ns"));
    QCOMPARE(text(model, hostA, 1, 2), QStringLiteral("990.00 ns"));
    QCOMPARE(text(model, {}, 0, 2), QStringLiteral("1.50 us"));
    QCOMPARE(text(model, model.index(0, 0, hostB), 0, 2), QStringLiteral("300 ps"));
    QCOMPARE(text(model, hostA, 3, 2), QString());
    QCOMPARE(model.data(model.index(0, 0, gpu0), TrackTreeModel::SpanRole).toLongLong(),
             qint64(30'000));   // Stream #2: 20'000..50'000 ps
}

void TstTrackTreeModel::rolesAndIndexForTrack()
{
    TrackTreeModel model;
    const core::TracePtr trace = buildTrace();
    model.setTrace(trace);
    const QModelIndex hostA = model.index(0, 0);
    const QModelIndex gpu0 = model.index(1, 0, hostA);
    QCOMPARE(model.data(hostA, TrackTreeModel::NodeTypeRole).toInt(),
             int(TrackTreeModel::NodeType::Host));
    QCOMPARE(model.data(hostA, TrackTreeModel::IndexRole).toInt(), -1);
    QCOMPARE(model.data(gpu0, TrackTreeModel::NodeTypeRole).toInt(),
             int(TrackTreeModel::NodeType::Plane));
    QCOMPARE(model.data(gpu0, TrackTreeModel::IndexRole).toInt(), 1);   // added second

    const QModelIndex stream2 = model.index(0, 0, gpu0);
    QCOMPARE(model.data(stream2, TrackTreeModel::NodeTypeRole).toInt(),
             int(TrackTreeModel::NodeType::Track));
    const int trackIndex = model.data(stream2, TrackTreeModel::IndexRole).toInt();
    QCOMPARE(trace->string(trace->tracks[size_t(trackIndex)].name), std::string_view("Stream #2"));
    QCOMPARE(model.data(stream2, TrackTreeModel::EventCountRole).toULongLong(), quint64(2));
    QCOMPARE(model.indexForTrack(uint32_t(trackIndex)), stream2);
    QCOMPARE(model.parent(stream2), gpu0);
    QCOMPARE(model.parent(gpu0), hostA);
    QVERIFY(!model.indexForTrack(999).isValid());
}

void TstTrackTreeModel::resetOnNewTrace()
{
    TrackTreeModel model;
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setTrace(buildTrace());
    QCOMPARE(reset.count(), 1);

    core::TraceBuilder b;
    b.addPlane("", "", 42, core::PlaneKind::Other);
    const uint32_t t = b.addTrack(0, "", 7);
    core::EventKind kind;
    const uint32_t k = b.addKind(kind);
    for (int i = 0; i < 1234; ++i)
        b.trackBuilder(t).addSlice(i * 10, 5, k);
    model.setTrace(b.build());
    QCOMPARE(reset.count(), 2);
    // Unnamed hosts, planes and tracks get readable fallbacks.
    QCOMPARE(childNames(model, {}), QStringList{"(unnamed host)"});
    QCOMPARE(childNames(model, model.index(0, 0)), QStringList{"Plane 42"});
    QCOMPARE(childNames(model, model.index(0, 0, model.index(0, 0))), QStringList{"Track 7"});
    QCOMPARE(text(model, {}, 0, 1), QStringLiteral("1,234"));
}

void TstTrackTreeModel::duplicatePlaneNamesAndUnnamedHost()
{
    // Chrome JSON: no host, two processes of the same program.
    core::TraceBuilder b;
    b.addPlane("python3", "", 101, core::PlaneKind::Other);
    b.addPlane("python3", "", 202, core::PlaneKind::Other);
    b.addPlane("Spans", "", 303, core::PlaneKind::Other);
    TrackTreeModel model;
    model.setTrace(b.build(), QStringLiteral("trace.json.gz"));
    QCOMPARE(childNames(model, {}), QStringList{"trace.json.gz"});
    QCOMPARE(childNames(model, model.index(0, 0)),
             (QStringList{"python3 (pid 101)", "python3 (pid 202)", "Spans"}));
    QCOMPARE(text(model, {}, 0, 2), QString());   // nothing on the timeline, no span
}

QTEST_MAIN(TstTrackTreeModel)
#include "tst_tracktreemodel.moc"
