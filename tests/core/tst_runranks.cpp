// Opening part of a distributed run: rank lists as users type them, the rank of each file
// before loading (distributedInfo in plain, gzip and zstd files, the file name, the position),
// a loaded subset holding exactly the chosen ranks with the events their files hold (counted
// here from the raw JSON), errors naming ranks the run lacks, a subset cached apart from the
// whole run, the first ranks that fit a memory budget (budget worked out here from the
// documented estimate), and the same for an XSpace run of hosts.

#include "core/generate/kinetorungenerator.h"
#include "core/generate/xspacerungenerator.h"
#include "core/io/loadoptions.h"
#include "core/io/runfit.h"
#include "core/io/runranks.h"
#include "core/io/traceloader.h"
#include "support/compressbytes.h"
#include "support/kinetofixtures.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

using namespace tracedesk::core;

namespace {

constexpr int kRanks = 4;

LoadOptions noCache()
{
    LoadOptions o;
    o.useCache = false;
    return o;
}

// Slices a Kineto file holds: its complete ("X") and instant ("i") events, from the raw JSON.
uint64_t rawSlices(const std::string &file)
{
    const QJsonObject top = testsupport::readFixtureObject(QString::fromStdString(file));
    uint64_t n = 0;
    for (const QJsonValue &e : top["traceEvents"].toArray()) {
        const QString ph = e.toObject()["ph"].toString();
        n += ph == QLatin1String("X") || ph == QLatin1String("i") ? 1 : 0;
    }
    return n;
}

std::set<std::string> planeHosts(const Trace &t)
{
    std::set<std::string> hosts;
    for (const Plane &p : t.planes)
        hosts.insert(std::string(t.string(p.host)));
    return hosts;
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestRunRanks : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void rankLists_data();
    void rankLists();
    void badRankLists();
    void ranksBeforeLoading();
    void realRunRanks();
    void subsetHoldsExactlyTheChosenRanks();
    void unknownRanksAreNamed();
    void subsetIsCachedApart();
    void firstRanksThatFitTheBudget();
    void xspaceHosts();

private:
    QTemporaryDir m_dir;
    std::string m_run;
    KinetoRunStats m_stats;
};

void TestRunRanks::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_run = m_dir.filePath(QStringLiteral("run")).toStdString();
    KinetoRunOptions options;
    options.ranks = kRanks;
    options.slowRank = 1;
    options.eventsPerRank = 3000;
    options.seed = 5;
    auto generated = generateKinetoRun(options, m_run);
    QVERIFY2(generated, generated ? "" : generated.message().c_str());
    m_stats = generated.value();
    QCOMPARE(m_stats.files.size(), size_t(kRanks));
}

void TestRunRanks::rankLists_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<qint64>>("ranks");
    QTest::addColumn<QString>("written");
    QTest::newRow("range and one") << "0-3,17" << QList<qint64>{0, 1, 2, 3, 17} << "0-3, 17";
    QTest::newRow("spaces, repeats") << " 5 , 2-2,5," << QList<qint64>{2, 5} << "2, 5";
    QTest::newRow("two apart") << "0,3" << QList<qint64>{0, 3} << "0, 3";
    QTest::newRow("two ranges") << "8-10, 0-2" << QList<qint64>{0, 1, 2, 8, 9, 10} << "0-2, 8-10";
}

void TestRunRanks::rankLists()
{
    QFETCH(QString, text);
    QFETCH(QList<qint64>, ranks);
    QFETCH(QString, written);
    auto parsed = parseRankList(text.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.message().c_str());
    QCOMPARE(QList<qint64>(parsed.value().begin(), parsed.value().end()), ranks);
    QCOMPARE(QString::fromStdString(formatRankList(parsed.value())), written);
    QCOMPARE(shownRanksNote({0, 3}, 64), std::string("showing ranks 0, 3 of 64"));
    QCOMPARE(shownRanksNote({7}, 8), std::string("showing rank 7 of 8"));
    QVERIFY(isShownRanksNote(shownRanksNote({0, 1, 2}, 4)));
    QVERIFY(!isShownRanksNote("showing nothing"));
}

