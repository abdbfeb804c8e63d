// The distributed summary of a run of PyTorch rank traces: per-rank interval algebra, collective
// matching and stragglers on a hand-made 3-rank run (numbers worked out by hand below), the same
// on the real 8-rank fixtures against an independent union of intervals from the raw JSON, and
// the `distributed --json` contract.

#include "core/analysis/distributed/communicationkernels.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "core/io/traceloader.h"

#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace tracedesk;
using namespace tracedesk::core::analysis::distributed;

namespace {

constexpr qint64 kBase = 1700000000000000; // epoch µs, so the reader rebases every file
constexpr core::TimePs kUs = 1000000;

const char *const kAllReduce =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";

QString x(const QString &cat, const QString &name, int pid, int tid, double ts, double dur,
          const QString &args = {})
{
    return QString(R"({"ph":"X","cat":"%1","name":"%2","pid":%3,"tid":%4,"ts":%5,"dur":%6%7})")
        .arg(cat, name).arg(pid).arg(tid).arg(kBase + qint64(ts)) // whole µs only
        .arg(dur).arg(args.isEmpty() ? QString() : ",\"args\":" + args);
}

QString kernelArgs(int stream, int correlation, const QString &extra = {})
{
    return QString(R"({"device":0,"stream":%1,"correlation":%2%3})")
        .arg(stream).arg(correlation).arg(extra);
}

// Rank r: a step, compute kernels [10,40) and [70,80.5) on stream 7, all-reduce #0 [s0,60)
// and #1 [s1,e1) on stream 20. Rank 2 is late (s0 = 50, s1 = 90). Rank 1's first event is at
// +3 µs, so its file's clock origin differs from the others'. Rank 2 has no distributedInfo.
QByteArray rankFile(int rank)
{
    const double s0[] = {30, 35, 50};
    const double s1[] = {85, 85, 90};
    const double e1[] = {95, 97, 95};
    QStringList ev;
    ev << R"({"ph":"M","name":"process_name","pid":0,"tid":0,"ts":0,"args":{"name":"GPU 0"}})";
    ev << x("user_annotation", "ProfilerStep#1", 100, 1, rank == 1 ? 3 : 0, rank == 1 ? 97 : 100);
    if (rank == 0)
        ev << x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 0, 5, kernelArgs(7, 9));
    ev << x("kernel", "volta_sgemm_128x64_nn", 0, 7, 10, 30, kernelArgs(7, 1));
    ev << x("kernel", kAllReduce, 0, 20, s0[rank], 60 - s0[rank],
            kernelArgs(20, 2, R"(,"Collective name":"allreduce","In msg nelems":1024,"dtype":"Float")"));
    ev << x("kernel", "elementwise_kernel", 0, 7, 70, 10.5, kernelArgs(7, 3));
    ev << x("kernel", kAllReduce, 0, 20, s1[rank], e1[rank] - s1[rank], kernelArgs(20, 4));
    QString head = R"({"schemaVersion":1,"deviceProperties":[],)";
    if (rank != 2)
        head += QString(R"("distributedInfo":{"backend":"nccl","rank":%1,"world_size":3},)").arg(rank);
    return (head + "\"traceEvents\":[" + ev.join(",\n") + "]}").toUtf8();
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

core::LoadOptions noCache()
{
    core::LoadOptions o;
    o.useCache = false;
    return o;
}

std::vector<std::string> filesIn(const QString &dir)
{
    std::vector<std::string> files;
    for (const QString &name : QDir(dir).entryList(QDir::Files, QDir::Name))
        files.push_back((dir + "/" + name).toStdString());
    return files;
}

// A trace's µs time in ns, exact for epoch times (a double holds the µs, not their ns).
qint64 usToNs(double us)
{
    const double whole = std::floor(us);
    return qint64(whole) * 1000 + qRound64((us - whole) * 1000.0);
}

// Union length, in ns, of [start, end) ranges.
qint64 unionNs(std::vector<std::pair<qint64, qint64>> r)
{
    std::sort(r.begin(), r.end());
    qint64 total = 0, curStart = 0, curEnd = 0;
    bool open = false;
    for (auto [s, e] : r) {
        if (e <= s)
            continue;
        if (open && s <= curEnd) {
            curEnd = std::max(curEnd, e);
            continue;
        }
        if (open)
            total += curEnd - curStart;
        curStart = s, curEnd = e, open = true;
    }
    return open ? total + curEnd - curStart : total;
}

} // namespace

