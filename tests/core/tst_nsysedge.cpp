// A tiny Nsight Systems export written by the test covers what the real files do not: a kernel
// table with few columns, rows without a name, with a string id the export lacks, ending before
// they start or without a start; runtime calls without a thread; NVTX domains, marks, ranges by
// string id and a range that never ends; missing tables. And bad files, each with the message
// that names it.

#include "core/io/nsys/nsysreader.h"
#include "core/io/traceloader.h"
#include "core/sql/sqlsession.h"
#include "support/kinetofixtures.h"
#include "support/nsysfixtures.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace tracedesk::core;

namespace {

// pid 100: globalPid = 100 << 24; its main thread (tid 100) and a worker (tid 101).
constexpr int64_t kGlobalPid = int64_t(100) << 24;
constexpr int64_t kMain = kGlobalPid + 100;
constexpr int64_t kWorker = kGlobalPid + 101;

std::string edgeSql()
{
    const std::string gp = std::to_string(kGlobalPid);
    const std::string main = std::to_string(kMain);
    const std::string worker = std::to_string(kWorker);
    return "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
           "INSERT INTO StringIds VALUES (1, 'gemm_kernel'), (2, 'cudaLaunchKernel_v7000'),"
           " (3, 'cuLaunchKernel'), (4, 'nccl range'), (5, 'worker'), (6, 'gemm');"
           "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
           "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '9.9.9');"
           "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT);"
           "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, "
           "'2023-11-14T22:13:20');"
           "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
           "INSERT INTO PROCESSES VALUES (" + gp + ", 100, 'python');"
           "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
           "INSERT INTO ThreadNames VALUES (5, 10, " + worker + ");"
           "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId "
           "INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName "
           "INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX "
           "INTEGER, blockY INTEGER, blockZ INTEGER);"
           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
           " (1000, 3000, 0, 7, 11, " + gp + ", 1, 6, 4, 2, 1, 128, 1, 1),"
           " (4000, 5000, 0, 7, 12, " + gp + ", NULL, NULL, 1, 1, 1, 32, 1, 1),"
           " (6000, 6500, 1, 9, 13, " + gp + ", 999, NULL, 1, 1, 1, 32, 1, 1),"
           " (8000, 7000, 0, 7, 14, " + gp + ", 1, NULL, 1, 1, 1, 32, 1, 1),"
           " (NULL, 9000, 0, 7, 15, " + gp + ", 1, NULL, 1, 1, 1, 32, 1, 1);"
           "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass "
           "INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
           "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
           " (900, 1100, 0, " + main + ", 11, 2), (3900, 4100, 1, " + main + ", 12, 3),"
           " (5900, 6100, 0, " + worker + ", 13, 2), (7900, 8100, 0, " + main + ", 14, 2),"
           " (8500, 8600, 0, NULL, 16, 2);"
           "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
           " globalTid INTEGER, textId INTEGER, domainId INTEGER);"
           "INSERT INTO NVTX_EVENTS VALUES"
           " (0, NULL, 75, 'NCCL', NULL, NULL, 5),"
           " (500, 9500, 59, 'step 1', " + main + ", NULL, 0),"
           " (800, 2000, 59, NULL, " + main + ", 4, 5),"
           " (2500, NULL, 34, 'mark', " + main + ", NULL, 0),"
           " (3000, NULL, 60, 'never ends', " + worker + ", NULL, 0),"
           " (3100, 3200, 59, NULL, " + main + ", NULL, 0),"
           " (850, 1150, 59, 'aten::mm, seq = 12, op_id = 3, sizes = [[2, 3], [3, 4]]', "
           + main + ", NULL, 0);";
}

bool hasWarning(const Trace &t, const std::string &table, const std::string &phrase)
{
    for (const std::string &w : t.info.warnings) {
        if (w.rfind(table + ": ", 0) == 0 && w.find(phrase) != std::string::npos)
            return true;
    }
    return false;
}

std::map<std::string, int> namesWithRole(const Trace &t, SliceRole role)
{
    std::map<std::string, int> out;
    for (const Track &track : t.tracks)
        for (const Row &r : track.rows)
            for (size_t i = 0; i < r.size(); ++i)
                if (t.kinds[r.kind[i]].role == role)
                    out[std::string(t.string(t.kinds[r.kind[i]].name))] += 1;
    return out;
}

std::optional<SliceRef> find(const Trace &t, std::string_view name)
{
    for (uint32_t tr = 0; tr < t.tracks.size(); ++tr)
        for (uint32_t r = 0; r < t.tracks[tr].rows.size(); ++r)
            for (uint32_t i = 0; i < t.tracks[tr].rows[r].size(); ++i)
                if (t.name({tr, r, i}) == name)
                    return SliceRef{tr, r, i};
    return std::nullopt;
}

} // namespace

