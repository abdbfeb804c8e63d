// The distributed summary in two steps, map (one summary file per rank) and reduce (the run
// from the summary files): a summary file reads back field for field; the reduce of a run's
// summaries equals summarizeRun() on its traces, Kineto and XSpace, with and without step
// alignment; `distributed --reduce --json` and its text equal `distributed FOLDER` on the
// folder, also when one trace cannot be loaded; two hand-written summaries reduce to the
// spreads, waits and sums worked out here; damaged, foreign, newer or missing summaries are
// errors naming the file.

#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/summaryfile.h"
#include "core/analysis/distributed/runview.h"
#include "core/analysis/distributed/summaryreduce.h"
#include "core/generate/kinetorungenerator.h"
#include "core/generate/xspacerungenerator.h"
#include "core/io/traceloader.h"

#include "support/clirun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk;
using namespace tracedesk::core;
using namespace tracedesk::core::analysis::distributed;

namespace {

LoadOptions noCache()
{
    LoadOptions o;
    o.useCache = false;
    return o;
}

bool writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// Every number the distributed output shows, and the rank fields behind them.
void compareRank(const RankSummary &a, const RankSummary &b)
{
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.rankGuessed, b.rankGuessed);
    QCOMPARE(a.rankSource, b.rankSource);
    QCOMPARE(a.file, b.file);
    QCOMPARE(a.originNs, b.originNs);
    QCOMPARE(a.stepCount, b.stepCount);
    QCOMPARE(a.kernelCount, b.kernelCount);
    QCOMPARE(a.communicationKernelCount, b.communicationKernelCount);
    QCOMPARE(a.computation, b.computation);
    QCOMPARE(a.communication, b.communication);
    QCOMPARE(a.overlap, b.overlap);
    QCOMPARE(a.exposedCommunication, b.exposedCommunication);
    QCOMPARE(a.idle, b.idle);
    QCOMPARE(a.firstKernelStart, b.firstKernelStart);
    QCOMPARE(a.lastKernelEnd, b.lastKernelEnd);
    QCOMPARE(a.warnings, b.warnings);
    QCOMPARE(a.host, b.host);
    QCOMPARE(a.clockShift, b.clockShift);
    QCOMPARE(a.steps.size(), b.steps.size());
    for (size_t s = 0; s < a.steps.size(); ++s) {
        const RankStep &x = a.steps[s];
        const RankStep &y = b.steps[s];
        QCOMPARE(x.name, y.name);
        QCOMPARE(x.hostStart, y.hostStart);
        QCOMPARE(x.start, y.start);
        QCOMPARE(x.end, y.end);
        QCOMPARE(x.computation, y.computation);
        QCOMPARE(x.communication, y.communication);
        QCOMPARE(x.overlap, y.overlap);
        QCOMPARE(x.exposedCommunication, y.exposedCommunication);
        QCOMPARE(x.idle, y.idle);
        QCOMPARE(x.hasMarker, y.hasMarker);
    }
    QCOMPARE(a.collectives.size(), b.collectives.size());
    for (size_t i = 0; i < a.collectives.size(); ++i) {
        const CollectiveRecord &x = a.collectives[i];
        const CollectiveRecord &y = b.collectives[i];
        QCOMPARE(x.name, y.name);
        QCOMPARE(x.kind, y.kind);
        QCOMPARE(x.start, y.start);
        QCOMPARE(x.end, y.end);
        QCOMPARE(x.inElements, y.inElements);
        QCOMPARE(x.outElements, y.outElements);
        QCOMPARE(x.dtype, y.dtype);
        QCOMPARE(x.bytes, y.bytes);
    }
}

void compareCount(const CollectiveCount &a, const CollectiveCount &b)
{
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.count, b.count);
    QCOMPARE(a.total, b.total);
    QCOMPARE(a.bytes, b.bytes);
}

