// Generated distributed runs (generateKinetoRun): every rank file parses with its rank in
// distributedInfo, the ranks' collectives are the same sequence (recounted from the JSON), the
// slow rank arrives last at every collective (from the raw times, and through summarizeRun), the
// files are byte-identical per seed, existing files are refused, and a 64-rank run completes its
// summary under a memory limit below the run's total store size.

#include "core/analysis/distributed/distributedsummary.h"
#include "core/generate/kinetorungenerator.h"
#include "core/io/chromejsonreader.h"
#include "core/io/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis::distributed;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// What the test reads back from one rank file, independently of the reader.
struct RankFile
{
    QJsonObject top;
    int64_t base = 0;
    std::vector<int64_t> ncclStarts; // absolute ns, in file order = start order
    std::vector<QString> ncclNames;
    std::vector<QString> collectiveNames; // record_param_comms "Collective name", in order
    std::vector<QJsonObject> commsArgs;
};

RankFile readRank(const std::string &path)
{
    RankFile f;
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray::fromStdString(readAll(path)), &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("%s: %s", path.c_str(), qPrintable(error.errorString()));
        return f;
    }
    f.top = doc.object();
    f.base = f.top.value("baseTimeNanoseconds").toInteger();
    std::vector<std::pair<int64_t, QString>> kernels;
    std::vector<std::pair<int64_t, QJsonObject>> comms;
    for (const QJsonValue v : f.top.value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        const int64_t ts = qRound64(e.value("ts").toDouble() * 1000.0);
        const QString name = e.value("name").toString();
        if (e.value("cat").toString() == "kernel" && name.startsWith("nccl"))
            kernels.push_back({f.base + ts, name});
        if (e.value("cat").toString() == "cpu_op" && name == "record_param_comms")
            comms.push_back({ts, e.value("args").toObject()});
    }
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::stable_sort(comms.begin(), comms.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[t, n] : kernels) {
        f.ncclStarts.push_back(t);
        f.ncclNames.push_back(n.left(n.indexOf('(')));
    }
    for (const auto &[t, a] : comms) {
        f.collectiveNames.push_back(a.value("Collective name").toString());
        f.commsArgs.push_back(a);
    }
    return f;
}

KinetoRunStats generate(const QString &dir, int ranks, uint64_t events, uint64_t seed,
                        int slowRank = -1)
{
    KinetoRunOptions options;
    options.ranks = ranks;
    options.eventsPerRank = events;
    options.seed = seed;
    options.slowRank = slowRank;
    auto r = generateKinetoRun(options, dir.toStdString());
    if (!r) {
        qWarning("%s", r.message().c_str());
        return {};
    }
    return r.value();
}

} // namespace

class TestRankGenerator : public QObject
{
    Q_OBJECT

private slots:
    void eightRanks();
    void deterministic();
    void slowRankOption();
    void refusesExistingFiles();
    void sixtyFourRanksUnderMemoryLimit();
};

