// TPU XLA ops are named by their whole HLO instruction; titles, area summaries and flame graphs
// show the op name, as XProf does. The op name is derived here from the instruction text itself
// (`%<name> = ...`), and the memory_access_breakdown payload is built by hand.

#include "core/analysis/memoryaccess.h"
#include "core/io/traceloader.h"
#include "core/model/kindlabel.h"
#include "core/query/flamegraph.h"
#include "core/query/selectionsummary.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <limits>
#include <set>

using namespace tracedesk::core;

namespace {

const QString kTpu =
    QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb";

// The instruction's name: after '%' (and an optional "ROOT "), up to " = ".
std::string instructionName(std::string_view text)
{
    if (text.starts_with("ROOT "))
        text.remove_prefix(5);
    return std::string(text.substr(1, text.find(" = ") - 1));
}

std::string varint(uint64_t v)
{
    std::string out;
    while (v >= 0x80) {
        out += char(0x80 | (v & 0x7f));
        v >>= 7;
    }
    out += char(v);
    return out;
}

std::string access(uint64_t op, uint64_t space, uint64_t bytes)
{
    const std::string body = "\x08" + varint(op) + "\x10" + varint(space) + "\x18" + varint(bytes);
    return "\x0a" + varint(body.size()) + body;
}

} // namespace

class TestHloNames : public QObject
{
    Q_OBJECT

private slots:
    void recognisesInstructionText()
    {
        QVERIFY(isHloInstructionText("%fusion.3 = f32[8]{0} fusion(f32[8]{0} %p), kind=kLoop"));
        QVERIFY(isHloInstructionText("ROOT %tuple = (f32[]) tuple(%a)"));
        QVERIFY(!isHloInstructionText("fusion.3"));
        QVERIFY(!isHloInstructionText("%"));
        QVERIFY(!isHloInstructionText("% = x"));
        QVERIFY(!isHloInstructionText("%x=y"));
        QVERIFY(!isHloInstructionText("100% = done"));
    }

    void memoryAccessBreakdown()
    {
        const std::string payload = access(2, 1, 5368709120ull) + access(1, 3, 12288);
        const auto decoded = analysis::decodeMemoryAccessBreakdown(payload);
        QVERIFY(decoded);
        QCOMPARE(decoded->size(), size_t(2));
        QCOMPARE((*decoded)[0].bytes, uint64_t(5368709120ull));
        QCOMPARE(analysis::describeMemoryAccess(*decoded),
                 std::string("write HBM 5.0 GiB · read VMEM 12 KiB"));
        QCOMPARE(analysis::describeMemoryAccess({}), std::string("none"));
        QVERIFY(!analysis::decodeMemoryAccessBreakdown(std::string("\x0a\x05\x08", 3)));
        QVERIFY(!analysis::decodeMemoryAccessBreakdown(std::string("\x0d\x00\x00\x00\x00", 5)));
    }

    void tpuOpsShownByName()
    {
        TRACEDESK_REQUIRE_FIXTURE(kTpu);
        auto loaded = loadTrace(kTpu.toStdString());
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        size_t instructions = 0;
        for (const EventKind &kind : trace.kinds) {
            const std::string_view name = trace.string(kind.name);
            if (name.starts_with('%') && name.find(" = ") != std::string_view::npos) {
                ++instructions;
                QVERIFY2(std::string(kindLabel(trace, kind)) == instructionName(name), (std::string(kindLabel(trace, kind)) + " vs " + instructionName(name)).c_str());
            } else {
                QCOMPARE(kindLabel(trace, kind), name);
            }
        }
        QVERIFY(instructions > 10);

        auto noInstructionText = [](std::string_view name) {
            return !(name.starts_with('%') && name.find(" = ") != std::string_view::npos);
        };
        auto graph = buildFlameGraph(trace, FlameScope{});
        QVERIFY(graph);
        for (const std::string &name : graph.value().names)
            QVERIFY2(noInstructionText(name), name.c_str());
        AreaSelection all;
        for (uint32_t t = 0; t < trace.tracks.size(); ++t)
            all.tracks.push_back(t);
        all.t0 = std::numeric_limits<TimePs>::min() / 2;
        all.t1 = std::numeric_limits<TimePs>::max() / 2;
        for (const NameSummary &line : summarizeArea(trace, all))
            QVERIFY2(noInstructionText(sliceLabel(trace.string(line.name))),
                     std::string(trace.string(line.name)).c_str());
    }
};

QTEST_MAIN(TestHloNames)
#include "tst_hlonames.moc"
