// CaptureSession against RecordedProfilerServer on 127.0.0.1: success (byte-identical, loads),
// several hosts with one failing, retries, unreachable, deadline, server error text,
// Terminate, cancel, older servers that save on their own disk, and run directories that are
// never overwritten.

#include "tst_capturesupport.h"
#include "core/support/refusingport.h"

#include "core/capture/capturesession.h"
#include "core/capture/connectioncheck.h"
#include "core/capture/recordedprofilerserver.h"
#include "core/capture/tcpprobe.h"
#include "core/io/traceloader.h"

#include "profiler_service.pb.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

using namespace tracedesk::core;
using namespace tracedesk::core::capture;
using namespace capturetest;

namespace {

CaptureOptions baseOptions(const QString &logdir, std::vector<std::string> addresses)
{
    CaptureOptions o;
    o.addresses = std::move(addresses);
    o.durationMs = 150;
    o.retries = 0;
    o.logdir = logdir.toStdString();
    return o;
}

std::string stem(const std::string &address)
{
    std::string s = address;
    std::replace(s.begin(), s.end(), ':', '_');
    return s;
}

} // namespace

class TestCapture : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_xspace;
    uint64_t m_events = 0;

    std::unique_ptr<RecordedProfilerServer> serve(ServeMode mode = ServeMode::Trace,
                                                  int modeCalls = -1, std::string text = {})
    {
        ServeOptions o;
        o.xspacePath = m_xspace.toStdString();
        o.mode = mode;
        o.modeCalls = modeCalls;
        if (!text.empty())
            o.failText = text;
        auto server = std::make_unique<RecordedProfilerServer>(o);
        Result<int> port = server->start();
        if (!port.ok())
            qFatal("cannot start the test server: %s", port.message().c_str());
        return server;
    }

    QString logdir(const char *name) { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_xspace = writeSmallXSpace(m_dir.path(), &m_events);
        QVERIFY(!m_xspace.isEmpty());
    }

    void successfulCapture()
    {
        auto server = serve();
        const QString dir = logdir("ok");
        CaptureOptions options = baseOptions(dir, {server->address()});
        options.runName = "run_a";
        CaptureSession session(options);
        std::mutex mutex;
        std::vector<CaptureState> seen;
        session.setProgressCallback([&](const CaptureSnapshot &s) {
            std::lock_guard lock(mutex);
            QCOMPARE(s.hosts.size(), size_t(1));
            if (seen.empty() || seen.back() != s.hosts[0].state)
                seen.push_back(s.hosts[0].state);
        });
        const CaptureResult r = session.run();

        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(r.savedCount(), 1);
        const QString runDir = dir + "/plugins/profile/run_a";
        QCOMPARE(q(r.runDir), runDir);
        const QString file = runDir + "/" + q(stem(server->address())) + ".xplane.pb";
        QCOMPARE(q(r.hosts[0].savedPath), file);
        QCOMPARE(r.hosts[0].attempts, 1);
        QCOMPARE(r.hosts[0].bytes, uint64_t(QFileInfo(m_xspace).size()));
        QCOMPARE(readAll(file), readAll(m_xspace));
        QCOMPARE(filesUnder(dir),
                 QStringList{"plugins/profile/run_a/" + QFileInfo(file).fileName()});
        // States only move forward and end at Done; the 150 ms recording spans a tick.
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back(), CaptureState::Done);
        for (size_t i = 1; i < seen.size(); ++i)
            QVERIFY(int(seen[i - 1]) < int(seen[i]));
        QVERIFY(std::find(seen.begin(), seen.end(), CaptureState::Capturing) != seen.end());

        LoadOptions load;
        load.useCache = false;
        Result<TracePtr> trace = loadTrace(runDir.toStdString(), nullptr, load);
        QVERIFY2(trace.ok(), trace.ok() ? "" : trace.message().c_str());
        QCOMPARE(trace.value()->eventCount(), m_events);

        // What the server saw.
        tensorflow::ProfileRequest request;
        QVERIFY(request.ParseFromString(server->lastRequest()));
        QCOMPARE(request.session_id(), std::string("run_a"));
        QCOMPARE(request.host_name(), server->address());
        QVERIFY(request.emit_xspace());
        QCOMPARE(q(request.repository_root()), dir + "/plugins/profile");
        QCOMPARE(request.opts().duration_ms(), uint64_t(150));
    }

    void twoHostsOneFailing()
    {
        auto good = serve();
        auto bad = serve(ServeMode::Fail, -1, "CUPTI could not be initialized");
        const QString dir = logdir("two");
        CaptureSession session(baseOptions(dir, {good->address(), bad->address()}));
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(r.hosts.size(), size_t(2));
        QCOMPARE(r.hosts[0].state, CaptureState::Done);
        QCOMPARE(readAll(q(r.hosts[0].savedPath)), readAll(m_xspace));
        QCOMPARE(r.hosts[1].state, CaptureState::Failed);
        QCOMPARE(r.hosts[1].failure, FailureKind::ServerError);
        QCOMPARE(r.hosts[1].serverText, std::string("CUPTI could not be initialized"));
        QVERIFY(q(r.hosts[1].message).contains("CUPTI could not be initialized"));
        QVERIFY(q(r.hosts[1].message).contains("INTERNAL"));
        QCOMPARE(filesUnder(dir).size(), 1);
        QVERIFY(r.hosts[1].savedPath.empty());
    }

    void retriesAfterEmptyTraces()
    {
        auto server = serve(ServeMode::Empty, 2);
        CaptureOptions options = baseOptions(logdir("retry"), {server->address()});
        options.retries = 3;
        CaptureSession session(options);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(r.hosts[0].attempts, 3);
        QCOMPARE(server->profileCalls(), 3);
        QCOMPARE(readAll(q(r.hosts[0].savedPath)), readAll(m_xspace));
    }

    void emptyEveryTime()
    {
        auto server = serve(ServeMode::Empty);
        const QString dir = logdir("empty");
        CaptureOptions options = baseOptions(dir, {server->address()});
        options.retries = 1;
        CaptureSession session(options);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Failed);
        QCOMPARE(r.hosts[0].failure, FailureKind::EmptyTrace);
        QCOMPARE(r.hosts[0].attempts, 2);
        QCOMPARE(server->profileCalls(), 2);
        QVERIFY(q(r.hosts[0].message).contains("no trace events"));
        QVERIFY(r.runDir.empty());
        QCOMPARE(filesUnder(dir), QStringList());
        QCOMPARE(QDir(dir + "/plugins/profile").entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 QStringList());
    }

    void retriesOnUnavailable()
    {
        auto server = serve(ServeMode::Unavailable, 1);
        CaptureOptions options = baseOptions(logdir("unavail"), {server->address()});
        options.retries = 2;
        CaptureSession session(options);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(r.hosts[0].attempts, 2);
        QCOMPARE(server->profileCalls(), 2);
    }

    void unreachableAddress()
    {
        // Held for the whole test: a port taken from a stopped server could be reused meanwhile.
        const RefusingPort refusing;
        QVERIFY(refusing.port() != 0);
        const std::string address = refusing.address();
        const QString dir = logdir("unreachable");
        CaptureOptions options = baseOptions(dir, {address});
        options.retries = 1;
        CaptureSession session(options);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Failed);
        QCOMPARE(r.hosts[0].failure, FailureKind::Unreachable);
        QCOMPARE(r.hosts[0].attempts, 2);
        QVERIFY(q(r.hosts[0].message).startsWith("Could not reach " + q(address)));
        QCOMPARE(filesUnder(dir), QStringList());
    }

    // "Test connection" on a port where nothing listens: the refusal comes back at once and
    // the message says so, instead of waiting out the timeout and blaming the network.
    void refusedPortSaysSoAtOnce()
    {
        const RefusingPort refusing;
        QVERIFY(refusing.port() != 0);
        QElapsedTimer clock;
        clock.start();
        // Well under the 10 s the check would wait for a host that does not answer.
        const ConnectionCheck check = checkConnection(refusing.address(), 10000);
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!check.reachable);
        QVERIFY2(q(check.message).contains("refused"), check.message.c_str());
        QVERIFY(!q(check.message).contains("within"));
        QCOMPARE(probeTcp(refusing.address(), 1000).result, TcpProbeResult::Refused);
    }

    void deadlineExceeded()
    {
        auto server = serve(ServeMode::Hang);
        CaptureOptions options = baseOptions(logdir("deadline"), {server->address()});
        options.retries = 2;
        options.deadlineMs = 400;
        CaptureSession session(options);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Failed);
        QCOMPARE(r.hosts[0].failure, FailureKind::TimedOut);
        QCOMPARE(r.hosts[0].attempts, 1);   // a timeout is not retried
        QVERIFY(q(r.hosts[0].message).contains("within 0.4 s"));
        QTRY_COMPARE(server->activeCalls(), 0);
    }

    void defaultDeadlineRule()
    {
        CaptureOptions o;
        o.durationMs = 1000;
        QCOMPARE(sessionDeadlineMs(o), uint64_t(60000));
        o.durationMs = 45000;
        o.delayMs = 500;
        QCOMPARE(sessionDeadlineMs(o), uint64_t(90500));
        o.deadlineMs = 400;
        QCOMPARE(sessionDeadlineMs(o), uint64_t(400));
    }

    void terminateStopsEarly()
    {
        auto server = serve();
        CaptureOptions options = baseOptions(logdir("terminate"), {server->address()});
        options.durationMs = 600000;   // ten minutes unless Terminate works
        Background run(options);
        QTRY_COMPARE(server->activeCalls(), 1);
        run.session.stopEarly();
        const CaptureResult r = run.finish();
        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(server->terminateCalls(), 1);
        QCOMPARE(readAll(q(r.hosts[0].savedPath)), readAll(m_xspace));
        tensorflow::ProfileRequest request;
        QVERIFY(request.ParseFromString(server->lastRequest()));
        QCOMPARE(q(request.session_id()), QFileInfo(q(r.runDir)).fileName());
    }

    void cancelLeavesNothing()
    {
        auto server = serve();
        const QString dir = logdir("cancel");
        CaptureOptions options = baseOptions(dir, {server->address()});
        options.durationMs = 600000;
        Background run(options);
        QTRY_COMPARE(server->activeCalls(), 1);
        run.session.cancel();
        const CaptureResult r = run.finish();
        QCOMPARE(r.state, CaptureState::Cancelled);
        QCOMPARE(r.hosts[0].state, CaptureState::Cancelled);
        QVERIFY(r.runDir.empty());
        QCOMPARE(filesUnder(dir), QStringList());
        QCOMPARE(QDir(dir + "/plugins/profile").entryList(QDir::Dirs | QDir::NoDotAndDotDot),
                 QStringList());
        QTRY_COMPARE(server->activeCalls(), 0);
    }

    void existingRunNeverOverwritten()
    {
        auto server = serve();
        const QString dir = logdir("existing");
        const QString old = dir + "/plugins/profile/same/" + q(stem(server->address())) +
                            ".xplane.pb";
        QVERIFY(QDir().mkpath(QFileInfo(old).path()));
        {
            QFile f(old);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("earlier capture");
        }
        CaptureOptions options = baseOptions(dir, {server->address()});
        options.runName = "same";
        CaptureSession first(options);
        const CaptureResult a = first.run();
        CaptureSession second(options);
        const CaptureResult b = second.run();
        QCOMPARE(a.state, CaptureState::Done);
        QCOMPARE(b.state, CaptureState::Done);
        QCOMPARE(q(a.runDir), dir + "/plugins/profile/same_1");
        QCOMPARE(q(b.runDir), dir + "/plugins/profile/same_2");
        QCOMPARE(readAll(old), QByteArray("earlier capture"));
        QCOMPARE(readAll(q(a.hosts[0].savedPath)), readAll(m_xspace));
        QCOMPARE(readAll(q(b.hosts[0].savedPath)), readAll(m_xspace));
        QCOMPARE(filesUnder(dir).size(), 3);
    }

    void olderServerSavesOnItsOwnDisk()
    {
        // Same machine: the server's write lands in the reserved run directory.
        {
            ServeOptions o;
            o.xspacePath = m_xspace.toStdString();
            o.mode = ServeMode::ServerSideWrite;
            RecordedProfilerServer server(o);
            QVERIFY(server.start().ok());
            const QString dir = logdir("legacy_local");
            CaptureSession session(baseOptions(dir, {server.address()}));
            const CaptureResult r = session.run();
            QCOMPARE(r.state, CaptureState::Done);
            QCOMPARE(r.hosts[0].savedPath, r.hosts[0].serverPath);
            QVERIFY(q(r.hosts[0].message).startsWith("Saved by the server"));
            QCOMPARE(readAll(q(r.hosts[0].savedPath)), readAll(m_xspace));
        }
        // Another machine: the client says where the file is.
        {
            ServeOptions o;
            o.xspacePath = m_xspace.toStdString();
            o.mode = ServeMode::ServerSideWrite;
            o.serverDiskRoot = logdir("server_disk").toStdString();
            RecordedProfilerServer server(o);
            QVERIFY(server.start().ok());
            const QString dir = logdir("legacy_remote");
            CaptureSession session(baseOptions(dir, {server.address()}));
            const CaptureResult r = session.run();
            QCOMPARE(r.state, CaptureState::Failed);
            QCOMPARE(r.hosts[0].failure, FailureKind::ServerSideFile);
            const QString expected = QFileInfo(dir).absoluteFilePath() + "/plugins/profile/" +
                                     QFileInfo(q(r.hosts[0].serverPath)).dir().dirName() + "/" +
                                     q(stem(server.address())) + ".xplane.pb";
            QCOMPARE(q(r.hosts[0].serverPath), expected);
            QVERIFY(q(r.hosts[0].message).contains("on its own disk at " + expected));
            QCOMPARE(filesUnder(dir), QStringList());
        }
    }

    void invalidOptions()
    {
        CaptureOptions o = baseOptions(logdir("invalid"), {"no-port"});
        CaptureSession session(o);
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Failed);
        QVERIFY(r.hosts.empty());
        QVERIFY(q(r.message).contains("has no port"));
        QVERIFY(!QFileInfo::exists(logdir("invalid")));
    }
};

QTEST_GUILESS_MAIN(TestCapture)
#include "tst_capture.moc"
