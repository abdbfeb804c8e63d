// rocprofv3 output opened through the loader and checked against the files themselves, counted
// here with Qt's JSON parser and a CSV parser of the test's own: dispatches per kernel name and
// per GPU, kernel time (sum of end - start), API calls, launch flows by correlation id, queues,
// counters; the CSV set resolution (a file opens its set, a folder every set); the store cache.

#include "core/analysis/framework.h"
#include "core/io/rocprof/rocprofreader.h"
#include "core/io/traceloader.h"
#include "core/sql/sqlsession.h"
#include "support/clirun.h"
#include "support/rocproffixtures.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <map>
#include <set>

using namespace tracedesk::core;
using testsupport::CsvRecord;

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

struct KernelTotals
{
    std::map<std::string, int64_t> nsByName, callsByName;
    std::map<int64_t, int64_t> nsByDevice;
};

// Kernel time in ns per kernel name and per device plane id, read from the store.
KernelTotals storeKernels(const Trace &t)
{
    KernelTotals k;
    for (const Track &track : t.tracks) {
        const Plane &plane = t.planes[track.plane];
        for (const Row &r : track.rows) {
            for (size_t i = 0; i < r.size(); ++i) {
                const EventKind &kind = t.kinds[r.kind[i]];
                if (kind.role != SliceRole::Kernel)
                    continue;
                if (plane.kind != PlaneKind::Device)
                    qFatal("a kernel off its device plane");
                const std::string name(t.string(kind.name));
                k.nsByName[name] += r.duration[i] / 1000;
                k.callsByName[name] += 1;
                k.nsByDevice[plane.id] += r.duration[i] / 1000;
            }
        }
    }
    return k;
}

// Kernel records of a kernel_trace.csv, totalled as the store should hold them.
KernelTotals csvKernels(const QList<CsvRecord> &rows)
{
    KernelTotals k;
    for (const CsvRecord &r : rows) {
        const std::string name = r["Kernel_Name"].toStdString();
        const qint64 ns = r["End_Timestamp"].toLongLong() - r["Start_Timestamp"].toLongLong();
        k.nsByName[name] += ns;
        k.callsByName[name] += 1;
        k.nsByDevice[testsupport::agentNumber(r["Agent_Id"])] += ns;
    }
    return k;
}

Result<TracePtr> load(const QString &path)
{
    return loadTrace(path.toStdString(), nullptr, noCache());
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
}

// A rocpd database (schema 3.0.1) with one run, written with SQLite's own API: two dispatches
// (one launched by a HIP call), a HIP copy, a roctx range, a counter with two instances.
const char *kRocpdSchema = R"sql(
CREATE TABLE rocpd_string_r1 (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
CREATE TABLE rocpd_info_process_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, command TEXT);
CREATE TABLE rocpd_info_thread_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, tid INTEGER);
CREATE TABLE rocpd_info_agent_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, type TEXT,
    absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, name TEXT, product_name TEXT);
CREATE TABLE rocpd_info_kernel_symbol_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,
    code_object_id INTEGER, kernel_name TEXT, display_name TEXT, arch_vgpr_count INTEGER,
    accum_vgpr_count INTEGER, sgpr_count INTEGER);
CREATE TABLE rocpd_event_r1 (id INTEGER PRIMARY KEY, category_id INTEGER, correlation_id INTEGER);
CREATE TABLE rocpd_region_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, tid INTEGER,
    "start" BIGINT, "end" BIGINT, name_id INTEGER, event_id INTEGER);
CREATE TABLE rocpd_kernel_dispatch_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER,
    tid INTEGER, agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER,
    stream_id INTEGER, "start" BIGINT, "end" BIGINT, private_segment_size INTEGER,
    group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER,
    workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,
    region_name_id INTEGER, event_id INTEGER);
CREATE TABLE rocpd_memory_copy_r1 (id INTEGER PRIMARY KEY, nid INTEGER, pid INTEGER, tid INTEGER,
    "start" BIGINT, "end" BIGINT, name_id INTEGER, dst_agent_id INTEGER, src_agent_id INTEGER,
    size INTEGER, queue_id INTEGER, stream_id INTEGER, event_id INTEGER);
CREATE TABLE rocpd_info_pmc_r1 (id INTEGER PRIMARY KEY, agent_id INTEGER, name TEXT);
CREATE TABLE rocpd_pmc_event_r1 (id INTEGER PRIMARY KEY, event_id INTEGER, pmc_id INTEGER,
    value REAL);
CREATE VIEW rocpd_string AS SELECT * FROM rocpd_string_r1;
INSERT INTO rocpd_string_r1 VALUES (1, 'g', 'HIP_RUNTIME_API_EXT'), (2, 'g', 'hipLaunchKernel'),
    (3, 'g', 'MARKER_CORE_API'), (4, 'g', 'step 1'), (5, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'),
    (6, 'g', 'hipMemcpy');
INSERT INTO rocpd_info_process_r1 VALUES (1, 1, 500, '/usr/bin/python3 train.py');
INSERT INTO rocpd_info_thread_r1 VALUES (1, 1, 1, 500), (2, 1, 1, 501);
INSERT INTO rocpd_info_agent_r1 VALUES (1, 1, 1, 'CPU', 0, 0, 0, 'cpu', 'EPYC'),
    (2, 1, 1, 'GPU', 1, 1, 0, 'gfx942', 'AMD Instinct MI300X');
INSERT INTO rocpd_info_kernel_symbol_r1 VALUES (1, 1, 1, 1, '_Z3addPf.kd', 'add(float*)', 8, 0, 16),
    (2, 1, 1, 1, '_Z3mulPf.kd', 'mul(float*)', 12, 4, 24);
INSERT INTO rocpd_event_r1 VALUES (1, 1, 10), (2, NULL, 10), (3, NULL, 11), (4, 3, 12),
    (5, 1, 13), (6, NULL, 13);
INSERT INTO rocpd_region_r1 VALUES (1, 1, 1, 1, 1000, 1100, 2, 1), (2, 1, 1, 2, 900, 5000, 4, 4),
    (3, 1, 1, 1, 3000, 3500, 6, 5);
INSERT INTO rocpd_kernel_dispatch_r1 VALUES
    (1, 1, 1, 1, 2, 1, 1, 1, 1, 1200, 1500, 0, 512, 64, 1, 1, 1024, 1, 1, NULL, 2),
    (2, 1, 1, 1, 2, 2, 2, 2, 1, 1600, 1700, 0, 0, 256, 1, 1, 4096, 1, 1, NULL, 3);
INSERT INTO rocpd_memory_copy_r1 VALUES (1, 1, 1, 1, 3100, 3400, 5, 2, 1, 4096, 1, 1, 6);
INSERT INTO rocpd_info_pmc_r1 VALUES (1, 2, 'SQ_WAVES');
INSERT INTO rocpd_pmc_event_r1 VALUES (1, 2, 1, 4.0), (2, 2, 1, 6.0);
)sql";

