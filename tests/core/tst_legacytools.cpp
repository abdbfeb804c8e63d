// Legacy per-tool run folders: the tool files decode into the analysis results with the
// figures an independent wire-format walk of the same bytes finds, a folder loads as an empty
// trace, the cache is seeded before anything computes, and bad files name themselves.

#include "core/analysis/analysiscache.h"
#include "core/io/traceloader.h"
#include "core/legacy/legacytools.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <string_view>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

QString fixture(const char *relative)
{
    return QStringLiteral(TRACEDESK_SHARED_FIXTURES "/legacy_tools/") + QLatin1String(relative);
}

std::string path(const QString &s) { return s.toStdString(); }

QByteArray readAll(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A minimal protobuf wire walk, written apart from the generated classes the code uses.
struct WireField
{
    int number = 0;
    int wire = 0;
    uint64_t value = 0;            // varint / fixed64
    std::string_view bytes;        // length-delimited
};

bool varint(std::string_view &in, uint64_t *out)
{
    *out = 0;
    for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
        const auto b = uint8_t(in.front());
        in.remove_prefix(1);
        *out |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

std::vector<WireField> walk(std::string_view in)
{
    std::vector<WireField> out;
    while (!in.empty()) {
        uint64_t tag = 0;
        if (!varint(in, &tag))
            return {};
        WireField f{int(tag >> 3), int(tag & 7)};
        if (f.wire == 0) {
            varint(in, &f.value);
        } else if (f.wire == 1) {
            std::memcpy(&f.value, in.data(), 8);
            in.remove_prefix(8);
        } else if (f.wire == 2) {
            uint64_t n = 0;
            varint(in, &n);
            f.bytes = in.substr(0, n);
            in.remove_prefix(n);
        } else if (f.wire == 5) {
            in.remove_prefix(4);
        } else {
            return {};
        }
        out.push_back(f);
    }
    return out;
}

std::vector<WireField> all(std::string_view in, int number)
{
    std::vector<WireField> out;
    for (const auto &f : walk(in))
        if (f.number == number)
            out.push_back(f);
    return out;
}

WireField one(std::string_view in, int number)
{
    auto fs = all(in, number);
    return fs.empty() ? WireField{} : fs.front();
}

double asDouble(const WireField &f)
{
    double d = 0;
    std::memcpy(&d, &f.value, 8);
    return d;
}

std::string_view view(const QByteArray &b) { return {b.constData(), size_t(b.size())}; }

} // namespace

class TstLegacyTools : public QObject
{
    Q_OBJECT

private slots:
    void putStoresReadyResult();
    void folderDetection();
    void corruptFilesNameThemselves();
    void chromeTraceOfLegacyFolderStillLoads();
    void gpuInputBoundDecodes();
    void opProfileJsonDecodes();
    void legacyFolderLoadsAndSeeds();
};

void TstLegacyTools::putStoresReadyResult()
{
    AnalysisCache cache(std::make_shared<Trace>());
    QVERIFY(!cache.has<StepSummary>());
    cache.put(std::make_shared<const StepSummary>(StepSummary{2.5, 0, 1, 4, 3}));
    QVERIFY(cache.has<StepSummary>());
    bool computed = false;
    auto got = cache.get<StepSummary>([&](AnalysisCache &) {
        computed = true;
        return StepSummary{};
    });
    QVERIFY(!computed);
    QCOMPARE(got->average, 2.5);
    QCOMPARE(got->count, 3);
    // A result already there wins: holders of the first pointer keep seeing the same value.
    cache.put(std::make_shared<const StepSummary>(StepSummary{9, 0, 0, 0, 1}));
    QCOMPARE(cache.get<StepSummary>([](AnalysisCache &) { return StepSummary{}; }).get(),
             got.get());
}

void TstLegacyTools::folderDetection()
{
    QTemporaryDir dir;
    const auto d = path(dir.path());
    QVERIFY(!legacy::isLegacyRun(d));
    QVERIFY(legacy::isLegacyToolFile("h.overview_page.pb"));
    QVERIFY(legacy::isLegacyToolFile("h.op_profile.json"));
    QVERIFY(!legacy::isLegacyToolFile("h.trace.json.gz"));
    QVERIFY(!legacy::isLegacyToolFile("h.xplane.pb"));
    QFile(dir.filePath("h.tensorflow_stats.pb")).open(QIODevice::WriteOnly);
    QVERIFY(legacy::isLegacyRun(d));
    QFile(dir.filePath("h.xplane.pb")).open(QIODevice::WriteOnly);
    QVERIFY(!legacy::isLegacyRun(d));
}

void TstLegacyTools::corruptFilesNameThemselves()
{
    QTemporaryDir dir;
    auto write = [&](const char *name, const QByteArray &bytes) {
        QFile f(dir.filePath(QLatin1String(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    };
    // A length prefix promising more bytes than there are: truncated.
    write("h.overview_page.pb", QByteArray("\x12\x7f\x11\x00", 4));
    auto r = legacy::readLegacyTools(path(dir.path()));
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.message()).contains("h.overview_page.pb"),
             r.message().c_str());
    QVERIFY(QString::fromStdString(r.message()).contains("truncated or corrupt"));

    QVERIFY(QFile::remove(dir.filePath("h.overview_page.pb")));
    write("h.input_pipeline.pb", QByteArray());
    r = legacy::readLegacyTools(path(dir.path()));
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.message()).contains("h.input_pipeline.pb: is empty"));

    QVERIFY(QFile::remove(dir.filePath("h.input_pipeline.pb")));
    write("h.op_profile.json", "{\"byCategory\": {\"name\": \"x\", \"children\": [");
    r = legacy::readLegacyTools(path(dir.path()));
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.message()).contains("h.op_profile.json: is not valid JSON"),
             r.message().c_str());

    write("h.op_profile.json", "{\"byCategory\": {\"name\": \"x\", \"children\": [1]}}");
    r = legacy::readLegacyTools(path(dir.path()));
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.message()).contains("not an object"));

    // The folder still opens: the problem is reported when the tools are read.
    auto trace = loadTrace(path(dir.path()));
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    AnalysisCache cache(trace.value());
    QVERIFY(!legacy::seedFromLegacyRun(cache));
}

