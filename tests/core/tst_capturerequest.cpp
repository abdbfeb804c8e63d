// What goes on the wire and what comes back: a ProfileRequest walked byte by byte with a
// walker written here (independent of the generated classes), option and address parsing,
// the response reader over split buffers, and the run-directory / pending-file rules.

#include "tst_capturesupport.h"

#include "core/capture/capturefiles.h"
#include "core/capture/captureoptions.h"
#include "core/capture/responsereader.h"

#include "profiler_service.pb.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::capture;
using namespace capturetest;

namespace {

// One protobuf field as seen on the wire.
struct Field
{
    uint32_t number = 0;
    uint32_t wireType = 0;
    uint64_t varint = 0;
    std::string bytes;
};

bool readVarint(const std::string &in, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
        const uint8_t b = uint8_t(in[(*pos)++]);
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

// Splits a message into its top-level fields; fails the test on anything malformed.
std::vector<Field> walk(const std::string &in)
{
    std::vector<Field> out;
    size_t pos = 0;
    while (pos < in.size()) {
        uint64_t tag = 0;
        if (!readVarint(in, &pos, &tag))
            return {};
        Field f;
        f.number = uint32_t(tag >> 3);
        f.wireType = uint32_t(tag & 7);
        if (f.wireType == 0) {
            if (!readVarint(in, &pos, &f.varint))
                return {};
        } else if (f.wireType == 2) {
            uint64_t size = 0;
            if (!readVarint(in, &pos, &size) || pos + size > in.size())
                return {};
            f.bytes = in.substr(pos, size_t(size));
            pos += size_t(size);
        } else {
            return {};   // the request uses no fixed-width fields
        }
        out.push_back(f);
    }
    return out;
}

std::multimap<uint32_t, Field> byNumber(const std::vector<Field> &fields)
{
    std::multimap<uint32_t, Field> m;
    for (const Field &f : fields)
        m.emplace(f.number, f);
    return m;
}

std::string tag(uint32_t field, uint32_t type)
{
    std::string s;
    uint64_t v = (uint64_t(field) << 3) | type;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        s.push_back(char(v ? b | 0x80 : b));
    } while (v);
    return s;
}

std::string lenField(uint32_t field, const std::string &body)
{
    std::string size;
    uint64_t v = body.size();
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        size.push_back(char(v ? b | 0x80 : b));
    } while (v);
    return tag(field, 2) + size + body;
}

// Every split of `bytes` into one, two or three pieces at the given stride.
std::vector<std::vector<std::string_view>> splits(const std::string &bytes, size_t stride)
{
    std::vector<std::vector<std::string_view>> out;
    const std::string_view all(bytes);
    out.push_back({all});
    for (size_t a = 0; a <= bytes.size(); a += stride)
        for (size_t b = a; b <= bytes.size(); b += stride * 3 + 1)
            out.push_back({all.substr(0, a), all.substr(a, b - a), all.substr(b)});
    return out;
}

} // namespace

