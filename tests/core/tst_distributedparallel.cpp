// The README's map/reduce recipe run as written, with GNU parallel as the engine: 16 generated
// Kineto ranks, the map step four at a time through `parallel -j4`, then the reduce, whose JSON
// must equal the single-machine `distributed --json` on the same folder. Without GNU parallel
// the test is skipped, except in CI (CI set), where it fails: CI installs it
// (packaging/install-deps.sh).

#include "support/clirun.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

constexpr int kRanks = 16;

// GNU parallel's path, or empty (moreutils ships another `parallel` with other options).
QString gnuParallel()
{
    const QString path = QStandardPaths::findExecutable(QStringLiteral("parallel"));
    if (path.isEmpty())
        return {};
    QProcess p;
    p.start(path, {QStringLiteral("--version")});
    if (!p.waitForFinished(30000))
        return {};
    return p.readAllStandardOutput().startsWith("GNU parallel") ? path : QString();
}

} // namespace

class TestDistributedParallel : public QObject
{
    Q_OBJECT

private slots:
    void mapThroughParallelThenReduce();
};

void TestDistributedParallel::mapThroughParallelThenReduce()
{
    const QString parallel = gnuParallel();
    if (parallel.isEmpty()) {
        if (qEnvironmentVariableIsSet("CI"))
            QFAIL("GNU parallel is not installed (Debian package `parallel`); CI must have it");
        QSKIP("GNU parallel is not installed (Debian package `parallel`): the map step's "
              "parallel recipe is not tested here");
    }
    QTemporaryDir work;
    QVERIFY(work.isValid());
    const QString run = work.filePath(QStringLiteral("run"));
    const QString sums = work.filePath(QStringLiteral("summaries"));
    const auto generated = clitest::runCli({"generate", "--format", "kineto", "--ranks",
                                            QString::number(kRanks), "--slow-rank", "5",
                                            "--events", "2000", run});
    QCOMPARE(generated.exitCode, 0);
    const QStringList names = QDir(run).entryList(QDir::Files, QDir::Name);
    QCOMPARE(names.size(), kRanks);

    // What the README's recipe runs: one map per file, four at a time.
    QStringList args = {QStringLiteral("--will-cite"), QStringLiteral("--halt"),
                        QStringLiteral("now,fail=1"), QStringLiteral("-j4"),
                        QStringLiteral(TRACEDESK_CLI), QStringLiteral("distributed"),
                        QStringLiteral("--map"), QStringLiteral("{}"), QStringLiteral("--out"),
                        sums, QStringLiteral(":::")};
    for (const QString &name : names)
        args << run + QLatin1Char('/') + name;
    QProcess map;
    map.start(parallel, args);
    QVERIFY(map.waitForFinished(300000));
    QVERIFY2(map.exitStatus() == QProcess::NormalExit && map.exitCode() == 0,
             map.readAllStandardError().constData());
    QCOMPARE(QDir(sums).entryList({QStringLiteral("*.tdsummary")}, QDir::Files).size(), kRanks);

    const auto reduced = clitest::runCli({"distributed", "--reduce", sums, "--json"});
    const auto whole = clitest::runCli({"distributed", run, "--json", "--no-cache"});
    QCOMPARE(reduced.exitCode, 0);
    QCOMPARE(whole.exitCode, 0);
    const QJsonDocument a = QJsonDocument::fromJson(whole.out);
    const QJsonDocument b = QJsonDocument::fromJson(reduced.out);
    QVERIFY(a.isObject());
    QCOMPARE(a["ranks"].toArray().size(), kRanks);
    QVERIFY(!a["collectives"].toArray().isEmpty());
    QCOMPARE(a["stragglers"][0]["rank"].toInt(), 5);
    // Nothing is left out of the comparison: the summaries keep the traces' paths as given.
    QCOMPARE(b, a);
}

QTEST_GUILESS_MAIN(TestDistributedParallel)
#include "tst_distributedparallel.moc"