void TestRankGenerator::eightRanks()
{
    QTemporaryDir dir;
    const KinetoRunStats s = generate(dir.path(), 8, 4000, 5);
    QCOMPARE(s.files.size(), size_t(8));
    QCOMPARE(s.slowRank, 4); // the middle rank by default
    QVERIFY(s.collectivesPerRank > 10);

    std::vector<RankFile> files;
    std::set<int64_t> bases;
    for (int r = 0; r < 8; ++r) {
        const std::string name = std::filesystem::path(s.files[size_t(r)]).filename().string();
        QVERIFY2(name.rfind("rank-" + std::to_string(r) + ".", 0) == 0, name.c_str());
        QVERIFY(name.size() > 14 && name.substr(name.size() - 14) == ".pt.trace.json");
        files.push_back(readRank(s.files[size_t(r)]));
        const RankFile &f = files.back();
        const QJsonObject info = f.top.value("distributedInfo").toObject();
        QCOMPARE(info.value("rank").toInt(), r);
        QCOMPARE(info.value("world_size").toInt(), 8);
        QCOMPARE(info.value("backend").toString(), QString("nccl"));
        bases.insert(f.base);
        // The same collectives, in the same order, on every rank.
        QCOMPARE(f.ncclStarts.size(), size_t(s.collectivesPerRank));
        QCOMPARE(f.collectiveNames.size(), size_t(s.collectivesPerRank));
        QCOMPARE(f.ncclNames, files.front().ncclNames);
        QCOMPARE(f.collectiveNames, files.front().collectiveNames);
        for (const QJsonObject &a : f.commsArgs) {
            QCOMPARE(a.value("Group size").toInt(), 8);
            QVERIFY(a.value("In msg nelems").toInteger() > 0);
            QVERIFY(!a.value("dtype").toString().isEmpty());
            QCOMPARE(a.value("Rank").toInt(), r);
        }
    }
    QCOMPARE(bases.size(), size_t(8)); // every rank its own clock origin
    const std::set<QString> kinds(files.front().collectiveNames.begin(),
                                  files.front().collectiveNames.end());
    QCOMPARE(kinds, (std::set<QString>{"allgather", "allreduce"}));

    // From the raw times: the slow rank starts every collective last, on the absolute clock.
    for (size_t k = 0; k < s.collectivesPerRank; ++k) {
        int last = 0;
        for (int r = 1; r < 8; ++r) {
            if (files[size_t(r)].ncclStarts[k] > files[size_t(last)].ncclStarts[k])
                last = r;
        }
        QCOMPARE(last, 4);
    }

    LoadOptions load;
    load.useCache = false;
    const DistributedSummary d = summarizeRun(s.files, nullptr, load);
    QVERIFY(d.errors.empty());
    QCOMPARE(d.ranks.size(), size_t(8));
    for (int r = 0; r < 8; ++r) {
        QCOMPARE(d.ranks[size_t(r)].rank, int64_t(r));
        QCOMPARE(d.ranks[size_t(r)].rankSource, std::string("distributedInfo"));
        QCOMPARE(d.ranks[size_t(r)].communicationKernelCount, s.collectivesPerRank);
        QCOMPARE(d.ranks[size_t(r)].stepCount, uint32_t(s.steps));
    }
    QVERIFY(d.fullyMatched());
    QCOMPARE(d.collectives.size(), size_t(s.collectivesPerRank));
    for (const MatchedCollective &c : d.collectives)
        QCOMPARE(c.lastRank, int64_t(4));
    QCOMPARE(d.stragglers.front().rank, int64_t(4));
    QCOMPARE(d.stragglers.front().collectivesLast, size_t(s.collectivesPerRank));
    QVERIFY(d.stragglers.front().waitingCaused > 0);
}

void TestRankGenerator::deterministic()
{
    QTemporaryDir a, b;
    const KinetoRunStats sa = generate(a.path(), 4, 1500, 9);
    const KinetoRunStats sb = generate(b.path(), 4, 1500, 9);
    QCOMPARE(sa.files.size(), size_t(4));
    QCOMPARE(sb.files.size(), size_t(4));
    for (size_t r = 0; r < 4; ++r) {
        const std::string x = readAll(sa.files[r]), y = readAll(sb.files[r]);
        QVERIFY(!x.empty());
        QVERIFY(x == y);
        QCOMPARE(uint64_t(x.size()), sa.ranks[r].fileBytes);
        QVERIFY(sa.ranks[r].events >= 1500);
    }
    QVERIFY(readAll(sa.files[0]) != readAll(sa.files[1]));
}

void TestRankGenerator::slowRankOption()
{
    QTemporaryDir dir;
    const KinetoRunStats s = generate(dir.path(), 4, 1500, 2, 1);
    QCOMPARE(s.slowRank, 1);
    LoadOptions load;
    load.useCache = false;
    const DistributedSummary d = summarizeRun(s.files, nullptr, load);
    QCOMPARE(d.ranks.size(), size_t(4));
    QCOMPARE(d.stragglers.front().rank, int64_t(1));
    for (const MatchedCollective &c : d.collectives)
        QCOMPARE(c.lastRank, int64_t(1));

    KinetoRunOptions bad;
    bad.ranks = 4;
    bad.slowRank = 4;
    QVERIFY(!generateKinetoRun(bad, dir.filePath("bad").toStdString()));
}

