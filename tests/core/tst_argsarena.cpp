// ArgsArena encoding round trips and StringTable interning.

#include "core/model/argsarena.h"
#include "core/model/stringtable.h"

#include <QtTest>

#include <limits>

using namespace tracedesk::core;

class TestArgsArena : public QObject
{
    Q_OBJECT

private slots:
    void roundTripsEveryType()
    {
        ArgsArena arena;
        ArgsArena::Writer w(arena);
        w.addInt(1, -5);
        w.addInt(2, std::numeric_limits<int64_t>::min());
        w.addUInt(3, std::numeric_limits<uint64_t>::max());
        w.addDouble(4, 2.5);
        w.addBool(5, true);
        w.addString(6, "hello");
        w.addStringRef(7, 42);
        w.addBytes(8, std::string_view("\0\1\2", 3));
        const ArgsRef ref = w.finish();
        QVERIFY(ref != kNoArgs);

        std::vector<ArgValue> seen;
        arena.forEach(ref, [&](const ArgValue &v) { seen.push_back(v); });
        QCOMPARE(seen.size(), size_t(8));
        QCOMPARE(seen[0].i, int64_t(-5));
        QCOMPARE(seen[1].i, std::numeric_limits<int64_t>::min());
        QCOMPARE(seen[2].u, std::numeric_limits<uint64_t>::max());
        QCOMPARE(seen[3].d, 2.5);
        QCOMPARE(seen[4].i, int64_t(1));
        QCOMPARE(seen[5].s, std::string_view("hello"));
        QCOMPARE(seen[6].str, StringId(42));
        QCOMPARE(seen[7].s.size(), size_t(3));
        QCOMPARE(seen[6].key, StringId(7));

        ArgValue found;
        QVERIFY(arena.find(ref, 4, &found));
        QCOMPARE(found.asDouble(), 2.5);
        QVERIFY(!arena.find(ref, 99, &found));
    }

    void emptyWriterGivesNoArgs()
    {
        ArgsArena arena;
        ArgsArena::Writer w(arena);
        QCOMPARE(w.finish(), kNoArgs);
        int calls = 0;
        arena.forEach(kNoArgs, [&](const ArgValue &) { ++calls; });
        QCOMPARE(calls, 0);
    }

    void manyRecordsStayIndependent()
    {
        ArgsArena arena;
        std::vector<ArgsRef> refs;
        for (int i = 0; i < 1000; ++i) {
            ArgsArena::Writer w(arena);
            w.addInt(1, i);
            refs.push_back(w.finish());
        }
        for (int i = 0; i < 1000; ++i) {
            ArgValue v;
            QVERIFY(arena.find(refs[i], 1, &v));
            QCOMPARE(v.i, int64_t(i));
        }
    }

    void corruptRefIsIgnored()
    {
        ArgsArena arena;
        int calls = 0;
        arena.forEach(12345, [&](const ArgValue &) { ++calls; });
        QCOMPARE(calls, 0);
    }

    void internsOnce()
    {
        StringTable table;
        QCOMPARE(table.intern(""), kEmptyString);
        const StringId a = table.intern("alpha");
        const StringId b = table.intern("beta");
        QVERIFY(a != b);
        QCOMPARE(table.intern("alpha"), a);
        QCOMPARE(table.view(b), std::string_view("beta"));
        const std::string big(600000, 'x');
        const StringId c = table.intern(big);
        QCOMPARE(table.view(c).size(), big.size());
        QCOMPARE(table.view(a), std::string_view("alpha"));
        StringId found = 0;
        QVERIFY(table.find("beta", &found));
        QCOMPARE(found, b);
        QVERIFY(!table.find("gamma", &found));
    }
};

QTEST_GUILESS_MAIN(TestArgsArena)
#include "tst_argsarena.moc"