void TstLegacyTools::chromeTraceOfLegacyFolderStillLoads()
{
    QTemporaryDir dir;
    QFile(dir.filePath("h.overview_page.pb")).open(QIODevice::WriteOnly);
    QFile(dir.filePath("h.input_pipeline.json")).open(QIODevice::WriteOnly);
    QFile(dir.filePath("h.trace.json.gz")).open(QIODevice::WriteOnly);
    auto r = resolveSource(path(dir.path()));
    QVERIFY2(r, r ? "" : r.message().c_str());
    QCOMPARE(r.value().format, SourceFormat::ChromeJson);
    QVERIFY(!r.value().legacyTools);
    QCOMPARE(QFileInfo(QString::fromStdString(r.value().files.front())).fileName(),
             QStringLiteral("h.trace.json.gz"));
}

void TstLegacyTools::gpuInputBoundDecodes()
{
    const QString dir = fixture("xprof_demo_GPU-input-bound");
    if (!QFileInfo::exists(dir))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    auto r = legacy::readLegacyTools(path(dir));
    QVERIFY2(r, r ? "" : r.message().c_str());
    const legacy::LegacyTools &t = r.value();
    QCOMPARE(t.files.size(), size_t(3));
    QVERIFY(t.overview && t.inputPipeline && t.frameworkOpStats && !t.opProfile);

    // Input pipeline: PROVENANCE.md / FORMATS.md 2.0 counts.
    const QByteArray ip = readAll(dir + "/localhost.input_pipeline.pb");
    QCOMPARE(all(view(ip), 4).size(), size_t(11));
    QCOMPARE(all(view(ip), 6).size(), size_t(90));
    QCOMPARE(t.inputPipeline->generic.steps.size(), size_t(11));
    QCOMPARE(t.inputPipeline->inputOps.size(), size_t(90));
    QCOMPARE(t.inputPipeline->stepTimeSummary.average, asDouble(one(one(view(ip), 2).bytes, 1)));
    const auto firstOp = one(view(ip), 6).bytes;
    QCOMPARE(t.inputPipeline->inputOps.front().opName, std::string(one(firstOp, 1).bytes));
    QCOMPARE(t.inputPipeline->inputOps.front().selfTimeMs, asDouble(one(firstOp, 5)));

    // Overview: input_analysis(2).step_time_summary(2).average(1), and the input percent in
    // input_analysis(2).recommendation(7).bottleneck_analysis(2, Any).value(2).input_percent(7).
    const QByteArray ov = readAll(dir + "/localhost.overview_page.pb");
    const auto analysis = one(view(ov), 2).bytes;
    const double average = asDouble(one(one(analysis, 2).bytes, 1));
    // This old file states the input share only in text ("81.4% ... waiting for input"); the
    // share is 100 x (host wait input + host to device) / step time summed over the steps
    // (step_details(4) Any.value(2): step_time_ms 2, host_wait_input_ms 11, host_to_device_ms 12).
    double stepMs = 0;
    double inputMs = 0;
    for (const auto &any : all(analysis, 4)) {
        const std::string url(one(any.bytes, 1).bytes);
        QVERIFY(url.find("PerGenericStepDetails") != std::string::npos);
        const auto details = one(any.bytes, 2).bytes;
        stepMs += asDouble(one(details, 2));
        inputMs += asDouble(one(details, 11)) + asDouble(one(details, 12));
    }
    const double inputPercent = 100 * inputMs / stepMs;
    QVERIFY(average > 1000 && average < 1200);
    QCOMPARE(QString::number(inputPercent, 'f', 1), QStringLiteral("81.4"));
    QCOMPARE(t.overview->stepCount, 11);
    QCOMPARE(t.overview->averageStepTimeMs, average);
    QVERIFY(qFuzzyCompare(t.overview->input->bottleneck.inputPercent, inputPercent));
    QVERIFY(t.overview->statement.find("81.4%") != std::string::npos);
    QCOMPARE(t.overview->bottleneck, std::string("host"));
    QCOMPARE(t.overview->runEnvironment.deviceType, std::string("GPU"));
    QCOMPARE(t.overview->runEnvironment.deviceCoreCount, 8);
    QCOMPARE(t.overview->topDeviceOps.size(), all(one(view(ov), 3).bytes, 4).size());

    // TF stats: with_idle(4).tf_stats_record(1), self time (8) of the first row.
    const QByteArray st = readAll(dir + "/localhost.tensorflow_stats.pb");
    const auto withIdle = all(one(view(st), 4).bytes, 1);
    const auto withoutIdle = all(one(view(st), 5).bytes, 1);
    QVERIFY(withIdle.size() > 100);
    QCOMPARE(t.frameworkOpStats->withIdle.rows.size(), withIdle.size());
    QCOMPARE(t.frameworkOpStats->withoutIdle.rows.size(), withoutIdle.size());
    const FrameworkOpStatsRow &top = t.frameworkOpStats->withIdle.rows.front();
    QCOMPARE(top.totalSelfTimeUs, asDouble(one(withIdle.front().bytes, 8)));
    QCOMPARE(top.name, std::string(one(withIdle.front().bytes, 4).bytes));
    QCOMPARE(top.rank, 1);
    QVERIFY(top.onDevice);
}

