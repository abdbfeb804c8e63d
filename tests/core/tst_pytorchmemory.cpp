// PyTorch memory view (PYTORCH.md §2.8): a tiny Kineto trace written here pins the per-device
// curves and peaks, the alloc/free pairing by address, the attribution to the deepest operator
// and the per-operator statistics, with expectations worked out by hand; the real Kineto
// fixtures are checked against record counts and peaks read from the raw JSON.

#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

constexpr TimePs kUs = 1000000;

std::string x(const char *cat, const char *name, double ts, double dur)
{
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  R"({"ph":"X","cat":"%s","name":"%s","pid":1,"tid":1,"ts":%.3f,"dur":%.3f},)", cat,
                  name, ts, dur);
    return buf;
}

std::string memory(double ts, long long bytes, long long addr, long long total, long long reserved,
                   int type, int id)
{
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":%.3f,)"
        R"("args":{"Total Reserved":%lld,"Total Allocated":%lld,"Bytes":%lld,"Addr":%lld,)"
        R"("Device Id":%d,"Device Type":%d,"Ev Idx":1}},)",
        ts, reserved, total, bytes, addr, id, type);
    return buf;
}

std::shared_ptr<Trace> load(std::string events)
{
    events.pop_back();
    const std::string json = R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
    auto r = readChromeJsonBytes("tiny.json", json.data(), json.size(), nullptr, LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    return r.value();
}


} // namespace

