// The PyTorch views of one rank of a merged run: on the real 8-rank runs, the kernel view of
// rank k (rankanalyses.h) against kernel counts and sums taken from rank k's raw JSON file, the
// steps against its ProfilerStep# markers, the first rank as the default, and
// `kernel-stats DIR --rank N` printing rank N's numbers.

#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/analysis/pytorch/rankanalyses.h"
#include "core/io/traceloader.h"

#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>
#include <QtTest>

#include <cmath>

using namespace tracedesk;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

// What rank k's own file holds, counted from its raw JSON.
struct RawKernels
{
    int rank = -1;
    qint64 count = 0;
    double totalUs = 0;
    QHash<QString, qint64> callsByName;
    QStringList steps; // ProfilerStep#N names on host threads
};

RawKernels rawKernels(const QString &file)
{
    RawKernels raw;
    const QJsonObject top = testsupport::readFixtureObject(file);
    raw.rank = top["distributedInfo"].toObject()["rank"].toInt(-1);
    for (const QJsonValue &v : top["traceEvents"].toArray()) {
        const QJsonObject e = v.toObject();
        if (e["ph"].toString() != "X")
            continue;
        const QString cat = e["cat"].toString().toLower();
        const QString name = e["name"].toString();
        if (cat == "kernel") {
            ++raw.count;
            raw.totalUs += e["dur"].toDouble();
            ++raw.callsByName[name];
        } else if ((cat == "user_annotation" || cat == "cpu_op")
                   && name.startsWith("ProfilerStep#")) {
            raw.steps << name.mid(int(strlen("ProfilerStep#")));
        }
    }
    return raw;
}

// The file of rank `rank` in `dir`: the one whose distributedInfo says so.
QString rankFile(const QString &dir, int rank)
{
    static const QRegularExpression digits("(\\d+)(?:_step|\\.json)");
    for (const QString &name : QDir(dir).entryList(QDir::Files, QDir::Name)) {
        const QRegularExpressionMatch m = digits.match(name);
        if (m.hasMatch() && m.captured(1).toInt() == rank)
            return dir + "/" + name;
    }
    return {};
}

AnalysisCachePtr loadRun(const QString &dir)
{
    core::LoadOptions options;
    options.useCache = false;
    auto loaded = core::loadTrace(dir.toStdString(), nullptr, options);
    if (!loaded) {
        qWarning("%s", loaded.message().c_str());
        return nullptr;
    }
    return std::make_shared<AnalysisCache>(loaded.value());
}

} // namespace

class TestPyTorchRanks : public QObject
{
    Q_OBJECT

private slots:
    void kernelViewPerRank_data();
    void kernelViewPerRank();
    void firstRankIsTheDefault();
    void cliRankOption();
};

void TestPyTorchRanks::kernelViewPerRank_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QList<int>>("ranks");
    QTest::newRow("dlrm") << QString(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto")
                          << QList<int>{0, 3, 6};
    QTest::newRow("megatron")
        << QString(TRACEDESK_SHARED_FIXTURES "/multirank/astrasim__megatron-tp8")
        << QList<int>{2, 5};
}

void TestPyTorchRanks::kernelViewPerRank()
{
    QFETCH(QString, dir);
    QFETCH(QList<int>, ranks);
    TRACEDESK_REQUIRE_FIXTURE(dir);
    const AnalysisCachePtr cache = loadRun(dir);
    QVERIFY(cache);
    const core::Trace &trace = cache->trace();
    QCOMPARE(kinetoSectionCount(trace), 8u);
    QCOMPARE(rankSectionLabels(trace).size(), size_t(8));

    qint64 previousCount = -1;
    bool differ = false;
    for (int rank : ranks) {
        const QString file = rankFile(dir, rank);
        QVERIFY2(!file.isEmpty(), qPrintable(dir));
        const RawKernels raw = rawKernels(file);
        QCOMPARE(raw.rank, rank);

        const std::optional<uint32_t> section = sectionOfRank(trace, rank);
        QVERIFY(section);
        const AnalysisCachePtr ranked = rankAnalyses(cache, *section);
        QCOMPARE(kinetoIndex(*ranked)->scope.scopeLabel,
                 "rank " + std::to_string(rank) + " of 8");
        const auto view = kernelView(*ranked);
        QCOMPARE(view->kernelCount, raw.count);
        // Sums of whole-ns durations: exact up to the double's rounding of the raw µs.
        QVERIFY2(std::abs(view->totalKernelUs - raw.totalUs) < 1e-6 * double(raw.count) + 1e-6,
                 qPrintable(QString("%1 vs %2").arg(view->totalKernelUs).arg(raw.totalUs)));
        QCOMPARE(qsizetype(view->byName.size()), raw.callsByName.size());
        for (const KernelNameRow &row : view->byName)
            QCOMPARE(row.times.calls, raw.callsByName.value(QString::fromStdString(row.name)));

        // Its steps are its own ProfilerStep# markers.
        const auto steps = pytorchSteps(*ranked);
        QCOMPARE(steps->hostStepCount, uint32_t(raw.steps.size()));
        QVERIFY(!steps->empty());
        QCOMPARE(QString::fromStdString(steps->steps.front().name), raw.steps.front());

        // Asking again hands out the same analyses, already computed.
        QCOMPARE(rankAnalyses(cache, *section), ranked);
        QVERIFY(ranked->has<KernelView>());
        differ = differ || (previousCount >= 0 && previousCount != raw.count);
        previousCount = raw.count;
    }
    if (QString(QTest::currentDataTag()) == "dlrm")
        QVERIFY(differ); // ranks 0, 3 and 6 have different kernel counts (245, 315, 246)
}

