// Store cache: a Trace written and read back column by column, corruption and truncation are
// errors (never crashes), and the cache key follows the source file's identity.

#include "core/generate/generator.h"
#include "core/io/storecache.h"
#include "core/io/traceloader.h"
#include "core/model/tracebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <thread>
#include <fstream>

using namespace tracedesk::core;

namespace {

std::vector<char> readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string &path, const std::vector<char> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Two planes, three tracks (one counter track), nesting, args, side columns, aggregates, flows.
std::shared_ptr<Trace> makeTrace(int bulk = 0)
{
    TraceBuilder b;
    const uint32_t host = b.addPlane("/host:CPU", "worker0", 7, PlaneKind::Host);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "worker0", 0, PlaneKind::Device);
    EventKind step;
    step.name = b.intern("train_step");
    step.plane = host;
    const uint32_t stepKind = b.addKind(step);
    EventKind op;
    op.name = b.intern("MatMul");
    op.category = b.intern("op");
    op.plane = host;
    op.side[size_t(SideColumn::Flops)] = 1000;
    {
        ArgsArena::Writer w(b.trace().metaArgs);
        w.addStringRef(b.intern("hlo_op"), b.intern("dot.1"));
        w.addUInt(b.intern("flops"), 1000);
        op.stats = w.finish();
    }
    const uint32_t opKind = b.addKind(op);
    EventKind kernel;
    kernel.name = b.intern("volta_sgemm");
    kernel.plane = gpu;
    kernel.side[size_t(SideColumn::HloOp)] = b.intern("dot.1");
    const uint32_t kernelKind = b.addKind(kernel);

    const uint32_t python = b.addTrack(host, "python", 1001);
    const uint32_t stream = b.addTrack(gpu, "Stream #7", 7);
    const uint32_t memory = b.addTrack(host, "Memory", 0, TrackType::Counter);

    TrackBuilder &t = b.trackBuilder(python);
    ArgsRef args;
    {
        ArgsArena::Writer w(t.args());
        w.addInt(b.intern("step_num"), -3);
        w.addDouble(b.intern("ratio"), 0.25);
        w.addString(b.intern("note"), "hello");
        w.addBool(b.intern("ok"), true);
        args = w.finish();
    }
    const uint32_t s0 = t.addSlice(100, 1000, stepKind, args);
    t.setSide(s0, SideColumn::StepNum, 3);
    const uint32_t launch = t.addSlice(200, 300, opKind);
    t.setSide(launch, SideColumn::CorrelationId, 42);
    t.addSlice(250, 50, opKind);      // nested in the launch
    t.addSlice(600, 0, opKind);       // an instant
    TrackBuilder &k = b.trackBuilder(stream);
    const uint32_t kern = k.addSlice(700, 100, kernelKind);
    k.setSide(kern, SideColumn::CorrelationId, 42);
    k.addAggregate({kernelKind, 12, 5000, kNoArgs});
    for (int i = 0; i < bulk; ++i)          // big enough for separate column frames
        k.addSlice(1000 + 10 * TimePs(i), 5 + i % 4, kernelKind);
    b.trackBuilder(memory).addCounterSample(150, 1.5);
    b.trackBuilder(memory).addCounterSample(900, 2.5);
    const StringId flowCategory = b.intern("ac2g");
    b.addFlowOnSlice(python, launch, 200, 42, flowCategory, FlowPhase::Start);
    b.addFlowOnSlice(stream, kern, 700, 42, flowCategory, FlowPhase::End);
    auto trace = b.build();
    trace->originPs = 123456789;
    trace->info.format = "xspace";
    trace->info.sources = {"/data/worker0.xplane.pb"};
    trace->info.hosts = {"worker0"};
    trace->info.sourceBytes = 4096;
    trace->info.xlines = 2;
    trace->info.xevents = 5;
    trace->info.recordsByPhase["X"] = 5;
    trace->info.warn("one odd event");
    trace->info.loadSeconds = 0.5;
    trace->kinds[kernelKind].role = SliceRole::Kernel;
    trace->kinds[opKind].role = SliceRole::CpuOp;
    RunMetadata &run = trace->info.run;
    run.framework = "pytorch";
    run.clockOriginNs = 1717171717123456789;
    GpuDeviceInfo gpu0;
    gpu0.id = 0;
    gpu0.name = "NVIDIA H100 80GB HBM3";
    gpu0.totalGlobalMemBytes = 85031714816;
    gpu0.computeMajor = 9;
    gpu0.computeMinor = 0;
    gpu0.numSms = 132;
    gpu0.maxThreadsPerMultiprocessor = 2048;
    gpu0.warpSize = 32;
    run.devices = {gpu0};
    run.distributed = {true, "nccl", 3, 8};
    run.properties = {{"cuda_runtime_version", "12040"}, {"with_stack", "true"}};
    return trace;
}

