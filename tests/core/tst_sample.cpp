// The bundled quick-start sample is exactly what `tracedesk-cli generate` makes, and it loads.

#include "core/analysis/opmetrics.h"
#include "core/io/traceloader.h"
#include "xplane.pb.h"

#include <QtTest>

#include <fstream>
#include <map>

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

    // The first profile a user opens has kernel stats: every kernel on the GPUs' stream lines
    // carries its launch details, and the same kernel on both GPUs is one row (XProf keys its
    // rows by name, launch configuration and op, not by device). Counted from the raw proto.
    void sampleHasKernelStats()
    {
        tensorflow::profiler::XSpace space;
        std::ifstream in(kSample.toStdString(), std::ios::binary);
        QVERIFY(space.ParseFromIstream(&in));
        std::map<std::string, int64_t> expected;   // kernel name -> occurrences
        for (const auto &plane : space.planes()) {
            if (plane.name().rfind("/device:GPU:", 0) != 0)
                continue;
            int64_t detailsStat = -1;
            for (const auto &[id, meta] : plane.stat_metadata())
                if (meta.name() == "kernel_details")
                    detailsStat = id;
            for (const auto &line : plane.lines()) {
                if (line.name().rfind("Stream #", 0) != 0)
                    continue;
                for (const auto &event : line.events()) {
                    const auto &meta = plane.event_metadata().at(event.metadata_id());
                    bool hasDetails = false;
                    for (const auto &stat : meta.stats())
                        hasDetails = hasDetails || int64_t(stat.metadata_id()) == detailsStat;
                    QVERIFY2(hasDetails, meta.name().c_str());
                    if (event.duration_ps() > 0)
                        ++expected[meta.name()];
                }
            }
        }
        QVERIFY(expected.size() >= 5);

        LoadOptions options;
        options.useCache = false;
        auto trace = loadTrace(kSample.toStdString(), nullptr, options);
        QVERIFY(trace.ok());
        const auto db = analysis::kernelStats(*trace.value());
        std::map<std::string, int64_t> got;
        for (const auto &r : db.reports) {
            QVERIFY2(r.registersPerThread > 0, r.name.c_str());
            got[r.name] += r.occurrences;
        }
        QCOMPARE(got, expected);
        // One generated kernel runs under one op, so one row per name: none split by GPU.
        QCOMPARE(db.reports.size(), expected.size());
    }
};

QTEST_GUILESS_MAIN(TestSample)
#include "tst_sample.moc"