class TestPyTorchMemory : public QObject
{
    Q_OBJECT

private slots:
    // Thread 1: ProfilerStep#1 [0,100] > aten::linear [10,60] > {aten::empty [12,14],
    // aten::mm [20,40]}; aten::relu [70,80]; a second aten::mm [82,85] without records.
    // Records (µs, bytes, addr, device):
    //   m1 13 +1000 A GPU0 (aten::empty)   m2 25 +4000 B GPU0 (aten::mm)   m3 30 +500 C CPU
    //   (aten::mm) m4 50 -1000 A GPU0 (aten::linear)  m5 75 +3000 A GPU0 (aten::relu, address
    //   reused) m6 90 -4000 B GPU0 (step only)     m7 95 -200 D GPU0 (step only, no allocation) m8
    //   110 -500 C CPU (outside all)    m9 60 +64 E GPU1 (linear ends at 60: step only) one record
    //   of Device Type 2 (skipped).
    void memoryView()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 0, 100);
        e += x("cpu_op", "aten::linear", 10, 50);
        e += x("cpu_op", "aten::empty", 12, 2);
        e += x("cpu_op", "aten::mm", 20, 20);
        e += x("cpu_op", "aten::relu", 70, 10);
        e += x("cpu_op", "aten::mm", 82, 3);
        e += memory(13, 1000, 0xA, 1000, 2048, 1, 0);
        e += memory(25, 4000, 0xB, 5000, 8192, 1, 0);
        e += memory(30, 500, 0xC, 500, 500, 0, -1);
        e += memory(50, -1000, 0xA, 4000, 8192, 1, 0);
        e += memory(60, 64, 0xE, 64, 1024, 1, 1);
        e += memory(75, 3000, 0xA, 7000, 8192, 1, 0);
        e += memory(90, -4000, 0xB, 3000, 8192, 1, 0);
        e += memory(95, -200, 0xD, 2800, 8192, 1, 0);
        e += memory(97, 8, 0xF, 8, 8, 2, 0);
        e += memory(110, -500, 0xC, 0, 500, 0, -1);
        auto trace = load(e);
        QVERIFY(trace);
        AnalysisCache cache(trace);
        const PyTorchMemory &m = *pytorchMemory(cache);
        const TimePs o = trace->begin;
        QCOMPARE(m.recordCount, 10u);
        QCOMPARE(m.skippedRecords, 1u);
        QCOMPARE(m.unattributedRecords, 4u); // m6 m7 m8 m9

        // Devices: CPU, then GPUs by id; GPU0 is the default.
        QCOMPARE(m.devices.size(), size_t(3));
        QCOMPARE(m.devices[0].name, std::string("CPU"));
        QCOMPARE(m.devices[1].name, std::string("GPU0"));
        QCOMPARE(m.devices[2].name, std::string("GPU1"));
        QCOMPARE(m.defaultDevice(), 1);
        const DeviceMemory &gpu0 = m.devices[1];
        QCOMPARE(gpu0.recordCount, 6u);
        QCOMPARE(gpu0.curve.size(), size_t(6));
        QCOMPARE(gpu0.curve[2].time - o, 50 * kUs);
        QCOMPARE(gpu0.curve[2].allocated, int64_t(4000));
        QCOMPARE(gpu0.curve[2].reserved, int64_t(8192));
        QCOMPARE(gpu0.peakAllocated, int64_t(7000));
        QCOMPARE(gpu0.peakAllocatedTime - o, 75 * kUs);
        QCOMPARE(gpu0.peakReserved, int64_t(8192));
        QCOMPARE(gpu0.peakReservedTime - o, 25 * kUs); // first time reached
        const DeviceMemory &cpu = m.devices[0];
        QCOMPARE(cpu.curve.size(), size_t(2));
        QCOMPARE(cpu.peakAllocated, int64_t(500));
        QCOMPARE(cpu.peakAllocatedTime - o, 30 * kUs);
        QCOMPARE(m.devices[2].peakAllocated, int64_t(64));
        QCOMPARE(m.devices[2].peakReserved, int64_t(1024));

        // Events: pairs and lone frees in release order, then lone allocations by time.
        QCOMPARE(m.events.size(), size_t(6));
        auto row = [&](size_t i, uint32_t dev, const char *op, int64_t size,
                       std::optional<int> alloc, std::optional<int> release) {
            const MemoryEventRow &r = m.events[i];
            QCOMPARE(r.device, dev);
            QCOMPARE(r.op, std::string(op));
            QCOMPARE(r.size, size);
            QCOMPARE(bool(r.allocTime), bool(alloc));
            QCOMPARE(bool(r.releaseTime), bool(release));
            if (alloc)
                QCOMPARE(*r.allocTime - o, *alloc * kUs);
            if (release)
                QCOMPARE(*r.releaseTime - o, *release * kUs);
        };
        row(0, 1, "aten::linear (aten::empty)", 1000, 13, 50);
        QCOMPARE(*m.events[0].duration(), 37 * kUs);
        row(1, 1, "aten::mm", 4000, 25, 90);
        row(2, 1, "<unknown>", 200, std::nullopt, 95);
        row(3, 0, "aten::mm", 500, 30, 110);
        row(4, 2, "<unknown>", 64, 60, std::nullopt);
        row(5, 1, "aten::relu", 3000, 75, std::nullopt);

        // Statistics. GPU0: empty +1000; mm +4000; linear self -1000, inclusive -1000 + 1000 +
        // 4000 = 4000 (allocations 5000 in 2); relu +3000. CPU: mm +500, linear inclusive +500.
        // Sorted by device, then inclusive increase descending (ties by name).
        struct Expect
        {
            uint32_t dev;
            const char *op;
            int64_t calls, inc, alloc, count, selfInc, selfAlloc, selfCount;
        };
        const Expect expect[] = {
            {0, "aten::linear", 1, 500, 500, 1, 0, 0, 0},
            {0, "aten::mm", 2, 500, 500, 1, 500, 500, 1},
            {1, "aten::linear", 1, 4000, 5000, 2, -1000, 0, 0},
            {1, "aten::mm", 2, 4000, 4000, 1, 4000, 4000, 1},
            {1, "aten::relu", 1, 3000, 3000, 1, 3000, 3000, 1},
            {1, "aten::empty", 1, 1000, 1000, 1, 1000, 1000, 1},
        };
        QCOMPARE(m.stats.size(), std::size(expect));
        for (size_t i = 0; i < std::size(expect); ++i) {
            const MemoryOpStats &s = m.stats[i];
            const Expect &x = expect[i];
            QCOMPARE(s.device, x.dev);
            QCOMPARE(s.op, std::string(x.op));
            QCOMPARE(s.calls, x.calls);
            QCOMPARE(s.sizeIncrease, x.inc);
            QCOMPARE(s.allocationSize, x.alloc);
            QCOMPARE(s.allocationCount, x.count);
            QCOMPARE(s.selfSizeIncrease, x.selfInc);
            QCOMPARE(s.selfAllocationSize, x.selfAlloc);
            QCOMPARE(s.selfAllocationCount, x.selfCount);
        }
    }

    void noMemoryEvents()
    {
        auto trace = load(x("cpu_op", "aten::add", 0, 10));
        QVERIFY(trace);
        const PyTorchMemory m = computePyTorchMemory(*trace);
        QVERIFY(m.empty());
        QCOMPARE(m.defaultDevice(), -1);
        QVERIFY(m.events.empty() && m.stats.empty());
    }

    // Per device: record count, curve points (records with both totals) and the peaks, from the
    // raw JSON.
    void realFixtures()
    {
        const QDir dir(QStringLiteral(TRACEDESK_SHARED_FIXTURES) + "/chrome_json");
        if (!dir.exists())
            QSKIP("shared real fixtures (chrome_json/) are not available");
        const QStringList files = {
            "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
            "tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz",
            "tracelens__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz",
            "hta__df_index_resolver__df_index_resolver.json.gz"};
        for (const QString &file : files) {
            if (!dir.exists(file))
                continue;
            struct Dev
            {
                uint32_t records = 0;
                size_t points = 0;
                qint64 peakAlloc = 0, peakReserved = 0;
            };
            std::map<std::string, Dev> expected;
            const QByteArray bytes = testsupport::readMaybeGzip(dir.filePath(file));
            QVERIFY2(!bytes.isEmpty(), qPrintable(file));
            for (const QJsonValue &v :
                 QJsonDocument::fromJson(bytes).object().value("traceEvents").toArray()) {
                const QJsonObject ev = v.toObject();
                if (ev.value("name").toString() != "[memory]" || ev.value("ph").toString() != "i")
                    continue;
                const QJsonObject a = ev.value("args").toObject();
                const int type = a.value("Device Type").toInt(-1);
                if (type != 0 && type != 1)
                    continue;
                Dev &d = expected[type == 0 ? std::string("CPU")
                                            : "GPU" + std::to_string(a.value("Device Id").toInt())];
                ++d.records;
                if (!a.contains("Total Allocated") || !a.contains("Total Reserved"))
                    continue;
                const qint64 alloc = a.value("Total Allocated").toInteger();
                const qint64 reserved = a.value("Total Reserved").toInteger();
                d.peakAlloc = d.points == 0 ? alloc : std::max(d.peakAlloc, alloc);
                d.peakReserved = d.points == 0 ? reserved : std::max(d.peakReserved, reserved);
                ++d.points;
            }
            auto r = readChromeJson(dir.filePath(file).toStdString(), nullptr, LoadOptions{});
            QVERIFY2(r, qPrintable(file));
            const PyTorchMemory m = computePyTorchMemory(*r.value());
            QVERIFY2(m.devices.size() == expected.size(), qPrintable(file));
            for (const auto &[name, d] : expected) {
                const DeviceMemory *got = m.device(name);
                QVERIFY2(got, qPrintable(file + " " + QString::fromStdString(name)));
                QVERIFY2(got->recordCount == d.records,
                         qPrintable(file + " " + QString::fromStdString(name)));
                QVERIFY2(got->curve.size() == d.points,
                         qPrintable(file + " " + QString::fromStdString(name)));
                QVERIFY2(got->peakAllocated == d.peakAlloc,
                         qPrintable(file + " " + QString::fromStdString(name)));
                QVERIFY2(got->peakReserved == d.peakReserved,
                         qPrintable(file + " " + QString::fromStdString(name)));
            }
            // Every table row has a time; pairs never end before they start.
            for (const MemoryEventRow &row : m.events) {
                QVERIFY2(row.allocTime || row.releaseTime, qPrintable(file));
                if (row.duration())
                    QVERIFY2(*row.duration() >= 0, qPrintable(file));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestPyTorchMemory)
#include "tst_pytorchmemory.moc"