class TestDistributed : public QObject
{
    Q_OBJECT

private slots:
    void communicationNames();
    void rankFromFileNames();
    void handMadeRun();
    void handMadeStepsAndStats();
    void alignStep();
    void realRuns_data();
    void realRuns();
    void cliJsonContract();

private:
    QString writeHandMadeRun(QTemporaryDir &dir, bool withBroken);
};

void TestDistributed::communicationNames()
{
    QVERIFY(isCommunicationKernelName(kAllReduce));
    QVERIFY(isCommunicationKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"));
    QVERIFY(isCommunicationKernelName("void ncclKernel_AllGather_RING_LL<4>()"));
    QVERIFY(isCommunicationKernelName("rccl_something"));
    QVERIFY(isCommunicationKernelName("hcclAllReduce"));
    QVERIFY(!isCommunicationKernelName("hipMemcpyDtoD"));
    QVERIFY(!isCommunicationKernelName("volta_sgemm_128x64_nn"));
    QCOMPARE(collectiveKindFromName(kAllReduce), std::string("AllReduce"));
    QCOMPARE(std::string(kernelBaseName(kAllReduce)),
             std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    QCOMPARE(dtypeBytes("BFloat16"), int64_t(2));
    QCOMPARE(dtypeBytes("Float"), int64_t(4));
}

void TestDistributed::rankFromFileNames()
{
    QCOMPARE(rankFromFileName("/a/rank-3.Apr_03.1102.pt.trace.json.gz"), std::optional<int64_t>(3));
    QCOMPARE(rankFromFileName("x_rank_12.json"), std::optional<int64_t>(12));
    QCOMPARE(rankFromFileName("worker5_step_12.1694128201549.pt.trace.json.gz"),
             std::optional<int64_t>(5));
    QCOMPARE(rankFromFileName("megatron_kineto_7.json.gz"), std::optional<int64_t>(7));
    QCOMPARE(rankFromFileName("trace.json"), std::optional<int64_t>());
}

QString TestDistributed::writeHandMadeRun(QTemporaryDir &dir, bool withBroken)
{
    const QString path = dir.path();
    bool ok = writeFile(path + "/rank0.json", rankFile(0))
              && writeFile(path + "/rank1.json", rankFile(1))
              && writeFile(path + "/worker2.pt.trace.json", rankFile(2));
    if (withBroken)
        ok = ok && writeFile(path + "/rank3.json", "this is not a trace");
    return ok ? path : QString();
}

void TestDistributed::handMadeRun()
{
    QTemporaryDir dir;
    const QString path = writeHandMadeRun(dir, true);
    QVERIFY(!path.isEmpty());

    // The reader keeps each file's clock origin: rank 1's lies 3 µs after the others'.
    auto clockOrigin = [](const QString &file) -> int64_t {
        auto t = loadTrace(file.toStdString(), nullptr, noCache());
        return t ? t.value()->info.run.clockOriginNs : INT64_MIN;
    };
    const int64_t o0 = clockOrigin(path + "/rank0.json");
    const int64_t o1 = clockOrigin(path + "/rank1.json");
    QCOMPARE(o0, kBase * 1000);
    QCOMPARE(o1 - o0, int64_t(3000));

    const DistributedSummary run = summarizeRun(filesIn(path), nullptr, noCache(), {2, {}});
    QCOMPARE(run.errors.size(), size_t(1));
    QVERIFY(run.errors[0].file.ends_with("rank3.json"));
    QCOMPARE(run.ranks.size(), size_t(3));

    struct Expect { double comp, comm, overlap, exposed, idle; };
    // comp = 30 + 10.5; rank 0 comm [30,60)+[85,95), overlap [30,40), span [10,95) = 85, union
    // 50 + 10.5 + 10; rank 1 comm [35,60)+[85,97), overlap [35,40), span 87, union 50+10.5+12;
    // rank 2 comm [50,60)+[90,95), no overlap, span 85, union 30+10+10.5+5.
    const Expect expect[] = {{40.5, 40, 10, 30, 14.5}, {40.5, 37, 5, 32, 14.5},
                             {40.5, 15, 0, 15, 29.5}};
    for (int r = 0; r < 3; ++r) {
        const RankSummary &s = run.ranks[size_t(r)];
        QCOMPARE(s.rank, int64_t(r));
        QCOMPARE(s.rankGuessed, r == 2);
        QCOMPARE(s.stepCount, 1u);
        QCOMPARE(s.kernelCount, uint64_t(4));
        QCOMPARE(s.communicationKernelCount, uint64_t(2));
        QCOMPARE(s.computation, core::TimePs(expect[r].comp * kUs));
        QCOMPARE(s.communication, core::TimePs(expect[r].comm * kUs));
        QCOMPARE(s.overlap, core::TimePs(expect[r].overlap * kUs));
        QCOMPARE(s.exposedCommunication, core::TimePs(expect[r].exposed * kUs));
        QCOMPARE(s.idle, core::TimePs(expect[r].idle * kUs));
        QCOMPARE(s.collectives.size(), size_t(2));
    }
    QCOMPARE(run.ranks[0].collectives[0].kind, std::string("allreduce"));
    QCOMPARE(run.ranks[0].collectives[0].bytes, int64_t(4096));
    QCOMPARE(run.ranks[0].collectives[1].kind, std::string("AllReduce"));
    QCOMPARE(run.ranks[0].collectives[1].bytes, int64_t(-1));
    QVERIFY(!run.warnings.empty()); // rank 2 guessed from its file name

    QVERIFY(run.fullyMatched());
    QCOMPARE(run.collectives.size(), size_t(2));
    const MatchedCollective &c0 = run.collectives[0];
    QCOMPARE(c0.index, size_t(0));
    QCOMPARE(c0.name, std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    QCOMPARE(c0.ranks.size(), size_t(3));
    QCOMPARE(c0.startSpread, 20 * kUs); // 50 - 30
    QCOMPARE(c0.endSpread, core::TimePs(0));
    QCOMPARE(c0.lastRank, int64_t(2));
    QCOMPARE(c0.waitingCaused, 35 * kUs); // (50-30) + (50-35)
    QCOMPARE(c0.bytes, int64_t(4096));
    const MatchedCollective &c1 = run.collectives[1];
    QCOMPARE(c1.occurrence, size_t(1));
    QCOMPARE(c1.startSpread, 5 * kUs);  // 90 - 85
    QCOMPARE(c1.endSpread, 2 * kUs);    // 97 - 95
    QCOMPARE(c1.lastRank, int64_t(2));
    QCOMPARE(c1.waitingCaused, 10 * kUs);

    QCOMPARE(run.stragglers.size(), size_t(3));
    QCOMPARE(run.stragglers[0].rank, int64_t(2));
    QCOMPARE(run.stragglers[0].waitingCaused, 45 * kUs);
    QCOMPARE(run.stragglers[0].collectivesLast, size_t(2));
    QCOMPARE(run.stragglers[1].waitingCaused, core::TimePs(0));
}

void TestDistributed::handMadeStepsAndStats()
{
    QTemporaryDir dir;
    const QString path = writeHandMadeRun(dir, false);
    QVERIFY(!path.isEmpty());
    const DistributedSummary run = summarizeRun(filesIn(path), nullptr, noCache());
    QCOMPARE(run.ranks.size(), size_t(3));
    // No launches in these files, so each step is its ProfilerStep#1 marker: [0, 100) on ranks
    // 0 and 2, [0, 97) on rank 1's own clock (its marker and origin both lie at +3 µs). Step
    // time - union of the kernels inside: rank 0 100 - 70.5, rank 1 97 - 72.5, rank 2
    // 100 - 55.5; the other numbers equal the whole-trace ones (every kernel is in the step).
    const double idle[] = {29.5, 24.5, 44.5};
    const double duration[] = {100, 97, 100};
    for (int r = 0; r < 3; ++r) {
        const RankSummary &s = run.ranks[size_t(r)];
        QCOMPARE(s.steps.size(), size_t(1));
        const RankStep &st = s.steps.front();
        QCOMPARE(st.name, std::string("1"));
        QCOMPARE(double(st.duration()) / kUs, duration[r]);
        QCOMPARE(st.computation, s.computation);
        QCOMPARE(st.communication, s.communication);
        QCOMPARE(st.overlap, s.overlap);
        QCOMPARE(st.exposedCommunication, s.exposedCommunication);
        QCOMPARE(double(st.idle) / kUs, idle[r]);
    }
    // One kernel name: two all-reduces per rank lasting 30 + 10, 25 + 12 and 10 + 5 µs; only
    // the first carries a size, 1024 Float elements = 4096 bytes.
    QCOMPARE(run.collectiveStats.size(), size_t(1));
    const CollectiveStats &stats = run.collectiveStats.front();
    QCOMPARE(stats.name, std::string(kernelBaseName(kAllReduce)));
    QCOMPARE(stats.all.count, uint64_t(6));
    QCOMPARE(double(stats.all.total) / kUs, 92.0);
    QCOMPARE(stats.all.bytes, int64_t(3 * 4096));
    QCOMPARE(stats.perRank.size(), size_t(3));
    const double perRank[] = {40, 37, 15};
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(stats.perRank[size_t(r)].rank, int64_t(r));
        QCOMPARE(stats.perRank[size_t(r)].count, uint64_t(2));
        QCOMPARE(double(stats.perRank[size_t(r)].total) / kUs, perRank[r]);
        QCOMPARE(stats.perRank[size_t(r)].bytes, int64_t(4096));
    }
}

void TestDistributed::alignStep()
{
    QTemporaryDir dir;
    const QString path = writeHandMadeRun(dir, false);
    QVERIFY(!path.isEmpty());
    // On the files' clocks rank 1's step starts 3 µs after the others' and its first
    // all-reduce at 35 µs; aligned at step 1 its step starts with theirs, so the all-reduce
    // moves to 32 µs.
    auto firstStart = [](const DistributedSummary &run, int64_t rank) {
        const MatchedCollective &c = run.collectives.front();
        for (size_t i = 0; i < c.ranks.size(); ++i) {
            if (c.ranks[i] == rank)
                return double(c.starts[i]) / kUs;
        }
        return -1.0;
    };
    const DistributedSummary plain = summarizeRun(filesIn(path), nullptr, noCache());
    QCOMPARE(plain.ranks[1].steps.front().hostStart + plain.ranks[1].clockShift, 3 * kUs);
    QCOMPARE(firstStart(plain, 1), 35.0);
    SummarizeOptions align;
    align.alignStep = "1";
    const DistributedSummary aligned = summarizeRun(filesIn(path), nullptr, noCache(), align);
    QCOMPARE(aligned.alignStep, std::string("1"));
    for (const RankSummary &r : aligned.ranks)
        QCOMPARE(r.steps.front().hostStart + r.clockShift, core::TimePs(0));
    QCOMPARE(firstStart(aligned, 1), 32.0);
    QCOMPARE(firstStart(aligned, 0), 30.0);
    align.alignStep = "7";
    const DistributedSummary missing = summarizeRun(filesIn(path), nullptr, noCache(), align);
    QVERIFY(missing.alignStep.empty());
    QVERIFY(!missing.warnings.empty());

    // The merged timeline: the ProfilerStep#1 slices of the three ranks start together only
    // when aligned.
    auto stepStarts = [&](const std::string &step) {
        core::LoadOptions options = noCache();
        options.alignStep = step;
        std::vector<core::TimePs> starts;
        auto loaded = core::loadTrace(path.toStdString(), nullptr, options);
        if (!loaded)
            return starts;
        const core::Trace &t = *loaded.value();
        for (uint32_t k = 0; k < t.tracks.size(); ++k) {
            for (const core::Row &row : t.tracks[k].rows) {
                for (size_t i = 0; i < row.size(); ++i) {
                    if (t.string(t.kinds[row.kind[i]].name) == "ProfilerStep#1")
                        starts.push_back(row.start[i]);
                }
            }
        }
        std::sort(starts.begin(), starts.end());
        return starts;
    };
    const std::vector<core::TimePs> unaligned = stepStarts({});
    QCOMPARE(unaligned.size(), size_t(3));
    QCOMPARE(unaligned.back() - unaligned.front(), 3 * kUs);
    const std::vector<core::TimePs> together = stepStarts("1");
    QCOMPARE(together.size(), size_t(3));
    QCOMPARE(together.back(), together.front());
}

void TestDistributed::realRuns_data()
{
    QTest::addColumn<QString>("dir");
    QTest::newRow("dlrm") << QString(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");
    QTest::newRow("megatron") << QString(TRACEDESK_SHARED_FIXTURES "/multirank/astrasim__megatron-tp8");
}

void TestDistributed::realRuns()
{
    QFETCH(QString, dir);
    TRACEDESK_REQUIRE_FIXTURE(dir);
    const std::vector<std::string> files = filesIn(dir);
    QCOMPARE(files.size(), size_t(8));
    const DistributedSummary run = summarizeRun(files, nullptr, noCache(), {2, {}});
    QVERIFY(run.errors.empty());
    QCOMPARE(run.ranks.size(), size_t(8));
    QVERIFY(run.fullyMatched());

    static const QRegularExpression comm("^nccl|ncclKernel|ncclDevKernel|^rccl|^hccl");
    QHash<QString, qint64> countByName, durationByName;
    for (const RankSummary &s : run.ranks) {
        const QJsonObject top = testsupport::readFixtureObject(QString::fromStdString(s.file));
        QCOMPARE(s.rank, int64_t(top["distributedInfo"].toObject()["rank"].toInt()));
        const QJsonArray events = top["traceEvents"].toArray();
        double base = 0;
        bool haveBase = false;
        std::vector<std::pair<qint64, qint64>> compute, communication;
        // The same kernels on the rank's own clock (ns after its origin), for the steps.
        std::vector<std::pair<qint64, qint64>> computeAbs, communicationAbs;
        std::vector<qint64> markerStarts;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            const QString cat = e["cat"].toString().toLower();
            if (e["ph"].toString() == "X" && e["name"].toString().startsWith("ProfilerStep#"))
                markerStarts.push_back(usToNs(e["ts"].toDouble()) - s.originNs);
            if (e["ph"].toString() != "X" || cat != "kernel")
                continue;
            const QString name = e["name"].toString();
            const qint64 absStart = usToNs(e["ts"].toDouble()) - s.originNs;
            const qint64 absEnd = absStart + qRound64(e["dur"].toDouble() * 1000.0);
            const bool isComm = comm.match(name).hasMatch();
            (isComm ? communicationAbs : computeAbs).push_back({absStart, absEnd});
            if (isComm) {
                const QString base = name.left(name.indexOf('(')).trimmed();
                ++countByName[base];
                durationByName[base] += qRound64(e["dur"].toDouble() * 1000.0);
            }
            const double ts = e["ts"].toDouble();
            if (!haveBase)
                base = ts, haveBase = true;
            const qint64 start = qRound64((ts - base) * 1000.0);
            const qint64 end = start + qRound64(e["dur"].toDouble() * 1000.0);
            (comm.match(e["name"].toString()).hasMatch() ? communication : compute)
                .push_back({start, end});
        }
        QCOMPARE(s.kernelCount, uint64_t(compute.size() + communication.size()));
        QCOMPARE(s.communicationKernelCount, uint64_t(communication.size()));
        QCOMPARE(s.collectives.size(), communication.size());
        QCOMPARE(s.computation / 1000, unionNs(compute));
        QCOMPARE(s.communication / 1000, unionNs(communication));
        QCOMPARE(s.stepCount, 1u);

        // The step: it starts at its ProfilerStep# marker or later (moved by its GPU work,
        // pytorchsteps.h); inside it, the same algebra over the
        // raw kernels clipped to it (overlap = |C| + |M| - |C u M|).
        QCOMPARE(s.steps.size(), size_t(1));
        const RankStep &st = s.steps.front();
        QCOMPARE(markerStarts.size(), size_t(1));
        QCOMPARE(st.hostStart / 1000, markerStarts.front());
        QVERIFY(st.start >= st.hostStart);
        auto clip = [&](std::vector<std::pair<qint64, qint64>> r) {
            for (auto &[a, b] : r)
                a = std::max(a, qint64(st.start / 1000)), b = std::min(b, qint64(st.end / 1000));
            return r;
        };
        const qint64 c = unionNs(clip(computeAbs));
        const qint64 m = unionNs(clip(communicationAbs));
        std::vector<std::pair<qint64, qint64>> all = clip(computeAbs);
        for (const auto &p : clip(communicationAbs))
            all.push_back(p);
        const qint64 u = unionNs(all);
        QCOMPARE(st.computation / 1000, c);
        QCOMPARE(st.communication / 1000, m);
        QCOMPARE(st.overlap / 1000, c + m - u);
        QCOMPARE(st.exposedCommunication / 1000, m - (c + m - u));
        QCOMPARE(st.idle / 1000, st.duration() / 1000 - u);
    }
    // Collective stats per kernel name against the raw count over all ranks.
    QCOMPARE(run.collectiveStats.size(), size_t(countByName.size()));
    for (const CollectiveStats &cs : run.collectiveStats) {
        const QString name = QString::fromStdString(cs.name);
        QCOMPARE(cs.all.count, uint64_t(countByName.value(name)));
        QCOMPARE(cs.all.total / 1000, durationByName.value(name));
        QCOMPARE(cs.perRank.size(), size_t(8));
    }
    // Every collective on all 8 ranks, as many as each rank's communication kernels.
    QCOMPARE(run.collectives.size(), run.ranks.front().collectives.size());
    for (const MatchedCollective &c : run.collectives)
        QCOMPARE(c.ranks.size(), size_t(8));
    QCOMPARE(run.stragglers.size(), size_t(8));
    QVERIFY(run.stragglers.front().waitingCaused > 0);
    qInfo("%s: top straggler rank %lld, %.3f us caused", qPrintable(dir),
          (long long)run.stragglers.front().rank, double(run.stragglers.front().waitingCaused) / 1e6);
}

void TestDistributed::cliJsonContract()
{
    QTemporaryDir dir;
    const QString path = writeHandMadeRun(dir, true);
    QVERIFY(!path.isEmpty());
    const clitest::CliRun run = clitest::runCli({"distributed", path, "--json", "--no-cache"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject top = QJsonDocument::fromJson(run.out).object();
    QVERIFY2(!top.isEmpty(), run.out.constData());
    const QJsonArray ranks = top["ranks"].toArray();
    QCOMPARE(ranks.size(), 3);
    for (const char *key : {"rank", "file", "step_count", "kernel_count",
                            "communication_kernel_count", "computation_us", "communication_us",
                            "overlap_us", "exposed_communication_us", "idle_us"})
        QVERIFY2(ranks[0].toObject().contains(key), key);
    QCOMPARE(ranks[1].toObject()["communication_us"].toDouble(), 37.0);
    QCOMPARE(ranks[2].toObject()["idle_us"].toDouble(), 29.5);
    const QJsonArray collectives = top["collectives"].toArray();
    QCOMPARE(collectives.size(), 2);
    for (const char *key : {"index", "name", "ranks", "start_spread_us", "end_spread_us", "last_rank"})
        QVERIFY2(collectives[0].toObject().contains(key), key);
    QCOMPARE(collectives[0].toObject()["ranks"].toInt(), 3);
    QCOMPARE(collectives[0].toObject()["start_spread_us"].toDouble(), 20.0);
    QCOMPARE(collectives[0].toObject()["last_rank"].toInt(), 2);
    const QJsonArray stragglers = top["stragglers"].toArray();
    QCOMPARE(stragglers.size(), 3);
    QCOMPARE(stragglers[0].toObject()["rank"].toInt(), 2);
    QCOMPARE(stragglers[0].toObject()["waiting_caused_us"].toDouble(), 45.0);
    // Keys added next to the contract: per-step times and per-name collective stats.
    const QJsonArray steps = ranks[2].toObject()["steps"].toArray();
    QCOMPARE(steps.size(), 1);
    QCOMPARE(steps[0].toObject()["step"].toString(), QStringLiteral("1"));
    QCOMPARE(steps[0].toObject()["step_time_us"].toDouble(), 100.0);
    QCOMPARE(steps[0].toObject()["idle_us"].toDouble(), 44.5);
    const QJsonArray stats = top["collective_stats"].toArray();
    QCOMPARE(stats.size(), 1);
    QCOMPARE(stats[0].toObject()["count"].toInt(), 6);
    QCOMPARE(stats[0].toObject()["total_us"].toDouble(), 92.0);
    QVERIFY(qAbs(stats[0].toObject()["mean_us"].toDouble() - 92.0 / 6) < 1e-6);
    QCOMPARE(stats[0].toObject()["per_rank"].toArray().size(), 3);
    QVERIFY(top["align_step"].isNull());
    const clitest::CliRun aligned =
        clitest::runCli({"distributed", path, "--json", "--no-cache", "--align-step", "1"});
    QCOMPARE(aligned.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(aligned.out).object()["align_step"].toString(),
             QStringLiteral("1"));
    const QJsonArray errors = top["errors"].toArray();
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors[0].toObject()["file"].toString().endsWith("rank3.json"));

    const clitest::CliRun text = clitest::runCli({"distributed", path, "--no-cache"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("Stragglers"));
    const clitest::CliRun usage = clitest::runCli({"distributed"});
    QCOMPARE(usage.exitCode, 2);
}

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
