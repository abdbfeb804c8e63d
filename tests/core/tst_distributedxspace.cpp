// The distributed summary of a generated multi-host XSpace run (generateXSpaceRun): one rank per
// host, the kernels of its GPU streams, its Steps line, the all-reduces matched across hosts and
// the deliberately slow host named the top straggler — per file (the CLI's way), over the merged
// run folder (the panel's way), and through `tracedesk-cli distributed`. Numbers are checked
// against the generator's documented shape and against unions counted here from the store's
// raw slices.

#include "core/analysis/distributed/communicationkernels.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "core/generate/xspacerungenerator.h"
#include "core/io/traceloader.h"

#include "support/clirun.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace tracedesk;
using namespace tracedesk::core::analysis::distributed;

namespace {

constexpr int kHosts = 4;
constexpr int kSlow = 2;
// Per step: 4 buckets of 8 compute kernels and one all-reduce (xspacerungenerator.h).
constexpr uint64_t kKernelsPerStep = 4 * 9;
constexpr uint64_t kCollectivesPerStep = 4;

core::LoadOptions noCache()
{
    core::LoadOptions o;
    o.useCache = false;
    return o;
}

using Ranges = std::vector<std::pair<core::TimePs, core::TimePs>>;

core::TimePs unionLength(Ranges r)
{
    std::sort(r.begin(), r.end());
    core::TimePs total = 0, curStart = 0, curEnd = 0;
    bool open = false;
    for (auto [s, e] : r) {
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

// The slices of the lines named `line` on planes of `host` (all hosts when empty), clipped.
Ranges slicesOn(const core::Trace &t, const std::string &host, std::string_view line,
                core::TimePs from = INT64_MIN, core::TimePs to = INT64_MAX)
{
    Ranges out;
    for (const core::Track &track : t.tracks) {
        if (t.string(track.name) != line
            || (!host.empty() && t.string(t.planes[track.plane].host) != host))
            continue;
        for (const core::Row &row : track.rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                const core::TimePs s = std::max(row.start[i], from);
                const core::TimePs e = std::min(row.end(i), to);
                if (e > s)
                    out.push_back({s, e});
            }
        }
    }
    return out;
}

} // namespace

class TestDistributedXSpace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void communicationOpNames();
    void perHostFiles();
    void mergedRunFolder();
    void cli();

private:
    QTemporaryDir m_dir;
    QString m_run;
    core::XSpaceRunStats m_stats;
};

void TestDistributedXSpace::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_run = m_dir.filePath(QStringLiteral("run"));
    core::XSpaceRunOptions options;
    options.ranks = kHosts;
    options.slowRank = kSlow;
    options.eventsPerRank = 1500;
    options.seed = 3;
    auto generated = core::generateXSpaceRun(options, m_run.toStdString());
    QVERIFY2(generated, generated ? "" : generated.message().c_str());
    m_stats = generated.value();
    QCOMPARE(m_stats.files.size(), size_t(kHosts));
    QCOMPARE(m_stats.collectivesPerRank, m_stats.steps * kCollectivesPerStep);
    // Existing files are refused.
    QVERIFY(!core::generateXSpaceRun(options, m_run.toStdString()));
}

void TestDistributedXSpace::communicationOpNames()
{
    for (const char *name : {"all-reduce.12", "all-gather-start", "reduce-scatter.1",
                             "all-to-all", "collective-permute-done", "send.3", "recv-done",
                             "AllReduce", "ncclDevKernel_AllGather_RING_LL", "rcclAllReduce"})
        QVERIFY2(isCommunicationOpName(name), name);
    for (const char *name : {"fusion.3", "sendmsg_wrapper", "convolution", "recovery",
                             "MemcpyD2D", "volta_sgemm_128x64_nn"})
        QVERIFY2(!isCommunicationOpName(name), name);
}