class TestNsysEdge : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_edge = (m_dir.path() + "/edge.sqlite").toStdString();
        QVERIFY(testsupport::writeDb(m_edge, edgeSql()));
    }

    void edgeCases()
    {
        QCOMPARE(detectFormat(m_edge).value(), SourceFormat::NsysSqlite);
        LoadOptions options;
        options.useCache = false;
        auto loaded = loadTrace(m_edge, nullptr, options);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();

        // Kernels: the row without a start is dropped, the others kept under what names they have.
        const std::map<std::string, int> kernels{
            {"gemm_kernel", 2}, {"(unnamed kernel)", 1}, {"(string 999)", 1}};
        QCOMPARE(namesWithRole(t, SliceRole::Kernel), kernels);
        QVERIFY(hasWarning(t, "CUPTI_ACTIVITY_KIND_KERNEL", "1 rows without a start time"));
        QVERIFY(hasWarning(t, "CUPTI_ACTIVITY_KIND_KERNEL", "1 rows end before they start"));
        QVERIFY(hasWarning(t, "CUPTI_ACTIVITY_KIND_KERNEL", "string id the export lacks"));
        QVERIFY(hasWarning(t, "CUPTI_ACTIVITY_KIND_RUNTIME", "1 rows without a thread"));
        QVERIFY(hasWarning(t, "NVTX_EVENTS", "1 ranges never ended"));
        QCOMPARE(t.info.warningCount, uint64_t(5));

        // ns -> ps from the session start; the short name kept beside the demangled one.
        const SliceRef gemm = *find(t, "gemm_kernel");
        QCOMPARE(t.start(gemm), TimePs(1000) * 1000);
        QCOMPARE(t.duration(gemm), TimePs(2000) * 1000);
        QCOMPARE(t.side(gemm, SideColumn::Grid), packDim3(4, 2, 1));
        QCOMPARE(t.side(gemm, SideColumn::Block), packDim3(128, 1, 1));
        QCOMPARE(t.side(gemm, SideColumn::Stream), int64_t(7));
        QCOMPARE(t.side(gemm, SideColumn::CorrelationId), int64_t(11));
        QCOMPARE(t.side(gemm, SideColumn::Registers), kNoValue);   // no such column
        StringId shortKey = 0;
        QVERIFY(t.strings.find("short name", &shortKey));
        ArgValue v;
        QVERIFY(t.tracks[gemm.track].args.find(t.row(gemm).argsAt(gemm.index), shortKey, &v));
        QCOMPARE(v.s, std::string_view("gemm"));
        bool zeroLength = false;
        for (const Track &track : t.tracks)
            for (const Row &r : track.rows)
                for (size_t i = 0; i < r.size(); ++i)
                    zeroLength |= r.start[i] == 8000 * 1000 && r.duration[i] == 0;
        QVERIFY(zeroLength);
        QCOMPARE(t.info.run.clockOriginNs, int64_t(1700000000000000000));

        // Planes: the process named by PROCESSES, GPU 0 and GPU 1 as device planes.
        std::map<std::string, PlaneKind> planes;
        for (const Plane &p : t.planes)
            planes[std::string(t.string(p.name))] = p.kind;
        const std::map<std::string, PlaneKind> expectedPlanes{
            {"python", PlaneKind::Host}, {"GPU 0", PlaneKind::Device}, {"GPU 1", PlaneKind::Device}};
        QCOMPARE(planes, expectedPlanes);
        std::set<std::string> tracks;
        for (const Track &track : t.tracks)
            tracks.insert(std::string(t.string(track.name)));
        const std::set<std::string> expectedTracks{"Thread 100", "worker 101", "Stream 7",
                                                   "Stream 9"};
        QCOMPARE(tracks, expectedTracks);

        // Runtime: versioned names stripped, driver and runtime calls told apart; each call
        // that launched a kept kernel has a flow to it.
        const std::map<std::string, int> calls{{"cudaLaunchKernel", 3}, {"cuLaunchKernel", 1}};
        QCOMPARE(namesWithRole(t, SliceRole::Runtime), calls);
        QCOMPARE(t.string(t.kind(*find(t, "cuLaunchKernel")).category),
                 std::string_view("cuda_driver"));
        QCOMPARE(t.flows.size(), size_t(4));
        for (const Flow &f : t.flows) {
            QCOMPARE(t.kind(f.from).role, SliceRole::Runtime);
            QCOMPARE(t.kind(f.to).role, SliceRole::Kernel);
            QCOMPARE(t.side(f.from, SideColumn::CorrelationId),
                     t.side(f.to, SideColumn::CorrelationId));
        }

        // NVTX: domain as category, text by id, a mark as an instant, an unnamed range.
        const std::map<std::string, int> ranges{{"step 1", 1},     {"nccl range", 1},
                                                {"mark", 1},       {"never ends", 1},
                                                {"(unnamed range)", 1}};
        QCOMPARE(namesWithRole(t, SliceRole::UserAnnotation), ranges);
        QCOMPARE(t.string(t.kind(*find(t, "nccl range")).category), std::string_view("NCCL"));
        QCOMPARE(t.string(t.kind(*find(t, "step 1")).category), std::string_view("nvtx"));
        QCOMPARE(t.duration(*find(t, "mark")), TimePs(0));
        QCOMPARE(t.tracks[find(t, "never ends")->track].sourceId, int64_t(101));

        // PyTorch's emit_nvtx range is the operator, named without its fields, which stay as
        // the range's text; the kernel its launch started is attributed to it.
        const std::map<std::string, int> ops{{"aten::mm", 1}};
        QCOMPARE(namesWithRole(t, SliceRole::CpuOp), ops);
        const SliceRef mm = *find(t, "aten::mm");
        StringId textKey = 0;
        QVERIFY(t.strings.find("nvtx text", &textKey));
        QVERIFY(t.tracks[mm.track].args.find(t.row(mm).argsAt(mm.index), textKey, &v));
        QCOMPARE(v.s, std::string_view("aten::mm, seq = 12, op_id = 3, sizes = [[2, 3], [3, 4]]"));
        auto session = sql::SqlSession::open(loaded.value());
        QVERIFY(session.ok());
        auto result = session.value()->run(
            "SELECT count(*) FROM kernels WHERE name = 'gemm_kernel' AND op_name = 'aten::mm'");
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        QCOMPARE(std::get<int64_t>(result.value().rows.at(0).at(0)), int64_t(1));
    }

    // Kernels are classified by the shared rules through SQL's kernels table, whatever the
    // format: NCCL is communication, a cuBLAS GEMM is GEMM, a copy is memory.
    void kernelFamilies()
    {
        const std::string gp = std::to_string(kGlobalPid);
        const std::string path = (m_dir.path() + "/families.sqlite").toStdString();
        QVERIFY(testsupport::writeDb(
            path, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                  "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),"
                  " (2, 'ampere_sgemm_128x64_nn'), (3, 'cudaLaunchKernel');"
                  "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, "
                  "correlationId, globalPid, demangledName);"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 4000, 0, 7, 1, " + gp
                + ", 1), (5000, 6000, 0, 7, 2, " + gp + ", 1), (7000, 9500, 0, 8, 3, " + gp
                + ", 2);"
                  "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, "
                  "correlationId, nameId);"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, " + std::to_string(kMain)
                + ", 1, 3), (4900, 4950, " + std::to_string(kMain) + ", 2, 3), (6900, 6950, "
                + std::to_string(kMain) + ", 3, 3);"));
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        QCOMPARE(loaded.value()->flows.size(), size_t(3));
        auto session = sql::SqlSession::open(loaded.value());
        QVERIFY(session.ok());
        auto result = session.value()->run(
            "SELECT name, family, sum(calls), sum(total_us) FROM kernels GROUP BY 1, 2 ORDER BY 1");
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        const auto &rows = result.value().rows;
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(std::get<std::string>(rows[0][0]), std::string("ampere_sgemm_128x64_nn"));
        QCOMPARE(std::get<std::string>(rows[0][1]), std::string("GEMM"));
        QCOMPARE(std::get<int64_t>(rows[0][2]), int64_t(1));
        QCOMPARE(std::get<double>(rows[0][3]), 2.5);
        QCOMPARE(std::get<std::string>(rows[1][1]), std::string("Communication"));
        QCOMPARE(std::get<int64_t>(rows[1][2]), int64_t(2));
        QCOMPARE(std::get<double>(rows[1][3]), 4.0);
    }

    // The store cache keeps an export as it keeps every other input: the second open is served
    // from it, with the same events, flows and run metadata.
    void cached()
    {
        LoadOptions options;
        options.cacheDir = (m_dir.path() + "/cache").toStdString();
        auto first = loadTrace(m_edge, nullptr, options);
        auto second = loadTrace(m_edge, nullptr, options);
        QVERIFY(first.ok() && second.ok());
        QVERIFY(!first.value()->info.fromCache);
        QVERIFY(second.value()->info.fromCache);
        QCOMPARE(second.value()->sliceCount(), first.value()->sliceCount());
        QCOMPARE(second.value()->flows.size(), first.value()->flows.size());
        QCOMPARE(second.value()->info.format, std::string("nsys-sqlite"));
        QCOMPARE(second.value()->info.run.clockOriginNs, first.value()->info.run.clockOriginNs);
    }

    // A cancelled load returns "cancelled", not a partial trace.
    void cancelled()
    {
        LoadControl control;
        control.requestCancel();
        auto loaded = readNsysSqlite(m_edge, &control);
        QVERIFY(!loaded.ok());
        QVERIFY(loaded.isCancelled());
    }

    // The bytes reader (the fuzz target's) reads what the file reader reads.
    void fromBytes()
    {
        std::ifstream in(m_edge, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        auto fromMemory = readNsysSqliteBytes("edge", bytes.data(), bytes.size());
        auto fromFile = readNsysSqlite(m_edge);
        QVERIFY(fromMemory.ok() && fromFile.ok());
        QCOMPARE(fromMemory.value()->sliceCount(), fromFile.value()->sliceCount());
        QCOMPARE(fromMemory.value()->flows.size(), fromFile.value()->flows.size());
        QCOMPARE(fromMemory.value()->sliceCount(), uint64_t(4 + 4 + 6));
    }

    void badFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << "empty.sqlite" << QByteArray() << "is empty";
        QTest::newRow("header only")
            << "header.sqlite" << QByteArray("SQLite format 3\0", 16) + QByteArray(300, '\x7f')
            << "SQLite database";
        QTest::newRow("report") << "run.nsys-rep" << QByteArray("anything")
                                << "export it first with `nsys export --type sqlite run.nsys-rep`";
        QTest::newRow("old report") << "run.qdrep" << QByteArray("anything")
                                    << "nsys export --type sqlite run.qdrep";
    }

    void badFiles()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        const std::string path = (m_dir.path() + "/" + name).toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out.write(content.constData(), content.size());
        }
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.message().rfind(path + ": ", 0) == 0, loaded.message().c_str());
        QVERIFY2(loaded.message().find(message.toStdString()) != std::string::npos,
                 loaded.message().c_str());
    }

    // An SQLite file from elsewhere is refused as such, not read as an empty profile.
    void otherDatabase()
    {
        const std::string path = (m_dir.path() + "/other.db").toStdString();
        QVERIFY(testsupport::writeDb(path, "CREATE TABLE notes (id INTEGER, body TEXT);"));
        QCOMPARE(detectFormat(path).value(), SourceFormat::NsysSqlite);
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.message().find(path + ": is an SQLite database but not an Nsight "
                                              "Systems export")
                     == 0,
                 loaded.message().c_str());
    }

    // A cut export is an error naming the file, never a partial load.
    void truncatedExport()
    {
        const QString real = testsupport::nsysFixtureDir() + "NVIDIA-Fuser__report1.sqlite";
        TRACEDESK_REQUIRE_FIXTURE(real);
        QFile f(real);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(f.size() / 3);
        const std::string path = (m_dir.path() + "/cut.sqlite").toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out.write(head.constData(), head.size());
        }
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY2(!loaded.ok(), "a third of an export loaded");
        QVERIFY2(loaded.message().rfind(path + ": ", 0) == 0, loaded.message().c_str());
    }

    // Exports of one job given together are one run: a section per rank (from the file names),
    // each export's times moved by how much later its session started than the earliest.
    void runOfExports()
    {
        QVERIFY(QDir(m_dir.path()).mkpath("run"));
        const std::string a = (m_dir.path() + "/run/job_rank0.sqlite").toStdString();
        const std::string b = (m_dir.path() + "/run/job_rank1.sqlite").toStdString();
        QVERIFY(testsupport::writeDb(a, edgeSql()));
        QVERIFY(testsupport::writeDb(b, edgeSql()
                                            + "UPDATE TARGET_INFO_SESSION_START_TIME SET "
                                              "utcEpochNs = utcEpochNs + 1000000;"));
        auto single = loadTrace(a, nullptr, noCache());
        auto run = loadTraces({b, a}, nullptr, noCache());
        QVERIFY2(run.ok(), run.ok() ? "" : run.message().c_str());
        const Trace &t = *run.value();
        QCOMPARE(t.info.hosts, (std::vector<std::string>{"rank 0", "rank 1"}));
        QCOMPARE(t.sliceCount(), 2 * single.value()->sliceCount());
        QCOMPARE(t.flows.size(), 2 * single.value()->flows.size());
        QCOMPARE(t.info.run.clockOriginNs, int64_t(1700000000000000000));
        std::map<std::string, TimePs> firstGemm;
        for (const Track &track : t.tracks)
            for (const Row &r : track.rows)
                for (size_t i = 0; i < r.size(); ++i) {
                    if (t.string(t.kinds[r.kind[i]].name) != "gemm_kernel")
                        continue;
                    const std::string host(t.string(t.planes[track.plane].host));
                    if (!firstGemm.count(host) || r.start[i] < firstGemm[host])
                        firstGemm[host] = r.start[i];
                }
        QCOMPARE(firstGemm.at("rank 0"), TimePs(1000) * 1000);
        QCOMPARE(firstGemm.at("rank 1"), (TimePs(1000) + 1000000) * 1000);
        // A folder holding the exports opens as the same run.
        auto folder = loadTrace(m_dir.path().toStdString() + "/run", nullptr, noCache());
        QVERIFY2(folder.ok(), folder.ok() ? "" : folder.message().c_str());
        QCOMPARE(folder.value()->info.hosts, t.info.hosts);
        QCOMPARE(folder.value()->sliceCount(), t.sliceCount());
        // Each export's warnings are named by its file.
        QVERIFY(std::any_of(t.info.warnings.begin(), t.info.warnings.end(),
                            [](const std::string &w) {
                                return w.rfind("job_rank1.sqlite: ", 0) == 0;
                            }));
    }

    // A run with a file that is no export fails, naming that file.
    void runWithBadFile()
    {
        const std::string bad = (m_dir.path() + "/notes.sqlite").toStdString();
        QVERIFY(testsupport::writeDb(bad, "CREATE TABLE notes (body TEXT);"));
        auto run = loadTraces({m_edge, bad}, nullptr, noCache());
        QVERIFY(!run.ok());
        QVERIFY2(run.message().rfind(bad + ": ", 0) == 0, run.message().c_str());
    }

private:
    static LoadOptions noCache()
    {
        LoadOptions o;
        o.useCache = false;
        return o;
    }

    QTemporaryDir m_dir;
    std::string m_edge;
};

QTEST_GUILESS_MAIN(TestNsysEdge)
#include "tst_nsysedge.moc"