void compareSummaries(const DistributedSummary &a, const DistributedSummary &b)
{
    QCOMPARE(a.ranks.size(), b.ranks.size());
    for (size_t r = 0; r < a.ranks.size(); ++r)
        compareRank(a.ranks[r], b.ranks[r]);
    QCOMPARE(a.collectives.size(), b.collectives.size());
    for (size_t i = 0; i < a.collectives.size(); ++i) {
        const MatchedCollective &x = a.collectives[i];
        const MatchedCollective &y = b.collectives[i];
        QCOMPARE(x.index, y.index);
        QCOMPARE(x.name, y.name);
        QCOMPARE(x.kind, y.kind);
        QCOMPARE(x.occurrence, y.occurrence);
        QCOMPARE(x.ranks, y.ranks);
        QCOMPARE(x.firstStart, y.firstStart);
        QCOMPARE(x.lastStart, y.lastStart);
        QCOMPARE(x.startSpread, y.startSpread);
        QCOMPARE(x.endSpread, y.endSpread);
        QCOMPARE(x.lastRank, y.lastRank);
        QCOMPARE(x.waitingCaused, y.waitingCaused);
        QCOMPARE(x.bytes, y.bytes);
        QCOMPARE(x.starts, y.starts);
        QCOMPARE(x.ends, y.ends);
    }
    QCOMPARE(a.stragglers.size(), b.stragglers.size());
    for (size_t i = 0; i < a.stragglers.size(); ++i) {
        QCOMPARE(a.stragglers[i].rank, b.stragglers[i].rank);
        QCOMPARE(a.stragglers[i].waitingCaused, b.stragglers[i].waitingCaused);
        QCOMPARE(a.stragglers[i].collectivesLast, b.stragglers[i].collectivesLast);
    }
    QCOMPARE(a.collectiveStats.size(), b.collectiveStats.size());
    for (size_t i = 0; i < a.collectiveStats.size(); ++i) {
        QCOMPARE(a.collectiveStats[i].name, b.collectiveStats[i].name);
        QCOMPARE(a.collectiveStats[i].kind, b.collectiveStats[i].kind);
        compareCount(a.collectiveStats[i].all, b.collectiveStats[i].all);
        QCOMPARE(a.collectiveStats[i].perRank.size(), b.collectiveStats[i].perRank.size());
        for (size_t r = 0; r < a.collectiveStats[i].perRank.size(); ++r)
            compareCount(a.collectiveStats[i].perRank[r], b.collectiveStats[i].perRank[r]);
    }
    QCOMPARE(a.errors.size(), b.errors.size());
    for (size_t i = 0; i < a.errors.size(); ++i) {
        QCOMPARE(a.errors[i].file, b.errors[i].file);
        QCOMPARE(a.errors[i].message, b.errors[i].message);
    }
    QCOMPARE(a.warnings, b.warnings);
    QCOMPARE(a.originNs, b.originNs);
    QCOMPARE(a.alignStep, b.alignStep);
}

// The map step done in-process: each file's summary written into `dir`.
bool mapAll(const std::vector<std::string> &files, const QString &dir)
{
    for (size_t i = 0; i < files.size(); ++i) {
        RankSummaryFile f;
        f.source = describeSource(files[i]);
        f.order = i;
        auto made = summarizeRankFile(files[i], i, nullptr, noCache());
        if (made)
            f.summary = std::move(made).value();
        else
            f.error = made.message();
        if (!writeSummaryFile(f, dir.toStdString()))
            return false;
    }
    return true;
}

// A hand-written summary file of one rank whose collectives are `collectives` (rows as the
// file holds them: name, kind, start, end, in / out elements, dtype, bytes).
QByteArray handSummary(const QString &path, int rank, qint64 originNs, const QString &collectives)
{
    return QString("{\"format\":\"tracedesk-rank-summary\",\"version\":1,"
                   "\"source\":{\"path\":\"%1\",\"absolute_path\":\"/r/%1\",\"name\":\"x\","
                   "\"size\":10,\"mtime_ns\":5},"
                   "\"order\":%2,\"rank\":{\"rank\":%2,\"rank_guessed\":false,"
                   "\"rank_source\":\"distributedInfo\",\"origin_ns\":%3,\"kernel_count\":7,"
                   "\"communication_kernel_count\":1,\"computation_ps\":900,"
                   "\"communication_ps\":40000,\"overlap_ps\":300,"
                   "\"exposed_communication_ps\":39700,\"idle_ps\":12,"
                   "\"first_kernel_start_ps\":0,\"last_kernel_end_ps\":60000,\"host\":\"\","
                   "\"warnings\":[],\"steps\":[{\"name\":\"4\",\"host_start_ps\":0,"
                   "\"start_ps\":0,\"end_ps\":60000,\"computation_ps\":900,"
                   "\"communication_ps\":40000,\"overlap_ps\":300,"
                   "\"exposed_communication_ps\":39700,\"idle_ps\":12,\"has_marker\":true}],"
                   "\"strings\":[\"ncclKernel_AllReduce\",\"AllReduce\",\"Float\"],"
                   "\"collectives\":[%4]}}")
        .arg(path).arg(rank).arg(originNs).arg(collectives)
        .toUtf8();
}

} // namespace