void TestDistributedXSpace::perHostFiles()
{
    const DistributedSummary run = summarizeRun(m_stats.files, nullptr, noCache(), {2, {}});
    QVERIFY(run.errors.empty());
    QCOMPARE(run.ranks.size(), size_t(kHosts));
    for (int r = 0; r < kHosts; ++r) {
        const RankSummary &s = run.ranks[size_t(r)];
        QCOMPARE(s.rank, int64_t(r)); // worker<r>.xplane.pb
        QCOMPARE(uint64_t(s.stepCount), m_stats.steps);
        QCOMPARE(s.kernelCount, m_stats.steps * kKernelsPerStep);
        QCOMPARE(s.communicationKernelCount, m_stats.collectivesPerRank);

        // Against the store's own lines, counted here.
        auto loaded = core::loadTrace(m_stats.files[size_t(r)], nullptr, noCache());
        QVERIFY(loaded);
        const core::Trace &t = *loaded.value();
        const Ranges compute = slicesOn(t, {}, "Stream #7(Compute)");
        const Ranges comm = slicesOn(t, {}, "Stream #20(nccl)");
        QCOMPARE(s.computation, unionLength(compute));
        QCOMPARE(s.communication, unionLength(comm));
        Ranges all = compute;
        all.insert(all.end(), comm.begin(), comm.end());
        QCOMPARE(s.overlap, s.computation + s.communication - unionLength(all));
        // Each step: step time = its kernels' union + idle.
        for (const RankStep &st : s.steps) {
            Ranges inStep = slicesOn(t, {}, "Stream #7(Compute)", st.start, st.end);
            const Ranges commIn = slicesOn(t, {}, "Stream #20(nccl)", st.start, st.end);
            QCOMPARE(st.communication, unionLength(commIn));
            inStep.insert(inStep.end(), commIn.begin(), commIn.end());
            QCOMPARE(st.idle, st.duration() - unionLength(inStep));
        }
    }
    QCOMPARE(run.collectives.size(), size_t(m_stats.collectivesPerRank));
    QVERIFY(run.fullyMatched());
    QCOMPARE(run.stragglers.front().rank, int64_t(kSlow));
    QCOMPARE(run.stragglers.front().collectivesLast, size_t(m_stats.collectivesPerRank));
    QCOMPARE(run.collectiveStats.size(), size_t(1));
    QCOMPARE(run.collectiveStats.front().all.count, m_stats.collectivesPerRank * kHosts);
}

void TestDistributedXSpace::mergedRunFolder()
{
    auto loaded = core::loadTrace(m_run.toStdString(), nullptr, noCache());
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const core::Trace &t = *loaded.value();
    QVERIFY(isMergedRankRun(t));
    const DistributedSummary run = summarizeMergedRun(t);
    QCOMPARE(run.ranks.size(), size_t(kHosts));
    for (int r = 0; r < kHosts; ++r) {
        const RankSummary &s = run.ranks[size_t(r)];
        QCOMPARE(s.rank, int64_t(r));
        QCOMPARE(s.host, "worker" + std::to_string(r));
        QCOMPARE(s.communication, unionLength(slicesOn(t, s.host, "Stream #20(nccl)")));
        QCOMPARE(uint64_t(s.steps.size()), m_stats.steps);
    }
    QVERIFY(run.fullyMatched());
    QCOMPARE(run.collectives.size(), size_t(m_stats.collectivesPerRank));
    QCOMPARE(run.stragglers.front().rank, int64_t(kSlow));
    // The refs name each host's kernel in the merged store.
    const MatchedCollective &c = run.collectives.front();
    for (size_t i = 0; i < c.refs.size(); ++i) {
        QCOMPARE(t.start(c.refs[i]), c.starts[i]);
        QVERIFY(isCommunicationOpName(t.name(c.refs[i])));
    }
}

void TestDistributedXSpace::cli()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("gen"));
    const clitest::CliRun gen = clitest::runCli({"generate", "--format", "xspace", "--ranks", "3",
                                                 "--slow-rank", "0", "--events", "800", out});
    QVERIFY2(gen.exitCode == 0, gen.err.constData());
    QCOMPARE(QDir(out).entryList({"*.xplane.pb"}, QDir::Files).size(), 3);
    const clitest::CliRun run = clitest::runCli({"distributed", out, "--json", "--no-cache"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject top = QJsonDocument::fromJson(run.out).object();
    QCOMPARE(top["ranks"].toArray().size(), 3);
    QCOMPARE(top["stragglers"].toArray()[0].toObject()["rank"].toInt(), 0);
    QVERIFY(!top["collective_stats"].toArray().isEmpty());
    const clitest::CliRun bad = clitest::runCli(
        {"generate", "--format", "json", "--ranks", "2", "--events", "10", dir.filePath("x")});
    QCOMPARE(bad.exitCode, 2);
}

QTEST_GUILESS_MAIN(TestDistributedXSpace)
#include "tst_distributedxspace.moc"
