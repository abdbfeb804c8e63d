#include "core/base/idtable.h"

#include <QtTest>

#include <unordered_map>

using namespace tracedesk::core;

class TestIdTable : public QObject
{
    Q_OBJECT

private slots:
    void findsEveryKeyThroughGrowthAndCollisions()
    {
        // Keys live outside the table, as a caller's nodes do; ids are their positions. Every
        // key is looked up before it is added and after all are, against a std::unordered_map.
        // A hash that sends 64 keys to each value makes long probe runs.
        for (const bool colliding : {false, true}) {
            std::vector<uint64_t> keys;
            std::unordered_map<uint64_t, uint32_t> expected;
            IdTable table;
            auto hashOf = [&](uint64_t key) {
                return colliding ? size_t(key / 64) : size_t(key * 0x9E3779B97F4A7C15ull);
            };
            for (uint64_t i = 0; i < 20000; ++i) {
                const uint64_t key = (i * 7919) % 50021; // distinct for i < 50021
                size_t slot = 0;
                const uint32_t found = table.find(hashOf(key), [&](uint32_t id) {
                    return keys[id] == key;
                }, &slot);
                QCOMPARE(found, IdTable::kNone);
                const auto id = uint32_t(keys.size());
                keys.push_back(key);
                expected[key] = id;
                table.add(id, slot, [&](uint32_t other) { return hashOf(keys[other]); });
            }
            for (const auto &[key, id] : expected) {
                size_t slot = 0;
                QCOMPARE(table.find(hashOf(key), [&](uint32_t other) {
                    return keys[other] == key;
                }, &slot), id);
            }
            size_t slot = 0;
            QCOMPARE(table.find(hashOf(50021), [&](uint32_t other) {
                return keys[other] == 50021;
            }, &slot), IdTable::kNone);
            table.clear();
            QCOMPARE(table.find(hashOf(keys.front()), [&](uint32_t other) {
                return keys[other] == keys.front();
            }, &slot), IdTable::kNone);
        }
    }
};

QTEST_APPLESS_MAIN(TestIdTable)
#include "tst_idtable.moc"