void TestPyTorchRanks::firstRankIsTheDefault()
{
    const QString dir(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");
    TRACEDESK_REQUIRE_FIXTURE(dir);
    const AnalysisCachePtr cache = loadRun(dir);
    QVERIFY(cache);
    QCOMPARE(rankAnalyses(cache, 0), cache);
    QCOMPARE(kinetoIndex(*cache)->scope.scopeLabel, std::string("rank 0 of 8"));
    QCOMPARE(kernelView(*cache)->kernelCount, rawKernels(rankFile(dir, 0)).count);
    // A section past the last is the last one; a rank the run lacks has no section.
    QCOMPARE(kinetoIndex(*rankAnalyses(cache, 99))->scope.scopeLabel,
             std::string("rank 7 of 8"));
    QVERIFY(!sectionOfRank(cache->trace(), 8));

    // One rank's own file is not a merged run: its only analyses are its own cache.
    auto single = core::loadTrace(rankFile(dir, 2).toStdString());
    QVERIFY(single);
    const auto own = std::make_shared<AnalysisCache>(single.value());
    QCOMPARE(kinetoSectionCount(own->trace()), 1u);
    QVERIFY(rankSectionLabels(own->trace()).empty());
    QCOMPARE(rankAnalyses(own, 5), own);
    QVERIFY(kinetoIndex(*own)->scope.wholeTrace);
}

void TestPyTorchRanks::cliRankOption()
{
    const QString dir(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");
    TRACEDESK_REQUIRE_FIXTURE(dir);
    for (int rank : {0, 3}) {
        const RawKernels raw = rawKernels(rankFile(dir, rank));
        const clitest::CliRun run =
            clitest::runCli({"kernel-stats", dir, "--rank", QString::number(rank)});
        QCOMPARE(run.exitCode, 0);
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.startsWith(QString("PyTorch views of rank %1 of 8\n").arg(rank)),
                 qPrintable(out.left(200)));
        static const QRegularExpression header("^(\\d+) kernels, ([0-9.]+) ms",
                                               QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = header.match(out);
        QVERIFY(m.hasMatch());
        QCOMPARE(m.captured(1).toLongLong(), raw.count);
        QCOMPARE(m.captured(2), QString::number(raw.totalUs / 1e3, 'f', 3));
    }
    // Without --rank: the first rank, and the line says how to pick another.
    const clitest::CliRun plain = clitest::runCli({"overview", dir});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY(plain.out.startsWith("PyTorch views of rank 0 of 8 (--rank N picks another rank)"));
    // JSON stays JSON.
    const clitest::CliRun json = clitest::runCli({"op-stats", dir, "--rank", "4", "--json"});
    QCOMPARE(json.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(json.out).isObject());
    // A rank the run lacks, and a rank that is no number.
    const clitest::CliRun missing = clitest::runCli({"kernel-stats", dir, "--rank", "8"});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains("the run has rank 0, rank 1"));
    QCOMPARE(clitest::runCli({"memory-profile", dir, "--rank", "x"}).exitCode, 2);
}

QTEST_GUILESS_MAIN(TestPyTorchRanks)
#include "tst_pytorchranks.moc"