void TestRunRanks::badRankLists()
{
    for (const char *text : {"", " , ", "a", "3-1", "1-", "-1", "1.5", "0-2000000000", "1;2"}) {
        auto parsed = parseRankList(text);
        QVERIFY2(!parsed, text);
        QVERIFY2(parsed.message().find("rank list") != std::string::npos, parsed.message().c_str());
    }
}

void TestRunRanks::ranksBeforeLoading()
{
    // distributedInfo in plain, gzip and zstd files wins over the names, which say otherwise.
    const QString dir = m_dir.filePath(QStringLiteral("numbering"));
    QVERIFY(QDir().mkpath(dir));
    const std::string d = dir.toStdString();
    const std::string r2 = readFile(m_stats.files[2]);
    const std::string r3 = readFile(m_stats.files[3]);
    writeFile(d + "/a_rank9.pt.trace.json", readFile(m_stats.files[1]));
    writeFile(d + "/b.pt.trace.json.gz", testsupport::gzipBytes(r2));
    writeFile(d + "/c.pt.trace.json.zst", testsupport::zstdBytes(r3));
    // No distributedInfo: the name, else the position among the files given.
    std::string plain = readFile(m_stats.files[0]);
    const size_t at = plain.find("\"distributedInfo\"");
    QVERIFY(at != std::string::npos);
    plain.replace(at, 17, "\"somethingElse\"");
    writeFile(d + "/d_worker_6.json", plain);
    writeFile(d + "/e.pt.trace.json", plain);
    const std::vector<std::string> files = {d + "/a_rank9.pt.trace.json",
                                            d + "/b.pt.trace.json.gz",
                                            d + "/c.pt.trace.json.zst", d + "/d_worker_6.json",
                                            d + "/e.pt.trace.json"};
    const std::vector<RunFile> ranks = runFiles(files);
    QCOMPARE(ranks.size(), size_t(5));
    // In rank order: 1 (a), 2 (b), 3 (c), 4 (e, position 4), 6 (d, its name).
    const std::vector<std::pair<int64_t, std::string>> expected = {
        {1, "distributedInfo"}, {2, "distributedInfo"}, {3, "distributedInfo"}, {4, "order"},
        {6, "file name"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(ranks[i].rank, expected[i].first);
        QCOMPARE(ranks[i].rankSource, expected[i].second);
    }
    QCOMPARE(ranks[3].path, files[4]);
    QCOMPARE(ranks[3].position, size_t(4));
    QCOMPARE(rankNumbers(ranks), (std::vector<int64_t>{1, 2, 3, 4, 6}));

    // The memory estimate reads the compressed files' declared sizes: the JSON they hold.
    const RankCost gz = rankCost(d + "/b.pt.trace.json.gz");
    const RankCost zst = rankCost(d + "/c.pt.trace.json.zst");
    QCOMPARE(gz.storeBytes, uint64_t(r2.size()) / 4 * 3);
    QCOMPARE(zst.storeBytes, uint64_t(r3.size()) / 4 * 3);
    QCOMPARE(gz.loadPeakBytes, 2 * uint64_t(r2.size()) + (uint64_t(16) << 20));
}

void TestRunRanks::realRunRanks()
{
    const QString dir = QStringLiteral(TRACEDESK_SHARED_FIXTURES
                                       "/multirank/astrasim__megatron-tp8");
    TRACEDESK_REQUIRE_FIXTURE(dir);
    std::vector<std::string> files;
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files, QDir::Name))
        files.push_back(f.absoluteFilePath().toStdString());
    const std::vector<RunFile> ranks = runFiles(files);
    QCOMPARE(ranks.size(), size_t(8));
    // PROVENANCE.md: distributedInfo rank r in megatron_kineto_<r>.json.gz.
    for (int r = 0; r < 8; ++r) {
        QCOMPARE(ranks[size_t(r)].rank, int64_t(r));
        QCOMPARE(ranks[size_t(r)].rankSource, std::string("distributedInfo"));
        QVERIFY(ranks[size_t(r)].path.ends_with("_" + std::to_string(r) + ".json.gz"));
    }
}

