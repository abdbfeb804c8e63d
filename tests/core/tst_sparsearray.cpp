#include "core/base/sparsearray.h"

#include <QtTest>

#include <random>

using namespace tracedesk::core;

class TestSparseArray : public QObject
{
    Q_OBJECT

private slots:
    void readsBackEveryValue()
    {
        // Arrays with 0 to 18 non-zero values at random places, negative ones included: each
        // reads back value by value and whole, and a copy reads the same.
        std::mt19937_64 random(7);
        for (int round = 0; round < 2000; ++round) {
            std::array<int64_t, 18> values{};
            const int nonZero = round % 19;
            for (int k = 0; k < nonZero; ++k)
                values[random() % values.size()] = int64_t(random() % 2001) - 1000;
            const SparseArray<int64_t, 18> sparse(values);
            for (size_t i = 0; i < values.size(); ++i)
                QCOMPARE(sparse[i], values[i]);
            QCOMPARE(sparse.toArray(), values);
            const SparseArray<int64_t, 18> copy = sparse;
            QCOMPARE(copy.toArray(), values);
            QCOMPARE(sparse[18], int64_t(0)); // past the end reads as zero
        }
    }

    void emptyIsZero()
    {
        const SparseArray<int64_t, 5> none;
        QCOMPARE(none.toArray(), (std::array<int64_t, 5>{}));
    }

    void fewValuesStayInline()
    {
        QVERIFY(sizeof(SparseArray<int64_t, 18>) <= 48);
    }
};

QTEST_APPLESS_MAIN(TestSparseArray)
#include "tst_sparsearray.moc"