class TestCaptureRequest : public QObject
{
    Q_OBJECT

private slots:
    void requestBytesOnTheWire()
    {
        CaptureOptions o;
        o.addresses = {"10.1.2.3:6000"};
        o.durationMs = 1234;
        o.delayMs = 500;
        o.hostTracerLevel = 3;
        o.deviceTracerLevel = 0;
        o.pythonTracerLevel = 1;
        o.advanced = {{"gpu_pm_sample_counters", "sm__cycles_active.avg"},
                      {"profile_subprocesses", "true"},
                      {"gpu_activity_buffer_size", "-42"},
                      {"override_hostname", "worker-7"},
                      {"include_dataset_ops", "false"}};
        o.logdir = "/logs";
        tensorflow::ProfileRequest request;
        QVERIFY(buildProfileRequest(o, "10.1.2.3:6000", "2024_05_01_13_45_10",
                                    "/logs/plugins/profile", 1700000000123456789ull, &request)
                    .ok());
        const std::string wire = request.SerializeAsString();
        const auto top = byNumber(walk(wire));
        QVERIFY(!top.empty());

        // Every top-level field, by number and wire type; proto3 leaves defaults off the wire.
        std::set<uint32_t> numbers;
        for (const auto &[n, f] : top)
            numbers.insert(n);
        QCOMPARE(numbers, (std::set<uint32_t>{1, 2, 3, 4, 5, 6, 7, 9}));
        QCOMPARE(top.find(1)->second.wireType, 0u);
        QCOMPARE(top.find(1)->second.varint, uint64_t(1234));          // duration_ms (legacy)
        QCOMPARE(top.find(2)->second.varint, uint64_t(1000000));       // max_events
        QStringList tools;
        for (auto [it, end] = top.equal_range(3); it != end; ++it) {
            QCOMPARE(it->second.wireType, 2u);
            tools << q(it->second.bytes);
        }
        QCOMPARE(tools, (QStringList{"trace_viewer", "op_profile", "input_pipeline",
                                     "kernel_stats", "memory_viewer", "memory_profile",
                                     "overview_page", "pod_viewer", "tensorflow_stats",
                                     "xplane.pb"}));
        QCOMPARE(top.find(5)->second.bytes, std::string("/logs/plugins/profile"));
        QCOMPARE(top.find(6)->second.bytes, std::string("2024_05_01_13_45_10"));
        QCOMPARE(top.find(7)->second.bytes, std::string("10.1.2.3:6000"));
        QCOMPARE(top.find(9)->second.wireType, 0u);
        QCOMPARE(top.find(9)->second.varint, uint64_t(1));             // emit_xspace
        QCOMPARE(top.count(4), size_t(1));

        // ProfileOptions (field 4).
        const auto opts = byNumber(walk(top.find(4)->second.bytes));
        std::set<uint32_t> optNumbers;
        for (const auto &[n, f] : opts)
            optNumbers.insert(n);
        // 1 include_dataset_ops=false and 3 device_tracer_level=0 are defaults: absent.
        QCOMPARE(optNumbers, (std::set<uint32_t>{2, 4, 5, 7, 8, 9, 12, 15}));
        QCOMPARE(opts.find(5)->second.varint, uint64_t(1));            // version
        QCOMPARE(opts.find(2)->second.varint, uint64_t(3));            // host_tracer_level
        QCOMPARE(opts.find(4)->second.varint, uint64_t(1));            // python_tracer_level
        QCOMPARE(opts.find(7)->second.varint, uint64_t(1));            // enable_hlo_proto
        QCOMPARE(opts.find(8)->second.varint, uint64_t(1700000000123456789ull));
        QCOMPARE(opts.find(9)->second.varint, uint64_t(1234));         // duration_ms
        QCOMPARE(opts.find(15)->second.bytes, std::string("worker-7"));

        // advanced_configuration (12): map entries {1: key, 2: AdvancedConfigValue}.
        std::map<std::string, Field> advanced;
        for (auto [it, end] = opts.equal_range(12); it != end; ++it) {
            const auto entry = byNumber(walk(it->second.bytes));
            QCOMPARE(entry.size(), size_t(2));
            const auto value = walk(entry.find(2)->second.bytes);
            QCOMPARE(value.size(), size_t(1));
            advanced[entry.find(1)->second.bytes] = value[0];
        }
        QCOMPARE(advanced.size(), size_t(4));
        QCOMPARE(advanced["gpu_pm_sample_counters"].number, 1u);       // string_value
        QCOMPARE(advanced["gpu_pm_sample_counters"].bytes, std::string("sm__cycles_active.avg"));
        QCOMPARE(advanced["profile_subprocesses"].number, 2u);         // bool_value
        QCOMPARE(advanced["profile_subprocesses"].varint, uint64_t(1));
        QCOMPARE(advanced["gpu_activity_buffer_size"].number, 3u);     // int64_value
        QCOMPARE(int64_t(advanced["gpu_activity_buffer_size"].varint), int64_t(-42));
        QCOMPARE(advanced["override_hostname"].bytes, std::string("worker-7"));
    }

    void badOptionValues()
    {
        CaptureOptions o;
        o.addresses = {"h:1"};
        o.logdir = "x";
        QVERIFY(validateOptions(o).ok());
        o.advanced = {{"host_tracer_level", "7"}};
        QVERIFY(q(validateOptions(o).message()).contains("host_tracer_level=7"));
        o.advanced = {{"device_type", "fpga"}};
        QVERIFY(!validateOptions(o).ok());
        o.advanced = {{"device_type", "GPU"}, {"include_dataset_ops", "TRUE"}};
        QVERIFY(validateOptions(o).ok());
        o.advanced.clear();
        o.durationMs = 0;
        QVERIFY(!validateOptions(o).ok());
        QVERIFY(!parseAdvancedOption("novalue").ok());
        QVERIFY(!parseAdvancedOption("=v").ok());
        const auto kv = parseAdvancedOption(" a = b=c ");
        QCOMPARE(kv.value().key, std::string("a"));
        QCOMPARE(kv.value().value, std::string("b=c"));
    }

    void addresses()
    {
        const auto list = parseAddresses(" localhost:6000, grpc://10.0.0.2:9999,[::1]:7000 ,");
        QVERIFY(list.ok());
        QCOMPARE(list.value(),
                 (std::vector<std::string>{"localhost:6000", "10.0.0.2:9999", "[::1]:7000"}));
        QVERIFY(q(parseAddresses("localhost").message()).contains("no port"));
        QVERIFY(q(parseAddresses("h:0").message()).contains("1 to 65535"));
        QVERIFY(q(parseAddresses("h:70000").message()).contains("1 to 65535"));
        QVERIFY(q(parseAddresses("::1:6000").message()).contains("[addr]:port"));
        QVERIFY(q(parseAddresses("a:1,a:1").message()).contains("listed twice"));
        QVERIFY(!parseAddresses(" , ").ok());
    }