class TestDistributedMapReduce : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void summaryFileRoundTrip();
    void reduceEqualsRun_data();
    void reduceEqualsRun();
    void handWrittenSummaries();
    void badSummaries_data();
    void badSummaries();
    void reduceNamesBadFiles();
    void cliReduceEqualsFolder_data();
    void cliReduceEqualsFolder();
    void cliErrors();
    void runOpenedFromSummaries();

private:
    QTemporaryDir m_dir;
    std::vector<std::string> m_kineto;
    std::vector<std::string> m_xspace;
};

void TestDistributedMapReduce::initTestCase()
{
    QVERIFY(m_dir.isValid());
    RankRunOptions options;
    options.ranks = 4;
    options.slowRank = 2;
    options.eventsPerRank = 3000;
    options.seed = 5;
    auto kineto = generateKinetoRun(options, m_dir.filePath("kineto").toStdString());
    QVERIFY2(kineto, kineto ? "" : kineto.message().c_str());
    m_kineto = kineto.value().files;
    options.ranks = 3;
    options.slowRank = 1;
    auto xspace = generateXSpaceRun(options, m_dir.filePath("xspace").toStdString());
    QVERIFY2(xspace, xspace ? "" : xspace.message().c_str());
    m_xspace = xspace.value().files;
}

void TestDistributedMapReduce::summaryFileRoundTrip()
{
    const std::string &file = m_kineto[2];
    auto made = summarizeRankFile(file, 2, nullptr, noCache());
    QVERIFY2(made, made ? "" : made.message().c_str());
    QVERIFY(!made.value().collectives.empty());
    QVERIFY(!made.value().steps.empty());
    RankSummaryFile written;
    written.source = describeSource(file);
    written.order = 2;
    written.summary = made.value();
    QCOMPARE(written.source.size, uint64_t(QFileInfo(QString::fromStdString(file)).size()));
    QCOMPARE(written.source.mtimeNs / 1000000,
             QFileInfo(QString::fromStdString(file)).lastModified().toMSecsSinceEpoch());

    auto back = decodeSummary(encodeSummary(written), "x.tdsummary");
    QVERIFY2(back, back ? "" : back.message().c_str());
    QCOMPARE(back.value().source.path, file);
    QCOMPARE(back.value().source.absolutePath,
             QFileInfo(QString::fromStdString(file)).absoluteFilePath().toStdString());
    QCOMPARE(back.value().source.size, written.source.size);
    QCOMPARE(back.value().source.mtimeNs, written.source.mtimeNs);
    QCOMPARE(back.value().order, uint64_t(2));
    QVERIFY(back.value().summary);
    compareRank(*back.value().summary, made.value());

    RankSummaryFile failed;
    failed.source.path = "run/rank9.json";
    failed.error = "run/rank9.json: not a trace";
    auto failedBack = decodeSummary(encodeSummary(failed), "y.tdsummary");
    QVERIFY(failedBack);
    QVERIFY(!failedBack.value().summary);
    QCOMPARE(failedBack.value().error, failed.error);
}

void TestDistributedMapReduce::reduceEqualsRun_data()
{
    QTest::addColumn<bool>("xspace");
    QTest::addColumn<bool>("align");
    QTest::newRow("kineto") << false << false;
    QTest::newRow("kineto aligned") << false << true;
    QTest::newRow("xspace") << true << false;
}

void TestDistributedMapReduce::reduceEqualsRun()
{
    QFETCH(bool, xspace);
    QFETCH(bool, align);
    const std::vector<std::string> &files = xspace ? m_xspace : m_kineto;
    SummarizeOptions options;
    const DistributedSummary plain = summarizeRun(files, nullptr, noCache());
    QVERIFY(plain.errors.empty());
    QVERIFY(!plain.collectives.empty());
    if (align) {
        QVERIFY(plain.ranks.front().steps.size() > 1);
        options.alignStep = plain.ranks.front().steps[1].name;
    }
    const DistributedSummary run = summarizeRun(files, nullptr, noCache(), options);
    QCOMPARE(run.alignStep, options.alignStep);

    QTemporaryDir out;
    QVERIFY(mapAll(files, out.path()));
    auto summaries = summaryFilesIn(out.path().toStdString());
    QVERIFY2(summaries, summaries ? "" : summaries.message().c_str());
    QCOMPARE(summaries.value().size(), files.size());
    compareSummaries(reduceSummaries(summaries.value(), options.alignStep, 2), run);
}

