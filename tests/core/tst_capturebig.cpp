// A ~300 MB XSpace served and captured: the client's raised receive limit, the server's send
// path and the streaming save all have to cope. The file is written with XSpaceWriter into a
// temporary folder (events carrying a 1 KB string stat, so it is big but quick to make).

#include "tst_capturesupport.h"

#include "core/capture/capturesession.h"
#include "core/capture/recordedprofilerserver.h"
#include "core/generate/xspacewriter.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

using namespace tracedesk::core;
using namespace tracedesk::core::capture;
using namespace capturetest;

namespace {

constexpr uint64_t kTargetBytes = 300ull << 20;

QByteArray sha256(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&f);
    return hash.result();
}

} // namespace

class TestCaptureBig : public QObject
{
    Q_OBJECT

private slots:
    void threeHundredMegabytes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString source = dir.filePath("big.xplane.pb");
        XSpaceWriter writer(source.toStdString());
        QVERIFY(writer.open().ok());
        const uint32_t plane = writer.addPlane(1, "/host:CPU");
        const int64_t kind = writer.eventMetadata(plane, "payload_op");
        const int64_t stat = writer.statMetadata(plane, "payload");
        const uint32_t line = writer.addLine(plane, 1, "worker", 1700000000000000000ll);
        std::string text(1024, 'x');
        XStatList stats;
        const uint64_t events = kTargetBytes / 1040 + 1;
        for (uint64_t i = 0; i < events; ++i) {
            std::snprintf(text.data(), 20, "%019llu", static_cast<unsigned long long>(i));
            stats.clear();
            stats.addString(stat, text);
            writer.addEvent(line, kind, int64_t(i) * 1000000, 500000, &stats);
        }
        writer.addHostname("big-host");
        Result<uint64_t> size = writer.finish();
        QVERIFY(size.ok());
        QVERIFY(size.value() >= kTargetBytes);
        QVERIFY(size.value() < kTargetBytes + (16u << 20));

        ServeOptions serveOptions;
        serveOptions.xspacePath = source.toStdString();
        RecordedProfilerServer server(serveOptions);
        QVERIFY(server.start().ok());

        CaptureOptions options;
        options.addresses = {server.address()};
        options.durationMs = 100;
        options.retries = 0;
        options.logdir = dir.filePath("logs").toStdString();
        CaptureSession session(options);
        uint64_t lastReceived = 0;
        session.setProgressCallback([&](const CaptureSnapshot &s) {
            lastReceived = std::max(lastReceived, s.hosts[0].bytesReceived);
        });
        const CaptureResult r = session.run();
        QCOMPARE(r.state, CaptureState::Done);
        QCOMPARE(r.hosts[0].bytes, size.value());
        QVERIFY(lastReceived > size.value());   // the response wraps the XSpace
        server.stop();
        QCOMPARE(QFileInfo(q(r.hosts[0].savedPath)).size(), qint64(size.value()));
        QCOMPARE(sha256(q(r.hosts[0].savedPath)), sha256(source));
        QCOMPARE(filesUnder(dir.filePath("logs")).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestCaptureBig)
#include "tst_capturebig.moc"
