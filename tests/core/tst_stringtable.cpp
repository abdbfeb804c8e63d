// StringTable's index against a std::map kept beside it: ids in the order first seen, every
// text found again, absent texts not found, views that stay valid as the index grows.

#include "core/model/stringtable.h"

#include <QtTest>

#include <map>
#include <random>
#include <string>
#include <thread>

using namespace tracedesk::core;

namespace {

// Texts that stress a hash read 8 bytes at a time: lengths around multiples of 8, NUL bytes
// inside and at the end, texts that differ only in their last byte or only in length.
std::string randomText(std::mt19937_64 &random)
{
    static constexpr size_t kLengths[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300};
    const size_t length = random() % 4 == 0 ? kLengths[random() % std::size(kLengths)]
                                            : size_t(random() % 40);
    std::string text(length, '\0');
    const int alphabet = int(random() % 3);   // NULs only, two letters, any byte
    for (char &c : text) {
        c = alphabet == 0   ? (random() % 2 ? '\0' : 'a')
            : alphabet == 1 ? char('a' + random() % 2)
                            : char(random() % 256);
    }
    return text;
}

} // namespace

class TstStringTable : public QObject
{
    Q_OBJECT

private slots:
    void idsInFirstSeenOrder()
    {
        std::mt19937_64 random(7);
        StringTable table;
        std::map<std::string, StringId> reference{{std::string(), kEmptyString}};
        for (int i = 0; i < 200000; ++i) {
            std::string text = randomText(random);
            const auto [it, fresh] = reference.emplace(text, StringId(reference.size()));
            QCOMPARE(table.intern(text), it->second);
            if (fresh)
                QCOMPARE(table.size(), reference.size());
        }
        QCOMPARE(table.size(), reference.size());
        QVERIFY(reference.size() > 50000);   // the index grew many times
        for (const auto &[text, id] : reference) {
            QCOMPARE(table.view(id), std::string_view(text));
            StringId found = kEmptyString;
            QVERIFY(table.find(text, &found));
            QCOMPARE(found, id);
        }
        // Absent texts: one byte changed, one byte more or less.
        int absent = 0;
        for (const auto &[text, id] : reference) {
            for (std::string probe : {text + 'z', text.empty() ? "q" : text.substr(1)}) {
                if (reference.count(probe))
                    continue;
                StringId found = kEmptyString;
                QVERIFY(!table.find(probe, &found));
                ++absent;
            }
        }
        QVERIFY(absent > 50000);
        QCOMPARE(table.size(), reference.size());
    }

    void viewsSurviveGrowth()
    {
        StringTable table;
        const std::string big(600000, 'x');   // past a quarter block: a block of its own
        const StringId first = table.intern("first");
        const StringId large = table.intern(big);
        const std::string_view firstView = table.view(first);
        for (int i = 0; i < 100000; ++i)
            table.intern("name/" + std::to_string(i));
        QCOMPARE(table.view(first).data(), firstView.data());
        QCOMPARE(table.view(first), std::string_view("first"));
        QCOMPARE(table.view(large), std::string_view(big));
        QCOMPARE(table.intern(big), large);
        QCOMPARE(table.intern("name/99999"), StringId(100002));
        QCOMPARE(table.view(StringId(table.size())), std::string_view());
    }

    void sharedInterningAgreesAcrossThreads()
    {
        StringTable table;
        std::vector<std::vector<StringId>> ids(2, std::vector<StringId>(20000));
        std::vector<std::thread> threads;
        for (int t = 0; t < 2; ++t) {
            threads.emplace_back([&, t] {
                // Both threads intern the same texts, in opposite orders.
                for (int i = 0; i < 20000; ++i) {
                    const int k = t == 0 ? i : 19999 - i;
                    ids[size_t(t)][size_t(k)] = table.internShared("op" + std::to_string(k));
                }
            });
        }
        for (std::thread &thread : threads)
            thread.join();
        QCOMPARE(table.size(), size_t(20001));
        for (int k = 0; k < 20000; ++k) {
            QCOMPARE(ids[0][size_t(k)], ids[1][size_t(k)]);
            QCOMPARE(table.view(ids[0][size_t(k)]), std::string_view("op" + std::to_string(k)));
        }
    }
};

QTEST_GUILESS_MAIN(TstStringTable)
#include "tst_stringtable.moc"