void TestRankGenerator::refusesExistingFiles()
{
    QTemporaryDir dir;
    const KinetoRunStats s = generate(dir.path(), 2, 500, 4);
    QCOMPARE(s.files.size(), size_t(2));
    const std::string before = readAll(s.files[1]);
    {
        std::ofstream(s.files[1], std::ios::binary | std::ios::trunc) << "mine";
    }
    KinetoRunOptions options;
    options.ranks = 2;
    options.eventsPerRank = 500;
    options.seed = 4;
    auto again = generateKinetoRun(options, dir.path().toStdString());
    QVERIFY(!again);
    QVERIFY(again.message().find("already exists") != std::string::npos);
    QCOMPARE(readAll(s.files[1]), std::string("mine"));
    options.overwrite = true;
    QVERIFY(generateKinetoRun(options, dir.path().toStdString()));
    QVERIFY(readAll(s.files[1]) == before);
}

// Ranks are summarised one store at a time: a limit that one rank's load fits in, but not the
// stores of all ranks together, still gives the whole summary.
void TestRankGenerator::sixtyFourRanksUnderMemoryLimit()
{
    QTemporaryDir dir;
    const KinetoRunStats s = generate(dir.filePath("run"), 64, 12000, 11);
    QCOMPARE(s.files.size(), size_t(64));
    QCOMPARE(s.slowRank, 32);

    uint64_t storeSum = 0, storeMax = 0, fileMax = 0;
    LoadOptions probe;
    probe.useCache = false;
    for (const std::string &f : s.files) {
        auto t = loadTrace(f, nullptr, probe);
        QVERIFY2(t, t ? "" : t.message().c_str());
        storeSum += t.value()->memoryBytes();
        storeMax = std::max<uint64_t>(storeMax, t.value()->memoryBytes());
        fileMax = std::max<uint64_t>(fileMax, std::filesystem::file_size(f));
    }
    LoadOptions load;
    load.cacheDir = dir.filePath("cache").toStdString();
    load.memoryLimitBytes = chromeJsonLoadEstimate(fileMax) + (uint64_t(8) << 20);
    qInfo("64 ranks: store sum %llu, largest store %llu, largest file %llu, limit %llu",
          (unsigned long long)storeSum, (unsigned long long)storeMax, (unsigned long long)fileMax,
          (unsigned long long)load.memoryLimitBytes);
    QVERIFY(load.memoryLimitBytes > storeMax);
    QVERIFY(load.memoryLimitBytes < storeSum);

    const DistributedSummary d = summarizeRun(s.files, nullptr, load);
    for (const RankError &e : d.errors)
        qWarning("%s: %s", e.file.c_str(), e.message.c_str());
    QVERIFY(d.errors.empty());
    QCOMPARE(d.ranks.size(), size_t(64));
    QVERIFY(d.fullyMatched());
    QCOMPARE(d.collectives.size(), size_t(s.collectivesPerRank));
    QCOMPARE(d.stragglers.front().rank, int64_t(32));
    for (const MatchedCollective &c : d.collectives)
        QCOMPARE(c.lastRank, int64_t(32));

    // The limit is applied: below one rank's load, every rank is refused and named.
    LoadOptions tight = load;
    tight.useCache = false;
    tight.memoryLimitBytes = storeMax / 2;
    const DistributedSummary refused = summarizeRun(s.files, nullptr, tight);
    QVERIFY(refused.ranks.empty());
    QCOMPARE(refused.errors.size(), size_t(64));
}

QTEST_GUILESS_MAIN(TestRankGenerator)
#include "tst_rankgenerator.moc"