void TstLegacyTools::opProfileJsonDecodes()
{
    const QString dir = fixture("xprof_profile_demo");
    if (!QFileInfo::exists(dir))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    const QJsonObject json =
        QJsonDocument::fromJson(readAll(dir + "/profile_demo.op_profile.json")).object();
    const QJsonObject root = json.value("byCategory").toObject();
    QVERIFY(!root.isEmpty());
    auto r = legacy::readOpProfileJsonFile(path(dir + "/profile_demo.op_profile.json"));
    QVERIFY2(r, r ? "" : r.message().c_str());
    const OpProfileNode &n = r.value().root;
    QCOMPARE(QString::fromStdString(n.name), root.value("name").toString());
    const QJsonArray children = root.value("children").toArray();
    QCOMPARE(n.children.size(), size_t(children.size()));
    QCOMPARE(QString::fromStdString(n.children.front().name),
             children.first().toObject().value("name").toString());
    QCOMPARE(n.children.front().metrics.timeFraction,
             children.first().toObject().value("metrics").toObject().value("time").toDouble());

    // The whole folder: the op profile and the .pb files decode; the .json tool tables do not.
    auto tools = legacy::readLegacyTools(path(dir));
    QVERIFY2(tools, tools ? "" : tools.message().c_str());
    QVERIFY(tools.value().opProfile && tools.value().overview && tools.value().frameworkOpStats);
    QVERIFY(!tools.value().skipped.empty());

    // The pod viewer file seeds the pod viewer: one entry per step of podStatsMap.
    const QJsonArray steps = QJsonDocument::fromJson(readAll(dir + "/profile_demo.pod_viewer.json"))
                                 .object()
                                 .value("podStatsSequence")
                                 .toObject()
                                 .value("podStatsMap")
                                 .toArray();
    QVERIFY(tools.value().podViewer);
    QCOMPARE(tools.value().podViewer->steps.size(), size_t(steps.size()));
}

void TstLegacyTools::legacyFolderLoadsAndSeeds()
{
    const QString dir = fixture("xprof_demo_GPU-input-bound");
    if (!QFileInfo::exists(dir))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    auto trace = loadTrace(path(dir));
    QVERIFY2(trace, trace ? "" : trace.message().c_str());
    const Trace &t = *trace.value();
    QVERIFY(t.planes.empty());
    QCOMPARE(t.info.format, std::string(legacy::kLegacyFormat));
    QCOMPARE(t.info.warnings, std::vector<std::string>{legacy::kLegacyNote});
    QCOMPARE(legacy::legacyRunFolder(t.info), path(dir));

    auto cache = std::make_shared<AnalysisCache>(trace.value());
    auto seeded = legacy::seedFromLegacyRun(*cache);
    QVERIFY(seeded && seeded.value());
    QCOMPARE(overviewPage(*cache)->stepCount, 11);
    QCOMPARE(inputPipeline(*cache)->inputOps.size(), size_t(90));
    QVERIFY(frameworkOpStats(*cache)->withIdle.rows.size() > 100);
    QVERIFY(!legacy::seededOpProfile(*cache));

    // A normal trace is left alone.
    AnalysisCache plain(std::make_shared<Trace>());
    auto none = legacy::seedFromLegacyRun(plain);
    QVERIFY(none && !none.value());
}

QTEST_GUILESS_MAIN(TstLegacyTools)
#include "tst_legacytools.moc"
