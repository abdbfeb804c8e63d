// The distributed summary of a whole run when only part of it is open: the summary made rank by
// rank from the files (summarizeRun, the path a run larger than memory takes) equals the one
// made from the merged store (summarizeMergedRun) number for number, and its kernel counts equal
// the ones counted here from the raw JSON; a rank subset summarises only those ranks; the run
// view of a trace holding ranks 1 and 3 covers all four ranks and points each shown rank and
// collective at the trace's own slices; `tracedesk-cli distributed --ranks`.

#include "core/analysis/distributed/communicationkernels.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/runview.h"
#include "core/generate/kinetorungenerator.h"
#include "core/generate/xspacerungenerator.h"
#include "core/io/traceloader.h"
#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core;
using namespace tracedesk::core::analysis::distributed;

namespace {

constexpr int kRanks = 4;
constexpr int kSlow = 2;

LoadOptions noCache()
{
    LoadOptions o;
    o.useCache = false;
    return o;
}

// Kernels and NCCL kernels a Kineto file holds, from the raw JSON (cat "kernel").
std::pair<uint64_t, uint64_t> rawKernels(const std::string &file)
{
    const QJsonObject top = testsupport::readFixtureObject(QString::fromStdString(file));
    uint64_t kernels = 0, nccl = 0;
    for (const QJsonValue &v : top["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        if (e["ph"].toString() != QLatin1String("X") || e["cat"].toString() != QLatin1String("kernel"))
            continue;
        ++kernels;
        nccl += e["name"].toString().startsWith(QLatin1String("nccl")) ? 1 : 0;
    }
    return {kernels, nccl};
}

void compareRanks(const RankSummary &a, const RankSummary &b)
{
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.stepCount, b.stepCount);
    QCOMPARE(a.kernelCount, b.kernelCount);
    QCOMPARE(a.communicationKernelCount, b.communicationKernelCount);
    QCOMPARE(a.computation, b.computation);
    QCOMPARE(a.communication, b.communication);
    QCOMPARE(a.overlap, b.overlap);
    QCOMPARE(a.exposedCommunication, b.exposedCommunication);
    QCOMPARE(a.idle, b.idle);
    QCOMPARE(a.steps.size(), b.steps.size());
    for (size_t s = 0; s < a.steps.size(); ++s) {
        QCOMPARE(a.steps[s].name, b.steps[s].name);
        QCOMPARE(a.steps[s].duration(), b.steps[s].duration());
        QCOMPARE(a.steps[s].communication, b.steps[s].communication);
        QCOMPARE(a.steps[s].idle, b.steps[s].idle);
    }
}

} // namespace

class TestDistributedRun : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void rankByRankEqualsMerged();
    void subsetSummary();
    void viewOfPartOfTheRun();
    void viewOfTheWholeRun();
    void viewOfPartOfAnXSpaceRun();
    void cliRanks();

private:
    QTemporaryDir m_dir;
    std::string m_run;
    KinetoRunStats m_stats;
};

void TestDistributedRun::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_run = m_dir.filePath(QStringLiteral("run")).toStdString();
    KinetoRunOptions options;
    options.ranks = kRanks;
    options.slowRank = kSlow;
    options.eventsPerRank = 4000;
    options.seed = 11;
    auto generated = generateKinetoRun(options, m_run);
    QVERIFY2(generated, generated ? "" : generated.message().c_str());
    m_stats = generated.value();
}

void TestDistributedRun::rankByRankEqualsMerged()
{
    const DistributedSummary byRank = summarizeRun(m_stats.files, nullptr, noCache());
    auto merged = loadTrace(m_run, nullptr, noCache());
    QVERIFY2(merged, merged ? "" : merged.message().c_str());
    const DistributedSummary whole = summarizeMergedRun(*merged.value());
    QVERIFY(byRank.errors.empty());
    QCOMPARE(byRank.ranks.size(), size_t(kRanks));
    QCOMPARE(whole.ranks.size(), size_t(kRanks));
    for (size_t r = 0; r < byRank.ranks.size(); ++r) {
        compareRanks(byRank.ranks[r], whole.ranks[r]);
        // One number per rank against the raw file: its kernels and its NCCL kernels.
        const auto [kernels, nccl] = rawKernels(m_stats.files[r]);
        QCOMPARE(byRank.ranks[r].kernelCount, kernels);
        QCOMPARE(byRank.ranks[r].communicationKernelCount, nccl);
        QCOMPARE(nccl, m_stats.collectivesPerRank);
    }
    QCOMPARE(byRank.collectives.size(), whole.collectives.size());
    for (size_t i = 0; i < byRank.collectives.size(); ++i) {
        const MatchedCollective &a = byRank.collectives[i];
        const MatchedCollective &b = whole.collectives[i];
        QCOMPARE(a.name, b.name);
        QCOMPARE(a.occurrence, b.occurrence);
        QCOMPARE(a.ranks, b.ranks);
        QCOMPARE(a.startSpread, b.startSpread);
        QCOMPARE(a.endSpread, b.endSpread);
        QCOMPARE(a.lastRank, b.lastRank);
        QCOMPARE(a.waitingCaused, b.waitingCaused);
    }
    QCOMPARE(byRank.stragglers.size(), whole.stragglers.size());
    for (size_t i = 0; i < byRank.stragglers.size(); ++i) {
        QCOMPARE(byRank.stragglers[i].rank, whole.stragglers[i].rank);
        QCOMPARE(byRank.stragglers[i].waitingCaused, whole.stragglers[i].waitingCaused);
    }
    QCOMPARE(byRank.stragglers.front().rank, int64_t(kSlow));
}

