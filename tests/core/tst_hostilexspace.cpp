// Hostile XSpace inputs through core::loadTrace: every case either loads what is valid (with a
// warning count where something was dropped or clamped) or fails with a message that names the
// file and says what is wrong. None may crash, hang or take much memory. Inputs are written at
// test time, byte by byte, with a tiny protobuf encoder, so each case is exactly what it says.

#include "core/generate/generator.h"
#include "core/io/memoryguard.h"
#include "core/io/memoryusage.h"
#include "core/io/storefile.h"
#include "core/io/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace tracedesk::core;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

void appendVarint(std::string &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(char(v | 0x80));
        v >>= 7;
    }
    out.push_back(char(v));
}

// A protobuf message being encoded, field by field.
struct Pb
{
    std::string b;
    Pb &varint(uint32_t field, uint64_t v)
    {
        appendVarint(b, uint64_t(field) << 3);
        appendVarint(b, v);
        return *this;
    }
    Pb &bytes(uint32_t field, std::string_view s)
    {
        appendVarint(b, uint64_t(field) << 3 | 2);
        appendVarint(b, s.size());
        b.append(s);
        return *this;
    }
    Pb &msg(uint32_t field, const Pb &m) { return bytes(field, m.b); }
};

Pb xevent(int64_t metadataId, int64_t offsetPs, int64_t durationPs)
{
    return Pb().varint(1, uint64_t(metadataId)).varint(2, uint64_t(offsetPs))
        .varint(3, uint64_t(durationPs));
}

Pb line(int64_t id, std::string_view name, int64_t timestampNs, const std::vector<Pb> &events)
{
    Pb l;
    l.varint(1, uint64_t(id)).bytes(2, name).varint(3, uint64_t(timestampNs));
    for (const Pb &e : events)
        l.msg(4, e);
    return l;
}

// A map<int64, XEventMetadata> entry.
Pb metadataEntry(int64_t id, std::string_view name)
{
    return Pb().varint(1, uint64_t(id)).msg(2, Pb().varint(1, uint64_t(id)).bytes(2, name));
}

Pb plane(int64_t id, std::string_view name, const std::vector<Pb> &lines,
         const std::vector<std::pair<int64_t, std::string>> &metadata)
{
    Pb p;
    p.varint(1, uint64_t(id)).bytes(2, name);
    for (const Pb &l : lines)
        p.msg(3, l);
    for (const auto &[mid, mname] : metadata)
        p.msg(4, metadataEntry(mid, mname));
    return p;
}

// One host plane, one line, the given events (metadata 1 = "op").
std::string spaceWithEvents(const std::vector<Pb> &events, int64_t lineTimestampNs = 0)
{
    return Pb().msg(1, plane(1, "/host:CPU", {line(1, "thread", lineTimestampNs, events)},
                             {{1, "op"}})).b;
}

// A tiny valid XSpace: two planes, three lines, five events, nesting.
std::string tinySpace()
{
    const Pb host = plane(1, "/host:CPU",
                          {line(1, "python", 1000, {xevent(1, 0, 5000), xevent(2, 100, 2000),
                                                    xevent(2, 2500, 1000)})},
                          {{1, "train_step"}, {2, "MatMul"}});
    const Pb gpu = plane(2, "/device:GPU:0",
                         {line(1, "Stream #1", 1001, {xevent(1, 10, 300)}),
                          line(2, "Stream #2", 1002, {xevent(1, 20, 40)})},
                         {{1, "kernel"}});
    return Pb().msg(1, host).msg(1, gpu).bytes(4, "tiny").b;
}