// An RPD database (rocmProfileData), written with the tables of its published schema: two
// kernels on GPU 0 launched by hipLaunchKernel (one with its launch configuration), a host to
// device copy of 4096 bytes by hipMemcpyAsync, a barrier packet, a roctx range and a mark on
// the launching thread, and a kernel on GPU 1 no call of the file launched.
const char *kRpdSchema = R"sql(
CREATE TABLE rocpd_string (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, string varchar(4096)
    NOT NULL);
CREATE TABLE rocpd_op (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, gpuId integer NOT NULL,
    queueId integer NOT NULL, sequenceId integer NOT NULL, completionSignal varchar(18) NOT NULL,
    start integer NOT NULL, "end" integer NOT NULL, description_id integer NOT NULL,
    opType_id integer NOT NULL);
CREATE TABLE rocpd_api (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, pid integer NOT NULL,
    tid integer NOT NULL, start integer NOT NULL, "end" integer NOT NULL,
    apiName_id integer NOT NULL, args_id integer NOT NULL);
CREATE TABLE rocpd_api_ops (id integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    api_id integer NOT NULL, op_id integer NOT NULL);
CREATE TABLE rocpd_kernelapi (api_ptr_id integer NOT NULL PRIMARY KEY, stream varchar(18),
    gridX integer, gridY integer, gridZ integer, workgroupX integer, workgroupY integer,
    workgroupZ integer, groupSegmentSize integer, privateSegmentSize integer,
    kernelName_id integer);
CREATE TABLE rocpd_copyapi (api_ptr_id integer NOT NULL PRIMARY KEY, stream varchar(18),
    size integer, width integer, height integer, kind integer, dst varchar(18), src varchar(18),
    dstDevice integer, srcDevice integer, sync bool, pinned bool);
CREATE TABLE rocpd_metadata (id integer NOT NULL PRIMARY KEY AUTOINCREMENT, tag varchar(4096),
    value varchar(4096));
INSERT INTO rocpd_string VALUES (1, ''), (2, 'hipLaunchKernel'), (3, 'hipMemcpyAsync'),
    (4, 'UserMarker'), (5, 'iteration 1'), (6, 'KernelExecution'), (7, 'CopyHostToDevice'),
    (8, 'BarrierAnd'), (9, 'gemm_kernel'), (10, 'add_kernel'), (11, 'sync point'),
    (12, 'stream=0 kernel=gemm_kernel');
INSERT INTO rocpd_api VALUES
    (1, 77, 78, 1000000, 1900000, 4, 5),
    (2, 77, 78, 1010000, 1015000, 2, 12),
    (3, 77, 78, 1020000, 1025000, 2, 1),
    (4, 77, 78, 1030000, 1040000, 3, 1),
    (5, 77, 78, 1950000, 1950000, 4, 11);
INSERT INTO rocpd_op VALUES
    (1, 0, 0, 1, '0x0', 1100000, 1400000, 9, 6),
    (2, 0, 0, 2, '0x0', 1400000, 1450000, 10, 6),
    (3, 0, 1, 1, '0x0', 1500000, 1520000, 1, 7),
    (4, 0, 0, 3, '0x0', 1460000, 1461000, 1, 8),
    (5, 1, 0, 1, '0x0', 1200000, 1300000, 10, 6);
INSERT INTO rocpd_api_ops VALUES (1, 2, 1), (2, 3, 2), (3, 4, 3);
INSERT INTO rocpd_kernelapi VALUES (2, '0x0', 4096, 1, 1, 256, 1, 1, 1024, 0, 9);
INSERT INTO rocpd_copyapi VALUES (4, '0x0', 4096, 0, 0, 1, '0xd', '0xh', 0, -1, 0, 1);
)sql";

int64_t sqlScalar(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
        qFatal("%s: %s", sql, sqlite3_errmsg(db));
    const int64_t v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    return v;
}

const char *kKernelHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

} // namespace