void TestRunRanks::subsetHoldsExactlyTheChosenRanks()
{
    LoadOptions options = noCache();
    options.ranks = {1, 3};
    auto loaded = loadTrace(m_run, nullptr, options);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const Trace &t = *loaded.value();
    QCOMPARE(t.info.hosts, (std::vector<std::string>{"rank 1", "rank 3"}));
    QCOMPARE(planeHosts(t), (std::set<std::string>{"rank 1", "rank 3"}));
    QCOMPARE(t.sliceCount(), rawSlices(m_stats.files[1]) + rawSlices(m_stats.files[3]));
    QVERIFY(!t.info.warnings.empty());
    QCOMPARE(t.info.warnings.front(), std::string("showing ranks 1, 3 of 4"));
    QCOMPARE(t.info.sources, (std::vector<std::string>{m_stats.files[1], m_stats.files[3]}));

    // Naming every rank is the whole run, with no note.
    options.ranks = {0, 1, 2, 3};
    auto whole = loadTrace(m_run, nullptr, options);
    QVERIFY2(whole, whole ? "" : whole.message().c_str());
    QCOMPARE(whole.value()->info.hosts.size(), size_t(kRanks));
    uint64_t all = 0;
    for (const std::string &f : m_stats.files)
        all += rawSlices(f);
    QCOMPARE(whole.value()->sliceCount(), all);
    for (const std::string &w : whole.value()->info.warnings)
        QVERIFY2(!isShownRanksNote(w), w.c_str());

    // One rank is a section of its own.
    options.ranks = {2};
    auto one = loadTrace(m_run, nullptr, options);
    QVERIFY2(one, one ? "" : one.message().c_str());
    QCOMPARE(one.value()->info.hosts, (std::vector<std::string>{"rank 2"}));
    QCOMPARE(one.value()->sliceCount(), rawSlices(m_stats.files[2]));
    QCOMPARE(one.value()->info.warnings.front(), std::string("showing rank 2 of 4"));
}

void TestRunRanks::unknownRanksAreNamed()
{
    LoadOptions options = noCache();
    options.ranks = {2, 7, 9};
    auto refused = loadTrace(m_run, nullptr, options);
    QVERIFY(!refused);
    const std::string &m = refused.message();
    QVERIFY2(m.find(m_run) != std::string::npos, m.c_str());
    QVERIFY2(m.find("has no ranks 7, 9 (its ranks: 0-3)") != std::string::npos, m.c_str());

    // A single rank file is a run of its one rank.
    options.ranks = {0};
    auto single = loadTrace(m_stats.files[2], nullptr, options);
    QVERIFY(!single);
    QVERIFY2(single.message().find("has no rank 0 (its ranks: 2)") != std::string::npos,
             single.message().c_str());
    options.ranks = {2};
    QVERIFY(loadTrace(m_stats.files[2], nullptr, options));
}

void TestRunRanks::subsetIsCachedApart()
{
    QTemporaryDir cache;
    LoadOptions options;
    options.cacheDir = cache.path().toStdString();
    options.ranks = {0, 2};
    auto first = loadTrace(m_run, nullptr, options);
    QVERIFY2(first, first ? "" : first.message().c_str());
    QVERIFY(!first.value()->info.fromCache);
    options.ranks.clear();
    auto whole = loadTrace(m_run, nullptr, options);
    QVERIFY2(whole, whole ? "" : whole.message().c_str());
    QVERIFY(!whole.value()->info.fromCache);
    QCOMPARE(whole.value()->info.hosts.size(), size_t(kRanks));
    options.ranks = {0, 2};
    auto again = loadTrace(m_run, nullptr, options);
    QVERIFY2(again, again ? "" : again.message().c_str());
    QVERIFY(again.value()->info.fromCache);
    QCOMPARE(again.value()->info.hosts, (std::vector<std::string>{"rank 0", "rank 2"}));
    QCOMPARE(again.value()->sliceCount(), first.value()->sliceCount());
}

