// `tracedesk-cli diff`: the comparison printed as text and JSON, and the CI gate's exit status
// (0 for A vs A, 3 when B's steps are 10% slower than --fail-if-slower allows).

#include "support/clirun.h"
#include "tst_comparefixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Run = clitest::CliRun;
using clitest::runCli;

} // namespace

class TestCompareCli : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void sameTraceExitsZero();
    void slowerTraceFailsTheGate();
    void jsonReport();
    void usageErrors();

private:
    QTemporaryDir m_dir;
    QString m_a;
    QString m_b;
    QString m_changed;
};

void TestCompareCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const auto a = comparefixture::buildTraceA(10);
    comparefixture::Transform slow;
    slow.stretch = 1.1;   // every step 10% longer
    comparefixture::Transform changed;
    changed.scaleByKind = {{"conv_kernel", 1.5}};
    changed.drop = {"dropout_kernel"};
    m_a = m_dir.filePath(QStringLiteral("a/hosta.xplane.pb"));
    m_b = m_dir.filePath(QStringLiteral("b/hostb.xplane.pb"));
    m_changed = m_dir.filePath(QStringLiteral("c/hostc.xplane.pb"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("a"))));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("b"))));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("c"))));
    QVERIFY(comparefixture::writeXSpace(*a, m_a.toStdString()));
    QVERIFY(comparefixture::writeXSpace(*comparefixture::transformTrace(*a, slow),
                                        m_b.toStdString()));
    QVERIFY(comparefixture::writeXSpace(*comparefixture::transformTrace(*a, changed),
                                        m_changed.toStdString()));
}

void TestCompareCli::sameTraceExitsZero()
{
    const Run r = runCli({"diff", m_a, m_a, "--fail-if-slower", "5"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("Average step time: A 0."), r.out.constData());
    QVERIFY(r.out.contains("delta +0.0%"));
    QVERIFY(r.out.contains("0 slower, 0 faster, 0 added, 0 removed"));
}

void TestCompareCli::slowerTraceFailsTheGate()
{
    const Run gated = runCli({"diff", m_a, m_b, "--fail-if-slower", "5"});
    QCOMPARE(gated.exitCode, 3);
    QVERIFY2(gated.err.contains("average step time regressed by +10.0%"), gated.err.constData());
    // A looser gate passes, and no gate never fails.
    QCOMPARE(runCli({"diff", m_a, m_b, "--fail-if-slower", "12"}).exitCode, 0);
    QCOMPARE(runCli({"diff", m_a, m_b}).exitCode, 0);
    // B faster than A passes any gate.
    QCOMPARE(runCli({"diff", m_b, m_a, "--fail-if-slower", "0"}).exitCode, 0);
}

void TestCompareCli::jsonReport()
{
    const Run r = runCli({"diff", m_a, m_changed, "--json", "--level", "kernel"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject o = doc.object();
    QCOMPARE(o.value("level").toString(), QStringLiteral("kernel"));
    QCOMPARE(o.value("steps").toObject().value("count_a").toInt(), 10);
    const QJsonArray ops = o.value("ops").toArray();
    QCOMPARE(ops.size(), 5);
    const QJsonObject first = ops.at(0).toObject();
    QCOMPARE(first.value("name").toString(), QStringLiteral("conv_kernel"));
    QCOMPARE(first.value("change").toString(), QStringLiteral("slower"));
    QCOMPARE(first.value("delta_us").toDouble(), 50.0);
    const QJsonObject second = ops.at(1).toObject();
    QCOMPARE(second.value("name").toString(), QStringLiteral("dropout_kernel"));
    QCOMPARE(second.value("change").toString(), QStringLiteral("removed"));
    QCOMPARE(o.value("counts").toObject().value("unchanged").toInt(), 3);
    // Step time: +50 - 5 us per step.
    const QJsonObject gate = o.value("gate").toObject();
    QVERIFY(std::abs((gate.value("b_ms").toDouble() - gate.value("a_ms").toDouble()) - 0.045)
            < 1e-9);
}

void TestCompareCli::usageErrors()
{
    QCOMPARE(runCli({"diff", m_a}).exitCode, 2);
    QCOMPARE(runCli({"diff", m_a, m_a, "--level", "warp"}).exitCode, 2);
    QCOMPARE(runCli({"diff", m_a, m_a, "--fail-if-slower", "five"}).exitCode, 2);
    const Run missing = runCli({"diff", m_a, m_dir.filePath("nope.xplane.pb")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY(missing.err.contains("nope.xplane.pb"));
}

QTEST_GUILESS_MAIN(TestCompareCli)
#include "tst_comparecli.moc"