void compareTraces(const Trace &a, const Trace &b, bool sameLoadTime = true)
{
    QCOMPARE(b.strings.size(), a.strings.size());
    for (StringId i = 0; i < a.strings.size(); ++i)
        QCOMPARE(b.string(i), a.string(i));
    QCOMPARE(b.planes.size(), a.planes.size());
    for (size_t i = 0; i < a.planes.size(); ++i) {
        QCOMPARE(b.planes[i].name, a.planes[i].name);
        QCOMPARE(b.planes[i].host, a.planes[i].host);
        QCOMPARE(b.planes[i].id, a.planes[i].id);
        QCOMPARE(b.planes[i].kind, a.planes[i].kind);
        QCOMPARE(b.planes[i].sortIndex, a.planes[i].sortIndex);
        QCOMPARE(b.planes[i].stats, a.planes[i].stats);
        QVERIFY(b.planes[i].tracks == a.planes[i].tracks);
    }
    QCOMPARE(b.kinds.size(), a.kinds.size());
    for (size_t i = 0; i < a.kinds.size(); ++i) {
        QCOMPARE(b.kinds[i].name, a.kinds[i].name);
        QCOMPARE(b.kinds[i].displayName, a.kinds[i].displayName);
        QCOMPARE(b.kinds[i].category, a.kinds[i].category);
        QCOMPARE(b.kinds[i].plane, a.kinds[i].plane);
        QCOMPARE(b.kinds[i].stats, a.kinds[i].stats);
        QVERIFY(b.kinds[i].side == a.kinds[i].side);
        QCOMPARE(b.kinds[i].role, a.kinds[i].role);
    }
    QVERIFY(b.metaArgs.bytes() == a.metaArgs.bytes());
    QCOMPARE(b.tracks.size(), a.tracks.size());
    for (size_t i = 0; i < a.tracks.size(); ++i) {
        const Track &x = a.tracks[i], &y = b.tracks[i];
        QCOMPARE(y.plane, x.plane);
        QCOMPARE(y.name, x.name);
        QCOMPARE(y.sourceId, x.sourceId);
        QCOMPARE(y.type, x.type);
        QCOMPARE(y.sortIndex, x.sortIndex);
        QCOMPARE(y.begin, x.begin);
        QCOMPARE(y.end, x.end);
        QCOMPARE(y.sliceCount, x.sliceCount);
        QCOMPARE(y.rows.size(), x.rows.size());
        for (size_t r = 0; r < x.rows.size(); ++r) {
            QVERIFY(y.rows[r].start == x.rows[r].start);
            QVERIFY(y.rows[r].duration == x.rows[r].duration);
            QVERIFY(y.rows[r].kind == x.rows[r].kind);
            QVERIFY(y.rows[r].args == x.rows[r].args);
            for (int c = 0; c < kSideColumnCount; ++c)
                QVERIFY(y.rows[r].side[c] == x.rows[r].side[c]);
        }
        QVERIFY(y.counter.time == x.counter.time);
        QVERIFY(y.counter.value == x.counter.value);
        QCOMPARE(y.aggregates.size(), x.aggregates.size());
        for (size_t g = 0; g < x.aggregates.size(); ++g) {
            QCOMPARE(y.aggregates[g].kind, x.aggregates[g].kind);
            QCOMPARE(y.aggregates[g].occurrences, x.aggregates[g].occurrences);
            QCOMPARE(y.aggregates[g].duration, x.aggregates[g].duration);
            QCOMPARE(y.aggregates[g].args, x.aggregates[g].args);
        }
        QVERIFY(y.args.bytes() == x.args.bytes());
    }
    QCOMPARE(b.flows.size(), a.flows.size());
    for (size_t i = 0; i < a.flows.size(); ++i) {
        QVERIFY(b.flows[i].from == a.flows[i].from);
        QVERIFY(b.flows[i].to == a.flows[i].to);
        QCOMPARE(b.flows[i].id, a.flows[i].id);
        QCOMPARE(b.flows[i].category, a.flows[i].category);
    }
    QCOMPARE(b.begin, a.begin);
    QCOMPARE(b.end, a.end);
    QCOMPARE(b.originPs, a.originPs);
    QCOMPARE(b.info.format, a.info.format);
    QVERIFY(b.info.sources == a.info.sources);
    QVERIFY(b.info.hosts == a.info.hosts);
    QCOMPARE(b.info.sourceBytes, a.info.sourceBytes);
    QCOMPARE(b.info.xlines, a.info.xlines);
    QCOMPARE(b.info.xevents, a.info.xevents);
    QVERIFY(b.info.recordsByPhase == a.info.recordsByPhase);
    QCOMPARE(b.info.warningCount, a.info.warningCount);
    QVERIFY(b.info.warnings == a.info.warnings);
    if (sameLoadTime)
        QCOMPARE(b.info.loadSeconds, a.info.loadSeconds);
    const RunMetadata &ra = a.info.run, &rb = b.info.run;
    QCOMPARE(rb.framework, ra.framework);
    QCOMPARE(rb.clockOriginNs, ra.clockOriginNs);
    QCOMPARE(rb.devices.size(), ra.devices.size());
    for (size_t i = 0; i < ra.devices.size(); ++i) {
        QCOMPARE(rb.devices[i].id, ra.devices[i].id);
        QCOMPARE(rb.devices[i].name, ra.devices[i].name);
        QCOMPARE(rb.devices[i].totalGlobalMemBytes, ra.devices[i].totalGlobalMemBytes);
        QCOMPARE(rb.devices[i].computeMajor, ra.devices[i].computeMajor);
        QCOMPARE(rb.devices[i].computeMinor, ra.devices[i].computeMinor);
        QCOMPARE(rb.devices[i].numSms, ra.devices[i].numSms);
        QCOMPARE(rb.devices[i].maxThreadsPerMultiprocessor, ra.devices[i].maxThreadsPerMultiprocessor);
        QCOMPARE(rb.devices[i].warpSize, ra.devices[i].warpSize);
    }
    QCOMPARE(rb.distributed.present, ra.distributed.present);
    QCOMPARE(rb.distributed.backend, ra.distributed.backend);
    QCOMPARE(rb.distributed.rank, ra.distributed.rank);
    QCOMPARE(rb.distributed.worldSize, ra.distributed.worldSize);
    QVERIFY(rb.properties == ra.properties);
}

} // namespace

