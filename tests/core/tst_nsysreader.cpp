// Every shared Nsight Systems export (schema 2.9.1 to 3.24) opened through the loader and
// checked against the file itself: rows per table, kernel time per name and per device, launch
// flows by correlation id, threads and streams, the session's wall-clock start, and SQL over
// the store. CloverLeaf is checked row by row against pipit's own reader output.

#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/io/nsys/nsysimporter.h"
#include "core/io/nsys/nsysreader.h"
#include "core/io/traceloader.h"
#include "core/sql/sqlsession.h"
#include "support/clirun.h"
#include "support/kinetofixtures.h"
#include "support/nsysfixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <tuple>

using namespace tracedesk::core;
using testsupport::RawDb;

namespace {

LoadOptions noCache()
{
    LoadOptions o;
    o.useCache = false;
    return o;
}

uint64_t slicesWithRole(const Trace &t, SliceRole role)
{
    uint64_t n = 0;
    for (const Track &track : t.tracks)
        for (const Row &r : track.rows)
            for (size_t i = 0; i < r.size(); ++i)
                n += t.kinds[r.kind[i]].role == role;
    return n;
}

uint64_t slicesInCategory(const Trace &t, std::string_view category)
{
    uint64_t n = 0;
    for (const Track &track : t.tracks)
        for (const Row &r : track.rows)
            for (size_t i = 0; i < r.size(); ++i)
                n += t.string(t.kinds[r.kind[i]].category) == category;
    return n;
}

// The union of the [start, end) intervals a query returns (two integer columns, ordered by
// start): busy ns, and the first start and last end.
struct IntervalUnion
{
    int64_t busy = 0;
    int64_t first = 0;
    int64_t last = 0;
};
IntervalUnion intervalUnion(const RawDb &db, const char *sql)
{
    std::vector<std::pair<int64_t, int64_t>> spans;
    sqlite3_stmt *s = nullptr;
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &s, nullptr) != SQLITE_OK)
        return {};
    while (sqlite3_step(s) == SQLITE_ROW)
        spans.emplace_back(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1));
    sqlite3_finalize(s);
    IntervalUnion u;
    if (spans.empty())
        return u;
    int64_t curStart = spans.front().first, curEnd = spans.front().second;
    u.first = curStart;
    for (const auto &[a, b] : spans) {
        u.last = std::max(u.last, b);
        if (a > curEnd) {
            u.busy += curEnd - curStart;
            curStart = a;
            curEnd = b;
        } else {
            curEnd = std::max(curEnd, b);
        }
    }
    u.busy += curEnd - curStart;
    return u;
}

// Kernel time in ns per kernel name and per device plane id, read from the store.
void kernelTimes(const Trace &t, std::map<std::string, int64_t> *byName,
                 std::map<int64_t, int64_t> *byDevice, std::map<std::string, int64_t> *calls)
{
    for (const Track &track : t.tracks) {
        const Plane &plane = t.planes[track.plane];
        for (const Row &r : track.rows) {
            for (size_t i = 0; i < r.size(); ++i) {
                const EventKind &k = t.kinds[r.kind[i]];
                if (k.role != SliceRole::Kernel)
                    continue;
                QCOMPARE(plane.kind, PlaneKind::Device);
                QCOMPARE(r.duration[i] % 1000, int64_t(0));
                (*byName)[std::string(t.string(k.name))] += r.duration[i] / 1000;
                (*byDevice)[plane.id] += r.duration[i] / 1000;
                (*calls)[std::string(t.string(k.name))] += 1;
            }
        }
    }
}

// The kernel name as the export defines it: demangled, else short, else mangled.
const char *kKernelNameSql =
    "(SELECT value FROM StringIds WHERE id = coalesce(k.demangledName, k.shortName, "
    "k.mangledName))";

const char *kActivityTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                 "CUPTI_ACTIVITY_KIND_MEMSET",
                                 "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"};

} // namespace

