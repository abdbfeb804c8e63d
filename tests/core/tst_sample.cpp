// The bundled quick-start sample is exactly what `tracedesk-cli generate` makes, and it loads.

#include "core/io/traceloader.h"

#include <QtTest>

using namespace tracedesk::core;

namespace {
const QString kSample = QStringLiteral(TRACEDESK_TEST_DATA "/../../resources/sample/plugins/profile/"
                                       "2024_01_01_00_00_00/sample-host.xplane.pb");
}

class TestSample : public QObject
{
    Q_OBJECT

private slots:
    void sampleIsTheGeneratorsOutput()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("sample-host.xplane.pb");
        QProcess cli;
        cli.start(QStringLiteral(TRACEDESK_CLI),
                  {"generate", "--events", "50000", "--format", "xspace", "--seed", "7", out});
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        QFile generated(out), bundled(kSample);
        QVERIFY(generated.open(QIODevice::ReadOnly));
        QVERIFY2(bundled.open(QIODevice::ReadOnly), qPrintable(kSample));
        QVERIFY2(generated.readAll() == bundled.readAll(),
                 "resources/sample differs from `generate --events 50000 --seed 7`; regenerate it");
    }

    void sampleRunFolderLoads()
    {
        LoadOptions options;
        options.useCache = false;
        const std::string folder = QFileInfo(kSample).absolutePath().toStdString() + "/../../..";
        auto trace = loadTrace(folder, nullptr, options);
        QVERIFY2(trace.ok(), trace.ok() ? "" : trace.message().c_str());
        QCOMPARE(trace.value()->info.format, std::string("xspace"));
        QCOMPARE(trace.value()->eventCount(), trace.value()->info.xevents);
        QVERIFY(trace.value()->eventCount() >= 50000);
        QVERIFY(!trace.value()->flows.empty());
        QCOMPARE(trace.value()->info.warningCount, uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSample)
#include "tst_sample.moc"
