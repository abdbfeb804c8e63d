// HLO modules: extraction from `/host:metadata` (a tiny XSpace written here and the real
// fixtures, byte for byte against the sidecar files), sidecar discovery, instruction lookup and
// the extract-hlo command.

#include "core/hlo/hlomodules.h"
#include "core/io/traceloader.h"

#include "hlo.pb.h"
#include "xplane.pb.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tracedesk::core;
using namespace tracedesk::core::hlo;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const fs::path kLegacy = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace"
                         / "tracelens_jax_conv_minimal_legacy";
const fs::path kLegacyHlo = fs::path(TRACEDESK_SHARED_FIXTURES) / "hlo"
                            / "tracelens_jax_conv_minimal_legacy";

fs::path legacyXplane()
{
    for (const auto &e : fs::directory_iterator(kLegacy))
        return e.path();
    return {};
}

TracePtr load(const std::string &path)
{
    LoadOptions o;
    o.useCache = false;
    auto t = loadTrace(path, nullptr, o);
    if (!t.ok())
        qWarning("%s", t.message().c_str());
    return t.ok() ? t.value() : nullptr;
}

xla::HloProto tinyModule(const std::string &name)
{
    xla::HloProto p;
    auto *m = p.mutable_hlo_module();
    m->set_name(name);
    m->set_entry_computation_name("main");
    auto *c = m->add_computations();
    c->set_name("main");
    auto *i = c->add_instructions();
    i->set_name("fusion.1");
    i->set_opcode("fusion");
    i->set_id(7);
    i->mutable_metadata()->set_op_name("jit(f)/mul");
    auto *i2 = c->add_instructions();
    i2->set_name("add.2");
    i2->set_opcode("add");
    i2->set_id(8);
    return p;
}

} // namespace

class TestHloModules : public QObject
{
    Q_OBJECT

private slots:
    void tinyXSpace();
    void legacyFixtureByteIdentical();
    void sidecarsAreMerged();
    void extractCommand();
    void tpuFixture();
};

void TestHloModules::tinyXSpace()
{
    QTemporaryDir dir;
    tensorflow::profiler::XSpace space;
    auto *plane = space.add_planes();
    plane->set_id(1);
    plane->set_name("/host:metadata");
    (*plane->mutable_stat_metadata())[1].set_id(1);
    (*plane->mutable_stat_metadata())[1].set_name("Hlo Proto");
    (*plane->mutable_stat_metadata())[2].set_id(2);
    (*plane->mutable_stat_metadata())[2].set_name("program_id");
    const std::string a = tinyModule("jit_f").SerializeAsString();
    const std::string b = tinyModule("jit_g").SerializeAsString();
    auto &ma = (*plane->mutable_event_metadata())[42];      // program id from the metadata id
    ma.set_id(42);
    ma.set_name("jit_f(42)");
    auto *s = ma.add_stats();
    s->set_metadata_id(1);
    s->set_bytes_value(a);
    auto &mb = (*plane->mutable_event_metadata())[5];       // program id from the stat
    mb.set_id(5);
    mb.set_name("jit_g");
    s = mb.add_stats();
    s->set_metadata_id(1);
    s->set_bytes_value(b);
    s = mb.add_stats();
    s->set_metadata_id(2);
    s->set_int64_value(77);
    auto *host = space.add_planes();                        // readers need one line somewhere
    host->set_id(2);
    host->set_name("/host:CPU");
    (*host->mutable_event_metadata())[1].set_id(1);
    (*host->mutable_event_metadata())[1].set_name("work");
    auto *line = host->add_lines();
    line->set_id(1);
    line->set_name("main");
    auto *ev = line->add_events();
    ev->set_metadata_id(1);
    ev->set_offset_ps(10);
    ev->set_duration_ps(5);
    const std::string path = (dir.path() + "/tiny.xplane.pb").toStdString();
    std::ofstream(path, std::ios::binary) << space.SerializeAsString();

    TracePtr trace = load(path);
    QVERIFY(trace);
    auto modules = extractHloModules(*trace);
    QCOMPARE(modules.size(), size_t(2));
    std::sort(modules.begin(), modules.end(),
              [](const auto &x, const auto &y) { return x.name < y.name; });
    QCOMPARE(modules[0].name, std::string("jit_f"));
    QCOMPARE(modules[0].programId, uint64_t(42));
    QVERIFY(modules[0].bytes == a);
    QCOMPARE(modules[0].fileName(), std::string("jit_f(42).hlo_proto.pb"));
    QCOMPARE(modules[1].name, std::string("jit_g"));
    QCOMPARE(modules[1].programId, uint64_t(77));
    QVERIFY(modules[1].bytes == b);

    HloModuleIndex index(modules);
    QVERIFY(index.errors().empty());
    QVERIFY(index.byName("jit_g(77)"));
    const auto *inst = index.instruction(42, "fusion.1");
    QVERIFY(inst);
    QCOMPARE(inst->opcode(), std::string("fusion"));
    QCOMPARE(inst->metadata().op_name(), std::string("jit(f)/mul"));
    QVERIFY(index.instruction(42, "fusion.1::add.2"));
    QCOMPARE(index.instruction(42, "fusion.1::add.2")->opcode(), std::string("add"));
    QVERIFY(!index.instruction(43, "fusion.1"));
    QVERIFY(!index.instruction(42, "nope"));

    QVERIFY(!parseHloProto(std::string("\xff\xff\xff", 3), "bad").ok());
    QVERIFY(QString::fromStdString(parseHloProto(std::string("\xff\xff\xff", 3), "bad").message())
                .startsWith("bad: "));
}

