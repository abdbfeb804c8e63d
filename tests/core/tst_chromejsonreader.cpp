#include "core/io/chromejsonreader.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>

using namespace tracedesk::core;

namespace {

std::string dataPath(const char *name)
{
    return std::string(TRACEDESK_TEST_DATA) + "/json/" + name;
}

std::shared_ptr<Trace> load(const std::string &path)
{
    LoadControl control;
    auto r = readChromeJson(path, &control, LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    // Progress is complete and never overshoots.
    if (control.done() != control.total())
        qWarning("progress %llu of %llu", (unsigned long long)control.done(),
                 (unsigned long long)control.total());
    return r.value();
}

const Track *trackNamed(const Trace &t, std::string_view name)
{
    for (const Track &track : t.tracks) {
        if (t.string(track.name) == name)
            return &track;
    }
    return nullptr;
}

const Plane *planeNamed(const Trace &t, std::string_view name)
{
    for (const Plane &plane : t.planes) {
        if (t.string(plane.name) == name)
            return &plane;
    }
    return nullptr;
}

std::vector<std::string> rowNames(const Trace &t, const Track &track, size_t row)
{
    std::vector<std::string> names;
    for (uint32_t k : track.rows.at(row).kind)
        names.emplace_back(t.string(t.kinds[k].name));
    return names;
}

constexpr int64_t kUs = 1000000; // ps per microsecond

class TemporaryFile
{
public:
    explicit TemporaryFile(const std::string &bytes)
    {
        static int counter = 0;
        m_path = (std::filesystem::temp_directory_path()
                  / ("tst_chromejson_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)
                     + ".json"))
                     .string();
        std::ofstream(m_path, std::ios::binary) << bytes;
    }
    ~TemporaryFile() { std::filesystem::remove(m_path); }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

#ifndef Q_MOC_RUN
// Raw string literals confuse moc, so the data helpers are hidden from it.
using Tallies = std::map<std::string, std::pair<uint64_t, std::map<std::string, uint64_t>>>;

// The per-file tallies of PROVENANCE.md: "### `chrome_json/<file>`" headings, then
// "Events: N (X:1, M:2, ...)".
Tallies parseProvenance(const std::string &path)
{
        // "### `chrome_json/<file>`" headings, then "Events: N (X:1, M:2, ...)".
        std::ifstream in(path);
        Tallies expected;
        std::string line, current;
        const std::regex heading(R"(^### `chrome_json/([^`]+)`)");
        const std::regex events(R"(Events: ([0-9,]+) \(([^)]*)\))");
        const std::regex tally(R"((\S+?):([0-9]+))");
        for (std::smatch m; std::getline(in, line);) {
            if (std::regex_search(line, m, heading)) {
                current = m[1];
            } else if (!current.empty() && std::regex_search(line, m, events)) {
                std::string total = m[1];
                total.erase(std::remove(total.begin(), total.end(), ','), total.end());
                auto &entry = expected[current];
                entry.first = std::stoull(total);
                const std::string list = m[2];
                for (std::sregex_iterator it(list.begin(), list.end(), tally), end; it != end; ++it)
                    entry.second[(*it)[1]] = std::stoull((*it)[2]);
                current.clear();
            }
        }
        return expected;
}

std::string wrongTypesInput()
{
    return R"([{"ph":"X","ts":"abc"},{"ph" "X"},{"ph":"X","ts":1,"dur":2,"name":"ok"}])";
}

void addBadInputRows()
{
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected"); // error substring, or empty when it must load
        QTest::addColumn<int>("minWarnings");

        std::mt19937 rng(7);
        QByteArray random(4096, '\0');
        for (char &c : random)
            c = char(rng() & 0xff);
        random[0] = 'x';
        QTest::newRow("empty") << QByteArray() << "is empty" << 0;
        QTest::newRow("random bytes") << random << "is not Chrome trace JSON" << 0;
        QTest::newRow("traceEvents not array") << QByteArray(R"({"traceEvents": 5})")
                                               << "not an array" << 0;
        QTest::newRow("no traceEvents") << QByteArray(R"({"foo": [1]})") << "no \"traceEvents\"" << 0;
        QTest::newRow("truncated before events") << QByteArray(R"({"meta": "abc)")
                                                 << "ends before" << 0;
        QTest::newRow("wrong types")
            << QByteArray(R"([{"ph":"X","ts":"abc","pid":1,"tid":1},{"ph":5},{"ph":"X","name":1,"ts":1},)"
                          R"({"ph":"X","ts":1,"dur":1,"pid":[1]}, 7, "str", {"ph":"X"},)"
                          R"({"name":"no ph"},{"ph":"X","ts":1e999},{"ph":"X","ts":1,"dur":1,"name":"ok"}])")
            << "" << 9;
        QTest::newRow("broken json inside event")
            << QByteArray(R"([{"ph":"X","ts":1,"dur":1,"name":"a"},{"ph" "X"},{"ph":"X","ts":2,"name":"b","dur":1}])")
            << "" << 1;
        QTest::newRow("truncated event") << QByteArray(R"([{"ph":"X","ts":1,"dur":1},{"ph":"X","ts)")
                                         << "" << 1;
        QTest::newRow("deep array") << QByteArray(100000, '[') << "" << 1;
        QByteArray deepArgs = R"([{"ph":"X","ts":1,"dur":1,"name":"d","args":{"a":)";
        deepArgs += QByteArray(100000, '[') + QByteArray(100000, ']') + "}}]";
        QTest::newRow("deep args") << deepArgs << "" << 0;
        QByteArray deepEvent = "[" + QByteArray(100000, '{');
        QTest::newRow("deep unclosed objects") << deepEvent << "" << 1;
}
#endif

} // namespace

class TestChromeJsonReader : public QObject
{
    Q_OBJECT

private slots:
    void completeEventsNestIntoRows()
    {
        auto t = load(dataPath("nesting.json"));
        QVERIFY(t);
        QCOMPARE(t->info.format, std::string("chrome-json"));
        QCOMPARE(t->info.recordsByPhase, (std::map<std::string, uint64_t>{{"M", 4}, {"X", 5}}));
        const Plane *gpu = planeNamed(*t, "GPU 0");
        QVERIFY(gpu);
        QCOMPARE(gpu->kind, PlaneKind::Device);
        QCOMPARE(gpu->sortIndex, 5);
        QCOMPARE(gpu->id, int64_t(1));
        const Plane *host = planeNamed(*t, "Process 3");
        QVERIFY(host);
        QCOMPARE(host->kind, PlaneKind::Host);
        QVERIFY(trackNamed(*t, "Thread 4"));

        const Track *track = trackNamed(*t, "compute");
        QVERIFY(track);
        QCOMPARE(track->sortIndex, 3);
        QCOMPARE(track->rows.size(), size_t(2));
        QCOMPARE(rowNames(*t, *track, 0), (std::vector<std::string>{"outer", "nodur"}));
        QCOMPARE(rowNames(*t, *track, 1), (std::vector<std::string>{"inner", "inner2"}));
        QCOMPARE(track->rows[0].start[0], 10 * kUs);
        QCOMPARE(track->rows[0].duration[0], 100 * kUs);
        QCOMPARE(track->rows[0].duration[1], int64_t(0)); // missing dur -> 0 with a warning
        QCOMPARE(t->info.warningCount, uint64_t(1));
        QCOMPARE(std::string(t->string(t->kinds[track->rows[0].kind[0]].category)), std::string("c"));

        // Args of "outer": typed values, nested JSON kept as text, correlation in its column.
        std::map<std::string, std::string> args;
        t->forEachArg(SliceRef{uint32_t(track - t->tracks.data()), 0, 0}, [&](const ArgValue &v) {
            std::string value;
            switch (v.type) {
            case ArgType::Int: value = "i" + std::to_string(v.i); break;
            case ArgType::Double: value = "d" + std::to_string(v.d); break;
            case ArgType::Bool: value = "b" + std::to_string(v.i); break;
            case ArgType::String: value = "s" + std::string(v.s); break;
            default: value = "?"; break;
            }
            args[std::string(t->string(v.key))] = value;
        });
        QCOMPARE(args["correlation"], std::string("i42"));
        QCOMPARE(args["s"], std::string("st\"x"));
        QCOMPARE(args["f"], std::string("d1.500000"));
        QCOMPARE(args["b"], std::string("b1"));
        QCOMPARE(args["o"], std::string("s{\"x\":[1,2]}"));
        const SliceRef outer{uint32_t(track - t->tracks.data()), 0, 0};
        QCOMPARE(t->side(outer, SideColumn::CorrelationId), int64_t(42));
    }

    void beginEndPairsPerThread()
    {
        // Bare array, trailing comma and no closing bracket.
        auto t = load(dataPath("beginend.json"));
        QVERIFY(t);
        QCOMPARE(t->info.recordsByPhase,
                 (std::map<std::string, uint64_t>{{"B", 3}, {"E", 3}, {"X", 1}}));
        const Track *track = trackNamed(*t, "Thread 1");
        QVERIFY(track);
        QCOMPARE(rowNames(*t, *track, 0), (std::vector<std::string>{"a", "open"}));
        QCOMPARE(rowNames(*t, *track, 1), (std::vector<std::string>{"b", "last"}));
        QCOMPARE(track->rows[0].start[0], 1 * kUs);
        QCOMPARE(track->rows[0].duration[0], 4 * kUs);
        QCOMPARE(track->rows[1].duration[0], 1 * kUs);
        // The unclosed B is closed at the thread's last timestamp (end of "last" = 10 us).
        QCOMPARE(track->rows[0].start[1], 7 * kUs);
        QCOMPARE(track->rows[0].duration[1], 3 * kUs);
        // E args are merged into the slice.
        ArgValue k;
        QVERIFY(track->args.find(track->rows[1].argsAt(0), t->strings.intern("k"), &k));
        QCOMPARE(k.i, int64_t(7));
        // One E without B, one B without E.
        QCOMPARE(t->info.warningCount, uint64_t(2));
    }

    void instantsCountersAsyncAndFlows()
    {
        auto t = load(dataPath("misc.json"));
        QVERIFY(t);
        QCOMPARE(t->info.recordsByPhase,
                 (std::map<std::string, uint64_t>{{"C", 2}, {"D", 1}, {"I", 1}, {"N", 1}, {"X", 4},
                                                  {"b", 2}, {"e", 2}, {"f", 1}, {"i", 2}, {"s", 1}}));
        // Unsupported phases: one summary warning.
        QCOMPARE(t->info.warningCount, uint64_t(1));
        QVERIFY(t->info.warnings.at(0).find("D: 1, N: 1") != std::string::npos);

        const Track *thread = trackNamed(*t, "Thread 1");
        QVERIFY(thread);
        QCOMPARE(rowNames(*t, *thread, 0), (std::vector<std::string>{"ti", "launch"}));
        QCOMPARE(thread->rows[0].duration[0], int64_t(0));
        const Track *global = nullptr;
        const Track *process = nullptr;
        for (const Track &tr : t->tracks) {
            if (t->string(tr.name) != "Instant events")
                continue;
            (t->string(t->planes[tr.plane].name) == "Global" ? global : process) = &tr;
        }
        QVERIFY(global && process);
        QCOMPARE(rowNames(*t, *global, 0), (std::vector<std::string>{"gi"}));
        QCOMPARE(rowNames(*t, *process, 0), (std::vector<std::string>{"pi"}));
        QCOMPARE(process->rows[0].start[0], 6 * kUs);

        const Track *used = trackNamed(*t, "mem (used)");
        const Track *freeTrack = trackNamed(*t, "mem (free)");
        QVERIFY(used && freeTrack);
        QCOMPARE(used->type, TrackType::Counter);
        QCOMPARE(used->counter.time, (std::vector<TimePs>{1 * kUs, 2 * kUs}));
        QCOMPARE(used->counter.value, (std::vector<double>{10, 11}));
        QCOMPARE(freeTrack->counter.value, (std::vector<double>{20.5, 19}));

        const Track *async = trackNamed(*t, "req");
        QVERIFY(async);
        QCOMPARE(async->rows.size(), size_t(2));
        QCOMPARE(async->rows[0].start[0], 1 * kUs);
        QCOMPARE(async->rows[0].duration[0], 3 * kUs);
        QCOMPARE(async->rows[1].start[0], 2 * kUs);
        QCOMPARE(async->rows[1].duration[0], 3 * kUs);

        const Plane *device = planeNamed(*t, "Process 2");
        QVERIFY(device);
        QCOMPARE(device->kind, PlaneKind::Device);
        const Track *stream = trackNamed(*t, "stream 7");
        QVERIFY(stream);
        QCOMPARE(stream->sourceId, int64_t(7));
        QVERIFY(planeNamed(*t, "Spans"));

        QCOMPARE(t->flows.size(), size_t(2));
        std::set<std::pair<std::string, std::string>> flows;
        for (const Flow &f : t->flows)
            flows.emplace(t->name(f.from), t->name(f.to));
        QVERIFY(flows.count({"launch", "kernel"}));
        QVERIFY(flows.count({"p1", "c1"}));
    }

    void fractionalMicrosecondsAreExact()
    {
        auto t = load(dataPath("precision.json"));
        QVERIFY(t);
        const Track *track = trackNamed(*t, "Thread 1");
        QVERIFY(track);
        QCOMPARE(rowNames(*t, *track, 0), (std::vector<std::string>{"c", "a", "b"}));
        const Row &row = track->rows[0];
        QCOMPARE(row.start[0], int64_t(-2500000));
        QCOMPARE(row.duration[0], int64_t(250000));
        QCOMPARE(row.start[1], int64_t(1000001));
        QCOMPARE(row.duration[1], int64_t(1)); // 0.0000005 us rounds half up to 1 ps
        QCOMPARE(row.start[2], int64_t(1234567890123456));
        QCOMPARE(row.duration[2], int64_t(1000));
    }

    void badInput_data() { addBadInputRows(); }

    void badInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QFETCH(int, minWarnings);
        TemporaryFile file(bytes.toStdString());
        auto r = readChromeJson(file.path(), nullptr, LoadOptions{});
        if (!expected.isEmpty()) {
            QVERIFY(!r);
            QVERIFY2(r.message().find(file.path()) == 0, r.message().c_str());
            QVERIFY2(r.message().find(expected.toStdString()) != std::string::npos, r.message().c_str());
            return;
        }
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QVERIFY(r.value()->info.warningCount >= uint64_t(minWarnings));
    }

    void wrongTypesKeepTheGoodEvents()
    {
        TemporaryFile file(wrongTypesInput());
        auto r = readChromeJson(file.path(), nullptr, LoadOptions{});
        QVERIFY(r.ok());
        QCOMPARE(r.value()->sliceCount(), uint64_t(1));
        QCOMPARE(r.value()->info.warningCount, uint64_t(2));
    }

    void realFixturesMatchProvenance()
    {
        const std::filesystem::path dir = std::filesystem::path(TRACEDESK_SHARED_FIXTURES) / "chrome_json";
        const std::filesystem::path provenance = std::filesystem::path(TRACEDESK_SHARED_FIXTURES)
                                                 / "PROVENANCE.md";
        if (!std::filesystem::is_directory(dir) || !std::filesystem::exists(provenance))
            QSKIP("shared real fixtures (chrome_json/ and PROVENANCE.md) are not available");

        const auto expected = parseProvenance(provenance.string());
        int files = 0;
        for (const auto &entry : std::filesystem::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            QVERIFY2(expected.count(name), ("no PROVENANCE tally for " + name).c_str());
            auto t = load(entry.path().string());
            QVERIFY2(t, name.c_str());
            const auto &[total, phases] = expected.at(name);
            auto show = [](const std::map<std::string, uint64_t> &m) {
                std::string out;
                for (const auto &[ph, n] : m)
                    out += ph + ":" + std::to_string(n) + " ";
                return out;
            };
            QVERIFY2(t->info.recordsByPhase == phases,
                     (name + ": got " + show(t->info.recordsByPhase) + "expected " + show(phases)
                      + (t->info.warnings.empty() ? std::string() : " first warning: " + t->info.warnings[0])).c_str());
            uint64_t sum = 0;
            for (const auto &[ph, n] : t->info.recordsByPhase)
                sum += n;
            QCOMPARE(sum, total);
            QVERIFY2(t->sliceCount() > 0, name.c_str());
            ++files;
        }
        QCOMPARE(files, int(expected.size()));
    }

    void cancelStopsTheLoad()
    {
        LoadControl control;
        control.requestCancel();
        auto r = readChromeJson(dataPath("nesting.json"), &control, LoadOptions{});
        QVERIFY(r.isCancelled());
    }
};

QTEST_GUILESS_MAIN(TestChromeJsonReader)
#include "tst_chromejsonreader.moc"