void TestDistributedMapReduce::handWrittenSummaries()
{
    // Rank 0: clock origin 100 ns, its all-reduce at [10000, 50000) ps. Rank 1: origin 102 ns
    // (2000 ps later), its all-reduce at [9000, 48000) ps = [11000, 50000) on the run clock.
    QTemporaryDir dir;
    QVERIFY(writeBytes(dir.filePath("a.tdsummary"),
                       handSummary("run/r0.json", 0, 100, "[0,1,10000,50000,1024,1024,2,4096]")));
    QVERIFY(writeBytes(dir.filePath("b.tdsummary"),
                       handSummary("run/r1.json", 1, 102, "[0,1,9000,48000,1024,1024,2,4096]")));
    auto files = summaryFilesIn(dir.path().toStdString());
    QVERIFY(files);
    const DistributedSummary d = reduceSummaries(files.value());
    QVERIFY(d.errors.empty());
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.originNs, int64_t(100));
    QCOMPARE(d.ranks[1].clockShift, TimePs(2000));
    QCOMPARE(d.ranks[0].file, std::string("run/r0.json"));
    QCOMPARE(d.ranks[0].computation, TimePs(900));
    QCOMPARE(d.ranks[0].steps.front().exposedCommunication, TimePs(39700));
    QCOMPARE(d.collectives.size(), size_t(1));
    const MatchedCollective &c = d.collectives.front();
    QCOMPARE(c.name, std::string("ncclKernel_AllReduce"));
    QCOMPARE(c.kind, std::string("AllReduce"));
    QCOMPARE(c.ranks, (std::vector<int64_t>{0, 1}));
    QCOMPARE(c.firstStart, TimePs(10000));
    QCOMPARE(c.startSpread, TimePs(1000));
    QCOMPARE(c.endSpread, TimePs(0));
    QCOMPARE(c.lastRank, int64_t(1));
    QCOMPARE(c.waitingCaused, TimePs(1000));
    QCOMPARE(c.bytes, int64_t(4096));
    QCOMPARE(d.stragglers.front().rank, int64_t(1));
    QCOMPARE(d.stragglers.front().waitingCaused, TimePs(1000));
    QCOMPARE(d.collectiveStats.size(), size_t(1));
    QCOMPARE(d.collectiveStats.front().all.count, uint64_t(2));
    QCOMPARE(d.collectiveStats.front().all.total, TimePs(40000 + 39000));
    QCOMPARE(d.collectiveStats.front().all.bytes, int64_t(8192));
    QCOMPARE(d.ranks[1].collectives.front().dtype, std::string("Float"));
}

void TestDistributedMapReduce::badSummaries_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("problem");
    const QByteArray good = handSummary("r.json", 0, 0, "[0,1,0,5,-1,-1,2,-1]");
    QVERIFY(decodeSummary(good.toStdString(), "good"));
    QTest::newRow("empty") << QByteArray() << "not valid JSON";
    QTest::newRow("cut short") << good.left(good.size() / 2) << "not valid JSON";
    QTest::newRow("a trace") << QByteArray("{\"traceEvents\":[]}") << "is not a rank summary";
    QTest::newRow("array") << QByteArray("[1,2]") << "is not a rank summary";
    QTest::newRow("newer") << QByteArray(good).replace("\"version\":1", "\"version\":2")
                           << "version 2, this build reads version 1";
    QTest::newRow("no version") << QByteArray(good).replace("\"version\":1,", "")
                                << "without a \"version\"";
    QTest::newRow("no source") << QByteArray(good).replace("\"source\"", "\"sauce\"")
                               << "\"source\" is missing";
    QTest::newRow("neither rank nor error") << QByteArray(good).replace("\"rank\":{", "\"rnk\":{")
                                            << "neither \"rank\" nor \"error\"";
    QTest::newRow("negative count")
        << QByteArray(good).replace("\"kernel_count\":7", "\"kernel_count\":-7")
        << "\"kernel_count\" is missing or not a count";
    QTest::newRow("text time")
        << QByteArray(good).replace("\"idle_ps\":12,\"first", "\"idle_ps\":\"12\",\"first")
        << "\"idle_ps\" is missing or not an integer";
    QTest::newRow("step not object") << QByteArray(good).replace("\"steps\":[{", "\"steps\":[1,{")
                                     << "a step is not an object";
    QTest::newRow("string out of range")
        << handSummary("r.json", 0, 0, "[0,1,0,5,-1,-1,3,-1]") << "names string 3 of 3";
    QTest::newRow("negative string") << handSummary("r.json", 0, 0, "[-1,1,0,5,-1,-1,2,-1]")
                                     << "names string -1 of 3";
    QTest::newRow("short collective") << handSummary("r.json", 0, 0, "[0,1,0]")
                                      << "a collective is not 8 integers";
    QTest::newRow("long collective") << handSummary("r.json", 0, 0, "[0,1,0,5,-1,-1,2,-1,4]")
                                     << "a collective is not 8 integers";
    QTest::newRow("collective not array") << handSummary("r.json", 0, 0, "{}")
                                          << "a collective is not an array";
}

