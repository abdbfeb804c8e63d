// tracedesk-cli serve and capture end to end: a capture saves the served file byte for byte,
// a failing server's text reaches the user with exit code 1, and usage errors exit with 2.

#include "support/clirun.h"
#include "tst_capturesupport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace capturetest;

namespace {

using Run = clitest::CliRun;
using clitest::runCli;

// Starts `serve` and returns its port (0 on failure).
int startServer(QProcess &p, const QStringList &extra, const QString &file)
{
    p.start(QStringLiteral(TRACEDESK_CLI), QStringList{"serve", file, "--port", "0"} + extra);
    if (!p.waitForStarted(10000))
        return 0;
    QByteArray line;
    while (!line.contains('\n') && p.waitForReadyRead(20000))
        line += p.readAllStandardOutput();
    const QRegularExpressionMatch m =
        QRegularExpression("listening on 127\\.0\\.0\\.1:(\\d+)").match(QString(line));
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}

void stopServer(QProcess &p)
{
    p.terminate();   // SIGTERM: serve stops cleanly
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 0);
}

} // namespace

class TestCaptureCli : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_xspace;

private slots:
    void initTestCase()
    {
        m_xspace = writeSmallXSpace(m_dir.path());
        QVERIFY(!m_xspace.isEmpty());
    }

    void captureSavesTheServedFile()
    {
        QProcess server;
        const int port = startServer(server, {}, m_xspace);
        QVERIFY(port > 0);
        const QString address = QString("127.0.0.1:%1").arg(port);
        const QString logdir = m_dir.filePath("cli");
        const Run r = runCli({"capture", address, "--duration-ms", "150", "--logdir", logdir,
                              "--run", "demo", "--host-level", "3", "--option",
                              "profile_subprocesses=true", "--option", "device_type=gpu"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString file = logdir + "/plugins/profile/demo/127.0.0.1_" +
                             QString::number(port) + ".xplane.pb";
        QVERIFY(r.out.contains(file.toUtf8()));
        QCOMPARE(readAll(file), readAll(m_xspace));
        stopServer(server);
    }

    void serverErrorReachesTheUser()
    {
        QProcess server;
        const int port = startServer(server, {"--fail", "no GPU visible to the profiler"},
                                     m_xspace);
        QVERIFY(port > 0);
        const QString logdir = m_dir.filePath("fail");
        const Run r = runCli({"capture", QString("127.0.0.1:%1").arg(port), "--duration-ms",
                              "100", "--logdir", logdir, "--retries", "0"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.contains("no GPU visible to the profiler"));
        QVERIFY(r.err.contains("1 of 1 host(s) not captured"));
        QCOMPARE(filesUnder(logdir), QStringList());
        stopServer(server);
    }

    void usageErrors()
    {
        QCOMPARE(runCli({"capture", "localhost:6000"}).exitCode, 2);   // no duration
        const Run bad = runCli({"capture", "localhost", "--duration-ms", "100"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("has no port"));
        QCOMPARE(runCli({"capture", "h:1", "--duration-ms", "100", "--host-level", "4"}).exitCode,
                 2);
        QCOMPARE(runCli({"capture", "h:1", "--duration-ms", "100", "--option", "novalue"})
                     .exitCode, 2);
        const Run missing = runCli({"serve", m_dir.filePath("missing.xplane.pb"), "--port", "0"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("cannot open the file"));
        QVERIFY(runCli({"--help"}).out.contains("capture ADDRS --duration-ms N"));
    }
};

QTEST_GUILESS_MAIN(TestCaptureCli)
#include "tst_capturecli.moc"