void TestHloModules::legacyFixtureByteIdentical()
{
    if (!fs::exists(kLegacy))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    TracePtr trace = load(legacyXplane().string());
    QVERIFY(trace);
    const auto modules = extractHloModules(*trace);
    QCOMPARE(modules.size(), size_t(8));
    int matched = 0;
    for (const auto &m : modules) {
        const fs::path expected = kLegacyHlo / m.fileName();
        QVERIFY2(fs::exists(expected), m.fileName().c_str());
        QVERIFY2(readFile(expected) == m.bytes, m.fileName().c_str());
        QVERIFY(parseHloProto(m).ok());
        ++matched;
    }
    QCOMPARE(matched, 8);
    HloModuleIndex index(modules);
    QVERIFY(index.byProgramId(15));
    QCOMPARE(index.byProgramId(15)->entry.name, std::string("jit_forward_3d_conv"));
}

void TestHloModules::sidecarsAreMerged()
{
    if (!fs::exists(kLegacy))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    QTemporaryDir dir;
    const fs::path run(dir.path().toStdString());
    fs::copy_file(legacyXplane(), run / legacyXplane().filename());
    fs::copy_file(kLegacyHlo / "jit__normal(9).hlo_proto.pb", run / "jit__normal(9).hlo_proto.pb");
    // A sidecar that is not embedded is picked up; the marker file is ignored.
    std::ofstream(run / "extra_mod(99).hlo_proto.pb", std::ios::binary)
        << tinyModule("extra_mod").SerializeAsString();
    std::ofstream(run / "NO_MODULE.hlo_proto.pb", std::ios::binary) << "";
    auto files = readHloModuleFiles(run.string());
    QVERIFY(files.ok());
    QCOMPARE(files.value().size(), size_t(2));
    TracePtr trace = load((run / legacyXplane().filename()).string());
    QVERIFY(trace);
    const auto all = hloModulesForTrace(*trace);
    QCOMPARE(all.size(), size_t(9));
    int extra = 0;
    for (const auto &m : all)
        extra += m.displayName() == "extra_mod(99)" ? 1 : 0;
    QCOMPARE(extra, 1);
    QVERIFY(std::is_sorted(all.begin(), all.end(), [](const auto &a, const auto &b) {
        return a.displayName() < b.displayName();
    }));
}

void TestHloModules::extractCommand()
{
    if (!fs::exists(kLegacy))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    QTemporaryDir dir;
    const QString out = dir.path() + "/hlo";
    QProcess p;
    p.start(TRACEDESK_CLI, {"extract-hlo", QString::fromStdString(legacyXplane().string()), out});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    int files = 0;
    for (const auto &e : fs::directory_iterator(kLegacyHlo)) {
        const fs::path written = fs::path(out.toStdString()) / e.path().filename();
        QVERIFY2(fs::exists(written), written.string().c_str());
        QVERIFY(readFile(written) == readFile(e.path()));
        ++files;
    }
    QCOMPARE(files, 8);
    // Second run: everything present, nothing rewritten.
    p.start(TRACEDESK_CLI, {"extract-hlo", QString::fromStdString(legacyXplane().string()), out});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardOutput().contains("0 written, 8 already present"));
    // A different file of the same name is never overwritten.
    const fs::path victim = fs::path(out.toStdString()) / "jit__normal(9).hlo_proto.pb";
    std::ofstream(victim, std::ios::binary | std::ios::trunc) << "mine";
    p.start(TRACEDESK_CLI, {"extract-hlo", QString::fromStdString(legacyXplane().string()), out});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(p.readAllStandardError().contains("not overwritten"));
    QCOMPARE(readFile(victim), std::string("mine"));
}

void TestHloModules::tpuFixture()
{
    const fs::path tpu = fs::path(TRACEDESK_SHARED_FIXTURES) / "xspace" / "xprof_tpu_inference_2"
                         / "tpu_inference_2.xplane.pb";
    if (!fs::exists(tpu))
        QSKIP("shared fixtures not present (TRACEDESK_SHARED_FIXTURES)");
    TracePtr trace = load(tpu.string());
    QVERIFY(trace);
    const auto modules = extractHloModules(*trace);
    std::map<std::string, size_t> sizes;
    for (const auto &m : modules)
        sizes[m.name] = m.bytes.size();
    QCOMPARE(sizes.size(), size_t(4));
    QCOMPARE(sizes["jit_f"], size_t(8194));
    QCOMPARE(sizes["jit__psum"], size_t(2293));
    QCOMPARE(sizes["jit_broadcast_in_dim"], size_t(1425));
    QCOMPARE(sizes["jit_convert_element_type"], size_t(453));
    for (const auto &m : modules) {
        if (m.name == "jit_f")
            QCOMPARE(m.programId, uint64_t(12190760917235803885ull));
    }
}

QTEST_GUILESS_MAIN(TestHloModules)
#include "tst_hlomodules.moc"
