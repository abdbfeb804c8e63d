// GroupedSliceScan (the order behind SQL's GROUP BY name / category): every slice exactly once,
// in the key's byte order and id order within a key, whatever the buffer size (one buffer
// sorted at once, batches made on the producer thread, a key larger than a buffer spread over
// several, split into parts), and a scan dropped part-way stops its producer.

#include "core/generate/generator.h"
#include "core/io/traceloader.h"
#include "core/sql/groupedscan.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <string>
#include <vector>

using namespace tracedesk::core;
using namespace tracedesk::core::sql;

namespace {

struct Expected
{
    std::string key;
    uint32_t span;
    uint32_t index;
};

// The order written out independently: every (span, index) of SliceIds::rows() with its key
// text, stably sorted by the text (byte order), so ties stay in id order.
std::vector<Expected> expectedOrder(const Trace &t, const SliceIds &ids, GroupKey key,
                                    bool descending)
{
    std::vector<Expected> all;
    for (uint32_t s = 0; s < ids.rows().size(); ++s) {
        const Row &row = t.tracks[ids.rows()[s].track].rows[ids.rows()[s].row];
        for (uint32_t i = 0; i < row.size(); ++i) {
            const EventKind &kind = t.kinds[size_t(row.kind[i])];
            all.push_back({std::string(t.string(key == GroupKey::Name ? kind.name
                                                                      : kind.category)),
                           s, i});
        }
    }
    std::stable_sort(all.begin(), all.end(), [&](const Expected &a, const Expected &b) {
        return descending ? b.key < a.key : a.key < b.key;
    });
    return all;
}

} // namespace

class TestGroupedScan : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    TracePtr m_trace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        GeneratorOptions options;
        options.events = 30000;
        const std::string path = m_dir.filePath("g.xplane.pb").toStdString();
        QVERIFY(generateTrace(options, path).ok());
        auto loaded = loadTrace(path);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.message().c_str());
        m_trace = std::move(loaded).value();
    }

    void orderAtEveryBufferSize_data()
    {
        QTest::addColumn<int>("key");
        QTest::addColumn<bool>("descending");
        QTest::addColumn<qulonglong>("bufferLimit");
        QTest::addColumn<int>("parts");
        for (qulonglong limit : {1ull, 97ull, 4096ull, 1ull << 24}) {
            for (int key : {0, 1}) {
                for (bool down : {false, true}) {
                    for (int parts : {1, 2, 3}) {
                        const QByteArray name = QByteArray(key == 0 ? "name" : "category")
                                                + (down ? " desc " : " asc ")
                                                + QByteArray::number(limit) + " parts "
                                                + QByteArray::number(parts);
                        QTest::newRow(name.constData()) << key << down << limit << parts;
                    }
                }
            }
        }
    }

    void orderAtEveryBufferSize()
    {
        QFETCH(int, key);
        QFETCH(bool, descending);
        QFETCH(qulonglong, bufferLimit);
        QFETCH(int, parts);
        const GroupKey k = key == 0 ? GroupKey::Name : GroupKey::Category;
        const SliceIds ids(*m_trace);
        const std::vector<Expected> expected = expectedOrder(*m_trace, ids, k, descending);
        QVERIFY(expected.size() > 20000);
        // The parts one after the other are the whole order, and no key spans two parts.
        size_t n = 0;
        uint32_t span = 0, index = 0;
        for (int part = 0; part < parts; ++part) {
            GroupedSliceScan scan(*m_trace, ids, k, descending,
                                  {uint32_t(part), uint32_t(parts)}, size_t(bufferLimit));
            const size_t partBegin = n;
            while (scan.next(&span, &index)) {
                QVERIFY(n < expected.size());
                if (span != expected[n].span || index != expected[n].index)
                    QFAIL(qPrintable(
                        QString("part %1 position %2: got (%3, %4), expected (%5, %6) of '%7'")
                            .arg(part)
                            .arg(n)
                            .arg(span)
                            .arg(index)
                            .arg(expected[n].span)
                            .arg(expected[n].index)
                            .arg(QString::fromStdString(expected[n].key))));
                ++n;
            }
            QVERIFY(!scan.next(&span, &index)); // stays at its end
            if (n > partBegin && partBegin > 0)
                QVERIFY(expected[partBegin].key != expected[partBegin - 1].key);
        }
        QCOMPARE(n, expected.size());
    }

    // Dropped after a few rows, before the producer is done: no hang, no leak (ASan).
    void droppedPartWay()
    {
        const SliceIds ids(*m_trace);
        for (size_t taken : {size_t(0), size_t(1), size_t(500), size_t(5000)}) {
            GroupedSliceScan scan(*m_trace, ids, GroupKey::Name, false, {}, 64);
            uint32_t span = 0, index = 0;
            for (size_t k = 0; k < taken; ++k)
                QVERIFY(scan.next(&span, &index));
        }
    }

    void emptyTrace()
    {
        Trace empty;
        const SliceIds ids(empty);
        GroupedSliceScan scan(empty, ids, GroupKey::Name, false, {}, 4);
        uint32_t span = 0, index = 0;
        QVERIFY(!scan.next(&span, &index));
    }
};

QTEST_GUILESS_MAIN(TestGroupedScan)
#include "tst_groupedscan.moc"