class TestNsysReader : public QObject
{
    Q_OBJECT

private slots:
    void everyExport_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : testsupport::nsysFixtureNames())
            QTest::newRow(qPrintable(f)) << f;
    }

    void everyExport()
    {
        QFETCH(QString, file);
        const QString path = testsupport::nsysFixtureDir() + file;
        TRACEDESK_REQUIRE_FIXTURE(path);
        QCOMPARE(detectFormat(path.toStdString()).value(), SourceFormat::NsysSqlite);
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        RawDb db(path.toStdString());
        QVERIFY(db.ok());
        QCOMPARE(t.info.format, std::string("nsys-sqlite"));
        qInfo("%s: %llu events, %zu flows, %zu planes, %.3f s, %llu warnings", qPrintable(file),
              (unsigned long long)t.eventCount(), t.flows.size(), t.planes.size(),
              t.info.loadSeconds, (unsigned long long)t.info.warningCount);
        for (const std::string &w : t.info.warnings)
            qInfo("  warning: %s", w.c_str());

        // Rows per table.
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel),
                 uint64_t(db.count("CUPTI_ACTIVITY_KIND_KERNEL")));
        QCOMPARE(slicesWithRole(t, SliceRole::Memcpy),
                 uint64_t(db.count("CUPTI_ACTIVITY_KIND_MEMCPY")));
        QCOMPARE(slicesWithRole(t, SliceRole::Memset),
                 uint64_t(db.count("CUPTI_ACTIVITY_KIND_MEMSET")));
        QCOMPARE(slicesWithRole(t, SliceRole::Sync),
                 uint64_t(db.count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")));
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime),
                 uint64_t(db.count("CUPTI_ACTIVITY_KIND_RUNTIME")));
        QCOMPARE(slicesWithRole(t, SliceRole::UserAnnotation),
                 uint64_t(db.count("NVTX_EVENTS", "eventType IN (34, 59, 60)")));
        QCOMPARE(slicesInCategory(t, "osrt"), uint64_t(db.count("OSRT_API")));
        for (const char *table : kActivityTables) {
            if (db.hasTable(table))
                QCOMPARE(t.info.recordsByPhase.at(table), uint64_t(db.count(table)));
        }

        // Kernel time per name and per device: the sum of end - start.
        std::map<std::string, int64_t> byName, calls;
        std::map<int64_t, int64_t> byDevice;
        kernelTimes(t, &byName, &byDevice, &calls);
        if (db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
            const std::string from = " FROM CUPTI_ACTIVITY_KIND_KERNEL k GROUP BY 1";
            QCOMPARE(byName, db.textToInt(std::string("SELECT ") + kKernelNameSql
                                          + ", sum(k.\"end\" - k.start)" + from));
            QCOMPARE(calls, db.textToInt(std::string("SELECT ") + kKernelNameSql + ", count(*)"
                                         + from));
            QCOMPARE(byDevice, db.intToInt("SELECT deviceId, sum(\"end\" - start) FROM "
                                           "CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1"));
        } else {
            QVERIFY(byName.empty());
        }

        // Launch flows: each GPU activity whose (process, correlation id) a runtime call has.
        int64_t bound = 0;
        for (const char *table : kActivityTables) {
            if (!db.hasTable(table))
                continue;
            bound += db.scalar(std::string("SELECT count(*) FROM ") + table
                               + " a WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                                 "WHERE r.correlationId = a.correlationId AND "
                                 "(r.globalTid >> 24) = (a.globalPid >> 24))");
        }
        QCOMPARE(int64_t(t.flows.size()), bound);

        // One host track per thread with host events, one device track per stream.
        std::string threads = "SELECT count(DISTINCT globalTid) FROM (SELECT globalTid FROM "
                              "CUPTI_ACTIVITY_KIND_RUNTIME";
        if (db.hasTable("NVTX_EVENTS"))
            threads += " UNION ALL SELECT globalTid FROM NVTX_EVENTS WHERE eventType IN "
                       "(34, 59, 60)";
        if (db.hasTable("OSRT_API"))
            threads += " UNION ALL SELECT globalTid FROM OSRT_API";
        threads += ")";
        std::string streams = "SELECT count(*) FROM (SELECT DISTINCT * FROM (";
        bool first = true;
        for (const char *table : kActivityTables) {
            if (!db.hasTable(table))
                continue;
            streams += std::string(first ? "" : " UNION ") + "SELECT deviceId, globalPid, "
                       "streamId FROM " + table;
            first = false;
        }
        streams += "))";
        int64_t hostTracks = 0, deviceTracks = 0;
        for (const Track &track : t.tracks) {
            if (track.sliceCount == 0)
                continue;
            (t.planes[track.plane].kind == PlaneKind::Device ? deviceTracks : hostTracks) += 1;
        }
        QCOMPARE(hostTracks, db.scalar(threads));
        QCOMPARE(deviceTracks, first ? 0 : db.scalar(streams));

        // Records of no stream (event and context syncs carry stream 0xFFFFFFFF) sit on a
        // track named for what they are, never "Stream 4294967295".
        int64_t noStreamRows = 0;
        for (const char *table : kActivityTables) {
            if (db.hasTable(table))
                noStreamRows += db.scalar(std::string("SELECT count(*) FROM ") + table
                                          + " WHERE streamId = 4294967295");
        }
        int64_t onNoStreamTracks = 0;
        for (const Track &track : t.tracks) {
            const std::string_view name = t.string(track.name);
            QVERIFY(name != "Stream 4294967295");
            if (name.starts_with("Synchronization (no stream)"))
                onNoStreamTracks += int64_t(track.sliceCount);
        }
        QCOMPARE(onNoStreamTracks, noStreamRows);

        // The session's wall-clock start is the clock origin; the times stay session-relative.
        QCOMPARE(t.info.run.clockOriginNs,
                 db.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"));
        const int64_t firstKernel = db.scalar("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
        if (firstKernel > 0) {
            TimePs earliest = INT64_MAX;
            for (const Track &track : t.tracks)
                if (t.planes[track.plane].kind == PlaneKind::Device && track.sliceCount)
                    earliest = std::min(earliest, track.begin);
            QVERIFY(earliest <= firstKernel * 1000);
        }
        QCOMPARE(int64_t(t.info.run.devices.size()),
                 db.hasTable("TARGET_INFO_GPU")
                     ? db.scalar("SELECT count(DISTINCT id) FROM TARGET_INFO_GPU")
                     : 0);
        QCOMPARE(t.info.warningCount, uint64_t(0));
    }

    // The file without kernel, memcpy or NVTX tables opens with its runtime calls.
    void noKernelTable()
    {
        const QString path = testsupport::nsysFixtureDir() + "haroonsyed-SGEMM__report1.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        RawDb db(path.toStdString());
        QVERIFY(!db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL"));
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY(loaded.ok());
        const Trace &t = *loaded.value();
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime), uint64_t(2307));
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(0));
        // Named as the API documents it, without the recorded version suffix.
        const auto runtimeNames = db.textToInt(
            "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
            "s.id = r.nameId GROUP BY 1");
        std::map<std::string, int64_t> expected;
        for (const auto &[name, n] : runtimeNames)
            expected[std::string(nsys::apiName(name))] += n;
        std::map<std::string, int64_t> seen;
        for (const Track &track : t.tracks)
            for (const Row &r : track.rows)
                for (size_t i = 0; i < r.size(); ++i)
                    if (t.kinds[r.kind[i]].role == SliceRole::Runtime)
                        seen[std::string(t.string(t.kinds[r.kind[i]].name))] += 1;
        QCOMPARE(seen, expected);
        QVERIFY(seen.count("cudaDeviceSynchronize"));
    }

    // CloverLeaf's kernels, copies and runtime calls equal pipit's reader output on the columns
    // both have: name, stream, start and end (ns), bytes; thread and name of each API call.
    // An export whose event rows would not fit the memory budget is refused before anything
    // is staged, naming the file; with room it loads.
    void refusedWhenTooBigForMemory()
    {
        const QString path =
            testsupport::nsysFixtureDir() + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        LoadOptions tight = noCache();
        tight.memoryLimitBytes = 256 << 10;
        const auto refused = loadTrace(path.toStdString(), nullptr, tight);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.message().find("pipit__perlmutter-cloverleaf-cuda.sqlite")
                     != std::string::npos,
                 refused.message().c_str());
        QVERIFY2(refused.message().find("memory") != std::string::npos, refused.message().c_str());
        LoadOptions roomy = noCache();
        roomy.memoryLimitBytes = uint64_t(4) << 30;
        QVERIFY(loadTrace(path.toStdString(), nullptr, roomy).ok());
    }

    void cloverLeafMatchesPipit()
    {
        const QString dir = testsupport::nsysFixtureDir();
        const QString path = dir + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        TRACEDESK_REQUIRE_FIXTURE(dir + "pipit__cloverleaf_gpu_trace.csv");
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY(loaded.ok());
        const Trace &t = *loaded.value();

        using GpuRow = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>;
        std::multiset<GpuRow> pipitGpu, ours;
        const auto gpuCsv = readCsv(dir + "pipit__cloverleaf_gpu_trace.csv");
        QCOMPARE(gpuCsv.size(), size_t(3182));
        for (const auto &row : gpuCsv) {
            if (row.at("Event Type") != "Enter")
                continue;
            std::string name = row.at("Name");
            if (name == "CUDA_MEMCPY_KIND_HTOD")
                name = "Memcpy HtoD";
            else if (name == "CUDA_MEMCPY_KIND_DTOH")
                name = "Memcpy DtoH";
            const std::string bytes = row.at("bytes");
            pipitGpu.insert({name, std::stoll(row.at("streamId")),
                             std::stoll(row.at("Timestamp (ns)")),
                             std::stoll(row.at("_matching_timestamp")),
                             bytes.empty() ? -1 : std::stoll(bytes)});
        }
        StringId shortKey = 0;
        QVERIFY(t.strings.find("short name", &shortKey));
        for (uint32_t tr = 0; tr < t.tracks.size(); ++tr) {
            const Track &track = t.tracks[tr];
            for (uint32_t r = 0; r < track.rows.size(); ++r) {
                for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                    const SliceRef ref{tr, r, i};
                    const SliceRole role = t.kind(ref).role;
                    if (role != SliceRole::Kernel && role != SliceRole::Memcpy)
                        continue;
                    std::string name(t.name(ref));
                    ArgValue v;
                    if (role == SliceRole::Kernel
                        && track.args.find(track.rows[r].argsAt(i), shortKey, &v))
                        name = std::string(v.s);
                    const int64_t bytes = t.side(ref, SideColumn::Bytes);
                    ours.insert({name, t.side(ref, SideColumn::Stream), t.start(ref) / 1000,
                                 (t.start(ref) + t.duration(ref)) / 1000,
                                 bytes == kNoValue ? -1 : bytes});
                }
            }
        }
        QCOMPARE(ours.size(), size_t(1312 + 279));
        QVERIFY(ours == pipitGpu);

        using ApiRow = std::tuple<std::string, int64_t, int64_t, int64_t>;
        std::multiset<ApiRow> pipitApi, oursApi;
        const auto apiCsv = readCsv(dir + "pipit__cloverleaf-cuda_api_trace.csv");
        QCOMPARE(apiCsv.size(), size_t(6096));
        for (const auto &row : apiCsv) {
            if (row.at("Event Type") == "Enter")
                pipitApi.insert({std::string(nsys::apiName(row.at("Name"))),
                                 std::stoll(row.at("Thread")),
                                 std::stoll(row.at("Timestamp (ns)")),
                                 std::stoll(row.at("_matching_timestamp"))});
        }
        for (uint32_t tr = 0; tr < t.tracks.size(); ++tr) {
            const Track &track = t.tracks[tr];
            for (uint32_t r = 0; r < track.rows.size(); ++r)
                for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                    const SliceRef ref{tr, r, i};
                    if (t.kind(ref).role == SliceRole::Runtime)
                        oursApi.insert({std::string(t.name(ref)), track.sourceId,
                                        t.start(ref) / 1000,
                                        (t.start(ref) + t.duration(ref)) / 1000});
                }
        }
        QCOMPARE(oursApi.size(), size_t(3048));
        QVERIFY(oursApi == pipitApi);
    }

    // SQL over the store (the virtual tables the CLI's `query` reads) gives the kernel time
    // per name that the export's own rows sum to.
    void sqlKernelTime()
    {
        const QString path = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report1.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY(loaded.ok());
        auto session = sql::SqlSession::open(loaded.value());
        QVERIFY(session.ok());
        auto result = session.value()->run(
            "SELECT name, sum(dur) / 1000, count(*) FROM slices WHERE role = 'kernel' GROUP BY "
            "name");
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        std::map<std::string, int64_t> fromSql;
        for (const auto &row : result.value().rows)
            fromSql[std::get<std::string>(row[0])] = std::get<int64_t>(row[1]);
        RawDb db(path.toStdString());
        QCOMPARE(fromSql, db.textToInt(std::string("SELECT ") + kKernelNameSql
                                       + ", sum(k.\"end\" - k.start) FROM "
                                         "CUPTI_ACTIVITY_KIND_KERNEL k GROUP BY 1"));
        QCOMPARE(fromSql.size(), size_t(db.scalar(
                                     "SELECT count(DISTINCT demangledName) FROM "
                                     "CUPTI_ACTIVITY_KIND_KERNEL")));
    }

    // NVTX ranges: inline text and string ids, on the thread that pushed them, the MPI domain
    // as their category (saxpy: 22 push/pop ranges, 17 of them MPI calls by string id).
    void nvtxRangesAndDomains()
    {
        const QString path =
            testsupport::nsysFixtureDir() + "pipit__saxpy-mpi-cuda_nsys_perlmutter0.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY(loaded.ok());
        const Trace &t = *loaded.value();
        RawDb db(path.toStdString());
        QCOMPARE(int64_t(slicesInCategory(t, "MPI")),
                 db.count("NVTX_EVENTS", "eventType = 59 AND domainId = 1"));
        const auto expected = db.textToInt(
            "SELECT coalesce(n.text, s.value), count(*) FROM NVTX_EVENTS n LEFT JOIN StringIds "
            "s ON s.id = n.textId WHERE n.eventType = 59 GROUP BY 1");
        std::map<std::string, int64_t> seen;
        for (const Track &track : t.tracks)
            for (const Row &r : track.rows)
                for (size_t i = 0; i < r.size(); ++i)
                    if (t.kinds[r.kind[i]].role == SliceRole::UserAnnotation)
                        seen[std::string(t.string(t.kinds[r.kind[i]].name))] += 1;
        QCOMPARE(seen, expected);
        QVERIFY(seen.count("saxpy"));
    }

    // GPU utilisation over the store's activities equals the union of the export's kernel,
    // memcpy and memset intervals, merged by the test: busy = |union|, span = last end - first
    // start, idle = span - busy.
    void gpuUtilisation()
    {
        const QString path =
            testsupport::nsysFixtureDir() + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
        QVERIFY(loaded.ok());
        namespace gt = analysis::gputime;
        const auto index = analysis::pytorch::buildKinetoIndex(*loaded.value());
        const gt::GpuTimeReport report = gt::gpuTimeReport(*loaded.value(), index);
        QCOMPARE(report.temporal.size(), size_t(1));

        RawDb db(path.toStdString());
        const IntervalUnion gpu =
            intervalUnion(db, "SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL UNION "
                              "ALL SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                              "ORDER BY 1");
        QVERIFY(gpu.busy > 0);
        const double totalUs = double(gpu.last - gpu.first) / 1000.0;
        const double idleUs = totalUs - double(gpu.busy) / 1000.0;
        QVERIFY(qAbs(report.temporal[0].totalUs - totalUs) < 1e-3);
        QVERIFY(qAbs(report.temporal[0].idleUs - idleUs) < 1e-3);
        // HTA's launch statistics read cudaLaunchKernel (recorded as cudaLaunchKernel_v7000)
        // with its kernel; cudaMemcpy is synchronous and not one of them.
        QCOMPARE(int64_t(report.launches.size()),
                 db.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                           "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                           "JOIN StringIds s ON s.id = r.nameId WHERE s.value GLOB "
                           "'cudaLaunchKernel_v*'"));
        QCOMPARE(int64_t(report.launches.size()), int64_t(1312));
    }

    // Without NVTX steps or CPU operators, the overview's one step spans the runtime calls and
    // the GPU work they launched: its length and kernel time are read off the raw tables.
    void overviewStepOverRuntimeCalls()
    {
        const QString path =
            testsupport::nsysFixtureDir() + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        const auto run = clitest::runCli({"overview", "--json", "--no-cache", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o.value("step_count").toInt(), 1);
        const QJsonObject step = o.value("steps").toArray().at(0).toObject();

        RawDb db(path.toStdString());
        const int64_t first = db.scalar("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
        const int64_t last = std::max(
            {db.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
             db.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_KERNEL"),
             db.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_MEMCPY")});
        QVERIFY(qAbs(step.value("step_time_ms").toDouble() - double(last - first) / 1e6) < 1e-6);

        // Kernel time: the union of the kernels' intervals.
        const int64_t busy =
            intervalUnion(db, "SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1")
                .busy;
        QVERIFY(busy > 0);
        QVERIFY(qAbs(step.value("kernel_ms").toDouble() - double(busy) / 1e6) < 1e-6);
        QCOMPARE(o.value("device_type").toString(), QStringLiteral("GPU"));
    }

    // A training loop that numbers its NVTX ranges ("iteration10" ...), written here into a
    // copy of the CloverLeaf export over thirds of its runtime calls: the overview's steps are
    // those ranges. Each step is derived here from the raw tables by the plugin's rule: a
    // runtime call lying inside a range brings its GPU work (by correlation id); the step is
    // [max(previous step's end, range start), max(range end, that work's end)], and the last is
    // dropped when it launched less than 0.8x the one before.
    void numberedNvtxRangesAreSteps()
    {
        const QString source =
            testsupport::nsysFixtureDir() + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(source);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("iterations.sqlite");
        QVERIFY(QFile::copy(source, path));
        QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
        struct Range
        {
            int64_t start, end;
        };
        std::vector<Range> ranges;
        {
            sqlite3 *db = nullptr;
            QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
            auto scalar = [&](const char *sql) {
                sqlite3_stmt *s = nullptr;
                int64_t v = -1;
                if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK
                    && sqlite3_step(s) == SQLITE_ROW)
                    v = sqlite3_column_int64(s, 0);
                sqlite3_finalize(s);
                return v;
            };
            const int64_t tid = scalar("SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP "
                                       "BY globalTid ORDER BY count(*) DESC LIMIT 1");
            // The span of the calls that launched kernels.
            const int64_t first = scalar("SELECT min(r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                                         "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId "
                                         "= r.correlationId") - 1;
            const int64_t last = scalar("SELECT max(r.\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                        "r JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId "
                                        "= r.correlationId");
            QVERIFY(tid > 0 && last > first);
            QVERIFY(sqlite3_exec(db, "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, \"end\" "
                                     "INTEGER, eventType INTEGER NOT NULL, text TEXT, globalTid "
                                     "INTEGER, domainId INTEGER, textId INTEGER)",
                                 nullptr, nullptr, nullptr)
                    == SQLITE_OK);
            for (int k = 0; k < 3; ++k) {
                const int64_t s = first + (last - first) * k / 3;
                const int64_t e = k == 2 ? last : first + (last - first) * (k + 1) / 3;
                ranges.push_back({s, e});
                const std::string insert =
                    "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(s) + ", "
                    + std::to_string(e) + ", 59, 'iteration" + std::to_string(10 + k) + "', "
                    + std::to_string(tid) + ", 0, NULL)";
                QVERIFY(sqlite3_exec(db, insert.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
            }
            sqlite3_close(db);
        }

        // The rule, on the raw rows: every GPU activity with the runtime call that launched it.
        RawDb db(path.toStdString());
        struct Launched
        {
            int64_t callStart, callEnd, start, end;
        };
        std::vector<Launched> work;
        {
            sqlite3_stmt *s = nullptr;
            QCOMPARE(sqlite3_prepare_v2(
                         db.handle(),
                         "SELECT r.start, r.\"end\", a.start, a.\"end\" FROM "
                         "CUPTI_ACTIVITY_KIND_RUNTIME r JOIN (SELECT correlationId, start, "
                         "\"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT "
                         "correlationId, start, \"end\" FROM CUPTI_ACTIVITY_KIND_MEMCPY) a ON "
                         "a.correlationId = r.correlationId",
                         -1, &s, nullptr),
                     SQLITE_OK);
            while (sqlite3_step(s) == SQLITE_ROW)
                work.push_back({sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                                sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3)});
            sqlite3_finalize(s);
        }
        QVERIFY(!work.empty());
        std::vector<int64_t> matched(3, 0), deviceStart(3, 0), deviceEnd(3, 0);
        std::vector<bool> used(work.size(), false);
        for (size_t k = 0; k < 3; ++k) {
            for (size_t w = 0; w < work.size(); ++w) {
                if (work[w].callStart < ranges[k].start || work[w].callEnd > ranges[k].end)
                    continue;
                deviceStart[k] = matched[k] ? std::min(deviceStart[k], work[w].start)
                                            : work[w].start;
                deviceEnd[k] = matched[k] ? std::max(deviceEnd[k], work[w].end) : work[w].end;
                ++matched[k];
                used[w] = true;
            }
        }
        QVERIFY(matched[0] > 0);
        int64_t prev = ranges[0].start;
        for (size_t w = 0; w < work.size(); ++w) {
            if (!used[w] && work[w].end < deviceStart[0])
                prev = std::max(prev, work[w].end);
        }
        std::vector<std::pair<int64_t, int64_t>> expected;
        for (size_t k = 0; k < 3; ++k) {
            const int64_t start = std::max(prev, ranges[k].start);
            const int64_t end = matched[k] ? std::max(ranges[k].end, deviceEnd[k])
                                           : std::max(ranges[k].end, start);
            expected.push_back({start, end});
            prev = end;
        }
        size_t keep = 3;
        while (keep > 1 && matched[keep - 1] == 0)
            --keep;
        if (keep > 1 && 0.8 * double(matched[keep - 2]) > double(matched[keep - 1]))
            --keep;
        QVERIFY(keep >= 2);

        const auto run = clitest::runCli({"overview", "--json", "--no-cache", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o.value("steps_from").toString(), QStringLiteral("numbered_ranges"));
        QCOMPARE(o.value("step_word").toString(), QStringLiteral("iteration"));
        const QJsonArray steps = o.value("steps").toArray();
        QCOMPARE(steps.size(), qsizetype(keep));
        for (size_t k = 0; k < keep; ++k) {
            const QJsonObject step = steps.at(qsizetype(k)).toObject();
            QCOMPARE(step.value("step_name").toString(), QString::number(10 + k));
            const double ms = double(expected[k].second - expected[k].first) / 1e6;
            QVERIFY2(qAbs(step.value("step_time_ms").toDouble() - ms) < 1e-6,
                     qPrintable(QString("step %1: %2 ms, expected %3 ms")
                                    .arg(k)
                                    .arg(step.value("step_time_ms").toDouble())
                                    .arg(ms)));
        }
    }

    // The export without a kernel table is still a GPU capture (it lists its GPU): the GPU
    // overview, not XProf's "0 hosts, CPU"; one step over its runtime calls, all of them
    // runtime time as no GPU work was recorded.
    void overviewWithoutKernels()
    {
        const QString path = testsupport::nsysFixtureDir() + "haroonsyed-SGEMM__report1.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        const auto run = clitest::runCli({"overview", "--json", "--no-cache", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o.value("device_type").toString(), QStringLiteral("GPU"));
        QCOMPARE(o.value("step_count").toInt(), 1);
        const QJsonObject step = o.value("steps").toArray().at(0).toObject();
        RawDb db(path.toStdString());
        QVERIFY(db.scalar("SELECT count(*) FROM TARGET_INFO_GPU") > 0);
        const int64_t first = db.scalar("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
        const int64_t last = db.scalar("SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_RUNTIME");
        QVERIFY(qAbs(step.value("step_time_ms").toDouble() - double(last - first) / 1e6) < 1e-6);
        QCOMPARE(step.value("kernel_ms").toDouble(), 0.0);
    }

    // Two captures of one job compared at kernel level: each kernel name's total in A and B is
    // the sum of end - start in that export, and its delta their difference.
    // Two exports opened together are a run of two ranks: the Distributed summary has each
    // rank's kernels as its own export counts them, and GPU time reads one rank at a time.
    void twoExportsAreARun()
    {
        const QString a = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report1.sqlite";
        const QString b = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report2.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(a);
        TRACEDESK_REQUIRE_FIXTURE(b);
        auto loaded = loadTraces({a.toStdString(), b.toStdString()}, nullptr, noCache());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.hosts.size(), size_t(2));
        QVERIFY(analysis::distributed::isMergedRankRun(t));
        QCOMPARE(analysis::pytorch::kinetoSectionCount(t), 2u);
        const auto run = analysis::distributed::summarizeMergedRun(t);
        QCOMPARE(run.ranks.size(), size_t(2));
        std::map<std::string, int64_t> kernelsByHost;
        for (const auto &r : run.ranks)
            kernelsByHost[r.host] = int64_t(r.kernelCount);
        // Ranks come from the order given: the first file is rank 0.
        QCOMPARE(kernelsByHost.at("rank 0"),
                 RawDb(a.toStdString()).count("CUPTI_ACTIVITY_KIND_KERNEL"));
        QCOMPARE(kernelsByHost.at("rank 1"),
                 RawDb(b.toStdString()).count("CUPTI_ACTIVITY_KIND_KERNEL"));
    }

    void compareTwoExports()
    {
        const QString a = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report1.sqlite";
        const QString b = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report2.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(a);
        TRACEDESK_REQUIRE_FIXTURE(b);
        const auto run = clitest::runCli({"diff", "--json", "--top", "0", "--level", "kernel", a, b});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonArray ops = QJsonDocument::fromJson(run.out).object().value("ops").toArray();
        const std::string sum = std::string("SELECT ") + kKernelNameSql
                                + ", sum(k.\"end\" - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                  "GROUP BY 1";
        const auto inA = RawDb(a.toStdString()).textToInt(sum);
        const auto inB = RawDb(b.toStdString()).textToInt(sum);
        std::set<std::string> names;
        for (const auto &[n, ns] : inA)
            names.insert(n);
        for (const auto &[n, ns] : inB)
            names.insert(n);
        size_t checked = 0;
        for (const QJsonValue &v : ops) {
            const QJsonObject o = v.toObject();
            const std::string name = o.value("name").toString().toStdString();
            if (!names.count(name))
                continue;
            const int64_t nsA = inA.count(name) ? inA.at(name) : 0;
            const int64_t nsB = inB.count(name) ? inB.at(name) : 0;
            QCOMPARE(int64_t(o.value("total_ps_a").toDouble()), nsA * 1000);
            QCOMPARE(int64_t(o.value("total_ps_b").toDouble()), nsB * 1000);
            QVERIFY(qAbs(o.value("delta_us").toDouble() - double(nsB - nsA) / 1000.0) < 1e-3);
            ++checked;
        }
        QCOMPARE(checked, names.size());
    }

    // `summary --json` reports the rows read per table, as the export counts them.
    void summaryRowsPerTable()
    {
        const QString path =
            testsupport::nsysFixtureDir() + "pipit__perlmutter-cloverleaf-cuda.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(path);
        const auto run = clitest::runCli({"summary", "--json", "--no-cache", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o.value("format").toString(), QStringLiteral("nsys-sqlite"));
        const QJsonObject rows = o.value("records_by_table").toObject();
        RawDb db(path.toStdString());
        for (const char *table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                  "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API"})
            QCOMPARE(int64_t(rows.value(table).toDouble()), db.count(table));
        QVERIFY(!rows.contains("NVTX_EVENTS"));   // the capture traced no NVTX
    }

private:
    static std::vector<std::map<std::string, std::string>> readCsv(const QString &path)
    {
        std::vector<std::map<std::string, std::string>> rows;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return rows;
        QList<QByteArray> header;
        bool first = true;
        while (!f.atEnd()) {
            const QByteArray line = f.readLine().trimmed();
            if (line.isEmpty())
                continue;
            // pipit's names (kernel short names, CUDA API names) hold no comma or quote.
            const QList<QByteArray> cells = line.split(',');
            if (first) {
                header = cells;
                first = false;
                continue;
            }
            std::map<std::string, std::string> row;
            for (int c = 0; c < header.size() && c < cells.size(); ++c)
                row[header[c].toStdString()] = cells[c].toStdString();
            rows.push_back(std::move(row));
        }
        return rows;
    }
};

QTEST_GUILESS_MAIN(TestNsysReader)
#include "tst_nsysreader.moc"