void writeFile(const std::string &path, std::string_view bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string allWarnings(const Trace &trace)
{
    std::string all;
    for (const std::string &w : trace.info.warnings)
        all += w + "\n";
    return all;
}

// The store is consistent: ids, rows and spans as validateTrace() demands, and every slice ends
// at or after it starts without overflowing.
void verifyConsistent(const Trace &trace)
{
    QVERIFY(storefile::validateTrace(trace));
    QVERIFY(trace.end >= trace.begin);
    TimePs span = 0;
    QVERIFY(!__builtin_sub_overflow(trace.end, trace.begin, &span));
    for (const Track &t : trace.tracks) {
        for (const Row &r : t.rows) {
            for (size_t i = 0; i < r.start.size(); ++i) {
                QVERIFY(r.duration[i] >= 0);
                TimePs end = 0;
                QVERIFY(!__builtin_add_overflow(r.start[i], r.duration[i], &end));
                QVERIFY(r.start[i] >= trace.begin && end <= trace.end);
            }
        }
    }
}

enum class Outcome { Error, Loads };

// Writes a case's input under `dir`; returns the path to load and the path the message must name.
struct Input
{
    std::string load;
    std::string named;
};
using Maker = std::function<Input(const fs::path &dir)>;

Input singleFile(const fs::path &dir, std::string_view bytes, const char *name = "host.xplane.pb")
{
    const std::string path = (dir / name).string();
    writeFile(path, bytes);
    return {path, path};
}

// A logdir with one run holding one valid host file; returns the run folder.
fs::path makeLogdir(const fs::path &dir)
{
    const fs::path run = dir / "logs" / "plugins" / "profile" / "2024_01_01_00_00_00";
    fs::create_directories(run);
    writeFile((run / "host.xplane.pb").string(), tinySpace());
    return run;
}

// 2^31 claimed by a length varint in a file of a few bytes.
std::string claims2GiB(uint32_t field)
{
    std::string s;
    appendVarint(s, uint64_t(1) << 3 | 2);               // XSpace.planes
    std::string planeBody;
    appendVarint(planeBody, uint64_t(field) << 3 | 2);   // XPlane.name or a bytes field
    appendVarint(planeBody, uint64_t(1) << 31);
    planeBody += "abc";
    appendVarint(s, planeBody.size());
    return s + planeBody;
}

// `depth` messages nested in an unknown field of the XSpace, beside one valid plane.
std::string deepNesting(int depth, uint32_t field)
{
    // Each level is its tag, its length and the levels inside it. The lengths are known from
    // the inside out, so the headers are written outermost first in one pass (re-wrapping the
    // whole string per level copied gigabytes and took twenty seconds).
    std::vector<uint64_t> length(size_t(depth) + 1, 0);   // length[k]: the k innermost levels
    for (int k = 0; k < depth; ++k) {
        std::string header;
        appendVarint(header, uint64_t(field) << 3 | 2);
        appendVarint(header, length[size_t(k)]);
        length[size_t(k) + 1] = header.size() + length[size_t(k)];
    }
    std::string inner;
    inner.reserve(length.back());
    for (int k = depth - 1; k >= 0; --k) {
        appendVarint(inner, uint64_t(field) << 3 | 2);
        appendVarint(inner, length[size_t(k)]);
    }
    return Pb().msg(1, plane(1, "/host:CPU", {line(1, "t", 0, {xevent(1, 0, 10)})}, {{1, "op"}})).b
           + inner;
}

std::string millionNames()
{
    Pb p;
    p.varint(1, 1).bytes(2, "/host:CPU");
    std::vector<Pb> events;
    for (int i = 1; i <= 1000; ++i)
        events.push_back(xevent(i * 997, i, 1));
    p.msg(3, line(1, "t", 0, events));
    for (int64_t i = 1; i <= 1000000; ++i)
        p.msg(4, metadataEntry(i, "op_" + std::to_string(i * 7919)));
    return Pb().msg(1, p).b;
}

} // namespace

Q_DECLARE_METATYPE(Maker)
Q_DECLARE_METATYPE(Outcome)