    void namesAndStems()
    {
        CaptureOptions o;
        QCOMPARE(hostFileStem(o, "34.83.195.179:6003"), std::string("34.83.195.179_6003"));
        QCOMPARE(hostFileStem(o, "[::1]:6000"), std::string("___1__6000"));
        o.advanced = {{"override_hostname", "worker-3"}};
        QCOMPARE(hostFileStem(o, "h:1"), std::string("worker-3"));
        const QString run = q(runNameForTime(std::time(nullptr)));
        const QRegularExpression format("^\\d{4}_\\d\\d_\\d\\d_\\d\\d_\\d\\d_\\d\\d$");
        QVERIFY(format.match(run).hasMatch());
    }

    void responseReader()
    {
        const std::string xspace = lenField(1, lenField(2, "/host:CPU")) + lenField(4, "h");
        // tool_data first (ignored when field 8 exists), then empty_trace=false, xspace split
        // in two occurrences (protobuf merges them by concatenation), an unknown field.
        const std::string response = lenField(6, lenField(1, "trace.json.gz") +
                                                     lenField(2, "zz")) +
                                     tag(7, 0) + std::string(1, '\0') +
                                     lenField(8, xspace.substr(0, 5)) + tag(30, 5) + "abcd" +
                                     lenField(8, xspace.substr(5));
        for (const auto &pieces : splits(response, 3)) {
            std::string out;
            auto r = extractXSpace(pieces, [&](const char *p, size_t n) {
                out.append(p, n);
                return true;
            });
            QVERIFY(r.ok());
            QVERIFY(r.value().hasXSpace);
            QVERIFY(!r.value().fromToolData);
            QVERIFY(!r.value().emptyTrace);
            QCOMPARE(r.value().xspaceBytes, uint64_t(xspace.size()));
            QCOMPARE(r.value().responseBytes, uint64_t(response.size()));
            QCOMPARE(r.value().toolNames, std::vector<std::string>{"trace.json.gz"});
            QCOMPARE(out, xspace);
        }
        // TF 2.2-2.3 servers: the XSpace is the tool named xplane.pb.
        const std::string legacy = lenField(6, lenField(2, xspace) + lenField(1, "xplane.pb"));
        for (const auto &pieces : splits(legacy, 2)) {
            std::string out;
            auto r = extractXSpace(pieces, [&](const char *p, size_t n) {
                out.append(p, n);
                return true;
            });
            QVERIFY(r.ok());
            QVERIFY(r.value().fromToolData);
            QCOMPARE(out, xspace);
        }
        // Empty trace, and a truncated response.
        const std::string empty = tag(7, 0) + std::string(1, '\1');
        auto e = extractXSpace({empty}, [](const char *, size_t) { return true; });
        QVERIFY(e.ok() && e.value().emptyTrace && !e.value().hasXSpace);
        const std::string cut = response.substr(0, response.size() - 2);
        auto bad = extractXSpace({cut}, [](const char *, size_t) { return true; });
        QVERIFY(!bad.ok());
        QVERIFY(q(bad.message()).contains("not a valid ProfileResponse"));
    }

    void runDirectoriesAndPendingFiles()
    {
        QTemporaryDir dir;
        const std::string logdir = dir.path().toStdString();
        auto a = reserveRunDirectory(logdir, "r");
        auto b = reserveRunDirectory(logdir, "r");
        QCOMPARE(q(a.value()), dir.path() + "/plugins/profile/r");
        QCOMPARE(q(b.value()), dir.path() + "/plugins/profile/r_1");

        {
            PendingFile f;
            QVERIFY(f.open(a.value(), "h_1.xplane.pb").ok());
            QVERIFY(f.write("abc", 3));
            QCOMPARE(filesUnder(q(a.value())).size(), 1);   // the hidden temporary
            QVERIFY(!QFileInfo::exists(q(a.value()) + "/h_1.xplane.pb"));
        }   // destroyed uncommitted
        QCOMPARE(filesUnder(q(a.value())), QStringList());

        PendingFile f1, f2;
        QVERIFY(f1.open(a.value(), "h_1.xplane.pb").ok() && f1.write("one", 3));
        QVERIFY(f2.open(a.value(), "h_1.xplane.pb").ok() && f2.write("two", 3));
        QCOMPARE(q(f1.commit().value()), q(a.value()) + "/h_1.xplane.pb");
        QCOMPARE(q(f2.commit().value()), q(a.value()) + "/h_1_1.xplane.pb");
        QCOMPARE(readAll(q(a.value()) + "/h_1.xplane.pb"), QByteArray("one"));
        QCOMPARE(readAll(q(a.value()) + "/h_1_1.xplane.pb"), QByteArray("two"));
        QCOMPARE(filesUnder(q(a.value())).size(), 2);

        removeIfEmpty(b.value());
        QVERIFY(!QFileInfo::exists(q(b.value())));
        removeIfEmpty(a.value());
        QVERIFY(QFileInfo::exists(q(a.value())));
    }
};

QTEST_GUILESS_MAIN(TestCaptureRequest)
#include "tst_capturerequest.moc"