class TestRocprofReader : public QObject
{
    Q_OBJECT

private slots:
    // The results document of a training run: 43,915 dispatches on one MI350X of eight.
    void jsonResultsDocument()
    {
        const QString path = testsupport::rocprofFixtureDir() + "tracelens__908_results.json.gz";
        TRACEDESK_REQUIRE_FIXTURE(path);
        QCOMPARE(detectFormat(path.toStdString()).value(), SourceFormat::RocprofJson);
        auto loaded = load(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.format, std::string("rocprof-json"));
        for (const std::string &w : t.info.warnings)
            qInfo("  warning: %s", w.c_str());
        QCOMPARE(t.info.warningCount, uint64_t(0));

        const QJsonObject process =
            testsupport::readJsonObject(path)["rocprofiler-sdk-tool"].toArray().at(0).toObject();
        const QJsonArray dispatches =
            process["buffer_records"].toObject()["kernel_dispatch"].toArray();
        QCOMPARE(dispatches.size(), qsizetype(43915));
        std::map<qint64, QString> names;
        for (const QJsonValue &s : process["kernel_symbols"].toArray())
            names[s["kernel_id"].toInteger()] = s["formatted_kernel_name"].toString();
        std::map<qint64, qint64> gpuIndex;   // agent handle -> GPU index
        int gpus = 0;
        for (const QJsonValue &a : process["agents"].toArray()) {
            if (a["type"].toInt() == 2) {
                gpuIndex[a["id"]["handle"].toInteger()] = a["logical_node_type_id"].toInteger();
                ++gpus;
            }
        }
        KernelTotals expected;
        std::set<std::pair<qint64, qint64>> queues;
        for (const QJsonValue &d : dispatches) {
            const QJsonObject info = d["dispatch_info"].toObject();
            const std::string name = names[info["kernel_id"].toInteger()].toStdString();
            const qint64 ns = d["end_timestamp"].toInteger() - d["start_timestamp"].toInteger();
            const qint64 agent = info["agent_id"]["handle"].toInteger();
            expected.nsByName[name] += ns;
            expected.callsByName[name] += 1;
            expected.nsByDevice[gpuIndex.at(agent)] += ns;
            queues.insert({agent, info["queue_id"]["handle"].toInteger()});
        }
        const KernelTotals store = storeKernels(t);
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(dispatches.size()));
        QCOMPARE(store.callsByName, expected.callsByName);
        QCOMPARE(store.nsByName, expected.nsByName);
        QCOMPARE(store.nsByDevice, expected.nsByDevice);
        QCOMPARE(t.info.recordsByPhase.at("kernel_dispatch"), uint64_t(dispatches.size()));

