// PackedInts and FlowTable: every value comes back as it went in, at the narrowest width; and
// the radix sort the load orders flow endpoints with.

#include "core/base/radixsort.h"
#include "core/model/flowtable.h"
#include "core/model/packedints.h"

#include <QtTest>

#include <functional>
#include <limits>
#include <random>
#include <span>
#include <vector>

using namespace tracedesk::core;

namespace {

// `table` holds the flows of `parts`, one part after the other, each as it went in.
void expectFlowsInOrder(const FlowTable &table, const std::vector<std::vector<Flow>> &parts)
{
    size_t k = 0;
    for (const auto &part : parts) {
        for (const Flow &e : part) {
            const Flow f = table[k++];
            QVERIFY(f.from == e.from && f.to == e.to);
            QCOMPARE(f.id, e.id);
            QCOMPARE(f.category, e.category);
        }
    }
}

} // namespace

class TestPackedInts : public QObject
{
    Q_OBJECT

private slots:
    void widthFollowsTheRange_data();
    void widthFollowsTheRange();
    void randomColumnsRoundTrip();
    void extremesRoundTrip();
    void offsetMovesEveryValueButAbsent();
    void viewMatchesIndexing();
    void adoptChecksTheLayout();
    void flowTableRoundTrips();
    void manyFlowsInPartsRoundTrip();
    void packedPartsConcatenate();
    void putFromMatchesPut();
    void radixSortIsAStableSort();
};

void TestPackedInts::widthFollowsTheRange_data()
{
    QTest::addColumn<qlonglong>("lo");
    QTest::addColumn<qlonglong>("hi");
    QTest::addColumn<uint>("width");
    // The all-ones pattern is reserved for kNoValue, so a range of 255 needs two bytes.
    QTest::newRow("one value") << 5LL << 5LL << 1u;
    QTest::newRow("254 wide") << -100LL << 154LL << 1u;
    QTest::newRow("255 wide") << 0LL << 255LL << 2u;
    QTest::newRow("65534 wide") << 1000000LL << 1065534LL << 2u;
    QTest::newRow("65535 wide") << 0LL << 65535LL << 4u;
    QTest::newRow("2^32 - 2 wide") << 7LL << 7LL + 0xfffffffeLL << 4u;
    QTest::newRow("2^32 - 1 wide") << 0LL << 0xffffffffLL << 8u;
    QTest::newRow("negative") << -(1LL << 40) << -(1LL << 40) + 3 << 1u;
}

void TestPackedInts::widthFollowsTheRange()
{
    QFETCH(qlonglong, lo);
    QFETCH(qlonglong, hi);
    QFETCH(uint, width);
    const PackedInts p{int64_t(lo), kNoValue, int64_t(hi), int64_t(lo)};
    QCOMPARE(p.width(), width);
    QCOMPARE(p.size(), size_t(4));
    QCOMPARE(p[0], int64_t(lo));
    QCOMPARE(p[1], kNoValue);
    QCOMPARE(p[2], int64_t(hi));
    QCOMPARE(p.bytes().size(), size_t(4 * width));
}

void TestPackedInts::randomColumnsRoundTrip()
{
    std::mt19937_64 random(11);
    for (int round = 0; round < 400; ++round) {
        const int64_t base = int64_t(random()) >> (random() % 64);
        const uint64_t span = random() >> (random() % 64);
        const size_t n = random() % 300;
        std::vector<int64_t> values(n);
        for (int64_t &v : values) {
            if (random() % 7 == 0) {
                v = kNoValue;
                continue;
            }
            const uint64_t off = span == 0 ? 0 : random() % span;
            v = int64_t(uint64_t(base) + off);
            if (v == kNoValue)
                v = kNoValue + 1;
        }
        const PackedInts p(values);
        QCOMPARE(p.size(), n);
        QCOMPARE(p.values(), values);
        const std::vector<int64_t> iterated(p.begin(), p.end());
        QCOMPARE(iterated, values);
    }
}

void TestPackedInts::extremesRoundTrip()
{
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const std::vector<int64_t> values{kNoValue + 1, kMax, kNoValue, 0, -1};
    const PackedInts p(values);
    QCOMPARE(p.width(), 8u);
    QCOMPARE(p.values(), values);
    const PackedInts absent{kNoValue, kNoValue};
    QCOMPARE(absent.values(), (std::vector<int64_t>{kNoValue, kNoValue}));
    QVERIFY(PackedInts().empty());
    QCOMPARE(PackedInts().memoryBytes(), size_t(0));
}

void TestPackedInts::offsetMovesEveryValueButAbsent()
{
    PackedInts p{3, kNoValue, 9, 4};
    p.offsetAll(1000);
    QCOMPARE(p.values(), (std::vector<int64_t>{1003, kNoValue, 1009, 1004}));
    p.offsetAll(-2000);
    QCOMPARE(p.values(), (std::vector<int64_t>{-997, kNoValue, -991, -996}));
}

