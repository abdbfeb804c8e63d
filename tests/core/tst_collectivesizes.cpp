// Collective message sizes: a communication kernel without a size of its own takes it from the
// CPU ops it was launched from (collectiveargs.h): record_param_comms' msg fields, else the
// `nccl:` annotation's Input Dims x Input type. Hand-made traces pin the order of the sources;
// on the real DLRM and Megatron runs the bytes per rank and kernel name equal a sum worked out
// here from each raw file (kernel -> its launch by correlation -> the innermost `nccl:`
// annotation around the launch -> product of dims x element size).

#include "core/analysis/distributed/collectiveargs.h"
#include "core/analysis/distributed/distributedsummary.h"

#include "support/kinetofixtures.h"

#include <QDir>
#include <QHash>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core::analysis::distributed;

namespace {

const char *const kAllReduce =
    "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

// Rank 0 of a run: three all-reduce kernels, each launched inside c10d::allreduce_ >
// record_param_comms > nccl:all_reduce on thread 10; the kernels' External ids name no op (as
// in the real traces). #0's record_param_comms has msg fields (1000 Half), #1's has none and
// its annotation has Input Dims [[8, 16]] c10::Half, #2 has no size anywhere (a TensorList).
QByteArray handMadeRank()
{
    QStringList ev;
    auto x = [&](const char *cat, const QString &name, int tid, int ts, int dur,
                 const QString &args) {
        ev << QString(R"({"ph":"X","cat":"%1","name":"%2","pid":%3,"tid":%4,"ts":%5,)"
                      R"("dur":%6,"args":{%7}})")
                  .arg(QString::fromLatin1(cat), name)
                  .arg(tid == 7 ? 0 : 1)
                  .arg(tid)
                  .arg(ts)
                  .arg(dur)
                  .arg(args);
    };
    const QString rpc[] = {
        R"("Input Dims":[[[8, 16]], []],"Input type":["TensorList","Scalar"],)"
        R"("In msg nelems":1000,"Out msg nelems":1000,"dtype":"Half")",
        R"("Input Dims":[[[8, 16]], []],"Input type":["TensorList","Scalar"])",
        R"("Input Dims":[[[8, 16]], []],"Input type":["TensorList","Scalar"])"};
    const QString annotation[] = {R"("Input Dims":[[4]],"Input type":["float"])",
                                  R"("Input Dims":[[8, 16]],"Input type":["c10::Half"])",
                                  R"("Input Dims":[[[8, 16]]],"Input type":["TensorList"])"};
    x("user_annotation", "ProfilerStep#1", 10, 0, 1000, R"("External id":1)");
    for (int i = 0; i < 3; ++i) {
        const int t = 100 + 200 * i;
        x("cpu_op", "c10d::allreduce_", 10, t, 100, QString(R"("External id":%1)").arg(10 * i + 2));
        x("cpu_op", "record_param_comms", 10, t + 10, 80,
          QString(R"("External id":%1,%2)").arg(10 * i + 3).arg(rpc[i]));
        x("user_annotation", "nccl:all_reduce", 10, t + 20, 60,
          QString(R"("External id":%1,%2)").arg(10 * i + 4).arg(annotation[i]));
        x("cuda_runtime", "cudaLaunchKernelExC", 10, t + 30, 10,
          QString(R"("External id":%1,"correlation":%1)").arg(900 + i));
        x("kernel", kAllReduce, 7, t + 50, 40,
          QString(R"("External id":%1,"device":0,"stream":7,"correlation":%1)").arg(900 + i));
    }
    return (R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":0,"world_size":1},)"
            "\"traceEvents\":[" + ev.join(",\n") + "]}").toUtf8();
}

qint64 elementSize(const QString &type)
{
    static const QHash<QString, qint64> sizes = {
        {"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2}, {"long int", 8},
        {"long", 8}, {"int", 4}, {"unsigned char", 1}, {"signed char", 1}, {"bool", 1}};
    return sizes.value(type, 0);
}

// Bytes per kernel base name in one raw rank file, by the rule in the header comment.
QHash<QString, qint64> rawBytesByName(const QString &file, int *rank)
{
    const QJsonObject top = testsupport::readFixtureObject(file);
    *rank = top["distributedInfo"].toObject()["rank"].toInt(-1);
    QList<QJsonObject> annotations;
    QHash<qint64, QJsonObject> runtimes;
    QList<QJsonObject> kernels;
    for (const QJsonValue &v : top["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        if (e["ph"].toString() != "X")
            continue;
        const QString cat = e["cat"].toString().toLower();
        if (e["name"].toString().startsWith("nccl:"))
            annotations << e;
        else if (cat == "cuda_runtime" || cat == "cuda_driver")
            runtimes.insert(e["args"].toObject()["correlation"].toInteger(), e);
        else if (cat == "kernel" && e["name"].toString().contains("ncclKernel"))
            kernels << e;
        else if (cat == "kernel" && e["name"].toString().contains("ncclDevKernel"))
            kernels << e;
    }
    QHash<QString, qint64> bytes;
    for (const QJsonObject &k : kernels) {
        const QJsonObject rt = runtimes.value(k["args"].toObject()["correlation"].toInteger());
        if (rt.isEmpty())
            continue;
        const double from = rt["ts"].toDouble(), to = from + rt["dur"].toDouble();
        const QJsonObject *inner = nullptr;
        for (const QJsonObject &a : annotations) {
            if (a["pid"] != rt["pid"] || a["tid"] != rt["tid"])
                continue;
            const double s = a["ts"].toDouble(), e = s + a["dur"].toDouble();
            if (s <= from && e >= to && (!inner || s > (*inner)["ts"].toDouble()))
                inner = &a;
        }
        if (!inner)
            continue;
        const QJsonArray dims = (*inner)["args"].toObject()["Input Dims"].toArray();
        const QJsonArray types = (*inner)["args"].toObject()["Input type"].toArray();
        qint64 size = 0;
        for (int i = 0; i < dims.size() && i < types.size(); ++i) {
            qint64 n = 1;
            for (const QJsonValue &d : dims[i].toArray())
                n *= d.toInteger();
            size += n * elementSize(types[i].toString());
        }
        const QString name = k["name"].toString();
        bytes[name.left(name.indexOf('(')).trimmed()] += size;
    }
    return bytes;
}

} // namespace

class TestCollectiveSizes : public QObject
{
    Q_OBJECT

private slots:
    void inputSizes();
    void handMadeSources();
    void realRuns_data();
    void realRuns();
};

void TestCollectiveSizes::inputSizes()
{
    const auto half = inputSize("[[4, 2048, 4096]]", R"(["c10::Half"])");
    QVERIFY(half);
    QCOMPARE(half->bytes, int64_t(4) * 2048 * 4096 * 2);
    QCOMPARE(half->elements, int64_t(4) * 2048 * 4096);
    QCOMPARE(std::string(half->type), std::string("c10::Half"));
    // Scalars and non-tensor inputs add nothing; a 0-d tensor is one element.
    const auto mixed = inputSize("[[6144], [], [], []]", R"(["float", "Scalar", "", "long int"])");
    QVERIFY(mixed);
    QCOMPARE(mixed->bytes, int64_t(6144 * 4 + 8));
    // A TensorList (nested shapes) has no element type: no size.
    QVERIFY(!inputSize("[[[4, 2048, 4096]], []]", R"(["TensorList", "Scalar"])"));
    QVERIFY(!inputSize("[[], [], []]", R"(["Scalar", "Scalar", ""])"));
    QVERIFY(!inputSize("not json", R"(["float"])"));
    QVERIFY(!inputSize("[[1, 2]", R"(["float"])"));
    QCOMPARE(elementBytes("unsigned char"), int64_t(1));
    QCOMPARE(elementBytes("BFloat16"), int64_t(2));
    QCOMPARE(elementBytes("TensorList"), int64_t(0));
}

void TestCollectiveSizes::handMadeSources()
{
    const QByteArray json = handMadeRank();
    const auto trace = testsupport::loadText(json.toStdString());
    QVERIFY(trace);
    const RankSummary rank = summarizeRank(*trace, "rank0.json");
    QCOMPARE(rank.collectives.size(), size_t(3));
    // #0: record_param_comms' msg fields win over the annotation's Input Dims.
    QCOMPARE(rank.collectives[0].inElements, int64_t(1000));
    QCOMPARE(rank.collectives[0].dtype, std::string("Half"));
    QCOMPARE(rank.collectives[0].bytes, int64_t(2000));
    // #1: no msg fields; the innermost collective node with a size, the annotation.
    QCOMPARE(rank.collectives[1].bytes, int64_t(8 * 16 * 2));
    QCOMPARE(rank.collectives[1].inElements, int64_t(8 * 16));
    // #2: nothing gives a size.
    QCOMPARE(rank.collectives[2].bytes, int64_t(-1));
    for (const CollectiveRecord &c : rank.collectives)
        QCOMPARE(c.kind, std::string("AllReduce"));
    const DistributedSummary run = combineRanks({rank});
    QCOMPARE(run.collectiveStats.size(), size_t(1));
    QCOMPARE(run.collectiveStats[0].all.bytes, int64_t(2000 + 256));
}

void TestCollectiveSizes::realRuns_data()
{
    QTest::addColumn<QString>("dir");
    QTest::newRow("dlrm") << QString(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");
    QTest::newRow("megatron")
        << QString(TRACEDESK_SHARED_FIXTURES "/multirank/astrasim__megatron-tp8");
}

void TestCollectiveSizes::realRuns()
{
    QFETCH(QString, dir);
    TRACEDESK_REQUIRE_FIXTURE(dir);
    std::vector<std::string> files;
    for (const QString &name : QDir(dir).entryList(QDir::Files, QDir::Name))
        files.push_back((dir + "/" + name).toStdString());
    core::LoadOptions options;
    options.useCache = false;
    SummarizeOptions summarize;
    summarize.parallel = 2;
    const DistributedSummary run = summarizeRun(files, nullptr, options, summarize);
    QCOMPARE(run.ranks.size(), size_t(8));
    QVERIFY(!run.collectiveStats.empty());

    // Two ranks' files against the stats per rank and name.
    QHash<QString, qint64> total;
    for (const size_t file : {size_t(1), size_t(6)}) {
        int rank = -1;
        const QHash<QString, qint64> raw =
            rawBytesByName(QString::fromStdString(files[file]), &rank);
        QVERIFY(rank >= 0);
        QVERIFY(!raw.isEmpty());
        for (const CollectiveStats &s : run.collectiveStats) {
            const QString name = QString::fromStdString(s.name);
            QVERIFY2(raw.contains(name), qPrintable(name));
            const auto it = std::find_if(s.perRank.begin(), s.perRank.end(),
                                         [&](const CollectiveCount &c) { return c.rank == rank; });
            QVERIFY(it != s.perRank.end());
            QVERIFY(raw.value(name) > 0);
            QCOMPARE(it->bytes, raw.value(name));
        }
    }
    // Every collective kernel has a size, so the run's totals are the per-rank sums.
    for (const RankSummary &r : run.ranks) {
        for (const CollectiveRecord &c : r.collectives)
            QVERIFY2(c.bytes > 0, c.name.c_str());
    }
    for (const CollectiveStats &s : run.collectiveStats) {
        int64_t sum = 0;
        for (const CollectiveCount &c : s.perRank)
            sum += c.bytes;
        QCOMPARE(s.all.bytes, sum);
    }
}

QTEST_GUILESS_MAIN(TestCollectiveSizes)
#include "tst_collectivesizes.moc"