        // A track per queue; the GPUs as the run's devices; no API calls traced, so no flows.
        int64_t deviceTracks = 0;
        for (const Track &track : t.tracks)
            deviceTracks += t.planes[track.plane].kind == PlaneKind::Device && track.sliceCount;
        QCOMPARE(deviceTracks, int64_t(queues.size()));
        QCOMPARE(int(t.info.run.devices.size()), gpus);
        QVERIFY(t.info.run.devices.front().name.find("MI350X") != std::string::npos);
        QCOMPARE(t.flows.size(), size_t(0));
        QCOMPARE(t.info.run.clockOriginNs,
                 process["metadata"]["init_time"].toInteger());
        QVERIFY(analysis::hasGpuActivityRoles(t));
    }

    // llama.cpp prefill on gfx1151: opening its kernel trace opens its set (with the HIP API
    // trace, not the other runs beside it); each hipGraphLaunch binds to every kernel it ran.
    void csvSetOfOneFile()
    {
        const QString dir = testsupport::rocprofFixtureDir()
                            + "rocprof-unified-viewer__llamacpp_gfx1151/";
        const QString kernels = dir + "prefill_kernel_trace.csv";
        TRACEDESK_REQUIRE_FIXTURE(kernels);
        QCOMPARE(detectFormat(kernels.toStdString()).value(), SourceFormat::RocprofCsv);
        auto resolved = resolveSource(kernels.toStdString());
        QVERIFY(resolved.ok());
        QCOMPARE(resolved.value().files.size(), size_t(2));
        auto loaded = load(kernels);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.format, std::string("rocprof-csv"));
        QCOMPARE(t.info.warningCount, uint64_t(0));

        const auto kernelRows = testsupport::readCsvFile(kernels);
        const auto apiRows = testsupport::readCsvFile(dir + "prefill_hip_api_trace.csv");
        QCOMPARE(kernelRows.size(), qsizetype(1128));
        const KernelTotals expected = csvKernels(kernelRows);
        const KernelTotals store = storeKernels(t);
        QCOMPARE(store.callsByName, expected.callsByName);
        QCOMPARE(store.nsByName, expected.nsByName);
        QCOMPARE(store.nsByDevice, expected.nsByDevice);
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime), uint64_t(apiRows.size()));

        std::set<QString> launches;
        for (const CsvRecord &r : apiRows)
            launches.insert(r["Correlation_Id"]);
        size_t bound = 0;
        std::set<std::pair<qint64, qint64>> queues;
        for (const CsvRecord &r : kernelRows) {
            bound += launches.count(r["Correlation_Id"]);
            queues.insert({testsupport::agentNumber(r["Agent_Id"]), r["Queue_Id"].toLongLong()});
        }
        QVERIFY(bound > 0);
        QCOMPARE(t.flows.size(), bound);
        for (const Flow &f : t.flows) {
            QCOMPARE(t.kind(f.from).role, SliceRole::Runtime);
            QCOMPARE(t.kind(f.to).role, SliceRole::Kernel);
            QCOMPARE(t.side(f.from, SideColumn::CorrelationId), t.side(f.to, SideColumn::CorrelationId));
        }
        int64_t deviceTracks = 0;
        for (const Track &track : t.tracks)
            deviceTracks += t.planes[track.plane].kind == PlaneKind::Device && track.sliceCount;
        QCOMPARE(deviceTracks, int64_t(queues.size()));

        // Side columns from the named columns: VGPRs, LDS, grid and workgroup.
        const CsvRecord &first = kernelRows.front();
        bool found = false;
        for (uint32_t tr = 0; tr < t.tracks.size() && !found; ++tr) {
            const Track &track = t.tracks[tr];
            for (uint32_t r = 0; r < track.rows.size() && !found; ++r)
                for (uint32_t i = 0; i < track.rows[r].size() && !found; ++i) {
                    const SliceRef ref{tr, r, i};
                    if (t.kind(ref).role != SliceRole::Kernel
                        || t.name(ref) != first["Kernel_Name"].toStdString()
                        || t.side(ref, SideColumn::CorrelationId)
                               != first["Correlation_Id"].toLongLong())
                        continue;
                    found = true;
                    QCOMPARE(t.side(ref, SideColumn::Registers), first["VGPR_Count"].toLongLong());
                    QCOMPARE(t.side(ref, SideColumn::Stream), first["Stream_Id"].toLongLong());
                    QCOMPARE(dim3At(t.side(ref, SideColumn::Grid), 0),
                             first["Grid_Size_X"].toLongLong());
                    QCOMPARE(dim3At(t.side(ref, SideColumn::Block), 0),
                             first["Workgroup_Size_X"].toLongLong());
                }
        }
        QVERIFY(found);

        // SQL over the store gives the same kernel time per name.
        auto session = sql::SqlSession::open(loaded.value());
        QVERIFY(session.ok());
        auto result = session.value()->run(
            "SELECT name, sum(dur) / 1000 FROM slices WHERE role = 'kernel' GROUP BY name");
        QVERIFY2(result.ok(), result.ok() ? "" : result.message().c_str());
        std::map<std::string, int64_t> fromSql;
        for (const auto &row : result.value().rows)
            fromSql[std::get<std::string>(row[0])] = std::get<int64_t>(row[1]);
        QCOMPARE(fromSql, expected.nsByName);
    }

    // The folder opens every set in it as one profile, counters as counter tracks.
    void csvFolderWithCounters()
    {
        const QString dir = testsupport::rocprofFixtureDir()
                            + "rocprof-unified-viewer__llamacpp_gfx1151";
        TRACEDESK_REQUIRE_FIXTURE(dir + "/prefill_stall_counter_collection.csv");
        auto loaded = load(dir);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.sources.size(), size_t(5));
        const auto prefill = testsupport::readCsvFile(dir + "/prefill_kernel_trace.csv");
        const auto decode = testsupport::readCsvFile(dir + "/decode_kernel_trace.csv");
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(prefill.size() + decode.size()));
        const auto apiCalls = testsupport::readCsvFile(dir + "/prefill_hip_api_trace.csv").size()
                              + testsupport::readCsvFile(dir + "/decode_hip_api_trace.csv").size();
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime), uint64_t(apiCalls));

        const auto counters =
            testsupport::readCsvFile(dir + "/prefill_stall_counter_collection.csv");
        std::map<std::pair<qint64, QString>, double> lastValue;
        std::set<std::pair<qint64, QString>> tracks;
        uint64_t samples = 0;
        for (const CsvRecord &r : counters) {
            tracks.insert({testsupport::agentNumber(r["Agent_Id"]), r["Counter_Name"]});
            samples += r["End_Timestamp"].toLongLong() > r["Start_Timestamp"].toLongLong() ? 2 : 1;
        }
        QCOMPARE(t.counterSampleCount(), samples);
        size_t counterTracks = 0;
        double gui = 0;
        for (const Track &track : t.tracks) {
            if (track.type != TrackType::Counter)
                continue;
            ++counterTracks;
            if (t.string(track.name) == "GRBM_GUI_ACTIVE")
                for (double v : track.counter.value)
                    gui += v;
        }
        QCOMPARE(counterTracks, tracks.size());
        double expectedGui = 0;
        for (const CsvRecord &r : counters)
            if (r["Counter_Name"] == "GRBM_GUI_ACTIVE")
                expectedGui += r["Counter_Value"].toDouble();
        QCOMPARE(gui, expectedGui);
    }

    // The documentation's samples: every layout (ROCm 6 and 7, the rocpd Guid column, markers,
    // copies, allocations, scratch memory, RCCL) in one folder.
    void csvDocumentationSamples()
    {
        const QString dir = testsupport::rocprofFixtureDir() + "rocprofiler-sdk-docs__csv_samples";
        TRACEDESK_REQUIRE_FIXTURE(dir + "/kernel_trace.csv");
        auto loaded = load(dir);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.sources.size(), size_t(9));
        auto rows = [&](const char *file) { return testsupport::readCsvFile(dir + "/" + file); };
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(rows("kernel_trace.csv").size()));
        QCOMPARE(slicesWithRole(t, SliceRole::Memcpy),
                 uint64_t(rows("memory_copy_trace.csv").size()));
        QCOMPARE(slicesWithRole(t, SliceRole::UserAnnotation),
                 uint64_t(rows("marker_api_trace.csv").size()));
        uint64_t runtime = 0, hostSlices = 0;
        for (const char *f : {"hip_trace.csv", "rccl_trace.csv", "rocpd-to-csv.csv",
                              "marker_api_trace.csv"}) {
            for (const CsvRecord &r : rows(f)) {
                runtime += r["Domain"].startsWith("HIP_") || r["Domain"].startsWith("HSA_");
                ++hostSlices;
            }
        }
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime), runtime);
        uint64_t onHosts = 0;
        for (const Track &track : t.tracks)
            if (t.planes[track.plane].kind == PlaneKind::Host)
                onHosts += track.sliceCount;
        QCOMPARE(onHosts, hostSlices);
        QCOMPARE(t.info.recordsByPhase.at("memory_allocation"),
                 uint64_t(rows("memory_allocation_trace.csv").size()));
        QCOMPARE(t.info.recordsByPhase.at("scratch_memory"),
                 uint64_t(rows("scratch_memory_trace.csv").size()));
        const KernelTotals expected = csvKernels(rows("kernel_trace.csv"));
        QCOMPARE(storeKernels(t).nsByName, expected.nsByName);
        // Each sample comes from a different run: their clocks lie weeks apart.
        for (const std::string &w : t.info.warnings)
            qInfo("  warning: %s", w.c_str());
    }

    // The second open of a file reads the store cache, with the same events.
    void storeCache()
    {
        const QString kernels = testsupport::rocprofFixtureDir()
                                + "rocprof-unified-viewer__llamacpp_gfx1151/decode_kernel_trace.csv";
        TRACEDESK_REQUIRE_FIXTURE(kernels);
        QTemporaryDir cache;
        LoadOptions o;
        o.cacheDir = cache.path().toStdString();
        auto first = loadTrace(kernels.toStdString(), nullptr, o);
        QVERIFY(first.ok());
        QVERIFY(!first.value()->info.fromCache);
        auto second = loadTrace(kernels.toStdString(), nullptr, o);
        QVERIFY(second.ok());
        QVERIFY(second.value()->info.fromCache);
        QCOMPARE(second.value()->sliceCount(), first.value()->sliceCount());
        QCOMPARE(second.value()->flows.size(), first.value()->flows.size());
        QCOMPARE(second.value()->info.format, std::string("rocprof-csv"));
    }

    // A tiny document with every record list: calls bound to their dispatch and copy, a marker
    // named by its message, a counter over its dispatch.
    void jsonEveryRecordKind()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("results.json");
        writeFile(path, R"json({"rocprofiler-sdk-tool": [{
  "metadata": {"pid": 42, "init_time": 1000, "fini_time": 9000, "command": ["/usr/bin/app"]},
  "agents": [{"id": {"handle": 7}, "type": 1, "logical_node_id": 0, "logical_node_type_id": 0,
              "name": "cpu"},
             {"id": {"handle": 9}, "type": 2, "logical_node_id": 1, "logical_node_type_id": 0,
              "name": "gfx942", "product_name": "AMD Instinct MI300X", "cu_count": 304,
              "wave_front_size": 64, "max_waves_per_cu": 32, "mem_banks": [{"size_in_bytes": 1024}]}],
  "counters": [{"id": {"handle": 3}, "name": "SQ_WAVES"}],
  "strings": {
    "buffer_records": [{"kind": "NONE", "operations": []},
                       {"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", "hipLaunchKernel", "hipMemcpy"]},
                       {"kind": "KERNEL_DISPATCH", "operations": ["NONE", "ENQUEUE", "COMPLETE"]},
                       {"kind": "MEMORY_COPY", "operations": ["MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_DEVICE"]},
                       {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA"]}],
    "marker_api": [{"key": 5, "value": "step 1"}]},
  "kernel_symbols": [{"kernel_id": 0, "kernel_name": ""},
                     {"kernel_id": 1, "kernel_name": "_Z3addv.kd", "formatted_kernel_name": "add()"}],
  "callback_records": {"counter_collection": [
      {"dispatch_data": {"correlation_id": {"internal": 2},
                         "dispatch_info": {"agent_id": {"handle": 9}, "dispatch_id": 1}},
       "records": [{"counter_id": {"handle": 3}, "value": 10.0},
                   {"counter_id": {"handle": 3}, "value": 6.0}]}]},
  "buffer_records": {
    "hip_api": [{"kind": 1, "operation": 1, "correlation_id": {"internal": 2, "external": 0},
                 "start_timestamp": 1100, "end_timestamp": 1200, "thread_id": 43},
                {"kind": 1, "operation": 2, "correlation_id": {"internal": 4, "external": 0},
                 "start_timestamp": 2000, "end_timestamp": 2600, "thread_id": 42}],
    "kernel_dispatch": [{"kind": 2, "operation": 2, "correlation_id": {"internal": 2},
                         "start_timestamp": 1300, "end_timestamp": 1500, "thread_id": 43,
                         "dispatch_info": {"agent_id": {"handle": 9}, "queue_id": {"handle": 1},
                                           "kernel_id": 1, "dispatch_id": 1,
                                           "workgroup_size": {"x": 64, "y": 1, "z": 1},
                                           "grid_size": {"x": 1024, "y": 1, "z": 1}}}],
    "memory_copy": [{"kind": 3, "operation": 1, "correlation_id": {"internal": 4},
                     "start_timestamp": 2100, "end_timestamp": 2500, "thread_id": 42,
                     "src_agent_id": {"handle": 7}, "dst_agent_id": {"handle": 9}, "bytes": 4096}],
    "marker_api": [{"kind": 4, "operation": 1, "correlation_id": {"internal": 5},
                    "start_timestamp": 1050, "end_timestamp": 2700, "thread_id": 42}]}}]})json");
        QCOMPARE(detectFormat(path.toStdString()).value(), SourceFormat::RocprofJson);
        auto loaded = load(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.warningCount, uint64_t(0));
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(1));
        QCOMPARE(slicesWithRole(t, SliceRole::Memcpy), uint64_t(1));
        QCOMPARE(slicesWithRole(t, SliceRole::Runtime), uint64_t(2));
        QCOMPARE(slicesWithRole(t, SliceRole::UserAnnotation), uint64_t(1));
        QCOMPARE(t.flows.size(), size_t(2));
        std::set<std::string> names;
        for (const EventKind &k : t.kinds)
            names.insert(std::string(t.string(k.name)));
        for (const char *n : {"add()", "hipLaunchKernel", "hipMemcpy", "Memcpy HtoD", "step 1"})
            QVERIFY2(names.count(n), n);
        QCOMPARE(t.info.run.devices.size(), size_t(1));
        QCOMPARE(t.info.run.devices[0].numSms, int64_t(304));
        QCOMPARE(t.info.run.devices[0].maxThreadsPerMultiprocessor, int64_t(32 * 64));
        // Times from the document's init_time, in ps.
        QCOMPARE(t.info.run.clockOriginNs, int64_t(1000));
        const Track *counter = nullptr;
        for (const Track &track : t.tracks)
            if (track.type == TrackType::Counter)
                counter = &track;
        QVERIFY(counter);
        QCOMPARE(t.string(counter->name), std::string_view("SQ_WAVES"));
        QCOMPARE(counter->counter.time, std::vector<TimePs>({300000, 500000}));
        QCOMPARE(counter->counter.value, std::vector<double>({16.0, 0.0}));
    }

    // The rocpd database, counted with SQL over the same file.
    void rocpdDatabase()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("500_results.db").toStdString();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        char *error = nullptr;
        QVERIFY2(sqlite3_exec(db, kRocpdSchema, nullptr, nullptr, &error) == SQLITE_OK, error);
        QCOMPARE(detectFormat(path).value(), SourceFormat::Rocpd);
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.format, std::string("rocpd"));
        QCOMPARE(t.info.warningCount, uint64_t(0));

        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Kernel)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_kernel_dispatch_r1"));
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Memcpy)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_memory_copy_r1"));
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Runtime)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_region_r1 r JOIN rocpd_event_r1 e ON "
                               "e.id = r.event_id JOIN rocpd_string_r1 s ON s.id = e.category_id "
                               "WHERE s.string LIKE 'HIP%'"));
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::UserAnnotation)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_region_r1 r JOIN rocpd_event_r1 e ON "
                               "e.id = r.event_id JOIN rocpd_string_r1 s ON s.id = e.category_id "
                               "WHERE s.string LIKE 'MARKER%'"));
        const KernelTotals k = storeKernels(t);
        QCOMPARE(k.nsByName.at("add(float*)"),
                 sqlScalar(db, "SELECT sum(\"end\" - \"start\") FROM rocpd_kernel_dispatch_r1 "
                               "WHERE kernel_id = 1"));
        QCOMPARE(k.nsByDevice.begin()->first, int64_t(0));   // the GPU's type index
        QCOMPARE(int64_t(t.flows.size()),
                 sqlScalar(db, "SELECT count(*) FROM (SELECT event_id FROM "
                               "rocpd_kernel_dispatch_r1 UNION ALL SELECT event_id FROM "
                               "rocpd_memory_copy_r1) a JOIN rocpd_event_r1 ea ON ea.id = "
                               "a.event_id WHERE EXISTS (SELECT 1 FROM rocpd_region_r1 r JOIN "
                               "rocpd_event_r1 er ON er.id = r.event_id WHERE er.correlation_id "
                               "= ea.correlation_id)"));
        QCOMPARE(t.info.run.devices.size(), size_t(1));
        QCOMPARE(t.info.run.devices[0].name, std::string("AMD Instinct MI300X"));
        double counter = 0;
        for (const Track &track : t.tracks)
            if (track.type == TrackType::Counter)
                for (double v : track.counter.value)
                    counter += v;
        QCOMPARE(int64_t(counter), sqlScalar(db, "SELECT sum(value) FROM rocpd_pmc_event_r1"));
        sqlite3_close(db);

        // Not a rocpd database: an SQLite file with no rocpd tables goes to the Nsight reader,
        // and the rocpd reader refuses it by name.
        const std::string other = dir.filePath("other.db").toStdString();
        QCOMPARE(sqlite3_open(other.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        QCOMPARE(detectFormat(other).value(), SourceFormat::NsysSqlite);
        auto refused = readRocpd(other);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.message().rfind(other + ": ", 0) == 0, refused.message().c_str());
    }

    // An RPD database opens as one: each counted from the file with SQL (kernels per GPU and
    // name with their time, the copy and its bytes, the HIP calls and their launch flows, the
    // roctx range and mark); the barrier packet is left out with a warning.
    void rpdDatabase()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace.rpd").toStdString();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        char *error = nullptr;
        QVERIFY2(sqlite3_exec(db, kRpdSchema, nullptr, nullptr, &error) == SQLITE_OK, error);
        QCOMPARE(detectFormat(path).value(), SourceFormat::Rocpd);
        auto loaded = loadTrace(path, nullptr, noCache());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.format, std::string("rpd"));
        QCOMPARE(t.info.warningCount, uint64_t(1));
        QVERIFY2(t.info.warnings.front().find("1 barrier and marker packets")
                     != std::string::npos,
                 t.info.warnings.front().c_str());

        const char *kernels = "FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id "
                              "JOIN rocpd_string d ON d.id = o.description_id WHERE t.string = "
                              "'KernelExecution'";
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Kernel)),
                 sqlScalar(db, (std::string("SELECT count(*) ") + kernels).c_str()));
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Memcpy)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = "
                               "o.opType_id WHERE t.string LIKE 'Copy%'"));
        const KernelTotals k = storeKernels(t);
        for (const char *name : {"gemm_kernel", "add_kernel"}) {
            const std::string sql = std::string("SELECT sum(o.\"end\" - o.start) ") + kernels
                                    + " AND d.string = '" + name + "'";
            QCOMPARE(k.nsByName.at(name), sqlScalar(db, sql.c_str()));
        }
        for (int64_t gpu : {0, 1}) {
            const std::string sql = std::string("SELECT sum(o.\"end\" - o.start) ") + kernels
                                    + " AND o.gpuId = " + std::to_string(gpu);
            QCOMPARE(k.nsByDevice.at(gpu), sqlScalar(db, sql.c_str()));
        }
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::Runtime)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_api a JOIN rocpd_string n ON n.id = "
                               "a.apiName_id WHERE n.string LIKE 'hip%'"));
        QCOMPARE(int64_t(slicesWithRole(t, SliceRole::UserAnnotation)),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_api a JOIN rocpd_string n ON n.id = "
                               "a.apiName_id WHERE n.string = 'UserMarker'"));
        // A launch flow per call-to-work link, and none for the kernel no call launched.
        QCOMPARE(int64_t(t.flows.size()),
                 sqlScalar(db, "SELECT count(*) FROM rocpd_api_ops l JOIN rocpd_op o ON o.id = "
                               "l.op_id JOIN rocpd_string t ON t.id = o.opType_id WHERE "
                               "t.string NOT LIKE 'Barrier%'"));
        for (const Flow f : t.flows) {
            QCOMPARE(t.kind(f.from).role, SliceRole::Runtime);
            const SliceRole to = t.kind(f.to).role;
            QVERIFY(to == SliceRole::Kernel || to == SliceRole::Memcpy);
        }
        // The range is named by its message; the gemm kernel keeps its launch configuration
        // and the copy its size.
        bool range = false, gemm = false, copy = false;
        for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
            const Track &track = t.tracks[ti];
            for (uint32_t r = 0; r < track.rows.size(); ++r) {
                for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                    const SliceRef s{ti, r, i};
                    const std::string_view name = t.name(s);
                    range = range || (name == "iteration 1" && t.duration(s) == 900000 * 1000);
                    if (name == "gemm_kernel")
                        gemm = t.side(s, SideColumn::Grid) == packDim3(4096, 1, 1)
                               && t.side(s, SideColumn::Block) == packDim3(256, 1, 1)
                               && t.side(s, SideColumn::SharedMemory) == 1024;
                    if (t.kind(s).role == SliceRole::Memcpy)
                        copy = t.side(s, SideColumn::Bytes) == 4096;
                }
            }
        }
        QVERIFY(range);
        QVERIFY(gemm);
        QVERIFY(copy);
        // Each gpuId is a GPU plane of that number.
        std::set<std::string> planes;
        for (const Plane &p : t.planes)
            if (p.kind == PlaneKind::Device)
                planes.insert(std::string(t.string(p.name)));
        QCOMPARE(planes, (std::set<std::string>{"GPU 0", "GPU 1"}));

        // One that would not fit is refused before it is read, naming the file and memory: here
        // the file fits the limit, its records (10 calls and operations at least) do not.
        LoadOptions tight = noCache();
        tight.memoryLimitBytes = uint64_t(QFileInfo(QString::fromStdString(path)).size()) + 1000;
        const auto refused = loadTrace(path, nullptr, tight);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.message().find(path) != std::string::npos, refused.message().c_str());
        QVERIFY2(refused.message().find("memory") != std::string::npos, refused.message().c_str());
        LoadOptions roomy = noCache();
        roomy.memoryLimitBytes = uint64_t(1) << 30;
        QVERIFY(loadTrace(path, nullptr, roomy).ok());
        sqlite3_close(db);
    }

    // What cannot be read is an error naming the file; what can be mended, a warning.
    void badInputs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");   // in the error; empty = loads
        QTest::newRow("empty csv") << "x_kernel_trace.csv" << QByteArray() << "is empty";
        QTest::newRow("header only") << "x_kernel_trace.csv" << QByteArray(kKernelHeader) << "";
        QTest::newRow("no start column")
            << "x_kernel_trace.csv"
            << QByteArray("\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"End_Timestamp\"\n"
                          "\"KERNEL_DISPATCH\",\"Agent 1\",\"k\",\"5\"\n")
            << "without a Start_Timestamp column";
        QTest::newRow("statistics csv") << "x_kernel_stats.csv"
                                        << QByteArray("\"Name\",\"Calls\"\n\"k\",3\n")
                                        << "not one rocprofv3 writes";
        QTest::newRow("truncated json")
            << "r.json" << QByteArray("{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"pid\": 1")
            << "is not valid JSON";
        QTest::newRow("wrong root type")
            << "r.json" << QByteArray("{\"rocprofiler-sdk-tool\": {\"pid\": 1}}")
            << "no \"rocprofiler-sdk-tool\" array";
        QTest::newRow("wrong record types")
            << "r.json"
            << QByteArray("{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"kernel_dispatch\": "
                          "[\"x\", {\"start_timestamp\": \"late\"}, 5], \"hip_api\": {}}}]}")
            << "";
        QTest::newRow("entry not an object")
            << "r.json" << QByteArray("{\"rocprofiler-sdk-tool\": [3]}") << "is not an object";
    }

    void badInputs()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        writeFile(path, bytes);
        const bool json = name.endsWith(".json");
        bool ok = false;
        std::string message;
        if (json) {
            auto loaded = readRocprofJson(path.toStdString());
            ok = loaded.ok();
            message = ok ? std::string() : loaded.message();
        } else {
            auto loaded = loadTrace(path.toStdString(), nullptr, noCache());
            ok = loaded.ok();
            message = ok ? std::string() : loaded.message();
        }
        if (expected.isEmpty()) {
            QVERIFY2(ok, message.c_str());
            return;
        }
        QVERIFY(!ok);
        QVERIFY2(message.rfind(path.toStdString() + ": ", 0) == 0, message.c_str());
        QVERIFY2(QString::fromStdString(message).contains(expected), message.c_str());
    }

    // Columns of older and newer layouts: a numeric agent, no Stream_Id, the segment sizes'
    // older names, an extra leading Guid, unquoted numbers, a row cut short, a bad number.
    void csvLayouts()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("7_kernel_trace.csv"),
                  "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\","
                  "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
                  "\"Private_Segment_Size\",\"Group_Segment_Size\",\"Arch_VGPR_Count\",\"Extra\"\n"
                  "\"g\",\"KERNEL_DISPATCH\",2,1,5,\"k, with \"\"comma\"\"\",11,100,150,0,512,24,x\n"
                  "\"g\",\"KERNEL_DISPATCH\",2,1,5,\"k2\",12,200,180\n"
                  "\"g\",\"KERNEL_DISPATCH\",2,1,5,\"k3\",12,\"soon\",300\n"
                  "\"g\",\"KERNEL_DISPATCH\",2,1,5,\"k4\",oops,400,450\n");
        writeFile(dir.filePath("7_hip_api_trace.csv"),
                  "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","
                  "\"Start_Timestamp\",\"End_Timestamp\"\n"
                  "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",7,8,11,90,99\n");
        auto loaded = load(dir.filePath("7_hip_api_trace.csv"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.sources.size(), size_t(2));
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(3));
        QCOMPARE(t.flows.size(), size_t(1));
        const KernelTotals k = storeKernels(t);
        QCOMPARE(k.nsByName.at("k, with \"comma\""), int64_t(50));
        QCOMPARE(k.nsByName.at("k2"), int64_t(0));   // ends before it starts
        QCOMPARE(k.nsByDevice.begin()->first, int64_t(2));
        QCOMPARE(t.info.warningCount, uint64_t(3));   // no start, a bad number, an early end
        for (const std::string &w : t.info.warnings)
            QVERIFY2(w.find("7_") != std::string::npos || w.find(dir.path().toStdString()) == 0,
                     w.c_str());
    }

    // agent_info.csv with rocprofv3's own header (rocprofiler-sdk's generateCSV.cpp writes these
    // 53 columns; it has no type-relative index column): the GPU agent that the kernels name
    // ("Agent 1", the default relative index = Logical_Node_Id) is GPU 0, named by its
    // architecture, and the run lists it with its compute units and wave size.
    void csvAgentInfo()
    {
        QTemporaryDir dir;
        const QByteArray header =
            "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\","
            "\"Cpu_Core_Id_Base\",\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\","
            "\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\","
            "\"Array_Count\",\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\","
            "\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\","
            "\"Device_Id\",\"Location_Id\",\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\","
            "\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\","
            "\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\","
            "\"Fw_Version\",\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\","
            "\"Workgroup_Max_Size\",\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\","
            "\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\","
            "\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\","
            "\"Product_Name\",\"Model_Name\"\n";
        QCOMPARE(header.count(',') + 1, 53);
        // Rows: 49 numbers, then the four names.
        auto row = [](int node, const char *type, int cus, int wave, int wavesPerCu,
                      const char *name, const char *product) {
            QByteArray r = QByteArray::number(node) + "," + QByteArray::number(node) + ",\""
                           + type + "\"";
            for (int column = 3; column < 49; ++column) {
                const int value = column == 11 ? wave : column == 13 ? cus
                                                  : column == 36 ? wavesPerCu : 0;
                r += "," + QByteArray::number(value);
            }
            return r + ",\"" + name + "\",\"AMD\",\"" + product + "\",\"\"\n";
        };
        writeFile(dir.filePath("9_agent_info.csv"),
                  header + row(0, "CPU", 0, 0, 0, "AMD EPYC", "AMD EPYC 9654")
                      + row(1, "GPU", 304, 64, 32, "gfx942", "AMD Instinct MI300X"));
        writeFile(dir.filePath("9_kernel_trace.csv"),
                  "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\","
                  "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                  "\"KERNEL_DISPATCH\",\"Agent 1\",1,5,\"k\",11,100,150\n");
        auto loaded = load(dir.filePath("9_kernel_trace.csv"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(slicesWithRole(t, SliceRole::Kernel), uint64_t(1));
        // The same dispatch written with --agent-index type-relative names its agent "GPU 0":
        // the first GPU agent_info lists, not the agent whose node is 0 (the CPU).
        QTemporaryDir typeRelative;
        writeFile(typeRelative.filePath("9_agent_info.csv"),
                  header + row(0, "CPU", 0, 0, 0, "AMD EPYC", "AMD EPYC 9654")
                      + row(1, "GPU", 304, 64, 32, "gfx942", "AMD Instinct MI300X"));
        writeFile(typeRelative.filePath("9_kernel_trace.csv"),
                  "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\","
                  "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                  "\"KERNEL_DISPATCH\",\"GPU 0\",1,5,\"k\",11,100,150\n");
        auto relative = load(typeRelative.filePath("9_kernel_trace.csv"));
        QVERIFY(relative.ok());
        std::vector<std::string> planes;
        for (const Plane &p : relative.value()->planes)
            if (p.kind == PlaneKind::Device)
                planes.emplace_back(relative.value()->string(p.name));
        QCOMPARE(planes, std::vector<std::string>{"GPU 0 (gfx942)"});
        bool named = false;
        for (const Plane &p : t.planes)
            named = named || t.string(p.name) == "GPU 0 (gfx942)";
        QVERIFY(named);
        const GpuDeviceInfo *gpu = t.info.run.device(0);
        QVERIFY(gpu);
        QCOMPARE(gpu->name, std::string("AMD Instinct MI300X"));
        QCOMPARE(gpu->numSms, int64_t(304));
        QCOMPARE(gpu->warpSize, int64_t(64));
        QCOMPARE(gpu->maxThreadsPerMultiprocessor, int64_t(32 * 64));
    }

    // tracedesk-cli on a CSV set: summary and the kernel statistics as JSON.
    void cli()
    {
        const QString kernels = testsupport::rocprofFixtureDir()
                                + "rocprof-unified-viewer__llamacpp_gfx1151/prefill_kernel_trace.csv";
        TRACEDESK_REQUIRE_FIXTURE(kernels);
        const auto summary = clitest::runCli({"summary", kernels, "--no-cache"});
        QVERIFY2(summary.exitCode == 0, summary.err.constData());
        QVERIFY(summary.out.contains("rocprof-csv"));
        const auto stats = clitest::runCli({"kernel-stats", kernels, "--json"});
        QVERIFY2(stats.exitCode == 0, stats.err.constData());
        const QJsonArray reports = QJsonDocument::fromJson(stats.out).object()["reports"].toArray();
        QVERIFY(!reports.isEmpty());
        int64_t occurrences = 0;
        for (const QJsonValue &r : reports)
            occurrences += r["occurrences"].toInteger();
        QCOMPARE(occurrences, int64_t(testsupport::readCsvFile(kernels).size()));
    }
};

QTEST_GUILESS_MAIN(TestRocprofReader)
#include "tst_rocprofreader.moc"
