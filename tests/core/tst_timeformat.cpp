// Time texts: durations with an adaptive unit, and timestamps precise to the nanosecond (to the
// picosecond when the store has them), so that neighbouring events read apart.

#include "core/model/timeformat.h"

#include <QtTest>

using namespace tracedesk::core;

class TestTimeFormat : public QObject
{
    Q_OBJECT

private slots:
    void durations()
    {
        QCOMPARE(formatDuration(1500000), std::string("1.50 us"));
        QCOMPARE(formatDuration(999), std::string("999 ps"));
        QCOMPARE(formatDuration(2650000000000, 3), std::string("2.650 s"));
    }

    void timestamps()
    {
        // 1.795421300 s: a kernel 4.1 us long next to its neighbour 1.7954254 s reads apart.
        QCOMPARE(formatTimestamp(1795421300000), std::string("1.795 421 300 s"));
        QCOMPARE(formatTimestamp(1795425400000), std::string("1.795 425 400 s"));
        QCOMPARE(formatTimestamp(0), std::string("0.000 000 000 s"));
        QCOMPARE(formatTimestamp(51170000000000), std::string("51.170 000 000 s"));
        // Picoseconds appear only when the store has them.
        QCOMPARE(formatTimestamp(1234567), std::string("0.000 001 234 567 s"));
        QCOMPARE(formatTimestamp(-1500), std::string("-0.000 000 001 500 s"));
        QCOMPARE(formatTimestamp(INT64_MIN), std::string("-9223372.036 854 775 808 s"));
    }
};

QTEST_GUILESS_MAIN(TestTimeFormat)
#include "tst_timeformat.moc"