class TestHostileXSpace : public QObject
{
    Q_OBJECT

private slots:
    void hostile_data()
    {
        QTest::addColumn<Maker>("make");
        QTest::addColumn<Outcome>("outcome");
        QTest::addColumn<QString>("expected");   // in the error message, or in a warning
        QTest::addColumn<qint64>("events");      // events of a successful load (-1: any)

        auto file = [](std::string bytes) {
            return Maker([bytes](const fs::path &dir) { return singleFile(dir, bytes); });
        };
        QTest::newRow("string-claims-2GiB")
            << file(claims2GiB(2)) << Outcome::Error << "length past the end" << -1LL;
        QTest::newRow("bytes-field-claims-2GiB")
            << file(claims2GiB(6)) << Outcome::Error << "length past the end" << -1LL;
        QTest::newRow("top-level-claims-2GiB")
            << file([] {
                   std::string s;
                   appendVarint(s, uint64_t(1) << 3 | 2);
                   appendVarint(s, uint64_t(1) << 31);
                   return s + "\x08\x01";
               }())
            << Outcome::Error << "length past the end" << -1LL;
        QTest::newRow("nested-100k-deep-unknown-field")
            << file(deepNesting(100000, 9)) << Outcome::Loads << "" << 1LL;
        QTest::newRow("nested-100k-deep-in-planes")
            << file(deepNesting(100000, 1)) << Outcome::Error << "wrong wire type" << -1LL;
        QTest::newRow("negative-offset")
            << file(spaceWithEvents({xevent(1, -5'000'000'000'000, 10), xevent(1, 100, 10)}))
            << Outcome::Loads << "" << 2LL;
        QTest::newRow("offset-near-int64-max")
            << file(spaceWithEvents({xevent(1, kMax - 10, 5), xevent(1, 0, 10)}, 1000))
            << Outcome::Loads << "clamped" << 2LL;
        QTest::newRow("offset-int64-min")
            << file(spaceWithEvents({xevent(1, kMin, 5), xevent(1, 0, 10)}, -1000))
            << Outcome::Loads << "clamped" << 2LL;
        QTest::newRow("duration-int64-max")
            << file(spaceWithEvents({xevent(1, 1000, kMax), xevent(1, 0, 10)}))
            << Outcome::Loads << "clamped" << 2LL;
        QTest::newRow("ends-before-it-starts")
            << file(spaceWithEvents({xevent(1, 1000, -500), xevent(1, 0, 10)}))
            << Outcome::Loads << "negative duration" << 2LL;
        QTest::newRow("duration-int64-min")
            << file(spaceWithEvents({xevent(1, 1000, kMin), xevent(1, 0, 10)}))
            << Outcome::Loads << "negative duration" << 2LL;
        QTest::newRow("line-timestamp-int64-max")
            << file(Pb().msg(1, plane(1, "/host:CPU",
                                      {line(1, "a", kMax, {xevent(1, 5, 5)}),
                                       line(2, "b", 100'000'000'000'000'000, {xevent(1, 5, 5)})},
                                      {{1, "op"}})).b)
            << Outcome::Loads << "clamped" << 2LL;
        QTest::newRow("line-timestamp-int64-min")
            << file(spaceWithEvents({xevent(1, 5, 5)}, kMin)) << Outcome::Loads << "clamped"
            << 1LL;
        QTest::newRow("aggregate-negative-occurrences")
            << file(spaceWithEvents({Pb().varint(1, 1).varint(5, uint64_t(-4)).varint(3, 9),
                                     xevent(1, 0, 10)}))
            << Outcome::Loads << "clamped" << 2LL;
        QTest::newRow("million-event-metadata-names")
            << file(millionNames()) << Outcome::Loads << "" << 1000LL;
        QTest::newRow("invalid-utf8-names")
            << file(Pb().msg(1, plane(1, "/host:\xff\xfe",
                                      {line(1, "thr\xc3\x28" "ead\xed\xa0\x80",
                                            0, {xevent(1, 0, 10), xevent(2, 20, 10)})},
                                      {{1, "bad\xc0\xafname"}, {2, "\xf8\x88\x80\x80\x80"}}))
                        .b)
            << Outcome::Loads << "" << 2LL;
        QTest::newRow("empty-file") << file("") << Outcome::Error << "is empty" << -1LL;
        QTest::newRow("text-named-xplane")
            << file("hello, this is not a profile\n") << Outcome::Error << "XSpace" << -1LL;
        QTest::newRow("json-named-xplane")
            << file("{\"traceEvents\": []}") << Outcome::Error << "JSON" << -1LL;
        QTest::newRow("gzip-named-xplane")
            << file(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8)) << Outcome::Error
            << "gzip" << -1LL;
        QTest::newRow("binary-garbage-named-xplane")
            << file(std::string("\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12))
            << Outcome::Error << "corrupt" << -1LL;
        QTest::newRow("xspace-without-planes")
            << file(Pb().bytes(4, "host").bytes(2, "capture failed").b) << Outcome::Error
            << "capture failed" << -1LL;

        QTest::newRow("directory-named-xplane")
            << Maker([](const fs::path &dir) {
                   const fs::path run = dir / "run";
                   fs::create_directories(run / "host.xplane.pb");
                   return Input{run.string(), (run / "host.xplane.pb").string()};
               })
            << Outcome::Error << "not a regular file" << -1LL;
        QTest::newRow("directory-named-xplane-opened-directly")
            << Maker([](const fs::path &dir) {
                   const fs::path d = dir / "host.xplane.pb";
                   fs::create_directories(d);
                   return Input{d.string(), d.string()};
               })
            << Outcome::Error << "contains no profile" << -1LL;
        QTest::newRow("dangling-symlink-in-run")
            << Maker([](const fs::path &dir) {
                   const fs::path run = dir / "run";
                   fs::create_directories(run);
                   fs::create_symlink(dir / "gone.xplane.pb", run / "host.xplane.pb");
                   return Input{run.string(), (run / "host.xplane.pb").string()};
               })
            << Outcome::Error << "link to nothing" << -1LL;
        QTest::newRow("dangling-symlink-opened-directly")
            << Maker([](const fs::path &dir) {
                   const fs::path link = dir / "host.xplane.pb";
                   fs::create_symlink(dir / "gone.xplane.pb", link);
                   return Input{link.string(), link.string()};
               })
            << Outcome::Error << "no such file" << -1LL;
        QTest::newRow("fifo-named-xplane")
            << Maker([](const fs::path &dir) {
                   const fs::path fifo = dir / "host.xplane.pb";
                   ::mkfifo(fifo.c_str(), 0600);
                   return Input{fifo.string(), fifo.string()};
               })
            << Outcome::Error << "not a regular file" << -1LL;
        QTest::newRow("good-host-beside-directory-named-xplane")
            << Maker([](const fs::path &dir) {
                   const fs::path run = dir / "run";
                   fs::create_directories(run / "b.xplane.pb");
                   writeFile((run / "a.xplane.pb").string(), tinySpace());
                   return Input{run.string(), run.string()};
               })
            << Outcome::Loads << "" << 5LL;
        QTest::newRow("run-with-symlink-loop-to-parent")
            << Maker([](const fs::path &dir) {
                   const fs::path run = makeLogdir(dir);
                   fs::create_directory_symlink("..", run / "loop");
                   return Input{(dir / "logs").string(), (dir / "logs").string()};
               })
            << Outcome::Loads << "" << 5LL;
        QTest::newRow("run-folder-containing-itself")
            << Maker([](const fs::path &dir) {
                   const fs::path run = makeLogdir(dir);
                   fs::create_directory_symlink(".", run / "self");
                   fs::create_directory_symlink(run, run / "2099_01_01_00_00_00");
                   return Input{(dir / "logs").string(), (dir / "logs").string()};
               })
            << Outcome::Loads << "" << 5LL;
        QTest::newRow("logdir-profile-folder-containing-itself")
            << Maker([](const fs::path &dir) {
                   makeLogdir(dir);
                   const fs::path profile = dir / "logs" / "plugins" / "profile";
                   fs::create_directory_symlink(".", profile / "2099_12_31_00_00_00");
                   return Input{(dir / "logs").string(), (dir / "logs").string()};
               })
            << Outcome::Loads << "" << 5LL;
    }

    void hostile()
    {
        QFETCH(Maker, make);
        QFETCH(Outcome, outcome);
        QFETCH(QString, expected);
        QFETCH(qint64, events);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Input input = make(fs::path(dir.path().toStdString()));
        LoadOptions options;
        options.useCache = false;
        const uint64_t rssBefore = currentRssBytes();
        auto loaded = loadTrace(input.load, nullptr, options);
        if (outcome == Outcome::Error) {
            QVERIFY2(!loaded, "expected an error");
            const std::string &message = loaded.error().message;
            QVERIFY2(message.find(input.named) != std::string::npos, message.c_str());
            QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
            return;
        }
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        const Trace &trace = *loaded.value();
        verifyConsistent(trace);
        if (QTest::currentTestFailed())
            return;
        if (events >= 0)
            QCOMPARE(qint64(trace.eventCount()), events);
        if (!expected.isEmpty()) {
            QVERIFY(trace.info.warningCount > 0);
            QVERIFY2(allWarnings(trace).find(expected.toStdString()) != std::string::npos,
                     allWarnings(trace).c_str());
        }
        // Bounded: even the million-name case stays far below this.
        const uint64_t rssAfter = currentRssBytes();
        QVERIFY(rssAfter < rssBefore || rssAfter - rssBefore < (uint64_t(768) << 20));
    }

    // Names are kept as the file's bytes; shown through Qt they get replacement characters.
    void invalidUtf8NamesShowReplacement()
    {
        QTemporaryDir dir;
        const Input input = singleFile(fs::path(dir.path().toStdString()),
                                       Pb().msg(1, plane(1, "/host:CPU",
                                                         {line(1, "t", 0, {xevent(1, 0, 10)})},
                                                         {{1, "bad\xc0\xafname"}})).b);
        LoadOptions options;
        options.useCache = false;
        auto loaded = loadTrace(input.load, nullptr, options);
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        const SliceRef first{0, 0, 0};
        QVERIFY(trace.valid(first));
        const std::string_view name = trace.name(first);
        QCOMPARE(std::string(name), std::string("bad\xc0\xafname"));
        const QString shown = QString::fromUtf8(name.data(), qsizetype(name.size()));
        QVERIFY(shown.contains(QChar(QChar::ReplacementCharacter)));
        QVERIFY(shown.startsWith(QLatin1String("bad")));
    }

    // Every prefix of a valid file: a clean error naming the file, or a valid load.
    void everyTruncation()
    {
        QTemporaryDir dir;
        const std::string full = tinySpace();
        const std::string path = (fs::path(dir.path().toStdString()) / "cut.xplane.pb").string();
        LoadOptions options;
        options.useCache = false;
        int loads = 0;
        for (size_t n = 0; n < full.size(); ++n) {
            writeFile(path, std::string_view(full).substr(0, n));
            auto loaded = loadTrace(path, nullptr, options);
            if (loaded) {
                verifyConsistent(*loaded.value());
                ++loads;
            } else {
                const std::string &m = loaded.error().message;
                QVERIFY2(m.find(path) != std::string::npos, m.c_str());
                QVERIFY2(m.find("empty") != std::string::npos
                             || m.find("corrupt") != std::string::npos
                             || m.find("no XSpace planes") != std::string::npos,
                         m.c_str());
            }
        }
        // The prefix ending right after the first plane is itself a valid XSpace.
        QVERIFY(loads >= 1);
        writeFile(path, full);
        auto whole = loadTrace(path, nullptr, options);
        QVERIFY(whole);
        QCOMPARE(whole.value()->eventCount(), uint64_t(5));
    }

    // A thread appends whole planes while the file is loaded again and again (with the cache on):
    // each load either succeeds consistently or names the file; once the writer stops, a load
    // through the cache gives exactly what a fresh read of the final file gives.
    void appendedWhileLoading()
    {
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        const std::string path = (root / "host.xplane.pb").string();
        GeneratorOptions g;
        g.events = 50000;
        QVERIFY(generateTrace(g, path));
        const std::string extra = Pb().msg(1, plane(99, "/host:extra",
                                                    {line(1, "t", 0, {xevent(1, 0, 10),
                                                                      xevent(1, 20, 10)})},
                                                    {{1, "op"}})).b;
        std::atomic<bool> stop{false};
        std::thread writer([&] {
            for (int i = 0; i < 200 && !stop; ++i) {
                std::ofstream out(path, std::ios::binary | std::ios::app);
                // Half a record, a pause, the rest: loads also see a torn tail.
                out.write(extra.data(), std::streamsize(extra.size() / 2));
                out.flush();
                std::this_thread::yield();
                out.write(extra.data() + extra.size() / 2,
                          std::streamsize(extra.size() - extra.size() / 2));
            }
        });
        LoadOptions options;
        options.cacheDir = (root / "cache").string();
        int ok = 0, errors = 0;
        for (int i = 0; i < 6; ++i) {
            auto loaded = loadTrace(path, nullptr, options);
            if (loaded) {
                verifyConsistent(*loaded.value());
                ++ok;
            } else {
                QVERIFY2(loaded.error().message.find(path) != std::string::npos,
                         loaded.error().message.c_str());
                ++errors;
            }
        }
        stop = true;
        writer.join();
        QCOMPARE(ok + errors, 6);

        LoadOptions fresh;
        fresh.useCache = false;
        auto truth = loadTrace(path, nullptr, fresh);
        QVERIFY(truth);
        auto first = loadTrace(path, nullptr, options);
        QVERIFY(first);
        auto second = loadTrace(path, nullptr, options);
        QVERIFY(second);
        QCOMPARE(first.value()->eventCount(), truth.value()->eventCount());
        QCOMPARE(second.value()->eventCount(), truth.value()->eventCount());
        QCOMPARE(second.value()->planes.size(), truth.value()->planes.size());
    }

    // chmod 000 only means something to a user that permissions stop.
    void unreadableByPermissions()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: chmod 000 does not stop root from reading");
        QTemporaryDir dir;
        const Input input = singleFile(fs::path(dir.path().toStdString()), tinySpace());
        QVERIFY(::chmod(input.load.c_str(), 0) == 0);
        LoadOptions options;
        options.useCache = false;
        auto loaded = loadTrace(input.load, nullptr, options);
        QVERIFY(!loaded);
        QVERIFY(loaded.error().message.find(input.load) != std::string::npos);
        QVERIFY(loaded.error().message.find("cannot be opened") != std::string::npos);
    }

    // The memory guard refuses before decoding, names the file and says what to do instead.
    void memoryGuard_data()
    {
        QTest::addColumn<int>("hosts");
        QTest::newRow("one host") << 1;
        QTest::newRow("two-host run folder") << 2;
    }

    void memoryGuard()
    {
        QFETCH(int, hosts);
        QTemporaryDir dir;
        const fs::path run = fs::path(dir.path().toStdString()) / "run";
        fs::create_directories(run);
        for (int h = 0; h < hosts; ++h) {
            GeneratorOptions g;
            g.events = 100000;
            g.seed = uint64_t(h + 1);
            QVERIFY(generateTrace(g, (run / ("host" + std::to_string(h) + ".xplane.pb")).string()));
        }
        const std::string path = hosts == 1 ? (run / "host0.xplane.pb").string() : run.string();
        LoadOptions small;
        small.useCache = false;
        small.memoryLimitBytes = uint64_t(1) << 20;
        auto refused = loadTrace(path, nullptr, small);
        QVERIFY(!refused);
        const std::string &m = refused.error().message;
        QVERIFY2(m.find(path) != std::string::npos, m.c_str());
        QVERIFY2(m.find("memory") != std::string::npos, m.c_str());
        const std::string_view suggestion = hosts == 1 ? kSuggestSmallerTrace : kSuggestSingleHost;
        QVERIFY2(m.find(suggestion) != std::string::npos, m.c_str());

        LoadOptions normal;
        normal.useCache = false;
        auto loaded = loadTrace(path, nullptr, normal);
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        QVERIFY(loaded.value()->eventCount() > 0);
    }
};

QTEST_GUILESS_MAIN(TestHostileXSpace)
#include "tst_hostilexspace.moc"