void TestDistributedMapReduce::badSummaries()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    const std::string name = "sums/rank7.json.tdsummary";
    auto read = decodeSummary(std::string_view(bytes.constData(), size_t(bytes.size())), name);
    QVERIFY(!read);
    QVERIFY2(read.message().starts_with(name + ": "), read.message().c_str());
    QVERIFY2(read.message().find(problem.toStdString()) != std::string::npos,
             read.message().c_str());
}

void TestDistributedMapReduce::reduceNamesBadFiles()
{
    QTemporaryDir dir;
    QVERIFY(mapAll({m_kineto[0], m_kineto[1]}, dir.path()));
    const QString corrupt = dir.filePath("zz.tdsummary");
    QVERIFY(writeBytes(corrupt, "{\"format\":\"tracedesk-rank-summary\",\"version\":1"));
    auto files = summaryFilesIn(dir.path().toStdString());
    QVERIFY(files);
    std::vector<std::string> given = files.value();
    const std::string missing = dir.filePath("gone.tdsummary").toStdString();
    given.push_back(missing);
    const DistributedSummary d = reduceSummaries(given);
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.errors.size(), size_t(2));
    QCOMPARE(d.errors[0].file, corrupt.toStdString());
    QVERIFY2(d.errors[0].message.starts_with(corrupt.toStdString() + ": is not a rank summary"),
             d.errors[0].message.c_str());
    QCOMPARE(d.errors[1].file, missing);
    QCOMPARE(d.errors[1].message, missing + ": cannot be opened");

    QTemporaryDir empty;
    auto none = summaryFilesIn(empty.path().toStdString());
    QVERIFY(!none);
    QVERIFY2(none.message().find("no rank summaries") != std::string::npos,
             none.message().c_str());
    QVERIFY(!isSummaryFolder(empty.path().toStdString()));
    QVERIFY(isSummaryFolder(dir.path().toStdString()));
    QVERIFY(!isSummaryFolder(m_dir.filePath("kineto").toStdString()));
}

void TestDistributedMapReduce::cliReduceEqualsFolder_data()
{
    QTest::addColumn<bool>("broken");
    QTest::newRow("whole run") << false;
    QTest::newRow("one rank broken") << true;
}

void TestDistributedMapReduce::cliReduceEqualsFolder()
{
    QFETCH(bool, broken);
    QTemporaryDir work;
    const QString run = work.filePath("run");
    QVERIFY(QDir().mkpath(run));
    QStringList traces;
    for (const std::string &f : m_kineto) {
        const QString name = QFileInfo(QString::fromStdString(f)).fileName();
        QVERIFY(QFile::copy(QString::fromStdString(f), run + "/" + name));
        traces << run + "/" + name;
    }
    if (broken) {
        QVERIFY(writeBytes(run + "/rank-9.json", "this is not a trace"));
        traces << run + "/rank-9.json";
    }
    const QString sums = work.filePath("sums");
    for (const QString &t : traces) {
        const auto map = clitest::runCli({"distributed", "--map", t, "--out", sums});
        const bool bad = t.endsWith("rank-9.json");
        QCOMPARE(map.exitCode, bad ? 1 : 0);
        QVERIFY2(map.out.trimmed().endsWith(".tdsummary"), map.out.constData());
    }
    for (const char *form : {"--json", "--limit=5"}) {
        const auto folder = clitest::runCli({"distributed", run, form, "--no-cache"});
        const auto reduced = clitest::runCli({"distributed", "--reduce", sums, form});
        QCOMPARE(folder.exitCode, 0);
        QCOMPARE(reduced.exitCode, 0);
        if (QByteArray(form) == "--json") {
            const QJsonDocument a = QJsonDocument::fromJson(folder.out);
            const QJsonDocument b = QJsonDocument::fromJson(reduced.out);
            QVERIFY(a.isObject());
            QCOMPARE(b, a);
            QCOMPARE(a["ranks"].toArray().size(), int(m_kineto.size()));
            QCOMPARE(a["errors"].toArray().size(), broken ? 1 : 0);
        } else {
            QCOMPARE(reduced.out, folder.out);
        }
    }
}