void TestPackedInts::viewMatchesIndexing()
{
    for (int64_t span : {int64_t(10), int64_t(1000), int64_t(1) << 20, int64_t(1) << 40}) {
        std::vector<int64_t> values;
        for (int64_t i = 0; i < 100; ++i)
            values.push_back(5 + i * span / 100);
        const PackedInts p(values);
        p.visit([&](auto view) {
            for (size_t i = 0; i < values.size(); ++i) {
                QCOMPARE(view[i], values[i]);
                QCOMPARE(view.valueAt(i), values[i]);
            }
        });
    }
}

void TestPackedInts::adoptChecksTheLayout()
{
    // The store reader's path: a layout, then the stored bytes as written.
    PackedInts p;
    QVERIFY(!p.setLayout(3, 0, 2));                                   // no such width
    QVERIFY(p.setLayout(2, 100, 2));
    p.mutableBytes() = {1, 0, 0xff, 0xff};
    QCOMPARE(p.values(), (std::vector<int64_t>{101, kNoValue}));
}

void TestPackedInts::flowTableRoundTrips()
{
    std::mt19937_64 random(3);
    std::vector<Flow> flows;
    for (uint32_t i = 0; i < 1000; ++i) {
        Flow f;
        f.from = {uint32_t(random() % 40), uint32_t(random() % 3), uint32_t(random())};
        f.to = {uint32_t(random() % 40), uint32_t(random() % 3), uint32_t(random() % 100000)};
        f.id = i % 5 == 0 ? random() : i;
        f.category = StringId(random() % 9);
        flows.push_back(f);
    }
    const FlowTable table(flows);
    QCOMPARE(table.size(), flows.size());
    size_t k = 0;
    for (const Flow f : table) {
        const Flow &e = flows[k++];
        QVERIFY(f.from == e.from && f.to == e.to);
        QCOMPARE(f.id, e.id);
        QCOMPARE(f.category, e.category);
    }
    QCOMPARE(k, flows.size());
    // touching() finds what a walk of every flow finds.
    for (const SliceRef s : {flows[17].from, flows[400].to, SliceRef{3, 1, 5}}) {
        std::vector<Flow> walked;
        for (const Flow &f : flows) {
            if (f.from == s || f.to == s)
                walked.push_back(f);
        }
        const std::vector<Flow> found = table.touching(s);
        QCOMPARE(found.size(), walked.size());
        for (size_t i = 0; i < found.size(); ++i)
            QVERIFY(found[i].from == walked[i].from && found[i].to == walked[i].to
                    && found[i].id == walked[i].id);
    }
    // Small tracks, rows and categories take a byte each: far below the 40-byte struct.
    QVERIFY(table.memoryBytes() < flows.size() * 30);
}

// Enough flows that the columns pack on several threads, given as uneven parts (one empty).
void TestPackedInts::manyFlowsInPartsRoundTrip()
{
    std::mt19937_64 random(7);
    std::vector<std::vector<Flow>> parts(4);
    const size_t sizes[] = {70000, 0, 1, 90000};
    for (size_t p = 0; p < parts.size(); ++p) {
        for (size_t i = 0; i < sizes[p]; ++i) {
            Flow f;
            f.from = {uint32_t(random() % 300), uint32_t(random() % 7), uint32_t(random())};
            f.to = {uint32_t(random() % 300), uint32_t(random() % 7), uint32_t(random() % 70000)};
            f.id = random();
            f.category = StringId(random() % 1000);
            parts[p].push_back(f);
        }
    }
    // An id with kNoValue's bits comes back as it went in.
    parts[2][0].id = uint64_t(1) << 63;
    FlowTable table;
    table.assign(std::span<const std::vector<Flow>>(parts));
    QCOMPARE(table.size(), size_t(160001));
    expectFlowsInOrder(table, parts);
}

