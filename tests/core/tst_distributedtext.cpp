// The text report of `tracedesk-cli distributed`: the per-rank per-step table (step time,
// computation, communication, overlap, exposed communication, idle in µs) shows exactly the
// numbers of the JSON report (the contract), every rank and step once, each row adding up
// (computation + exposed communication + idle = step time), next to the existing sections.

#include "support/clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

class TestDistributedText : public QObject
{
    Q_OBJECT

private slots:
    void stepTable();
};

void TestDistributedText::stepTable()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString run = dir.filePath("run");
    const clitest::CliRun gen = clitest::runCli({"generate", "--format", "kineto", "--ranks", "3",
                                                 "--events", "6k", "--seed", "3", run});
    QVERIFY2(gen.exitCode == 0, gen.err.constData());

    const clitest::CliRun json = clitest::runCli({"distributed", run, "--json", "--no-cache"});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject top = QJsonDocument::fromJson(json.out).object();
    const QJsonArray ranks = top["ranks"].toArray();
    QCOMPARE(ranks.size(), 3);
    // The contract's keys are still all there.
    for (const char *key : {"rank", "file", "step_count", "kernel_count",
                            "communication_kernel_count", "computation_us", "communication_us",
                            "overlap_us", "exposed_communication_us", "idle_us"})
        QVERIFY2(ranks[0].toObject().contains(key), key);

    const clitest::CliRun text = clitest::runCli({"distributed", run, "--no-cache"});
    QCOMPARE(text.exitCode, 0);
    const QString out = QString::fromUtf8(text.out);
    for (const char *section : {"Distributed run: 3 rank(s)", "Steps per rank (µs",
                                "Collectives (first", "Collective stats per name",
                                "Stragglers (waiting caused)"})
        QVERIFY2(out.contains(QString::fromUtf8(section)), section);

    // The step table: "rank step step-time computation communication overlap exposed idle".
    const qsizetype from = out.indexOf("Steps per rank");
    const qsizetype to = out.indexOf("Collectives (first");
    QVERIFY(from >= 0 && to > from);
    const QStringList lines = out.mid(from, to - from).split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 2);
    QVERIFY(lines[1].contains("step time") && lines[1].contains("exposed comm")
            && lines[1].contains("idle"));
    static const QRegularExpression row(
        "^\\s*(\\d+) (\\S+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)"
        "\\s+([0-9.]+)$");
    QHash<QString, QStringList> shown; // "rank/step" -> the six numbers as printed
    for (qsizetype i = 2; i < lines.size(); ++i) {
        const QRegularExpressionMatch m = row.match(lines[i]);
        QVERIFY2(m.hasMatch(), qPrintable(lines[i]));
        const QString key = m.captured(1) + "/" + m.captured(2);
        QVERIFY2(!shown.contains(key), qPrintable(key));
        shown[key] = {m.captured(3), m.captured(4), m.captured(5), m.captured(6),
                      m.captured(7), m.captured(8)};
        const double sum = m.captured(4).toDouble() + m.captured(7).toDouble()
                           + m.captured(8).toDouble();
        QVERIFY2(std::abs(sum - m.captured(3).toDouble()) < 0.003, qPrintable(lines[i]));
    }
    int steps = 0;
    for (const QJsonValue &r : ranks) {
        const QString rank = QString::number(r.toObject()["rank"].toInt());
        for (const QJsonValue &s : r.toObject()["steps"].toArray()) {
            const QJsonObject st = s.toObject();
            const QString key = rank + "/" + st["step"].toString();
            QVERIFY2(shown.contains(key), qPrintable(key));
            const QStringList &v = shown[key];
            int c = 0;
            for (const char *k : {"step_time_us", "computation_us", "communication_us",
                                  "overlap_us", "exposed_communication_us", "idle_us"})
                QCOMPARE(v[c++], QString::number(st[k].toDouble(), 'f', 3));
            ++steps;
        }
    }
    QVERIFY(steps >= 3);
    QCOMPARE(shown.size(), steps);
}

QTEST_GUILESS_MAIN(TestDistributedText)
#include "tst_distributedtext.moc"