class TestStoreCache : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<int>("bulk");
        QTest::newRow("inline columns") << 0;
        QTest::newRow("framed columns") << 700000; // > 4 MiB per column: several frames
        // More frames than the writer compresses at a time (16): written window by window.
        QTest::newRow("several write windows") << 7000000;
    }

    void roundTrip()
    {
        QFETCH(int, bulk);
        QTemporaryDir dir;
        const auto trace = makeTrace(bulk);
        // Hand-computed shape of the small part.
        QCOMPARE(trace->tracks[0].rows.size(), size_t(3));
        QCOMPARE(trace->flows.size(), size_t(1));
        const std::string path = dir.filePath("t.tdstore").toStdString();
        auto written = writeStoreFile(*trace, path);
        QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        if (bulk >= 7000000) {
            // The header's frame count (storefile.h: magic, version, flags, then the count).
            const std::vector<char> bytes = readAll(path);
            uint64_t frames = 0;
            std::memcpy(&frames, bytes.data() + 16, 8);
            QVERIFY2(frames > 16, qPrintable(QString::number(frames)));
        }
        auto read = readStoreFile(path, nullptr);
        QVERIFY2(read.ok(), read.ok() ? "" : read.message().c_str());
        compareTraces(*trace, *read.value());
        QVERIFY(!read.value()->info.fromCache);
        // The args survive and decode the same way.
        const Trace &loaded = *read.value();
        StringId note = 0;
        QVERIFY(loaded.strings.find("note", &note));
        ArgValue v;
        QVERIFY(loaded.tracks[0].args.find(loaded.tracks[0].rows[0].argsAt(0), note, &v));
        QCOMPARE(v.s, std::string_view("hello"));
        QCOMPARE(read.value()->side(SliceRef{0, 0, 0}, SideColumn::StepNum), int64_t(3));
    }

    void everyCorruptByteIsAnError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.tdstore").toStdString();
        QVERIFY(writeStoreFile(*makeTrace(), path).ok());
        const std::vector<char> good = readAll(path);
        QVERIFY(good.size() > 100);
        const std::string bad = dir.filePath("bad.tdstore").toStdString();
        for (size_t i = 0; i < good.size(); ++i) {
            std::vector<char> bytes = good;
            bytes[i] = char(bytes[i] ^ 0x5a);
            writeAll(bad, bytes);
            auto read = readStoreFile(bad, nullptr);
            QVERIFY2(!read.ok(), qPrintable(QString("flipped byte %1 was accepted").arg(i)));
            QVERIFY(read.message().find(bad) != std::string::npos);
        }
    }

    void truncatedIsAnError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.tdstore").toStdString();
        QVERIFY(writeStoreFile(*makeTrace(20000), path).ok());
        const std::vector<char> good = readAll(path);
        const std::string bad = dir.filePath("short.tdstore").toStdString();
        for (size_t keep : {size_t(0), size_t(7), size_t(40), good.size() / 2, good.size() - 1}) {
            writeAll(bad, std::vector<char>(good.begin(), good.begin() + long(keep)));
            QVERIFY2(!readStoreFile(bad, nullptr).ok(), qPrintable(QString::number(keep)));
        }
        QVERIFY(!readStoreFile(dir.filePath("missing").toStdString(), nullptr).ok());
    }

    void cacheKeyFollowsTheSource()
    {
        QTemporaryDir dir;
        const std::string source = dir.filePath("a.json").toStdString();
        writeAll(source, {'[', ']'});
        LoadOptions options;
        options.cacheDir = dir.filePath("cache").toStdString();
        const std::string first = cacheFileFor({source}, options);
        QVERIFY(!first.empty());
        QVERIFY(first.rfind(options.cacheDir, 0) == 0);
        QVERIFY(first.size() > 8 && first.substr(first.size() - 8) == ".tdstore");
        QCOMPARE(cacheFileFor({source}, options), first);

        namespace fs = std::filesystem;
        const auto mtime = fs::last_write_time(source);
        fs::last_write_time(source, mtime + std::chrono::seconds(5));
        const std::string touched = cacheFileFor({source}, options);
        QVERIFY(touched != first);

        writeAll(source, {'[', '{'}); // same size, new content
        fs::last_write_time(source, mtime + std::chrono::seconds(5));
        QVERIFY(cacheFileFor({source}, options) != touched);
        QVERIFY(cacheFileFor({dir.filePath("missing.json").toStdString()}, options).empty());
    }

    void loadTraceUsesTheCache()
    {
        QTemporaryDir dir;
        const std::string source = dir.filePath("gen.xplane.pb").toStdString();
        GeneratorOptions generator;
        generator.events = 3000;
        auto generated = generateTrace(generator, source);
        QVERIFY(generated.ok());
        LoadOptions options;
        options.cacheDir = dir.filePath("cache").toStdString();
        auto first = loadTrace(source, nullptr, options);
        if (!first.ok())
            QSKIP(qPrintable("XSpace reader not available: " + QString::fromStdString(first.message())));
        QVERIFY(!first.value()->info.fromCache);
        const std::string entry = cacheFileFor({source}, options);
        QVERIFY(std::filesystem::exists(entry));
        auto second = loadTrace(source, nullptr, options);
        QVERIFY(second.ok());
        QVERIFY(second.value()->info.fromCache);
        QCOMPARE(second.value()->eventCount(), first.value()->eventCount());
        QCOMPARE(second.value()->eventCount(), generated.value().events);
        QCOMPARE(second.value()->flows.size(), first.value()->flows.size());
        compareTraces(*first.value(), *second.value(), false);

        // A corrupt entry is ignored silently, removed, and rewritten by the next load.
        std::vector<char> bytes = readAll(entry);
        bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
        writeAll(entry, bytes);
        auto third = loadTrace(source, nullptr, options);
        QVERIFY(third.ok());
        QVERIFY(!third.value()->info.fromCache);
        auto fourth = loadTrace(source, nullptr, options);
        QVERIFY(fourth.ok());
        QVERIFY(fourth.value()->info.fromCache);
    }

    // A stopped write returns cancelled and leaves neither the file nor a temporary one; the
    // LoadInfo given in the options is the one written.
    void stoppedWriteLeavesNothingAndInfoIsTheGivenOne()
    {
        QTemporaryDir dir;
        const auto trace = makeTrace(700000);
        const std::string path = dir.filePath("t.tdstore").toStdString();
        const std::atomic<bool> stop{true};
        auto stopped = writeStoreFile(*trace, path, {nullptr, &stop});
        QVERIFY(!stopped.ok());
        QVERIFY(stopped.isCancelled());
        QVERIFY(std::filesystem::is_empty(dir.path().toStdString()));

        LoadInfo info = trace->info;
        info.warnings = {"only this"};
        info.warningCount = 1;
        QVERIFY(writeStoreFile(*trace, path, {&info, nullptr}).ok());
        auto read = readStoreFile(path, nullptr);
        QVERIFY(read.ok());
        QCOMPARE(read.value()->info.warnings, std::vector<std::string>{"only this"});
        QVERIFY(trace->info.warnings != read.value()->info.warnings);
    }

    // loadResolved hands the cache write back: no entry exists when the trace is returned; the
    // write, run on another thread while this one reads the trace, makes the entry the next
    // opening reads. A trace from the cache has nothing to write.
    void deferredCacheWriteRunsAfterTheTrace()
    {
        QTemporaryDir dir;
        const std::string source = dir.filePath("gen.xplane.pb").toStdString();
        GeneratorOptions generator;
        generator.events = 20000;
        QVERIFY(generateTrace(generator, source).ok());
        LoadOptions options;
        options.cacheDir = dir.filePath("cache").toStdString();
        auto resolved = resolveSource(source);
        QVERIFY(resolved.ok());
        DeferredCacheWrite write;
        auto first = loadResolved(resolved.value(), nullptr, options, &write);
        QVERIFY(first.ok());
        QVERIFY(!first.value()->info.fromCache);
        QVERIFY(write);
        const std::string entry = cacheFileFor({source}, options);
        QVERIFY(!std::filesystem::exists(entry));
        std::thread writer([&] { write(nullptr); });
        int64_t total = 0;
        for (const Track &track : first.value()->tracks)
            for (const Row &row : track.rows)
                for (size_t i = 0; i < row.size(); ++i)
                    total += row.duration[i];
        writer.join();
        QVERIFY(total > 0);
        QVERIFY(std::filesystem::exists(entry));
        DeferredCacheWrite none;
        auto second = loadResolved(resolved.value(), nullptr, options, &none);
        QVERIFY(second.ok());
        QVERIFY(second.value()->info.fromCache);
        QVERIFY(!none);
        compareTraces(*first.value(), *second.value(), false);
    }
};

QTEST_GUILESS_MAIN(TestStoreCache)
#include "tst_storecache.moc"
