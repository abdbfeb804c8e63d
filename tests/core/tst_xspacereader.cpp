// readXSpaceFiles: tiny XSpaces built with the generated classes (expectations computed by hand),
// the real fixtures against PROVENANCE.md counts, and a table of bad inputs.

#include "core/io/xspacereader.h"

#include "xplane.pb.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

using namespace tracedesk::core;
namespace pb = tensorflow::profiler;

namespace {

constexpr uint64_t kEpochStart = 1'700'000'000'000'000'000ull;

// Metadata ids are handed out densely from 1, as producers do.
struct PlaneMaker
{
    pb::XPlane *plane;

    int64_t stat(const std::string &name)
    {
        for (const auto &[id, m] : plane->stat_metadata())
            if (m.name() == name)
                return id;
        const int64_t id = plane->stat_metadata_size() + 1;
        auto &m = (*plane->mutable_stat_metadata())[id];
        m.set_id(id);
        m.set_name(name);
        return id;
    }
    int64_t kind(const std::string &name)
    {
        for (const auto &[id, m] : plane->event_metadata())
            if (m.name() == name)
                return id;
        const int64_t id = plane->event_metadata_size() + 1;
        auto &m = (*plane->mutable_event_metadata())[id];
        m.set_id(id);
        m.set_name(name);
        return id;
    }
    pb::XEventMetadata &metadata(const std::string &name)
    {
        return (*plane->mutable_event_metadata())[kind(name)];
    }
    pb::XLine *line(int64_t id, const std::string &name, int64_t timestampNs)
    {
        pb::XLine *l = plane->add_lines();
        l->set_id(id);
        l->set_name(name);
        l->set_timestamp_ns(timestampNs);
        return l;
    }
    pb::XEvent *event(pb::XLine *l, const std::string &kindName, int64_t offsetPs, int64_t durPs)
    {
        pb::XEvent *e = l->add_events();
        e->set_metadata_id(kind(kindName));
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durPs);
        return e;
    }
    pb::XStat *add(google::protobuf::RepeatedPtrField<pb::XStat> *stats, const std::string &name)
    {
        pb::XStat *s = stats->Add();
        s->set_metadata_id(stat(name));
        return s;
    }
};

PlaneMaker addPlane(pb::XSpace &space, const std::string &name, int64_t id)
{
    pb::XPlane *p = space.add_planes();
    p->set_name(name);
    p->set_id(id);
    return {p};
}

void addTaskEnvironment(pb::XSpace &space, uint64_t startNs)
{
    PlaneMaker env = addPlane(space, "Task Environment", 0);
    env.add(env.plane->mutable_stats(), "profile_start_time")->set_uint64_value(startNs);
    env.add(env.plane->mutable_stats(), "profile_stop_time")->set_uint64_value(startNs + 1000);
}

uint64_t xflow(uint64_t id, uint64_t direction, uint64_t category = 0)
{
    return direction | id << 2 | category << 58;
}

uint32_t trackIndex(const Trace &t, std::string_view name)
{
    for (uint32_t i = 0; i < t.tracks.size(); ++i)
        if (t.string(t.tracks[i].name) == name)
            return i;
    return UINT32_MAX;
}

const Track *trackNamed(const Trace &t, std::string_view name)
{
    const uint32_t i = trackIndex(t, name);
    return i == UINT32_MAX ? nullptr : &t.tracks[i];
}

// "name@start+duration" per slice of a row.
QStringList rowText(const Trace &t, const Track &track, size_t r)
{
    QStringList out;
    const Row &row = track.rows.at(r);
    for (size_t i = 0; i < row.size(); ++i)
        out << QStringLiteral("%1@%2+%3")
                   .arg(QString::fromUtf8(t.string(t.kinds[row.kind[i]].name)))
                   .arg(row.start[i])
                   .arg(row.duration[i]);
    return out;
}

std::map<std::string, ArgValue> argsOf(const Trace &t, const ArgsArena &arena, ArgsRef ref)
{
    std::map<std::string, ArgValue> out;
    arena.forEach(ref, [&](const ArgValue &v) { out[std::string(t.string(v.key))] = v; });
    return out;
}

std::string varint(uint64_t n)
{
    std::string out;
    for (; n >= 0x80; n >>= 7)
        out += char((n & 0x7f) | 0x80);
    return out + char(n);
}

std::string fixturesDir()
{
    return std::string(TRACEDESK_SHARED_FIXTURES) + "/xspace";
}

} // namespace