void TestDistributedMapReduce::cliErrors()
{
    QTemporaryDir work;
    const auto noOut =
        clitest::runCli({"distributed", "--map", QString::fromStdString(m_kineto[0])});
    QCOMPARE(noOut.exitCode, 2);
    QVERIFY2(noOut.err.contains("--out"), noOut.err.constData());
    const auto missing = clitest::runCli(
        {"distributed", "--map", work.filePath("nope.json"), "--out", work.path()});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("nope.json: no such file"), missing.err.constData());
    const auto empty = clitest::runCli({"distributed", "--reduce", work.path()});
    QCOMPARE(empty.exitCode, 1);
    QVERIFY2(empty.err.contains("no rank summaries"), empty.err.constData());
    QVERIFY(writeBytes(work.filePath("a.tdsummary"), "{\"format\":\"tracedesk-rank-summary\","
                                                     "\"version\":99}"));
    const auto newer = clitest::runCli({"distributed", "--reduce", work.path(), "--json"});
    QCOMPARE(newer.exitCode, 1);
    const QJsonObject top = QJsonDocument::fromJson(newer.out).object();
    QCOMPARE(top["errors"].toArray().size(), 1);
    QVERIFY(top["errors"][0]["message"].toString().contains(
        "a.tdsummary: rank summary version 99, this build reads version 1"));
}

void TestDistributedMapReduce::runOpenedFromSummaries()
{
    // Summaries made from relative paths: the run opened from them names the traces absolutely.
    QTemporaryDir work;
    const QString kineto = m_dir.filePath("kineto");
    std::vector<std::string> relative;
    for (const std::string &f : m_kineto) {
        const QString path = QString::fromStdString(f);
        relative.push_back(QDir::current().relativeFilePath(path).toStdString());
    }
    QVERIFY(mapAll(relative, work.path()));
    auto opened = openSummaryRun(work.path().toStdString());
    QVERIFY2(opened, opened ? "" : opened.message().c_str());
    const SummaryRun &run = opened.value();
    QCOMPARE(run.traceFiles.size(), m_kineto.size());
    QCOMPARE(run.run.ranks.size(), m_kineto.size());
    for (size_t i = 0; i < m_kineto.size(); ++i) {
        const std::string absolute = QFileInfo(QString::fromStdString(m_kineto[i]))
                                         .absoluteFilePath().toStdString();
        QCOMPARE(run.traceFiles[i], absolute);
        QCOMPARE(run.run.ranks[i].file, absolute);
    }
    // Its numbers are the folder's.
    DistributedSummary folder = summarizeRun(m_kineto, nullptr, noCache());
    for (RankSummary &r : folder.ranks)
        r.file = QFileInfo(QString::fromStdString(r.file)).absoluteFilePath().toStdString();
    compareSummaries(run.run, folder);

    // Handed to a memo under the run's key, it is the run view of two ranks loaded from those
    // traces, with no rank summarised again.
    RunSummaryMemo memo;
    LoadOptions options = noCache();
    const std::string key = runSummaryKey(run.traceFiles, options);
    QVERIFY(!key.empty());
    memo.keep(key, std::make_shared<const DistributedSummary>(run.run));
    options.ranks = {1, 3};
    auto part = loadTraces(run.traceFiles, nullptr, options);
    QVERIFY2(part, part ? "" : part.message().c_str());
    size_t summarised = 0;
    const RunView view = summarizeRunView(*part.value(), run.traceFiles, nullptr, options,
                                          [&](size_t, size_t) { ++summarised; }, &memo);
    QCOMPARE(summarised, size_t(0));
    QVERIFY(view.partial);
    QVERIFY(view.run);
    QCOMPARE(view.run->ranks.size(), m_kineto.size());
    QCOMPARE(view.shownRanks(), (std::vector<int64_t>{1, 3}));
    QVERIFY(view.shownCollective(0));

    QTemporaryDir empty;
    QVERIFY(!openSummaryRun(empty.path().toStdString()));
}

QTEST_GUILESS_MAIN(TestDistributedMapReduce)
#include "tst_distributedmapreduce.moc"