void TestRunRanks::firstRanksThatFitTheBudget()
{
    // runfit.h: a rank keeps 3/4 of its JSON bytes and peaks at 2 x its JSON + 16 MiB while it
    // loads; a run needs its ranks' stores plus the largest peak. The budget here fits the first
    // two ranks, not the third.
    auto need = [this](size_t n) {
        uint64_t stores = 0, peak = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t json = uint64_t(QFileInfo(QString::fromStdString(m_stats.files[i])).size());
            stores += json / 4 * 3;
            peak = std::max(peak, 2 * json + (uint64_t(16) << 20));
        }
        return stores + peak;
    };
    QVERIFY(need(3) > need(2));
    LoadOptions options = noCache();
    options.fitRanksToMemory = true;
    options.memoryLimitBytes = need(2) + (need(3) - need(2)) / 2;
    auto loaded = loadTrace(m_run, nullptr, options);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const Trace &t = *loaded.value();
    QCOMPARE(t.info.hosts, (std::vector<std::string>{"rank 0", "rank 1"}));
    QCOMPARE(t.info.warnings.front(), std::string("showing ranks 0, 1 of 4"));
    bool explained = false;
    for (const std::string &w : t.info.warnings)
        explained = explained || w.find("only ranks 0, 1 are opened") != std::string::npos;
    QVERIFY(explained);

    // Off, or with every rank named, the whole run opens (the readers' own checks decide).
    options.fitRanksToMemory = false;
    auto whole = loadTrace(m_run, nullptr, options);
    QVERIFY2(whole, whole ? "" : whole.message().c_str());
    QCOMPARE(whole.value()->info.hosts.size(), size_t(kRanks));
    options.fitRanksToMemory = true;
    options.ranks = {0, 1, 2, 3};
    auto forced = loadTrace(m_run, nullptr, options);
    QVERIFY2(forced, forced ? "" : forced.message().c_str());
    QCOMPARE(forced.value()->info.hosts.size(), size_t(kRanks));

    // An unknown budget fits everything.
    const RunFit fit = fitRanks(runFiles(m_stats.files), 0);
    QVERIFY(!fit.partial);
    QCOMPARE(fit.ranks, (std::vector<int64_t>{0, 1, 2, 3}));
    QCOMPARE(fit.runBytes, need(4));
}

void TestRunRanks::xspaceHosts()
{
    const std::string dir = m_dir.filePath(QStringLiteral("xspace")).toStdString();
    XSpaceRunOptions options;
    options.ranks = kRanks;
    options.eventsPerRank = 800;
    auto generated = generateXSpaceRun(options, dir);
    QVERIFY2(generated, generated ? "" : generated.message().c_str());
    LoadOptions load = noCache();
    load.ranks = {0, 2};
    auto loaded = loadTrace(dir, nullptr, load);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const Trace &t = *loaded.value();
    // worker<r>.xplane.pb: the host of rank r is worker<r>.
    QCOMPARE(t.info.hosts, (std::vector<std::string>{"worker0", "worker2"}));
    QCOMPARE(t.info.warnings.front(), std::string("showing ranks 0, 2 of 4"));
    uint64_t alone = 0;
    for (int r : {0, 2}) {
        auto one = loadTrace(generated.value().files[size_t(r)], nullptr, noCache());
        QVERIFY(one);
        alone += one.value()->sliceCount();
    }
    QCOMPARE(t.sliceCount(), alone);
    load.ranks = {4};
    auto refused = loadTrace(dir, nullptr, load);
    QVERIFY(!refused);
    QVERIFY2(refused.message().find("has no rank 4 (its ranks: 0-3)") != std::string::npos,
             refused.message().c_str());
}

QTEST_GUILESS_MAIN(TestRunRanks)
#include "tst_runranks.moc"