void TestDistributedRun::subsetSummary()
{
    const DistributedSummary all = summarizeRun(m_stats.files, nullptr, noCache());
    LoadOptions options = noCache();
    options.ranks = {1, 3};
    const DistributedSummary part = summarizeRun(m_stats.files, nullptr, options);
    QVERIFY(part.errors.empty());
    QCOMPARE(part.ranks.size(), size_t(2));
    compareRanks(part.ranks[0], all.ranks[1]);
    compareRanks(part.ranks[1], all.ranks[3]);
    options.ranks = {1, 8};
    const DistributedSummary bad = summarizeRun(m_stats.files, nullptr, options);
    QVERIFY(bad.ranks.empty());
    QCOMPARE(bad.errors.size(), size_t(1));
    QVERIFY2(bad.errors.front().message.find("has no rank 8") != std::string::npos,
             bad.errors.front().message.c_str());
}

void TestDistributedRun::viewOfPartOfTheRun()
{
    QTemporaryDir cache;
    LoadOptions options;
    options.cacheDir = cache.path().toStdString();
    options.ranks = {1, 3};
    auto part = loadTrace(m_run, nullptr, options);
    QVERIFY2(part, part ? "" : part.message().c_str());
    const Trace &t = *part.value();
    size_t reported = 0, total = 0;
    const RunView view = summarizeRunView(t, {m_run}, nullptr, options,
                                          [&](size_t done, size_t of) {
                                              reported = done;
                                              total = of;
                                          });
    QVERIFY(view.partial);
    QCOMPARE(reported, size_t(kRanks));
    QCOMPARE(total, size_t(kRanks));
    QVERIFY(view.run);
    QCOMPARE(view.runRanks(), (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(view.shownRanks(), (std::vector<int64_t>{1, 3}));
    QCOMPARE(view.shownHosts,
             (std::vector<std::string>{"", "rank 1", "", "rank 3"}));
    QCOMPARE(view.run->stragglers.front().rank, int64_t(kSlow));
    QCOMPARE(view.shown->ranks.size(), size_t(2));
    QCOMPARE(view.shownIndex(0), -1);
    QCOMPARE(view.shownIndex(3), 1);
    // A collective of the run, found on the shown ranks: its refs are the trace's slices.
    const MatchedCollective *c = view.shownCollective(5);
    QVERIFY(c);
    QCOMPARE(c->name, view.run->collectives[5].name);
    QCOMPARE(c->ranks, (std::vector<int64_t>{1, 3}));
    for (size_t i = 0; i < c->refs.size(); ++i) {
        QCOMPARE(t.start(c->refs[i]), c->starts[i]);
        QVERIFY(isCommunicationKernelName(t.name(c->refs[i])));
    }
    // With a memo, another part of the same run reuses the run's summary; another alignment
    // of it does not.
    RunSummaryMemo memo;
    size_t summarised = 0;
    auto count = [&](size_t, size_t) { ++summarised; };
    const RunView first = summarizeRunView(t, {m_run}, nullptr, options, count, &memo);
    QCOMPARE(summarised, size_t(kRanks));
    const RunView again = summarizeRunView(t, {m_run}, nullptr, options, count, &memo);
    QCOMPARE(summarised, size_t(kRanks));
    QVERIFY(again.run == first.run);
    QCOMPARE(again.shownRanks(), (std::vector<int64_t>{1, 3}));
    LoadOptions aligned = options;
    aligned.alignStep = std::string(1, '2');
    const RunView other = summarizeRunView(t, {m_run}, nullptr, aligned, count, &memo);
    QCOMPARE(summarised, size_t(2 * kRanks));
    QCOMPARE(other.run->alignStep, std::string("2"));

    // The rank by rank pass left each rank's store in the cache, beside the part's own.
    const QStringList stores = QDir(cache.path()).entryList({"*.tdstore"}, QDir::Files);
    QCOMPARE(stores.size(), kRanks + 1);
    options.ranks.clear();
    auto whole = loadTrace(m_run, nullptr, options);
    QVERIFY2(whole, whole ? "" : whole.message().c_str());
    QCOMPARE(whole.value()->info.hosts.size(), size_t(kRanks));
}

void TestDistributedRun::viewOfTheWholeRun()
{
    auto whole = loadTrace(m_run, nullptr, noCache());
    QVERIFY(whole);
    const RunView view = summarizeRunView(*whole.value(), {m_run}, nullptr, noCache());
    QVERIFY(!view.partial);
    QVERIFY(view.run == view.shown);
    QCOMPARE(view.shownRanks(), (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(view.shownCollective(0), &view.run->collectives[0]);
    // A trace that is no part of the given run is viewed alone; a single file has no run.
    auto single = loadTrace(m_stats.files[0], nullptr, noCache());
    QVERIFY(single);
    QVERIFY(!summarizeRunView(*single.value(), {m_stats.files[0]}, nullptr, noCache()).run);
    const RunView stranger = summarizeRunView(*whole.value(), {m_stats.files[0]}, nullptr,
                                              noCache());
    QVERIFY(!stranger.partial);
    QCOMPARE(stranger.run->ranks.size(), size_t(kRanks));
}

void TestDistributedRun::viewOfPartOfAnXSpaceRun()
{
    const std::string dir = m_dir.filePath(QStringLiteral("xspace")).toStdString();
    XSpaceRunOptions options;
    options.ranks = kRanks;
    options.slowRank = kSlow;
    options.eventsPerRank = 1200;
    auto generated = generateXSpaceRun(options, dir);
    QVERIFY2(generated, generated ? "" : generated.message().c_str());
    LoadOptions load = noCache();
    load.ranks = {0, 3};
    auto part = loadTrace(dir, nullptr, load);
    QVERIFY2(part, part ? "" : part.message().c_str());
    const Trace &t = *part.value();
    const RunView view = summarizeRunView(t, {dir}, nullptr, load);
    QVERIFY(view.partial);
    QCOMPARE(view.runRanks(), (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(view.shownHosts, (std::vector<std::string>{"worker0", "", "", "worker3"}));
    // The slow host is not on the timeline, and still the top straggler of the run.
    QCOMPARE(view.run->stragglers.front().rank, int64_t(kSlow));
    QCOMPARE(view.run->collectives.size(), size_t(generated.value().collectivesPerRank));
    const MatchedCollective *c = view.shownCollective(0);
    QVERIFY(c);
    QCOMPARE(c->refs.size(), size_t(2));
    for (size_t i = 0; i < c->refs.size(); ++i) {
        QCOMPARE(t.start(c->refs[i]), c->starts[i]);
        QVERIFY(isCommunicationOpName(t.name(c->refs[i])));
    }
}

void TestDistributedRun::cliRanks()
{
    const QString run = QString::fromStdString(m_run);
    const clitest::CliRun ok =
        clitest::runCli({"distributed", run, "--json", "--no-cache", "--ranks", "1,3"});
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    const QJsonObject top = QJsonDocument::fromJson(ok.out).object();
    const QJsonArray ranks = top["ranks"].toArray();
    QCOMPARE(ranks.size(), 2);
    QCOMPARE(ranks[0].toObject()["rank"].toInt(), 1);
    QCOMPARE(ranks[1].toObject()["rank"].toInt(), 3);
    for (const char *key : {"rank", "file", "step_count", "kernel_count",
                            "communication_kernel_count", "computation_us", "communication_us",
                            "overlap_us", "exposed_communication_us", "idle_us"})
        QVERIFY2(ranks[0].toObject().contains(key), key);
    QCOMPARE(qint64(ranks[1].toObject()["communication_kernel_count"].toDouble()),
             qint64(rawKernels(m_stats.files[3]).second));
    // The default stays every rank.
    const clitest::CliRun all = clitest::runCli({"distributed", run, "--json", "--no-cache"});
    QCOMPARE(QJsonDocument::fromJson(all.out).object()["ranks"].toArray().size(), kRanks);
    const clitest::CliRun missing =
        clitest::runCli({"distributed", run, "--no-cache", "--ranks", "2,6-7"});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("has no ranks 6, 7 (its ranks: 0-3)"), missing.err.constData());
    const clitest::CliRun bad = clitest::runCli({"distributed", run, "--ranks", "3-1"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("runs backwards"), bad.err.constData());
}

QTEST_GUILESS_MAIN(TestDistributedRun)
#include "tst_distributedrun.moc"
