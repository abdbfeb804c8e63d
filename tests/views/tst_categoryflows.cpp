// CategoryFlows: the flows of a category crossing a time window, found by binary search, are
// exactly those a walk of every flow finds.

#include "core/model/tracebuilder.h"
#include "views/timeline/categoryflows.h"

#include <QtTest>

#include <random>

using namespace tracedesk;

class TstCategoryFlows : public QObject
{
    Q_OBJECT

private slots:
    void windowsMatchAWalk();
};

void TstCategoryFlows::windowsMatchAWalk()
{
    // Two tracks of 400 slices 10 ps apart; 3000 random flows in two categories, some long.
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("op");
    const uint32_t op = b.addKind(kind);
    const uint32_t plane = b.addPlane("/host:CPU", "h", 1, core::PlaneKind::Host);
    const uint32_t t0 = b.addTrack(plane, "a", 1), t1 = b.addTrack(plane, "b", 2);
    for (int i = 0; i < 400; ++i) {
        b.trackBuilder(t0).addSlice(i * 10, 5, op);
        b.trackBuilder(t1).addSlice(i * 10 + 3, 5, op);
    }
    const core::StringId fwd = b.intern("fwd"), other = b.intern("other");
    core::TracePtr built = b.build();
    std::mt19937 random(9);
    std::vector<core::Flow> flows;
    for (uint64_t id = 0; id < 3000; ++id) {
        const uint32_t from = random() % 400;
        const uint32_t to =
            id % 50 == 0 ? random() % 400 : std::min<uint32_t>(399, from + random() % 4);
        flows.push_back({{t0, 0, from}, {t1, 0, to}, id, id % 3 == 0 ? other : fwd});
    }
    const_cast<core::Trace &>(*built).flows = flows;   // freshly built, not shared yet
    const core::Trace &trace = *built;

    views::CategoryFlows index;
    index.assign(trace, fwd);
    QCOMPARE(index.size(), size_t(2000));
    for (int round = 0; round < 300; ++round) {
        const core::TimePs a = core::TimePs(random() % 4100) - 50;
        const core::TimePs w = core::TimePs(random() % (round % 2 ? 40 : 2000));
        std::vector<uint64_t> walked;
        for (const core::Flow &f : flows) {
            const core::TimePs x = trace.start(f.from), y = trace.start(f.to);
            if (f.category == fwd && std::min(x, y) <= a + w && std::max(x, y) >= a)
                walked.push_back(f.id);
        }
        std::vector<uint64_t> found;
        for (const core::Flow &f : index.inView(a, a + w, 100000))
            found.push_back(f.id);
        std::sort(walked.begin(), walked.end());
        std::sort(found.begin(), found.end());
        QCOMPARE(found, walked);
    }
    // The cap holds.
    QCOMPARE(index.inView(0, 4000, 7).size(), size_t(7));
    index.clear();
    QVERIFY(index.inView(0, 4000, 10).empty());
}

QTEST_APPLESS_MAIN(TstCategoryFlows)
#include "tst_categoryflows.moc"