// Parts packed on their own, each at the widths of its own ranges (ids below 256 in one, up to
// 2^40 in another, kNoValue's bits in a third), then joined: every flow as it went in, in part
// order, and columns as narrow as one table made from every flow at once.
void TestPackedInts::packedPartsConcatenate()
{
    std::mt19937_64 random(11);
    std::vector<std::vector<Flow>> flows(5);
    const size_t sizes[] = {70000, 0, 3, 90000, 1};
    const uint64_t idRange[] = {256, 1, uint64_t(1) << 40, 1000, 7};
    for (size_t p = 0; p < flows.size(); ++p) {
        for (size_t i = 0; i < sizes[p]; ++i) {
            Flow f;
            f.from = {uint32_t(random() % (p + 2)), uint32_t(random() % 7),
                      uint32_t(random() % (1000 << p))};
            f.to = {uint32_t(random() % 300), uint32_t(random() % 7), uint32_t(random() % 70000)};
            f.id = 5 + random() % idRange[p];
            f.category = StringId(p * 100 + random() % 50);
            flows[p].push_back(f);
        }
    }
    flows[2][1].id = uint64_t(1) << 63;
    std::vector<FlowTable> parts(flows.size());
    for (size_t p = 0; p < flows.size(); ++p)
        parts[p].assign(flows[p], p % 2 == 0 ? 1 : 0);
    FlowTable joined;
    joined.assign(std::span<const FlowTable>(parts));
    QCOMPARE(joined.size(), size_t(160004));
    expectFlowsInOrder(joined, flows);
    if (QTest::currentTestFailed())
        return;
    FlowTable whole;
    whole.assign(std::span<const std::vector<Flow>>(flows));
    for (int c = 0; c < FlowTable::Count; ++c) {
        QCOMPARE(joined.column(FlowTable::Column(c)).width(),
                 whole.column(FlowTable::Column(c)).width());
        QCOMPARE(joined.column(FlowTable::Column(c)).base(),
                 whole.column(FlowTable::Column(c)).base());
    }
}

// putFrom() stores what put() stores value by value: sources of every width, with absent values,
// into columns of every width whose base is the source's or below it.
void TestPackedInts::putFromMatchesPut()
{
    std::mt19937_64 random(5);
    const int64_t spans[] = {100, 60000, int64_t(1) << 31, int64_t(1) << 40};
    for (int64_t sourceSpan : spans) {
        for (int64_t extra : {int64_t(0), int64_t(3), int64_t(70000), int64_t(1) << 33}) {
            const int64_t lo = -int64_t(random() % 1000);
            std::vector<int64_t> values(777);
            for (size_t i = 0; i < values.size(); ++i)
                values[i] = i % 9 == 0 ? kNoValue : lo + int64_t(random() % uint64_t(sourceSpan));
            const PackedInts source(values);
            // The destination's range holds the source's and `extra` more below it.
            PackedInts byPut, byPutFrom;
            for (PackedInts *p : {&byPut, &byPutFrom})
                p->prepare(1000, lo - extra, lo + sourceSpan);
            for (size_t k = 0; k < 500; ++k)
                byPut.put(100 + k, source[200 + k]);
            byPutFrom.putFrom(100, source, 200, 500);
            QCOMPARE(byPutFrom.width(), byPut.width());
            for (size_t i = 0; i < 1000; ++i)
                QCOMPARE(byPutFrom[i], byPut[i]);
            for (size_t k = 0; k < 500; ++k)
                QCOMPARE(byPutFrom[100 + k], values[200 + k]);
        }
    }
}

// The radix sort used for flow endpoints gives what std::stable_sort gives: keys from a few
// small values (long runs of equal keys), from every 64-bit value, differing only in the top
// bits (the passes over shared low digits are skipped), and, over 65,536 records with three
// digits or more, sorted by the top digit first and then group by group.
void TestPackedInts::radixSortIsAStableSort()
{
    struct Record
    {
        uint64_t key;
        uint32_t arrival;
    };
    std::mt19937_64 random(11);
    // Ids of a large trace's flows: 25 bits, counting up in a few interleaved runs with
    // repeats (spread by their top digit first when there are many).
    uint64_t next = 0;
    const std::vector<std::function<uint64_t()>> keys = {
        [&] { return random() % 5; },
        [&] { return random(); },
        [&] { return (random() % 3) << 61; },
        [&] { return uint64_t(7); },
        [&] { return random() % 4 == 0 ? random() % (1 << 25) : (next += random() % 300); },
        [&] { return (random() % 7) << 40 | random() % (1 << 20); },   // varying bits apart
    };
    for (const auto &key : keys) {
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(1000), size_t(70000),
                         size_t(300000)}) {
            std::vector<Record> records(n);
            for (uint32_t i = 0; i < n; ++i)
                records[i] = {key(), i};
            std::vector<Record> expected = records;
            std::stable_sort(expected.begin(), expected.end(),
                             [](const Record &a, const Record &b) { return a.key < b.key; });
            std::vector<Record> scratch(n);
            radixSortByKey(std::span<Record>(records), std::span<Record>(scratch),
                           [](const Record &r) { return r.key; });
            for (size_t i = 0; i < n; ++i) {
                QCOMPARE(records[i].key, expected[i].key);
                QCOMPARE(records[i].arrival, expected[i].arrival);
            }
        }
    }
}

QTEST_APPLESS_MAIN(TestPackedInts)
#include "tst_packedints.moc"
