// Synthetic traces: deterministic bytes, the counts the generator reports are what the readers
// load, and both formats describe the same slices and time span.

#include "core/generate/generator.h"
#include "core/io/chromejsonwriter.h"
#include "core/io/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tracedesk::core;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

uint64_t planesWithEvents(const Trace &trace)
{
    uint64_t n = 0;
    for (const Plane &p : trace.planes) {
        uint64_t events = 0;
        for (uint32_t t : p.tracks)
            events += trace.tracks[t].eventCount();
        n += events > 0;
    }
    return n;
}

const Plane *planeNamed(const Trace &trace, std::string_view name)
{
    for (const Plane &p : trace.planes) {
        if (trace.string(p.name) == name)
            return &p;
    }
    return nullptr;
}

} // namespace

class TestGenerator : public QObject
{
    Q_OBJECT

private slots:
    void micros()
    {
        std::string s;
        appendMicros(s, 0);
        QCOMPARE(s, std::string("0"));
        s.clear();
        appendMicros(s, 1234567);
        QCOMPARE(s, std::string("1.234567"));
        s.clear();
        appendMicros(s, 5000000);
        QCOMPARE(s, std::string("5"));
        s.clear();
        appendMicros(s, 1500000);
        QCOMPARE(s, std::string("1.5"));
        s.clear();
        appendMicros(s, -2000);
        QCOMPARE(s, std::string("-0.002"));
        s.clear();
        appendJsonString(s, "a\"b\\c\n");
        QCOMPARE(s, std::string("\"a\\\"b\\\\c\\u000a\""));
    }

    void deterministic_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("xspace") << int(GeneratedFormat::XSpace);
        QTest::newRow("json") << int(GeneratedFormat::ChromeJson);
    }

    void deterministic()
    {
        QFETCH(int, format);
        QTemporaryDir dir;
        GeneratorOptions options;
        options.events = 3000;
        options.format = GeneratedFormat(format);
        options.seed = 11;
        const std::string a = dir.filePath("a").toStdString(), b = dir.filePath("b").toStdString();
        QVERIFY(generateTrace(options, a).ok());
        QVERIFY(generateTrace(options, b).ok());
        QCOMPARE(readAll(a), readAll(b));
        options.seed = 12;
        QVERIFY(generateTrace(options, b).ok());
        QVERIFY(readAll(a) != readAll(b));
        QVERIFY(!QFile::exists(QString::fromStdString(a + ".partial")));
    }

    void reportedCounts()
    {
        QTemporaryDir dir;
        GeneratorOptions options;
        options.events = 5000;
        options.seed = 5;
        const std::string xspace = dir.filePath("gen.xplane.pb").toStdString();
        const std::string json = dir.filePath("gen.json").toStdString();
        auto xs = generateTrace(options, xspace);
        options.format = GeneratedFormat::ChromeJson;
        auto js = generateTrace(options, json);
        QVERIFY(xs.ok() && js.ok());
        const GeneratedTraceStats &x = xs.value(), &j = js.value();

        // About N events; same workload in both formats, counters only in JSON (one per step).
        QVERIFY(x.events >= 5000 && x.events < 5400);
        QCOMPARE(x.slices, j.slices);
        QCOMPARE(x.steps, j.steps);
        QCOMPARE(x.counterSamples, uint64_t(0));
        QCOMPARE(j.counterSamples, j.steps);
        QCOMPARE(x.flows, j.flows);
        QCOMPARE(x.planes.size(), size_t(3)); // host + 2 GPUs
        QCOMPARE(x.begin, j.begin);
        QCOMPARE(x.end, j.end);
        uint64_t sum = 0;
        for (const auto &p : x.planes)
            sum += p.events();
        QCOMPARE(sum, x.events);

        LoadOptions load;
        load.useCache = false;
        auto xt = loadTrace(xspace, nullptr, load);
        auto jt = loadTrace(json, nullptr, load);
        if (!xt.ok() || !jt.ok())
            QSKIP("a reader is not available yet");
        const Trace &xtrace = *xt.value(), &jtrace = *jt.value();
        QCOMPARE(xtrace.eventCount(), x.events);
        QCOMPARE(xtrace.sliceCount(), x.slices);
        QCOMPARE(xtrace.info.xevents, x.slices);
        QCOMPARE(jtrace.eventCount(), j.events);
        QCOMPARE(jtrace.sliceCount(), xtrace.sliceCount());
        QCOMPARE(jtrace.counterSampleCount(), j.counterSamples);
        QCOMPARE(planesWithEvents(xtrace), uint64_t(x.planes.size()));
        QCOMPARE(planesWithEvents(jtrace), uint64_t(j.planes.size()));
        QCOMPARE(xtrace.end - xtrace.begin, x.end - x.begin);
        QCOMPARE(jtrace.end - jtrace.begin, xtrace.end - xtrace.begin);
        QCOMPARE(uint64_t(xtrace.flows.size()), x.flows);
        QCOMPARE(uint64_t(jtrace.flows.size()), j.flows);
        for (const auto &p : x.planes) {
            const Plane *loaded = planeNamed(xtrace, p.name);
            QVERIFY2(loaded, p.name.c_str());
            uint64_t events = 0;
            for (uint32_t t : loaded->tracks)
                events += xtrace.tracks[t].eventCount();
            QCOMPARE(events, p.events());
        }
        for (const auto &p : j.planes) {
            const Plane *loaded = planeNamed(jtrace, p.name);
            QVERIFY2(loaded, p.name.c_str());
            uint64_t events = 0;
            for (uint32_t t : loaded->tracks)
                events += jtrace.tracks[t].eventCount();
            QCOMPARE(events, p.events());
        }
        QCOMPARE(xtrace.info.warningCount, uint64_t(0));
        QCOMPARE(jtrace.info.warningCount, uint64_t(0));
    }

    void unwritableOutputIsAnError()
    {
        GeneratorOptions options;
        options.events = 10;
        auto r = generateTrace(options, "/nonexistent-dir/out.xplane.pb");
        QVERIFY(!r.ok());
        QVERIFY(r.message().find("/nonexistent-dir/out.xplane.pb") != std::string::npos);
        options.format = GeneratedFormat::ChromeJson;
        QVERIFY(!generateTrace(options, "/nonexistent-dir/out.json").ok());
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "tst_generator.moc"