class TestXSpaceReader : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::string write(const std::string &name, const std::string &bytes)
    {
        const std::string path = (std::filesystem::path(m_dir.path().toStdString()) / name).string();
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        return path;
    }
    std::string write(const std::string &name, const pb::XSpace &space)
    {
        return write(name, space.SerializeAsString());
    }
    static std::shared_ptr<Trace> load(const std::vector<std::string> &files,
                                       LoadControl *control = nullptr)
    {
        auto r = readXSpaceFiles(files, control, LoadOptions());
        if (!r) {
            qWarning("load failed: %s", r.message().c_str());
            return nullptr;
        }
        return std::move(r).value();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void hostFromPath()
    {
        QCOMPARE(hostFromXSpacePath("/a/b/34.83.195.179_6003.xplane.pb"), "34.83.195.179_6003");
        QCOMPARE(hostFromXSpacePath("run/tw003.XPLANE.PB"), "tw003");
        QCOMPARE(hostFromXSpacePath("host.pb"), "host");
        QCOMPARE(hostFromXSpacePath("plain"), "plain");
    }

    void timesNestingAndNames()
    {
        pb::XSpace space;
        PlaneMaker gpu = addPlane(space, "/device:GPU:0", 0);
        pb::XLine *l = gpu.line(7, "Stream #7", 1000);
        gpu.event(l, "A", 0, 10000);
        gpu.event(l, "B", 1000, 2000);
        gpu.event(l, "D", 3000, 0);
        gpu.event(l, "C", 20000, 5);
        pb::XLine *pretty = gpu.line(3, "raw", 0);
        pretty->set_display_name("Pretty");
        pretty->set_display_id(99);
        const std::string path = write("timing.xplane.pb", space);

        LoadControl control;
        auto t = load({path}, &control);
        QVERIFY(t);
        QCOMPARE(t->info.format, "xspace");
        QCOMPARE(t->info.sources, std::vector<std::string>{path});
        QCOMPARE(t->info.hosts, std::vector<std::string>{"timing"});
        QCOMPARE(t->info.sourceBytes, uint64_t(std::filesystem::file_size(path)));
        QCOMPARE(t->info.xlines, uint64_t(2));
        QCOMPARE(t->info.xevents, uint64_t(4));
        QCOMPARE(t->eventCount(), uint64_t(4));
        QCOMPARE(control.done(), control.total());
        QCOMPARE(control.total(), t->info.sourceBytes);

        QCOMPARE(t->planes.size(), size_t(1));
        QCOMPARE(t->string(t->planes[0].name), "/device:GPU:0");
        QCOMPARE(t->string(t->planes[0].host), "timing");
        QCOMPARE(t->planes[0].kind, PlaneKind::Device);
        QCOMPARE(t->planes[0].tracks.size(), size_t(2));

        const Track *stream = trackNamed(*t, "Stream #7");
        QVERIFY(stream);
        QCOMPARE(stream->sourceId, int64_t(7));
        QCOMPARE(stream->rows.size(), size_t(2));
        // start = timestamp_ns * 1000 + offset_ps
        QCOMPARE(rowText(*t, *stream, 0), QStringList({"A@1000000+10000", "C@1020000+5"}));
        QCOMPARE(rowText(*t, *stream, 1), QStringList({"B@1001000+2000", "D@1003000+0"}));
        QCOMPARE(t->begin, TimePs(1000000));
        QCOMPARE(t->end, TimePs(1020005));

        const Track *named = trackNamed(*t, "Pretty");
        QVERIFY(named);
        QCOMPARE(named->sourceId, int64_t(99));
        QVERIFY(named->empty());
        QCOMPARE(t->originPs, TimePs(0));
    }

    // GPU work gets the roles the GPU time analyses read: stream events are kernels, copies
    // and sets by name; a host event with a correlation id is a runtime call; a kind shared by
    // a stream and another device line is split, so the other line's events keep no role.
    void gpuRoles()
    {
        pb::XSpace space;
        PlaneMaker gpu = addPlane(space, "/device:GPU:3", 3);
        pb::XLine *stream = gpu.line(14, "Stream #14(Compute)", 0);
        gpu.event(stream, "fusion_1", 0, 100);
        gpu.event(stream, "MemcpyH2D", 200, 100);
        gpu.event(stream, "Memset", 400, 100);
        pb::XLine *ops = gpu.line(-1, "XLA Ops", 0);
        gpu.event(ops, "fusion_1", 0, 100);
        PlaneMaker tpu = addPlane(space, "/device:TPU:0", 4);
        tpu.event(tpu.line(1, "Stream #1", 0), "tpu_op", 0, 10); // not a GPU plane
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        pb::XLine *thread = cpu.line(7, "Host Threads/7", 0);
        cpu.add(cpu.event(thread, "cuLaunchKernel", 0, 10)->mutable_stats(), "correlation_id")
            ->set_int64_value(5);
        cpu.event(thread, "ExecutorState::Process", 20, 10);
        const std::string path = write("roles.xplane.pb", space);
        const auto t = load({path});
        QVERIFY(t);

        auto rolesOn = [&](std::string_view trackName) {
            std::vector<std::pair<std::string, SliceRole>> out;
            const Track *track = trackNamed(*t, trackName);
            if (!track)
                return out;
            for (const Row &row : track->rows)
                for (size_t i = 0; i < row.size(); ++i)
                    out.emplace_back(std::string(t->string(t->kinds[row.kind[i]].name)),
                                     t->kinds[row.kind[i]].role);
            return out;
        };
        using R = std::vector<std::pair<std::string, SliceRole>>;
        QCOMPARE(rolesOn("Stream #14(Compute)"), (R{{"fusion_1", SliceRole::Kernel},
                                                    {"MemcpyH2D", SliceRole::Memcpy},
                                                    {"Memset", SliceRole::Memset}}));
        QCOMPARE(rolesOn("XLA Ops"), (R{{"fusion_1", SliceRole::None}}));
        QCOMPARE(rolesOn("Stream #1"), (R{{"tpu_op", SliceRole::None}}));
        QCOMPARE(rolesOn("Host Threads/7"), (R{{"cuLaunchKernel", SliceRole::Runtime},
                                               {"ExecutorState::Process", SliceRole::None}}));
    }

    void unsortedInput()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        pb::XLine *l = cpu.line(42, "python", 5);
        cpu.event(l, "child2", 700, 100);
        cpu.event(l, "late", 5000, 10);
        cpu.event(l, "grandchild", 250, 50);
        cpu.event(l, "child1", 200, 300);
        cpu.event(l, "root", 100, 1000);
        auto t = load({write("unsorted.xplane.pb", space)});
        QVERIFY(t);
        QCOMPARE(t->planes[0].kind, PlaneKind::Host);
        const Track *track = trackNamed(*t, "python");
        QVERIFY(track);
        QCOMPARE(track->rows.size(), size_t(3));
        QCOMPARE(rowText(*t, *track, 0), QStringList({"root@5100+1000", "late@10000+10"}));
        QCOMPARE(rowText(*t, *track, 1), QStringList({"child1@5200+300", "child2@5700+100"}));
        QCOMPARE(rowText(*t, *track, 2), QStringList({"grandchild@5250+50"}));
    }

    void aggregatedEvents()
    {
        pb::XSpace space;
        PlaneMaker tpu = addPlane(space, "/device:TPU:0", 0);
        pb::XLine *l = tpu.line(1, "XLA Ops", 0);
        pb::XEvent *agg = l->add_events();
        agg->set_metadata_id(tpu.kind("fusion"));
        agg->set_num_occurrences(3);
        agg->set_duration_ps(900);
        tpu.add(agg->mutable_stats(), "min_duration_ps")->set_int64_value(100);
        tpu.event(l, "copy", 5, 1);
        auto t = load({write("agg.xplane.pb", space)});
        QVERIFY(t);
        const Track *track = trackNamed(*t, "XLA Ops");
        QVERIFY(track);
        QCOMPARE(track->sliceCount, uint64_t(1));
        QCOMPARE(rowText(*t, *track, 0), QStringList({"copy@5+1"}));
        QCOMPARE(track->aggregates.size(), size_t(1));
        const AggregateEvent &a = track->aggregates[0];
        QCOMPARE(t->string(t->kinds[a.kind].name), "fusion");
        QCOMPARE(a.occurrences, int64_t(3));
        QCOMPARE(a.duration, TimePs(900));
        const auto args = argsOf(*t, track->args, a.args);
        QCOMPARE(args.at("min_duration_ps").i, int64_t(100));
        QCOMPARE(t->info.xevents, uint64_t(2));
        QCOMPARE(t->eventCount(), uint64_t(2));
    }

    void statValuesAndRefResolution()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        const int64_t bfc = cpu.stat("GPU_0_bfc"); // a ref_value target, not a stat name
        pb::XLine *l = cpu.line(1, "main", 0);
        pb::XEvent *e = cpu.event(l, "MemoryAllocation", 10, 20);
        cpu.add(e->mutable_stats(), "allocator_name")->set_ref_value(uint64_t(bfc));
        cpu.add(e->mutable_stats(), "bytes_reserved")->set_int64_value(-5);
        cpu.add(e->mutable_stats(), "fragmentation")->set_double_value(0.25);
        cpu.add(e->mutable_stats(), "kernel_details")->set_str_value("regs:8");
        cpu.add(e->mutable_stats(), "payload")->set_bytes_value(std::string("\x01\x00\x02", 3));
        cpu.add(e->mutable_stats(), "addr")->set_uint64_value(~uint64_t(0));
        auto t = load({write("stats.xplane.pb", space)});
        QVERIFY(t);
        const uint32_t ti = trackIndex(*t, "main");
        const SliceRef s{ti, 0, 0};
        std::map<std::string, ArgValue> args;
        t->forEachArg(s, [&](const ArgValue &v) { args[std::string(t->string(v.key))] = v; });
        QCOMPARE(args.size(), size_t(6));
        QCOMPARE(args.at("allocator_name").type, ArgType::StringRef);
        QCOMPARE(t->string(args.at("allocator_name").str), "GPU_0_bfc");
        QCOMPARE(args.at("bytes_reserved").type, ArgType::Int);
        QCOMPARE(args.at("bytes_reserved").i, int64_t(-5));
        QCOMPARE(args.at("fragmentation").type, ArgType::Double);
        QCOMPARE(args.at("fragmentation").d, 0.25);
        QCOMPARE(args.at("kernel_details").type, ArgType::String);
        QCOMPARE(args.at("kernel_details").s, std::string_view("regs:8"));
        QCOMPARE(args.at("payload").type, ArgType::Bytes);
        QCOMPARE(args.at("payload").s, std::string_view("\x01\x00\x02", 3));
        QCOMPARE(args.at("addr").type, ArgType::UInt);
        QCOMPARE(args.at("addr").u, ~uint64_t(0));
        QCOMPARE(t->info.warningCount, uint64_t(0));
    }

    void sideColumnPrecedence()
    {
        pb::XSpace space;
        PlaneMaker tpu = addPlane(space, "/device:TPU:0", 0);
        const int64_t module = tpu.stat("jit_f");
        auto &md = tpu.metadata("fusion.1");
        tpu.add(md.mutable_stats(), "hlo_op")->set_str_value("fusion.1");
        tpu.add(md.mutable_stats(), "hlo_module")->set_ref_value(uint64_t(module));
        tpu.add(md.mutable_stats(), "flops")->set_uint64_value(100);
        tpu.add(md.mutable_stats(), "program_id")->set_int64_value(5);
        tpu.add(md.mutable_stats(), "tf_op")->set_str_value("a/b:MatMul");
        tpu.add(md.mutable_stats(), "tf_op_name")->set_str_value("a/b"); // tf_op wins
        pb::XLine *l = tpu.line(1, "XLA Ops", 0);
        tpu.event(l, "fusion.1", 0, 10);
        pb::XEvent *own = tpu.event(l, "fusion.1", 20, 10);
        tpu.add(own->mutable_stats(), "flops")->set_int64_value(7);
        tpu.add(own->mutable_stats(), "tf_op_name")->set_str_value("x/y");
        tpu.add(own->mutable_stats(), "group_id")->set_int64_value(3);
        tpu.add(own->mutable_stats(), "step_num")->set_uint64_value(11);
        tpu.add(own->mutable_stats(), "correlation_id")->set_uint64_value(77);
        tpu.add(own->mutable_stats(), "bytes_accessed")->set_double_value(4096.0);
        auto t = load({write("side.xplane.pb", space)});
        QVERIFY(t);
        const uint32_t ti = trackIndex(*t, "XLA Ops");
        const SliceRef plain{ti, 0, 0}, withOwn{ti, 0, 1};
        auto str = [&](SliceRef s, SideColumn c) {
            const int64_t v = t->side(s, c);
            return v == kNoValue ? std::string("<none>") : std::string(t->string(StringId(v)));
        };
        // From the metadata.
        QCOMPARE(t->side(plain, SideColumn::Flops), int64_t(100));
        QCOMPARE(t->side(plain, SideColumn::ProgramId), int64_t(5));
        QCOMPARE(str(plain, SideColumn::HloOp), "fusion.1");
        QCOMPARE(str(plain, SideColumn::HloModule), "jit_f");
        QCOMPARE(str(plain, SideColumn::FrameworkOp), "a/b:MatMul");
        QCOMPARE(t->side(plain, SideColumn::GroupId), kNoValue);
        // Per-event values beat the metadata; the rest still comes from it.
        QCOMPARE(t->side(withOwn, SideColumn::Flops), int64_t(7));
        QCOMPARE(str(withOwn, SideColumn::FrameworkOp), "x/y");
        QCOMPARE(t->side(withOwn, SideColumn::GroupId), int64_t(3));
        QCOMPARE(t->side(withOwn, SideColumn::StepNum), int64_t(11));
        QCOMPARE(t->side(withOwn, SideColumn::CorrelationId), int64_t(77));
        QCOMPARE(t->side(withOwn, SideColumn::BytesAccessed), int64_t(4096));
        QCOMPARE(str(withOwn, SideColumn::HloOp), "fusion.1");
        QCOMPARE(t->side(withOwn, SideColumn::ProgramId), int64_t(5));
        // The kind keeps the metadata stats as args too.
        const EventKind &k = t->kind(plain);
        QCOMPARE(t->string(k.name), "fusion.1");
        QCOMPARE(k.side[size_t(SideColumn::Flops)], int64_t(100));
        const auto kindArgs = argsOf(*t, t->metaArgs, k.stats);
        QCOMPARE(kindArgs.size(), size_t(6));
        QCOMPARE(t->string(kindArgs.at("hlo_module").str), "jit_f");
    }

    void flowsFromFlowStat()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        PlaneMaker gpu = addPlane(space, "/device:GPU:0", 0);
        pb::XLine *host = cpu.line(1, "python", 0);
        pb::XLine *stream = gpu.line(2, "Stream #2", 0);
        auto flow = [](PlaneMaker &p, pb::XEvent *e, uint64_t v) {
            p.add(e->mutable_stats(), "flow")->set_uint64_value(v);
        };
        flow(cpu, cpu.event(host, "launch", 0, 100), xflow(42, 2));
        flow(gpu, gpu.event(stream, "kernel", 500, 100), xflow(42, 1));
        // A chain in category 5: out, in+out, in.
        flow(cpu, cpu.event(host, "enqueue", 1000, 10), xflow(7, 2, 5));
        flow(cpu, cpu.event(host, "dispatch", 2000, 10), xflow(7, 3, 5));
        flow(gpu, gpu.event(stream, "run", 3000, 10), xflow(7, 1, 5));
        // No direction: ignored with a warning.
        flow(cpu, cpu.event(host, "odd", 4000, 10), xflow(9, 0));
        auto t = load({write("flows.xplane.pb", space)});
        QVERIFY(t);
        QStringList got;
        for (const Flow &f : t->flows)
            got << QStringLiteral("%1:%2 %3->%4")
                       .arg(QString::fromUtf8(t->string(f.category)))
                       .arg(f.id)
                       .arg(QString::fromUtf8(t->name(f.from)))
                       .arg(QString::fromUtf8(t->name(f.to)));
        got.sort();
        QCOMPARE(got, QStringList({"flow 5:7 dispatch->run", "flow 5:7 enqueue->dispatch",
                                   "flow:42 launch->kernel"}));
        QCOMPARE(t->info.warningCount, uint64_t(1));
        QVERIFY(QString::fromStdString(t->info.warnings.at(0)).contains("flow"));
    }

    void multiHostAlignment()
    {
        auto hostFile = [&](const std::string &file, uint64_t start, const char *hostname) {
            pb::XSpace space;
            if (hostname)
                space.add_hostnames(hostname);
            PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
            cpu.event(cpu.line(1, "main", 100), "step", 7, 1);
            if (start)
                addTaskEnvironment(space, start);
            return write(file, space);
        };
        const std::string a = hostFile("alpha.xplane.pb", kEpochStart, "worker-a:6000");
        const std::string b = hostFile("beta.xplane.pb", kEpochStart + 5000, nullptr);
        auto t = load({a, b});
        QVERIFY(t);
        QCOMPARE(t->info.hosts, (std::vector<std::string>{"worker-a:6000", "beta"}));
        QCOMPARE(t->planes.size(), size_t(4));
        QStringList seen;
        for (const Track &track : t->tracks) {
            if (track.empty())
                continue;
            const Plane &plane = t->planes[track.plane];
            seen << QStringLiteral("%1 %2@%3")
                        .arg(QString::fromUtf8(t->string(plane.host)))
                        .arg(QString::fromUtf8(t->string(plane.name)))
                        .arg(track.rows[0].start[0]);
        }
        // The later host is shifted by its 5000 ns later start.
        QCOMPARE(seen, QStringList({"worker-a:6000 /host:CPU@100007", "beta /host:CPU@5100007"}));
        QCOMPARE(t->info.warningCount, uint64_t(0));

        // Without a start on one host, nothing moves and a warning says so.
        const std::string c = hostFile("gamma.xplane.pb", 0, nullptr);
        auto u = load({a, c});
        QVERIFY(u);
        QCOMPARE(u->tracks[trackIndex(*u, "main")].rows[0].start[0], TimePs(100007));
        QCOMPARE(u->tracks.back().rows[0].start[0], TimePs(100007));
        QCOMPARE(u->info.warningCount, uint64_t(1));
        QVERIFY(QString::fromStdString(u->info.warnings[0]).contains("not aligned"));
    }

    void originAndAbsoluteTimes()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        cpu.event(cpu.line(1, "main", 2), "e", 3, 1);
        addTaskEnvironment(space, 123456);
        auto t = load({write("origin.xplane.pb", space)});
        QVERIFY(t);
        QCOMPARE(t->originPs, TimePs(123456000));
        QCOMPARE(t->tracks[0].rows[0].start[0], TimePs(2003));
        QCOMPARE(t->string(t->planes[1].name), "Task Environment");
        QCOMPARE(t->planes[1].kind, PlaneKind::Other);
        const auto stats = argsOf(*t, t->metaArgs, t->planes[1].stats);
        QCOMPARE(stats.at("profile_start_time").u, uint64_t(123456));

        // A producer that did not normalise: line timestamps are epoch ns. They are rebased onto
        // the profile start, since epoch picoseconds do not fit in 64 bits.
        pb::XSpace absolute;
        PlaneMaker host = addPlane(absolute, "/host:CPU", 1);
        host.event(host.line(1, "main", int64_t(kEpochStart) + 250), "e", 3, 1);
        addTaskEnvironment(absolute, kEpochStart);
        auto a = load({write("absolute.xplane.pb", absolute)});
        QVERIFY(a);
        QCOMPARE(a->tracks[0].rows[0].start[0], TimePs(250003));
    }

    void unknownMetadataIsKept()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        pb::XLine *l = cpu.line(1, "main", 0);
        cpu.event(l, "known", 0, 5);
        pb::XEvent *stray = l->add_events();
        stray->set_metadata_id(999);
        stray->set_offset_ps(10);
        stray->set_duration_ps(5);
        stray->add_stats()->set_metadata_id(555); // no such stat metadata
        auto t = load({write("unknown.xplane.pb", space)});
        QVERIFY(t);
        const Track *track = trackNamed(*t, "main");
        QCOMPARE(rowText(*t, *track, 0), QStringList({"known@0+5", "unknown@10+5"}));
        QCOMPARE(t->eventCount(), uint64_t(2));
        QCOMPARE(t->info.warningCount, uint64_t(2));
    }

    void fieldsInAnyOrderAndUnknownFields()
    {
        // A plane whose stat_metadata precedes its event_metadata, a line whose timestamp follows
        // its events, unknown fields at every level and an unpacked child_id. Concatenated
        // serializations are a protobuf merge, so the generated parser reads the same data.
        pb::XPlane statsFirst;
        PlaneMaker sp{&statsFirst};
        const int64_t flops = sp.stat("flops");
        pb::XPlane rest;
        rest.set_name("/device:GPU:3");
        rest.set_id(3);
        auto &md = (*rest.mutable_event_metadata())[4];
        md.set_id(4);
        md.set_name("gemm");
        md.add_child_id(8);
        md.GetReflection()->MutableUnknownFields(&md)->AddVarint(6, 9); // unpacked child_id
        rest.GetReflection()->MutableUnknownFields(&rest)->AddLengthDelimited(20, "future");

        pb::XLine line;
        line.set_id(5);
        line.set_name("Stream #5");
        pb::XEvent *e = line.add_events();
        e->set_metadata_id(4);
        e->set_offset_ps(30);
        e->set_duration_ps(4);
        pb::XStat *s = e->add_stats();
        s->set_metadata_id(flops);
        s->set_int64_value(12);
        s->GetReflection()->MutableUnknownFields(s)->AddVarint(15, 1);
        e->GetReflection()->MutableUnknownFields(e)->AddFixed32(9, 0xdeadbeef);
        e->GetReflection()->MutableUnknownFields(e)->AddLengthDelimited(12, "x");
        line.GetReflection()->MutableUnknownFields(&line)->AddFixed64(30, 1);
        pb::XLine late;
        late.set_timestamp_ns(2);

        const std::string lineBytes = line.SerializeAsString() + late.SerializeAsString();
        std::string planeBytes = statsFirst.SerializeAsString() + rest.SerializeAsString();
        planeBytes += '\x1a' + varint(lineBytes.size()) + lineBytes; // XPlane.lines
        pb::XPlane merged;
        QVERIFY(merged.ParseFromString(planeBytes));
        QCOMPARE(merged.event_metadata().at(4).child_id_size(), 2);
        std::string spaceBytes = '\x0a' + varint(planeBytes.size()) + planeBytes;
        spaceBytes += std::string("\x48\x01", 2); // XSpace field 9, varint 1
        pb::XSpace check;
        QVERIFY(check.ParseFromString(spaceBytes));
        QCOMPARE(check.planes(0).lines(0).timestamp_ns(), int64_t(2));

        auto t = load({write("order.xplane.pb", spaceBytes)});
        QVERIFY(t);
        const uint32_t ti = trackIndex(*t, "Stream #5");
        QVERIFY(ti != UINT32_MAX);
        QCOMPARE(rowText(*t, t->tracks[ti], 0), QStringList({"gemm@2030+4"}));
        QCOMPARE(t->side(SliceRef{ti, 0, 0}, SideColumn::Flops), int64_t(12));
        QCOMPARE(t->info.warningCount, uint64_t(0));
    }

    void cancelledBeforeStart()
    {
        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        cpu.event(cpu.line(1, "main", 0), "e", 0, 1);
        const std::string path = write("cancel.xplane.pb", space);
        LoadControl control;
        control.requestCancel();
        auto r = readXSpaceFiles({path}, &control, LoadOptions());
        QVERIFY(r.isCancelled());
    }

    void badInput_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        auto row = [](const char *name, const std::string &b, const char *expected) {
            QTest::newRow(name) << QByteArray(b.data(), qsizetype(b.size())) << QString(expected);
        };
        row("empty", "", "is empty");
        row("json", "{\"traceEvents\": [{\"ph\": \"X\"}]}\n", "JSON");
        row("json array", "\n  [ {\"name\": \"a\"} ]", "JSON");
        row("gzip", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8), "gzip");
        row("length of 2 GiB", std::string("\x0a\x80\x80\x80\x80\x08" "abc", 9),
            "truncated or corrupt XSpace protobuf (length past the end");
        row("planes as varint", std::string("\x08\x01", 2), "wrong wire type");
        row("group wire type", std::string("\x0b\x0c", 2), "truncated or corrupt");
        row("only hostnames", std::string("\x22\x01h", 3), "holds no XSpace planes");

        pb::XSpace space;
        PlaneMaker cpu = addPlane(space, "/host:CPU", 1);
        pb::XLine *l = cpu.line(1, "main", 0);
        for (int i = 0; i < 50; ++i)
            cpu.event(l, "e" + std::to_string(i % 7), i * 100, 50);
        const std::string good = space.SerializeAsString();
        row("truncated", good.substr(0, good.size() / 2), "truncated or corrupt XSpace protobuf");

        pb::XEvent *bad = l->add_events();
        bad->GetReflection()->MutableUnknownFields(bad)->AddLengthDelimited(2, "offset?");
        row("event field with wrong wire type", space.SerializeAsString(),
            "wrong wire type for an XEvent integer field");

        std::mt19937 rng(20240531);
        std::string noise(4096, '\0');
        for (char &c : noise)
            c = char(rng());
        row("random bytes", noise, "");
    }

    void badInput()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const std::string path = write(std::string("bad-") + QTest::currentDataTag()
                                           + ".xplane.pb",
                                       bytes.toStdString());
        auto r = readXSpaceFiles({path}, nullptr, LoadOptions());
        QVERIFY(!r.ok());
        QVERIFY(!r.isCancelled());
        const QString message = QString::fromStdString(r.message());
        QVERIFY2(message.startsWith(QString::fromStdString(path) + ": "), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void missingFile()
    {
        const std::string path = m_dir.path().toStdString() + "/absent.xplane.pb";
        auto r = readXSpaceFiles({path}, nullptr, LoadOptions());
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.message()).contains("cannot be opened"));
    }

    void everyPrefixAndMutationIsSafe()
    {
        pb::XSpace space;
        space.add_hostnames("h");
        PlaneMaker gpu = addPlane(space, "/device:GPU:0", 0);
        pb::XLine *l = gpu.line(3, "Stream #3", 10);
        for (int i = 0; i < 6; ++i) {
            pb::XEvent *e = gpu.event(l, "k" + std::to_string(i % 3), i * 10, 5);
            gpu.add(e->mutable_stats(), "flow")->set_uint64_value(xflow(i, 1 + i % 3));
            gpu.add(e->mutable_stats(), "hlo_op")->set_str_value("op");
        }
        addTaskEnvironment(space, 99);
        const std::string good = space.SerializeAsString();
        int failures = 0;
        for (size_t n = 1; n < good.size(); ++n) {
            auto r = readXSpaceFiles({write("prefix.xplane.pb", good.substr(0, n))}, nullptr,
                                     LoadOptions());
            failures += r.ok() ? 0 : 1;
        }
        QVERIFY(failures > int(good.size()) / 2);
        std::mt19937 rng(7);
        for (int round = 0; round < 300; ++round) {
            std::string mutated = good;
            const int flips = 1 + int(rng() % 4);
            for (int k = 0; k < flips; ++k)
                mutated[rng() % mutated.size()] = char(rng());
            auto r = readXSpaceFiles({write("mutated.xplane.pb", mutated)}, nullptr,
                                     LoadOptions());
            if (r.ok())
                QCOMPARE(r.value()->eventCount(), r.value()->info.xevents);
        }
    }

    void realFixtures_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("planes");
        QTest::addColumn<int>("lines");      // -1: not stated in PROVENANCE.md
        QTest::addColumn<int>("events");
        QTest::addColumn<QString>("host");
        // Per plane: "name=lines/events" for the planes PROVENANCE.md details.
        QTest::addColumn<QStringList>("perPlane");
        QTest::newRow("jax08_attention") << "tracelens_jax08_attention" << 11 << -1 << 4380
                                         << "tw003" << QStringList();
        QTest::newRow("jax08_conv") << "tracelens_jax08_conv" << 11 << -1 << 3650 << "tw003"
                                    << QStringList();
        QTest::newRow("jax08_elementwise") << "tracelens_jax08_elementwise" << 11 << -1 << 4623
                                           << "tw003" << QStringList();
        QTest::newRow("jax08_gemm") << "tracelens_jax08_gemm" << 11 << -1 << 3782 << "tw003"
                                    << QStringList();
        QTest::newRow("jax_conv_minimal_legacy")
            << "tracelens_jax_conv_minimal_legacy" << 11 << 22 << 6024 << ""
            << QStringList({"/device:GPU:0=4/53", "/device:GPU:7=1/25", "/host:CPU=17/5946"});
        QTest::newRow("te_fused_attn")
            << "tracelens_te_fused_attn" << 12 << -1 << 1992 << ""
            << QStringList({"/device:GPU:0=1/150", "/host:CPU=2/1842"});
        QTest::newRow("GPU-multi-worker")
            << "xprof_GPU-multi-worker" << 9 << 37 << 23128 << "34.83.195.179:6003"
            << QStringList({"/host:CPU=22/15354", "/device:GPU:1=1/-1", "/device:GPU:4=7/-1",
                            "/device:GPU:6=7/-1"});
        QTest::newRow("tpu_inference_2")
            << "xprof_tpu_inference_2" << 7 << 142 << 26723 << ""
            << QStringList({"/device:TPU:0=5/2317", "/device:TPU:1=5/1712",
                            "/device:TPU:2=5/1712", "/device:TPU:3=5/1712",
                            "/host:CPU=122/19270", "/host:metadata=0/0"});
    }

    void realFixtures()
    {
        QFETCH(QString, dir);
        QFETCH(int, planes);
        QFETCH(int, lines);
        QFETCH(int, events);
        QFETCH(QString, host);
        QFETCH(QStringList, perPlane);
        const std::filesystem::path folder = std::filesystem::path(fixturesDir()) / dir.toStdString();
        if (!std::filesystem::is_directory(folder))
            QSKIP("shared real fixtures (../shared/fixtures/real/xspace) are not present");
        std::vector<std::string> files;
        for (const auto &entry : std::filesystem::directory_iterator(folder))
            if (entry.path().string().ends_with(".xplane.pb"))
                files.push_back(entry.path().string());
        QCOMPARE(files.size(), size_t(1));
        LoadControl control;
        auto r = readXSpaceFiles(files, &control, LoadOptions());
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        const Trace &t = *r.value();
        QCOMPARE(int(t.planes.size()), planes);
        if (lines >= 0)
            QCOMPARE(int(t.info.xlines), lines);
        QCOMPARE(int(t.info.xevents), events);
        QCOMPARE(t.eventCount(), t.info.xevents);
        QCOMPARE(t.tracks.size(), size_t(t.info.xlines));
        QCOMPARE(t.info.hosts.size(), size_t(1));
        QCOMPARE(QString::fromStdString(t.info.hosts[0]),
                 host.isEmpty() ? QString::fromStdString(hostFromXSpacePath(files[0])) : host);
        QCOMPARE(control.done(), control.total());
        for (const QString &spec : perPlane) {
            const QString name = spec.section('=', 0, 0);
            const QString counts = spec.section('=', 1);
            const int wantLines = counts.section('/', 0, 0).toInt();
            const int wantEvents = counts.section('/', 1).toInt();
            const Plane *plane = nullptr;
            for (const Plane &p : t.planes)
                if (QString::fromUtf8(t.string(p.name)) == name)
                    plane = &p;
            QVERIFY2(plane, qPrintable(name));
            uint64_t n = 0;
            for (uint32_t ti : plane->tracks)
                n += t.tracks[ti].eventCount();
            QCOMPARE(int(plane->tracks.size()), wantLines);
            if (wantEvents >= 0)
                QCOMPARE(int(n), wantEvents);
        }
        // Every slice lands in a row sorted by start with no overlap.
        for (const Track &track : t.tracks)
            for (const Row &row : track.rows)
                for (size_t i = 1; i < row.size(); ++i)
                    QVERIFY(row.end(i - 1) <= row.start[i]);
    }

    void everyFixtureFolderIsCovered()
    {
        if (!std::filesystem::is_directory(fixturesDir()))
            QSKIP("shared real fixtures (../shared/fixtures/real/xspace) are not present");
        const QStringList known = {"tracelens_jax08_attention", "tracelens_jax08_conv",
            "tracelens_jax08_elementwise", "tracelens_jax08_gemm", "tracelens_te_fused_attn",
            "tracelens_jax_conv_minimal_legacy", "xprof_GPU-multi-worker", "xprof_tpu_inference_2"};
        for (const auto &entry : std::filesystem::directory_iterator(fixturesDir()))
            QVERIFY2(known.contains(QString::fromStdString(entry.path().filename().string())),
                     qPrintable(QString::fromStdString(entry.path().string())));
    }

    void truncatedRealFixture()
    {
        const auto path = std::filesystem::path(fixturesDir()) / "xprof_GPU-multi-worker"
                          / "34.83.195.179_6003.xplane.pb";
        if (!std::filesystem::exists(path))
            QSKIP("shared real fixtures (../shared/fixtures/real/xspace) are not present");
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        const std::string cut = write("half.xplane.pb", bytes.substr(0, bytes.size() / 2));
        auto r = readXSpaceFiles({cut}, nullptr, LoadOptions());
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.message()).startsWith(QString::fromStdString(cut)));
        QVERIFY(QString::fromStdString(r.message()).contains("truncated or corrupt"));
    }

    void realFixtureDetails()
    {
        const auto path = std::filesystem::path(fixturesDir()) / "xprof_tpu_inference_2"
                          / "tpu_inference_2.xplane.pb";
        if (!std::filesystem::exists(path))
            QSKIP("shared real fixtures (../shared/fixtures/real/xspace) are not present");
        auto r = readXSpaceFiles({path.string()}, nullptr, LoadOptions());
        QVERIFY(r.ok());
        const Trace &t = *r.value();
        int metadata = 0, device = 0;
        for (const Plane &p : t.planes) {
            metadata += p.kind == PlaneKind::Metadata;
            device += p.kind == PlaneKind::Device;
        }
        QCOMPARE(metadata, 1);
        QCOMPARE(device, 4);
        // TPU op metadata: an HLO text name, a display name and shared stats.
        const EventKind *broadcast = nullptr;
        for (const EventKind &k : t.kinds)
            if (t.string(k.displayName) == "broadcast.2"
                && t.string(t.planes[k.plane].name) == "/device:TPU:0")
                broadcast = &k;
        QVERIFY(broadcast);
        QVERIFY(t.string(broadcast->name).starts_with("%broadcast.2 = f32[5,1024,1024,256]"));
        const auto stats = argsOf(t, t.metaArgs, broadcast->stats);
        QCOMPARE(stats.at("hlo_category").s, std::string_view("broadcast"));
    }
};

QTEST_GUILESS_MAIN(TestXSpaceReader)
#include "tst_xspacereader.moc"
